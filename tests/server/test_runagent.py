"""cf-lite-runagent against cf-lite-serverd: EXEC with roles, bundles and class selection."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cfpromise.net import keys
from tests.server.helpers import Server, free_port, make_workdir, write_policy

SERVER = """
body common control {{ bundlesequence => {{ "x" }}; }}
body server control {{ allowconnects => {{ "127.0.0.1", "::1" }}; allowallconnects => {{ "127.0.0.1" }};
  trustkeysfrom => {{ "127.0.0.1" }}; allowusers => {{ "{user}" }}; cfruncommand => "{script} {out}"; }}
bundle server x {{
 access:
  "{script}" admit_ips => {{ "127.0.0.1" }};
  "bundle_ok" resource_type => "bundle", admit_ips => {{ "127.0.0.1" }};
 roles:
  "role_.*" authorize => {{ "{user}" }};
}}
"""


@pytest.fixture
def setup(tmp_path: Path):
    import getpass
    os.chmod(tmp_path, 0o755)
    script = tmp_path / "record.sh"
    script.write_text('#!/bin/sh\nout="$1"; shift\necho "$@" > "$out"\necho "args: $@"\nexit 3\n')
    script.chmod(0o755)
    out = tmp_path / "args.txt"
    srv = tmp_path / "srv"
    server_key = make_workdir(str(srv))
    policy = write_policy(str(tmp_path / "s.cf"),
                          SERVER.format(user=getpass.getuser(), script=script, out=out))
    cli = tmp_path / "cli"
    make_workdir(str(cli))
    keys.trust_key(str(cli), server_key.public)
    server = Server(str(srv), policy, free_port())
    try:
        yield server, cli, out
    finally:
        server.stop()


def runagent(server: Server, cli: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(cli))
    return subprocess.run([sys.executable, "-m", "cfpromise.cli.runagent", "-H",
                           f"127.0.0.1:{server.port}", *args], env=env, capture_output=True,
                          text=True, timeout=60)


def test_exec_with_authorised_role_and_bundle(setup) -> None:
    server, cli, out = setup
    done = runagent(server, cli, "-D", "role_a", "--remote-bundles", "bundle_ok")
    assert done.returncode == 3, done.stdout + done.stderr         # the remote agent's exit code
    assert out.read_text() == "-D role_a --bundlesequence bundle_ok\n"
    assert "127.0.0.1> -> args: -D role_a --bundlesequence bundle_ok" in done.stdout
    assert "127.0.0.1> (exit code: 3)" in done.stdout


@pytest.mark.parametrize("args,message", [
    (("-D", "other"), "EXEC denied role activation"),
    (("--remote-bundles", "bundle_no"), "EXEC denied bundle activation"),
    (("-D", "role_a;touch"), "EXEC denied role activation"),
    (("-s", "no_such_class"), "EXEC denied due to failed class match"),
])
def test_refused_runs_run_nothing(setup, args: tuple[str, ...], message: str) -> None:
    server, cli, out = setup
    done = runagent(server, cli, *args)
    assert message in done.stdout and done.returncode == 255, done.stdout + done.stderr
    assert not out.exists()


def test_untrusted_server_key_refused(setup, tmp_path: Path) -> None:
    server, cli, out = setup
    other = tmp_path / "other"
    make_workdir(str(other))
    env = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(other))
    done = subprocess.run([sys.executable, "-m", "cfpromise.cli.runagent", "-H",
                           f"127.0.0.1:{server.port}"], env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 255 and not out.exists()
