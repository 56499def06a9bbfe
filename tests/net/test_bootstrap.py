"""cf-lite-agent --bootstrap against cf-serverd 3.21 on loopback (client role
forced, as every loopback address is this host's own), and as a policy hub."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from cfpromise.net import keys
from tests.files.agentrun import run_agent
from tests.net.serverfix import CF_KEY, CF_SERVERD, CfServerd

MASTER_PROMISES = """
body common control { bundlesequence => { "main" }; }
bundle agent main { reports: "masterfiles policy ran"; }
"""


def _bootstrap(tmp: Path, *args: str) -> tuple[int, str]:
    from cfpromise.cli.agent import main
    import contextlib
    import io
    out = io.StringIO()
    saved = os.environ.pop("CFENGINE_TEST_OVERRIDE_WORKDIR", None)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = main(["-K", "-I", "-w", str(tmp / "work"), *args])
    finally:
        if saved is not None:
            os.environ["CFENGINE_TEST_OVERRIDE_WORKDIR"] = saved
    return code, out.getvalue()


@pytest.mark.skipif(CF_SERVERD is None or CF_KEY is None, reason="needs cf-serverd 3.21")
def test_bootstrap_as_client_pulls_masterfiles(tmp_path, monkeypatch):
    master = tmp_path / "hub-masterfiles"
    (master / "lib").mkdir(parents=True)
    (master / "promises.cf").write_text(MASTER_PROMISES)
    (master / "lib" / "x.cf").write_text("# lib\n")
    (master / ".git").mkdir()
    (master / ".git" / "HEAD").write_text("ref\n")
    modules = tmp_path / "hub-modules"
    modules.mkdir()
    (modules / "mod.py").write_text("# a module\n")
    srv = CfServerd(tmp_path, [], shortcuts={"masterfiles": str(master), "modules": str(modules)})
    try:
        keys.ensure_host_key(str(tmp_path / "work"))
        monkeypatch.setenv("CF_LITE_BOOTSTRAP_ROLE", "client")
        (tmp_path / "work" / "inputs").mkdir(parents=True, exist_ok=True)
        (tmp_path / "work" / "inputs" / "old.cf").write_text("# stale\n")
        code, out = _bootstrap(tmp_path, "--bootstrap", f"127.0.0.1:{srv.port}")
    finally:
        srv.stop()
    work = tmp_path / "work"
    assert code == 0, out
    assert (work / "policy_server.dat").read_text() == f"127.0.0.1:{srv.port}\n"
    assert (work / "inputs" / "promises.cf").read_text() == MASTER_PROMISES
    assert (work / "inputs" / "lib" / "x.cf").exists()
    assert (work / "modules" / "mod.py").exists()
    assert "error" not in out
    assert not (work / "inputs" / ".git").exists()
    assert not (work / "inputs" / "old.cf").exists()
    assert not (work / "state" / "am_policy_hub").exists()
    hub_key = keys.parse_public(srv.public_key.read_bytes())
    assert keys.is_trusted(str(work), hub_key, user=_user())
    assert "R: This autonomous node assumes the role of voluntary client" in out
    assert "R: Updated local policy from policy server" in out
    assert "R: Triggered an initial run of the policy" in out
    assert f"Bootstrap to '127.0.0.1:{srv.port}' completed successfully!" in out
    # sys.policy_hub / policy_hub_port now come from policy_server.dat
    code, out = run_agent(tmp_path, """
bundle agent main { reports: "hub=$(sys.policy_hub) port=$(sys.policy_hub_port)"; }
""")
    assert f"R: hub=127.0.0.1 port={srv.port}" in out, out


def test_bootstrap_as_hub_needs_masterfiles(tmp_path):
    keys.ensure_host_key(str(tmp_path / "work"))
    code, out = _bootstrap(tmp_path, "--bootstrap", "127.0.0.1")
    assert code == 1
    assert "In order to bootstrap as a policy server, the file" in out
    (tmp_path / "work" / "masterfiles").mkdir()
    (tmp_path / "work" / "masterfiles" / "promises.cf").write_text(MASTER_PROMISES)
    code, out = _bootstrap(tmp_path, "--bootstrap", "127.0.0.1", "--skip-bootstrap-policy-run")
    assert code == 0, out
    assert (tmp_path / "work" / "state" / "am_policy_hub").exists()
    assert (tmp_path / "work" / "inputs" / "promises.cf").read_text() == MASTER_PROMISES
    assert "R: This host assumes the role of policy server" in out
    assert "completed successfully" in out


def test_bootstrap_failure_is_undone(tmp_path, monkeypatch):
    keys.ensure_host_key(str(tmp_path / "work"))
    monkeypatch.setenv("CF_LITE_BOOTSTRAP_ROLE", "client")
    code, out = _bootstrap(tmp_path, "--bootstrap", "127.0.0.1:1", "--skip-bootstrap-policy-run")
    assert code == 1
    assert "Bootstrapping failed, no input file at" in out
    assert not (tmp_path / "work" / "policy_server.dat").exists()
    assert "Traceback" not in out


def _user() -> str:
    from cfpromise.net.client import current_user
    return current_user()
