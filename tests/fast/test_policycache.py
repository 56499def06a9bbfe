"""The agent's cache of parsed policy files: used while the file is unchanged, never stale."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from cfpromise.fast import policycache
from cfpromise.fast.policycache import PolicyCache
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
    cached[0].write_bytes(cached[0].read_bytes()[:100])     # a damaged entry is a miss
    proc = agent(tmp_path, POLICY % "again")
    assert reports(proc) == ["again"] and proc.returncode == 0


def test_a_policy_with_errors_is_not_kept(tmp_path: Path) -> None:
    proc = agent(tmp_path, "bundle agent main\n{\n  reports:\n      \"x\" nosuch => \"y\";\n}\n")
    assert "so going to failsafe" in proc.stdout
    cache = PolicyCache(str(tmp_path / "wd" / "state" / "policy_cache"), str(tmp_path / "wd"),
                        lambda level, message: None)
    assert not os.path.exists(cache._file(str(tmp_path / "p.cf"), True))   # the failsafe's only


class _Payload:
    """Unpickling this runs a command: what a planted pickle would do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple:
        return (os.system, (f"touch {self.marker}",))


def _plant(cache: PolicyCache, src: Path, marker: Path, kind: str = "code") -> Path:
    """A cache entry for ``src`` that matches its digests but carries a payload: a pickle
    that runs a command when loaded, or marshalled code that would if it were called."""
    import marshal
    import pickle
    _, digest = cache.get(str(src), True)
    target = Path(cache._file(str(src), True))
    target.parent.mkdir(parents=True, exist_ok=True)
    code = compile(f"open({str(marker)!r}, 'w').close()", "payload", "exec")
    payload = pickle.dumps(_Payload(marker)) if kind == "pickle" else \
        marshal.dumps((code, (code,), (), code))
    target.write_bytes(cache.stamp + digest + payload)
    return target


@pytest.mark.parametrize("kind", ["pickle", "code"])
def test_a_planted_payload_never_runs_even_in_a_trusted_directory(tmp_path: Path,
                                                                   kind: str) -> None:
    src = tmp_path / "p.cf"
    src.write_text(POLICY % "one")
    marker = tmp_path / "payload-ran"
    cache = PolicyCache(str(tmp_path / "wd" / "state" / "policy_cache"), str(tmp_path / "wd"))
    (tmp_path / "wd" / "state").mkdir(parents=True, mode=0o700)
    _plant(cache, src, marker, kind).chmod(0o600)
    assert cache.get(str(src), True)[0] is None             # not a policy tree: a miss
    assert not marker.exists()


def test_entries_of_the_pickle_formats_are_removed_when_the_cache_is_written(
        tmp_path: Path) -> None:
    src = tmp_path / "p.cf"
    src.write_text(POLICY % "one")
    cache = PolicyCache(str(tmp_path / "cache"))
    old = Path(cache._file(str(src), True, ".pickle"))
    old.parent.mkdir()
    old.write_bytes(b"format 2")
    (old.parent / ("ab" * 20 + ".pickle")).write_bytes(b"format 1, another name")
    cache.put(str(src), True, parse_file(str(src)), cache.get(str(src), True)[1])
    assert [p.name for p in old.parent.iterdir()] == [Path(cache._file(str(src), True)).name]


def test_loose_cache_directory_is_set_aside_and_rebuilt(tmp_path: Path) -> None:
    (tmp_path / "wd" / "state").mkdir(parents=True, mode=0o700)
    cache_dir = tmp_path / "wd" / "state" / "policy_cache"
    src = tmp_path / "p.cf"
    src.write_text(POLICY % "planted")
    marker = tmp_path / "payload-ran"
    _plant(PolicyCache(str(cache_dir), str(tmp_path / "wd")), src, marker)
    cache_dir.chmod(0o777)                                   # anyone could have written it
    proc = agent(tmp_path, POLICY % "planted")
    assert reports(proc) == ["planted"] and not marker.exists()
    assert "Policy cache ignored" in proc.stdout + proc.stderr
    assert oct(cache_dir.stat().st_mode & 0o777) == "0o700"  # rebuilt, safe
    assert list(tmp_path.glob("wd/state/policy_cache.untrusted-*"))
    proc = agent(tmp_path, POLICY % "planted")               # the rebuilt cache is used quietly
    assert reports(proc) == ["planted"] and "Policy cache" not in proc.stdout + proc.stderr


def test_loose_state_directory_turns_the_cache_off(tmp_path: Path) -> None:
    state = tmp_path / "wd" / "state"
    state.mkdir(parents=True)
    state.chmod(0o777)
    proc = agent(tmp_path, POLICY % "x")
    assert reports(proc) == ["x"]
    assert "Policy cache not used" in proc.stdout + proc.stderr
    assert not (state / "policy_cache").exists() or not list((state / "policy_cache").iterdir())


def test_cache_file_of_another_owner_is_ignored(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give a file another owner")
    (tmp_path / "wd" / "state" / "policy_cache").mkdir(parents=True, mode=0o700)
    src = tmp_path / "p.cf"
    src.write_text(POLICY % "x")
    cache = PolicyCache(str(tmp_path / "wd" / "state" / "policy_cache"), str(tmp_path / "wd"))
    cache.put(str(src), True, parse_file(str(src)), cache.get(str(src), True)[1])
    entry = Path(cache._file(str(src), True))
    os.chown(entry, 65534, 65534)
    messages: list[str] = []
    fresh = PolicyCache(str(entry.parent), str(tmp_path / "wd"), lambda l, m: messages.append(m))
    assert fresh.get(str(src), True)[0] is None
    assert messages and "owned by uid 65534" in messages[0]


# the speed mechanisms themselves: skipped under CF_LITE_PLAIN=1 (tests/conftest.py)
pytestmark = pytest.mark.fast_path
