"""The agent's cache of parsed policy files: used while the file is unchanged, never stale."""
from __future__ import annotations

import os
from pathlib import Path

from cfpromise.agent import policycache
from cfpromise.agent.policycache import PolicyCache
from cfpromise.syntax.parser import parse_file
from tests.agent.test_agent_run import agent, reports

POLICY = 'bundle agent main\n{\n  reports:\n      "%s";\n}\n'


def test_hit_while_unchanged_miss_when_edited(tmp_path: Path) -> None:
    src = tmp_path / "p.cf"
    src.write_text(POLICY % "one")
    cache = PolicyCache(str(tmp_path / "cache"))
    assert cache.get(str(src), True)[0] is None
    policy = parse_file(str(src))
    _, digest = cache.get(str(src), True)
    cache.put(str(src), True, policy, digest)
    assert cache.get(str(src), True)[0] == policy
    assert cache.get(str(src), False)[0] is None           # entry file and input kept apart
    assert oct(os.stat(cache._file(str(src), True)).st_mode & 0o777) == "0o600"
    src.write_text(POLICY % "two")                          # same size, other content
    assert cache.get(str(src), True)[0] is None


def test_new_parser_code_invalidates(tmp_path: Path) -> None:
    src = tmp_path / "p.cf"
    src.write_text(POLICY % "one")
    cache = PolicyCache(str(tmp_path / "cache"))
    cache.put(str(src), False, parse_file(str(src)), cache.get(str(src), False)[1])
    other = PolicyCache(str(tmp_path / "cache"))
    other._stamp = b"another cf-lite"
    assert other.get(str(src), False)[0] is None
    assert policycache._code_stamp() == cache.stamp


def test_agent_runs_from_the_cache_and_sees_edits(tmp_path: Path) -> None:
    proc = agent(tmp_path, POLICY % "first")
    assert reports(proc) == ["first"]
    cached = list((tmp_path / "wd" / "state" / "policy_cache").iterdir())
    assert len(cached) == 1
    proc = agent(tmp_path, POLICY % "again")               # edited: parsed afresh
    assert reports(proc) == ["again"]
    assert len(list((tmp_path / "wd" / "state" / "policy_cache").iterdir())) == 1
    cached[0].write_bytes(b"not a pickle")                  # a damaged entry is a miss
    proc = agent(tmp_path, POLICY % "again")
    assert reports(proc) == ["again"] and proc.returncode == 0


def test_a_policy_with_errors_is_not_kept(tmp_path: Path) -> None:
    proc = agent(tmp_path, "bundle agent main\n{\n  reports:\n      \"x\" nosuch => \"y\";\n}\n")
    assert proc.returncode != 0
    assert not (tmp_path / "wd" / "state" / "policy_cache").exists() or \
        not list((tmp_path / "wd" / "state" / "policy_cache").iterdir())
