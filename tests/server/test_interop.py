"""CFEngine 3.21's own programs against cf-lite-serverd on loopback: cf-agent copies
(encrypted, digest compare, a denied path), cf-net stats/lists/gets, cf-runagent runs."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.server.helpers import Server, free_port, make_workdir, write_policy

pytestmark = pytest.mark.reference

CF_AGENT, CF_NET, CF_KEY, CF_RUNAGENT = ("/usr/bin/cf-agent", "/usr/bin/cf-net", "/usr/bin/cf-key",
                                         "/usr/bin/cf-runagent")

SERVER = """
body common control {{ bundlesequence => {{ "x" }}; }}
body server control {{ allowconnects => {{ "127.0.0.1", "::1" }}; allowallconnects => {{ "127.0.0.1" }};
  trustkeysfrom => {{ "127.0.0.1" }}; allowusers => {{ "root" }}; cfruncommand => "/bin/echo ran"; }}
bundle server x {{
 access:
  "{pub}/" admit_ips => {{ "127.0.0.1" }};
  "{pub}/denied" deny_ips => {{ "127.0.0.1" }};
  "/bin/echo" admit_ips => {{ "127.0.0.1" }};
 roles:
  "role_.*" authorize => {{ "root" }};
}}
"""

AGENT = """
body common control {{ bundlesequence => {{ "main" }}; }}
bundle agent main {{
 files:
  "{dest}/big" copy_from => rc("{pub}/big"), classes => cl("big");
  "{dest}/denied" copy_from => rc("{pub}/denied"), classes => cl("denied");
  "{dest}/escape" copy_from => rc("{pub}/../secret"), classes => cl("escape");
 reports:
  big_repaired:: "big copied";
  big_kept:: "big kept";
  denied_failed:: "denied refused";
  escape_failed:: "escape refused";
}}
body copy_from rc(f) {{ source => "$(f)"; servers => {{ "127.0.0.1" }}; portnumber => "{port}";
  compare => "digest"; encrypt => "true"; trustkey => "true"; }}
body classes cl(p) {{ promise_repaired => {{ "$(p)_repaired" }}; promise_kept => {{ "$(p)_kept" }};
  repair_failed => {{ "$(p)_failed" }}; }}
"""


@pytest.fixture
def served(tmp_path: Path):
    if not all(os.access(p, os.X_OK) for p in (CF_AGENT, CF_NET, CF_KEY)):
        pytest.skip("needs CFEngine 3.21 (cf-agent, cf-net, cf-key)")
    os.chmod(tmp_path, 0o755)
    pub = tmp_path / "pub"
    pub.mkdir()
    (pub / "big").write_bytes(os.urandom(300_000))
    (pub / "denied").write_text("no")
    (tmp_path / "secret").write_text("s3cret")
    wd = tmp_path / "srvwd"
    make_workdir(str(wd))
    policy = write_policy(str(tmp_path / "s.cf"), SERVER.format(pub=pub))
    client_wd = tmp_path / "cliwd"
    client_wd.mkdir(mode=0o700)
    env = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(client_wd))
    subprocess.run([CF_KEY], env=env, check=True, capture_output=True)
    (client_wd / "bin").mkdir(exist_ok=True)
    os.symlink("/usr/bin/cf-promises", client_wd / "bin" / "cf-promises")
    server = Server(str(wd), policy, free_port())
    try:
        yield tmp_path, pub, server, env
    finally:
        server.stop()


def test_cf_agent_copies_from_cf_lite_serverd(served) -> None:
    tmp, pub, server, env = served
    dest = tmp / "dest"
    policy = write_policy(str(tmp / "a.cf"), AGENT.format(dest=dest, pub=pub, port=server.port))
    first = subprocess.run([CF_AGENT, "-K", "-f", policy], env=env, capture_output=True, text=True,
                           timeout=120)
    out = first.stdout + first.stderr
    assert "R: big copied" in out, out + server.text()
    assert (dest / "big").read_bytes() == (pub / "big").read_bytes()
    assert "R: denied refused" in out and not (dest / "denied").exists()
    assert "R: escape refused" in out and not (dest / "escape").exists()
    second = subprocess.run([CF_AGENT, "-K", "-f", policy], env=env, capture_output=True,
                            text=True, timeout=120)
    out2 = second.stdout + second.stderr
    assert "R: big kept" in out2 and "big copied" not in out2, out2
    assert "Traceback" not in server.text()


def test_cf_net_against_cf_lite_serverd(served) -> None:
    tmp, pub, server, env = served
    host = f"127.0.0.1:{server.port}"

    def net(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([CF_NET, "-H", host, *args], env=env, capture_output=True,
                              text=True, timeout=60, cwd=tmp)
    assert net("connect").returncode == 0
    listing = net("opendir", str(pub))
    assert "big" in listing.stdout.split() and "denied" in listing.stdout.split()
    got = net("get", f"{pub}/big", "-o", str(tmp / "got"))
    assert got.returncode == 0, got.stdout + got.stderr
    assert hashlib.md5((tmp / "got").read_bytes()).digest() == \
        hashlib.md5((pub / "big").read_bytes()).digest()
    refused = net("stat", f"{pub}/denied")
    assert "Could not stat" in refused.stdout and "refusal" in refused.stdout + refused.stderr
    outside = net("stat", "/etc/passwd")
    assert "Could not stat" in outside.stdout + outside.stderr


def test_cf_runagent_against_cf_lite_serverd(served) -> None:
    tmp, pub, server, env = served
    if not os.access(CF_RUNAGENT, os.X_OK):
        pytest.skip("needs cf-runagent 3.21")
    from cfpromise.net import keys
    keys.trust_key(env["CFENGINE_TEST_OVERRIDE_WORKDIR"], keys.load_host_key(str(tmp / "srvwd")).public)
    empty = write_policy(str(tmp / "r.cf"), "body runagent control { }\n")
    host = f"127.0.0.1:{server.port}"
    ok = subprocess.run([CF_RUNAGENT, "-H", host, "-D", "role_a", empty], env=env,
                        capture_output=True, text=True, timeout=60)
    assert "-> ran -D role_a" in ok.stdout and ok.returncode == 0, ok.stdout + ok.stderr
    denied = subprocess.run([CF_RUNAGENT, "-H", host, "-D", "other", empty], env=env,
                            capture_output=True, text=True, timeout=60)
    assert "EXEC denied role activation" in denied.stdout and "-> ran" not in denied.stdout
    lite = shutil.which("cf-lite-runagent", path=os.path.dirname(os.sys.executable))
    if lite:
        mine = subprocess.run([lite, "-H", host, "-D", "role_b", empty], env=env,
                              capture_output=True, text=True, timeout=60)
        assert "-> ran -D role_b" in mine.stdout and mine.returncode == 0, mine.stdout + mine.stderr
