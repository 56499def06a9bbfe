"""cf-lite-runagent's request as cf-serverd 3.21 reads it: the same command line run
(cfruncommand with the classes of -D and the bundles of --remote-bundles), the same
refusals (-s, bundle access, roles) and the same lines printed as cf-runagent 3.21's,
with -n, -b (background children) and -i (trust asked on the terminal) as it has them."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.net.serverfix import CF_SERVERD, CfServerd

CF_RUNAGENT = shutil.which("cf-runagent")
pytestmark = pytest.mark.skipif(not (CF_SERVERD and CF_RUNAGENT),
                                reason="needs cf-serverd and cf-runagent 3.21")

# as CfServerd formats it: {port} is the server's; USER, SCRIPT and OUT are put in here
POLICY = """
body common control {{ bundlesequence => {{ "access" }}; }}
body server control
{{
  port => "{port}";
  allowconnects => {{ "127.0.0.1", "::1" }};
  allowallconnects => {{ "127.0.0.1", "::1" }};
  trustkeysfrom => {{ "127.0.0.1", "::1" }};
  allowusers => {{ "root", "USER" }};
  cfruncommand => "SCRIPT OUT";
}}
bundle server access
{{
  access:
    "SCRIPT" admit_ips => {{ "127.0.0.1" }};
    "bundle_ok" resource_type => "bundle", admit_ips => {{ "127.0.0.1" }};
  roles:
    "role_.*" authorize => {{ "root", "USER" }};
}}
"""

CASES = {
    "classes_and_bundles": ["-D", "role_a", "--remote-bundles", "bundle_ok"],
    "two_bundle_options": ["--remote-bundles", "bundle_ok", "--remote-bundles=bundle_ok"],
    "dry_run": ["-n", "-D", "role_a,role_b"],
    "select_any": ["-s", "any", "-D", "role_a"],
    "select_none": ["-s", "no_such_class"],
    "bundle_denied": ["--remote-bundles", "bundle_no"],
    "role_denied": ["-D", "other"],
    "background": ["-b", "-D", "role_a"],
    "background_refused": ["-b2", "-D", "other"],
    "interactive_known": ["-i", "--remote-bundles", "bundle_ok"],
    "plain": [],
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    import getpass
    tmp = tmp_path_factory.mktemp("runagent_wire")
    os.chmod(tmp, 0o755)
    script = tmp / "record.sh"
    out = tmp / "args.txt"
    script.write_text('#!/bin/sh\nout="$1"; shift\necho "$@" >> "$out"\necho "args: $@"\n'
                      "exit 3\n")
    script.chmod(0o755)
    policy = POLICY.replace("USER", getpass.getuser()).replace("SCRIPT", str(script)).replace(
        "OUT", str(out))
    srv = CfServerd(tmp, [], policy_text=policy)
    try:
        yield srv, tmp, out
    finally:
        srv.stop()


def _run(which: str, server: CfServerd, tmp: Path, out: Path, args: list[str]) -> tuple:
    from cfpromise.net import keys
    from tests.server.helpers import make_workdir
    workdir = tmp / f"{which}-client"
    if not workdir.exists():
        make_workdir(str(workdir))
        server_key = keys.parse_public(server.public_key.read_bytes())
        keys.trust_key(str(workdir), server_key)
    policy = tmp / "runagent.cf"
    policy.write_text(f'body runagent control {{ hosts => {{ "127.0.0.1:{server.port}" }}; }}\n')
    out.unlink(missing_ok=True)
    command = [CF_RUNAGENT] if which == "ref" else [sys.executable, "-m",
                                                    "cfpromise.cli.runagent"]
    done = subprocess.run([*command, "-f", str(policy), *args], capture_output=True, text=True,
                          timeout=60, input="", env=dict(
                              os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(workdir)))
    lines = sorted(re.sub(r"\b\d{2,5}\b", "N", line) if "port" in line else line
                   for line in (done.stdout + done.stderr).splitlines())
    return done.returncode, out.read_text() if out.exists() else None, lines


@pytest.mark.parametrize("name", sorted(CASES))
def test_request_as_cf_runagent(server, name: str) -> None:
    srv, tmp, out = server
    reference = _run("ref", srv, tmp, out, CASES[name])
    ours = _run("lite", srv, tmp, out, CASES[name])
    assert ours == reference
