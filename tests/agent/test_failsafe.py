"""A policy that fails validation: cf-lite-agent falls back to the failsafe as cf-agent 3.21
does (cfpromise.agent.failsafe), side by side with cf-agent where it is installed."""
from __future__ import annotations

import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cfpromise.net import keys
from tests.server.helpers import Server, free_port, make_workdir, write_policy

CF_AGENT = "/usr/bin/cf-agent"
BROKEN = 'bundle agent main { reports: "x" nosuch => "y"; }\n'
GOOD = 'body common control { bundlesequence => { "main" }; }\n' \
       'bundle agent main { reports: "good policy ran"; }\n'
GOING = "CFEngine was not able to get confirmation of promises from cf-promises, so going to " \
        "failsafe"


def _workdir(base: Path, with_keys: bool = True) -> Path:
    wd = base / "wd"
    if with_keys:
        make_workdir(str(wd))
        (wd / "ppkeys").chmod(0o700)              # cf-agent refuses a readable key directory
    else:
        wd.mkdir(mode=0o700)
    return wd


def _policy(base: Path, text: str = BROKEN) -> Path:
    return Path(write_policy(str(base / "p.cf"), text))


def lite(wd: Path, *args: str, stdin: int = subprocess.DEVNULL) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-w", str(wd), *args],
                          capture_output=True, text=True, timeout=120, stdin=stdin,
                          env={k: v for k, v in os.environ.items()
                               if k != "CFENGINE_TEST_OVERRIDE_WORKDIR"})


def reference(wd: Path, *args: str, stdin: int = subprocess.DEVNULL
              ) -> subprocess.CompletedProcess[str]:
    if not os.access(CF_AGENT, os.X_OK):
        pytest.skip("needs cf-agent 3.21")
    (wd / "bin").mkdir(exist_ok=True)
    if not (wd / "bin" / "cf-promises").exists():
        os.symlink("/usr/bin/cf-promises", wd / "bin" / "cf-promises")   # cf-agent validates with it
    return subprocess.run([CF_AGENT, "-K", "-w", str(wd), *args], capture_output=True, text=True,
                          timeout=120, stdin=stdin)


def _lines(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return (proc.stdout + proc.stderr).splitlines()


def test_broken_policy_without_failsafe_runs_the_builtin_one(tmp_path: Path) -> None:
    wd = _workdir(tmp_path)
    proc = lite(wd, "-f", str(_policy(tmp_path)))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "Unknown attribute 'nosuch'" in out                    # the validation error first
    failsafe = wd / "inputs" / "failsafe.cf"
    assert f"   error: {GOING}" in _lines(proc)
    assert f"   error: CFEngine failsafe.cf: {wd}/inputs {failsafe}" in _lines(proc)
    assert "R: Built-in failsafe policy triggered" in _lines(proc)
    assert "No policy server is configured" in out              # nothing to refresh from
    assert "No suitable server found" not in out and "Traceback" not in out
    assert failsafe.stat().st_mode & 0o777 == 0o600
    assert (wd / "inputs" / "cf_promises_release_id").read_text() == \
        '{ releaseId: "failsafe" }\n'
    again = lite(wd, "-f", str(_policy(tmp_path)))              # the written one is reused
    assert again.returncode == 0 and "R: Built-in failsafe policy triggered" in again.stdout


@pytest.mark.parametrize("case", ["no_keys", "keys", "missing_bundle", "own_failsafe"])
def test_same_exit_code_and_messages_as_cf_agent(tmp_path: Path, case: str) -> None:
    runs = {}
    for who, run in (("lite", lite), ("ref", reference)):
        base = tmp_path / who
        base.mkdir()
        wd = _workdir(base, with_keys=case != "no_keys")
        text = BROKEN
        if case == "missing_bundle":
            text = 'body common control { bundlesequence => { "nope" }; }\n' \
                   'bundle agent main { reports: "x"; }\n'
        if case == "own_failsafe":
            (wd / "inputs").mkdir()
            write_policy(str(wd / "inputs" / "failsafe.cf"),
                         'bundle agent main\n{\n  reports:\n      "own failsafe in $(sys.inputdir)";\n'
                         '    failsafe_fallback::\n      "failsafe_fallback defined";\n}\n')
        proc = run(wd, "-f", str(_policy(base, text)))
        runs[who] = (proc, wd)
    for who, (proc, wd) in runs.items():
        lines = _lines(proc)
        assert f"   error: {GOING}" in lines, (who, lines)
        assert f"   error: CFEngine failsafe.cf: {wd}/inputs {wd}/inputs/failsafe.cf" in lines
        assert (wd / "inputs" / "failsafe.cf").exists()
        assert (wd / "inputs" / "cf_promises_release_id").read_text() == \
            '{ releaseId: "failsafe" }\n'
        if case == "no_keys":
            assert any(line.startswith("R: No public/private key pair is loaded") for line in lines)
            assert "  notice: cf-agent aborted on defined class 'no_ppkeys_ABORT_kept'" in lines
        elif case == "own_failsafe":
            assert f"R: own failsafe in {wd}/inputs" in lines, (who, lines)
            assert "R: failsafe_fallback defined" in lines, (who, lines)
        else:
            assert "R: Built-in failsafe policy triggered" in lines, (who, lines)
        if case == "missing_bundle":
            assert "   error: Bundle 'nope' listed in the bundlesequence is not a defined bundle" \
                in lines, (who, lines)
    assert runs["lite"][0].returncode == runs["ref"][0].returncode == \
        (6 if case == "no_keys" else 0)


def test_interactive_session_skips_the_failsafe_as_cf_agent(tmp_path: Path) -> None:
    for who, run in (("lite", lite), ("ref", reference)):
        base = tmp_path / who
        base.mkdir()
        wd = _workdir(base)
        master, slave = pty.openpty()
        try:
            proc = run(wd, "-f", str(_policy(base)), stdin=slave)
        finally:
            os.close(master)
            os.close(slave)
        lines = _lines(proc)
        assert proc.returncode == 1, (who, lines)
        assert "   error: Failsafe condition triggered. Interactive session detected, skipping " \
               "failsafe.cf execution." in lines, (who, lines)
        assert "   error: Error reading CFEngine policy. Exiting..." in lines
        assert not (wd / "inputs" / "failsafe.cf").exists()


def test_group_writable_policy_is_fatal_without_failsafe(tmp_path: Path) -> None:
    """cf-agent refuses a policy file others can write before validating: exit 1."""
    wd = _workdir(tmp_path)
    policy = _policy(tmp_path, GOOD)
    policy.chmod(0o664)
    proc = lite(wd, "-f", str(policy))
    assert proc.returncode == 1
    assert "is writable by others (security exception)" in proc.stdout and GOING not in proc.stdout


SERVER = """
body common control {{ bundlesequence => {{ "x" }}; }}
body server control {{ allowconnects => {{ "127.0.0.1" }}; allowallconnects => {{ "127.0.0.1" }};
  trustkeysfrom => {{ "127.0.0.1" }}; allowusers => {{ "{user}" }}; }}
bundle server x {{
 access:
  "{master}/" admit_ips => {{ "127.0.0.1" }}, shortcut => "masterfiles";
}}
"""


def test_failsafe_refreshes_inputs_from_the_policy_server(tmp_path: Path) -> None:
    """Bootstrapped to a cf-lite-serverd on loopback that serves a good policy: a broken
    local policy makes the built-in failsafe fetch it, and the next run succeeds."""
    import getpass
    os.chmod(tmp_path, 0o755)
    master = tmp_path / "masterfiles"
    (master / "lib").mkdir(parents=True)
    write_policy(str(master / "promises.cf"), GOOD)
    write_policy(str(master / "lib" / "extra.cf"), "# lib\n")
    srv = tmp_path / "srv"
    server_key = make_workdir(str(srv))
    policy = write_policy(str(tmp_path / "s.cf"),
                          SERVER.format(user=getpass.getuser(), master=master))
    wd = _workdir(tmp_path)
    keys.trust_key(str(wd), server_key.public)
    server = Server(str(srv), policy, free_port())
    try:
        (wd / "policy_server.dat").write_text(f"127.0.0.1:{server.port}\n")
        (wd / "inputs").mkdir()
        write_policy(str(wd / "inputs" / "promises.cf"), BROKEN)     # a bad update landed
        proc = lite(wd)
        out = proc.stdout + proc.stderr
        assert proc.returncode == 0, out
        assert GOING in out
        assert "R: Built-in failsafe policy triggered" in out
        assert "R: Updated local policy from policy server" in out, out
        assert "No policy server is configured" not in out
        assert (wd / "inputs" / "promises.cf").read_text() == GOOD
        assert (wd / "inputs" / "lib" / "extra.cf").exists()
        second = lite(wd)
        assert second.returncode == 0, second.stdout + second.stderr
        assert "R: good policy ran" in second.stdout and GOING not in second.stdout + second.stderr
    finally:
        server.stop()
    shutil.rmtree(srv, ignore_errors=True)
