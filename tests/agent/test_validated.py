"""Policy validation markers: release ID, tagging, when the agent re-validates; and
cf-lite-promises -T.  File formats as cf-agent 3.21 / cf-promises -T write them."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

from cfpromise.agent.actionlog import destination_for, write_action_log
from cfpromise.agent.outcome import Outcome
from cfpromise.agent.validated import (
    needs_validation,
    release_id,
    tag_release_directory,
    validated_timestamp,
)


def policy_dir(base: Path) -> Path:
    base.mkdir(parents=True, exist_ok=True)
    (base / "promises.cf").write_text('bundle agent main { reports: "hi"; }\n')  # 37 bytes
    (base / "data.json").write_text("{}\n")                                      # 3 bytes
    (base / "notes").write_text("not a policy file")
    (base / "sub").mkdir(exist_ok=True)
    (base / "sub" / "x.yaml").write_text("a: 1\n")                               # 5 bytes
    (base / "promises.cf").chmod(0o600)
    return base


def test_release_id_is_cf_agents_zero_digest_or_the_git_head(tmp_path: Path) -> None:
    d = policy_dir(tmp_path / "p")
    assert release_id(str(d)) == hashlib.sha1(bytes(37 + 3 + 5)).hexdigest()
    (d / ".git" / "refs" / "heads").mkdir(parents=True)
    (d / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (d / ".git" / "refs" / "heads" / "main").write_text("a" * 40 + "\n")
    assert release_id(str(d)) == "a" * 40


def test_tagging_writes_both_files_as_cf_agent_does(tmp_path: Path) -> None:
    d = policy_dir(tmp_path / "p")
    assert tag_release_directory(str(d), write_validated=True, write_release=True)
    validated = (d / "cf_promises_validated").read_text()
    assert validated.startswith('{\n  "timestamp": ') and validated.endswith("\n}")
    assert (d / "cf_promises_release_id").read_text() == \
        '{\n  "releaseId": "%s"\n}' % hashlib.sha1(bytes(45)).hexdigest()
    assert oct((d / "cf_promises_validated").stat().st_mode & 0o777) == "0o600"
    # an existing release ID is kept (no git to compare with)
    (d / "cf_promises_release_id").write_text('{"releaseId": "old",}')
    tag_release_directory(str(d), write_validated=False, write_release=True)
    assert "old" in (d / "cf_promises_release_id").read_text()


def test_validated_timestamp_reads_lenient_json(tmp_path: Path) -> None:
    path = tmp_path / "v"
    assert validated_timestamp(str(path)) == 0
    path.write_text('{\n "timestamp": 1234,\n}\n')
    assert validated_timestamp(str(path)) == 1234


def test_needs_validation(tmp_path: Path) -> None:
    wd = tmp_path / "wd"
    inputs = policy_dir(wd / "inputs")
    validated = wd / "masterfiles" / "cf_promises_validated"
    assert needs_validation(str(wd), str(inputs / "promises.cf"), str(validated))
    assert needs_validation(str(wd), str(tmp_path / "elsewhere.cf"), str(validated))
    validated.parent.mkdir()
    past = time.time() - 100
    for root, dirs, files in os.walk(inputs):
        for name in dirs + files + ["."]:
            os.utime(os.path.join(root, name), (past, past))
    validated.write_text('{"timestamp": %d}' % int(time.time()))
    assert not needs_validation(str(wd), str(inputs / "promises.cf"), str(validated))
    (inputs / "new.cf").write_text("")
    assert needs_validation(str(wd), str(inputs / "promises.cf"), str(validated))


def test_cf_lite_promises_tags_a_directory(tmp_path: Path) -> None:
    d = policy_dir(tmp_path / "p")
    proc = subprocess.run([sys.executable, "-m", "cfpromise.cli.promises", "-T", str(d),
                           "-D", "AUTO", "-w", str(tmp_path / "wd")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert (d / "cf_promises_validated").exists() and (d / "cf_promises_release_id").exists()


def test_action_log_destinations(tmp_path: Path) -> None:
    action = {"log_kept": "stdout", "log_failed": str(tmp_path / "f.log"), "log_string": "s"}
    assert destination_for(action, Outcome.KEPT) == "stdout"
    assert destination_for(action, Outcome.REPAIRED) is None
    assert destination_for(action, Outcome.WARN) is None      # (DoSummarizeTransaction)
    assert destination_for(action, Outcome.TIMEOUT) == str(tmp_path / "f.log")
    lines: list[tuple[str, str]] = []
    write_action_log(action, Outcome.KEPT, lambda level, message: lines.append((level, message)))
    write_action_log(action, Outcome.DENIED, lambda level, message: None)
    write_action_log(action, Outcome.WARN, lambda level, message: None)
    write_action_log(dict(action, log_string=None), Outcome.FAILED, lambda l, m: None)
    assert lines == [("info", "L: s")]
    assert (tmp_path / "f.log").read_text() == "s\n"


# -- when the agent validates: cf-promises' promise-locking warnings (cfpromise.agent.lockwarn)
_LOCKING_POLICY = """bundle agent main
{
  vars:
    "v" string => "x", action => elapsed("5");
  reports:
    "v=$(v)";
}
body action elapsed(n) { ifelapsed => "$(n)"; }
"""
_LOCKING_LINE = (" warning: ifelapsed attribute specified in action body for vars promise 'v', "
                 "but vars promises do not support promise locking")


def _agent(workdir: Path, *args: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "CFENGINE_TEST_OVERRIDE_WORKDIR"}
    run = subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", *args,
                          "-w", str(workdir)], capture_output=True, text=True, timeout=120,
                         env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout.splitlines()


def test_locking_warnings_only_when_the_agent_validates(tmp_path: Path) -> None:
    wd = tmp_path / "wd"
    (wd / "inputs").mkdir(parents=True)
    policy = wd / "inputs" / "promises.cf"
    policy.write_text(_LOCKING_POLICY)
    policy.chmod(0o600)
    old = time.time() - 100                 # written well before the first validation
    os.utime(policy, (old, old))
    os.utime(wd / "inputs", (old, old))
    # without -f: validated once (cf-promises' two rounds say it twice), then not again
    assert _agent(wd).count(_LOCKING_LINE) == 2
    assert (wd / "masterfiles" / "cf_promises_validated").exists()
    second = _agent(wd)
    assert _LOCKING_LINE not in second and "R: v=x" in second
    # -f, even naming that very file: cf-agent 3.21 reads state/validated_<-f> (never
    # written), so it validates at every run
    for _ in range(2):
        assert _agent(wd, "-f", str(policy)).count(_LOCKING_LINE) == 2
    assert not (wd / "state" / ("validated_" + str(policy).replace("/", "_").replace(".", "_"))).exists()


def test_cf_lite_promises_says_the_locking_warnings(tmp_path: Path) -> None:
    policy = tmp_path / "p.cf"
    policy.write_text(_LOCKING_POLICY.replace('bundle agent main', 'bundle common main'))
    policy.chmod(0o600)
    run = subprocess.run([sys.executable, "-m", "cfpromise.cli.promises", "-f", str(policy),
                          "-w", str(tmp_path / "wd")], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    # a common bundle: its vars twice per round, two rounds
    assert run.stdout.splitlines().count(_LOCKING_LINE) == 4
