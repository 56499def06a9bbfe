"""Issue #27, end to end: a client connecting FROM 127.0.0.12 to a server whose rules
name 127.0.0.1 only, for every kind of address rule, against cf-lite-serverd AND
cf-serverd 3.21 (the same test: it proves the behaviour is 3.21's).

Clients: cf-agent 3.21 and cf-lite-agent, both with ``body agent control
bindtointerface => "127.0.0.12"``; cf-lite's client library where a held connection
or another user is needed.  Each case also runs from 127.0.0.1 -- the address the
rule names -- so a refusal cannot come from a broken set-up.

  rule kind            from 127.0.0.12            from 127.0.0.1
  admit_ips            refused                    copied
  deny_ips             copied (denies .1 only)    refused
  allowconnects        refused                    copied
  denyconnects         copied                     refused
  allowallconnects     second connection refused  second connection admitted
  trustkeysfrom        untrusted key refused      key trusted, copied
  allowlegacyconnects  classic protocol refused   classic copy
  maproot              root-only file refused     root-only file served (classic)
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from cfpromise.net import keys
from tests.server.helpers import Server, free_port, make_workdir, write_policy

pytestmark = pytest.mark.reference

CF_AGENT, CF_KEY, CF_PROMISES, CF_SERVERD = ("/usr/bin/cf-agent", "/usr/bin/cf-key",
                                             "/usr/bin/cf-promises", "/usr/bin/cf-serverd")
LITE_AGENT = shutil.which("cf-lite-agent", path=os.path.dirname(sys.executable))
NAMED, OTHER = "127.0.0.1", "127.0.0.12"
ALL = '"127.0.0.0/8"'

SERVER = """
body common control {{ bundlesequence => {{ "x" }}; }}
body server control {{
  port => "{port}";
{control}
  allowusers => {{ "root" }};
}}
bundle server x {{
 access:
  "{pub}/" {access};
}}
"""

AGENT = """
body agent control {{ bindtointerface => "{src}"; }}
bundle agent main {{
 files:
  "{dest}" copy_from => rc("{pub}/f"), classes => cl;
 reports:
  copied:: "copy done";
  failed:: "copy failed";
}}
body copy_from rc(f) {{ source => "$(f)"; servers => {{ "127.0.0.1" }}; portnumber => "{port}";
  trustkey => "true"; compare => "digest"; protocol_version => "{proto}"; }}
body classes cl {{ promise_repaired => {{ "copied" }}; repair_failed => {{ "failed" }}; }}
"""

# kind -> (body server control lines, access attributes, protocol)
CASES = {
    "admit_ips": ("", 'admit_ips => { "127.0.0.1" }', "latest"),
    "deny_ips": ("", 'admit_ips => { ' + ALL + ' }, deny_ips => { "127.0.0.1" }', "latest"),
    "allowconnects": ('  allowconnects => { "127.0.0.1" };', "admit_ips => { " + ALL + " }",
                      "latest"),
    "denyconnects": ('  denyconnects => { "127.0.0.1" };', "admit_ips => { " + ALL + " }",
                     "latest"),
    "trustkeysfrom": ('  trustkeysfrom => { "127.0.0.1" };', "admit_ips => { " + ALL + " }",
                      "latest"),
    "allowlegacyconnects": ('  allowlegacyconnects => { "127.0.0.1" };',
                            "admit_ips => { " + ALL + " }", "classic"),
}
# from 127.0.0.12 / from 127.0.0.1: is the copy made?
EXPECTED = {
    "admit_ips": (False, True), "deny_ips": (True, False), "allowconnects": (False, True),
    "denyconnects": (True, False), "trustkeysfrom": (False, True),
    "allowlegacyconnects": (False, True),
}
IMPLEMENTATIONS = ["cf-lite", "cf-serverd-3.21"]


def _needs(impl: str) -> None:
    if not all(os.access(p, os.X_OK) for p in (CF_AGENT, CF_KEY, CF_PROMISES)):
        pytest.skip("needs CFEngine 3.21 (cf-agent, cf-key, cf-promises)")
    if impl == "cf-serverd-3.21" and not os.access(CF_SERVERD, os.X_OK):
        pytest.skip("needs cf-serverd 3.21")
    try:
        with socket.socket() as s:
            s.bind((OTHER, 0))
    except OSError:
        pytest.skip(f"cannot bind a socket to {OTHER} (loopback is not 127.0.0.0/8 here)")


class Reference:
    """cf-serverd 3.21 in its own work directory, on ``port`` (from the policy)."""

    def __init__(self, workdir: Path, policy: str, port: int) -> None:
        self.port = port
        (workdir / "bin").mkdir(exist_ok=True)
        if not (workdir / "bin" / "cf-promises").exists():
            os.symlink(CF_PROMISES, workdir / "bin" / "cf-promises")
        self.log_path = workdir / "serverd.log"
        self.log = open(self.log_path, "w")
        env = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(workdir))
        self.proc = subprocess.Popen([CF_SERVERD, "-F", "-v", "-f", policy], env=env,
                                     stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                time.sleep(0.3)          # cf-serverd counts that probe as a connection
                return
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("cf-serverd did not start:\n" + self.text())

    def text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        return self.proc.returncode


_KEY_FILES: dict[str, bytes] = {}


def _client_keys(workdir: Path, env: dict[str, str]) -> None:
    """The client's key pair, made by cf-key 3.21 once per test run."""
    ppkeys = workdir / "ppkeys"
    if not _KEY_FILES:
        subprocess.run([CF_KEY], env=env, check=True, capture_output=True)
        for name in ("localhost.priv", "localhost.pub"):
            _KEY_FILES[name] = (ppkeys / name).read_bytes()
        return
    ppkeys.mkdir(mode=0o700, exist_ok=True)
    for name, data in _KEY_FILES.items():
        (ppkeys / name).write_bytes(data)
        os.chmod(ppkeys / name, 0o600)


class World:
    """A server (either implementation) with a file to copy, and a client work dir."""

    def __init__(self, tmp: Path, impl: str, control: str, access: str,
                 trust_client: bool = True, client_user: str = "root") -> None:
        self.tmp = tmp
        tmp.mkdir(parents=True, exist_ok=True)
        os.chmod(tmp, 0o755)
        self.pub = tmp / "pub"
        self.pub.mkdir()
        (self.pub / "f").write_text("payload\n")
        self.client_wd = tmp / "cliwd"
        self.client_wd.mkdir(mode=0o700)
        self.env = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(self.client_wd))
        _client_keys(self.client_wd, self.env)
        (self.client_wd / "bin").mkdir(exist_ok=True)
        os.symlink(CF_PROMISES, self.client_wd / "bin" / "cf-promises")
        server_wd = tmp / "srvwd"
        make_workdir(str(server_wd))
        os.chmod(server_wd / "ppkeys", 0o700)
        if trust_client:
            keys.trust_key(str(server_wd), keys.load_host_key(str(self.client_wd)).public,
                           client_user)
        for attempt in range(5):         # a free port can be taken before the server binds it
            self.port = free_port()
            policy = write_policy(str(tmp / "server.cf"), SERVER.format(
                port=self.port, control=control, pub=self.pub, access=access))
            try:
                if impl == "cf-lite":
                    self.server: Server | Reference = Server(str(server_wd), policy, self.port)
                else:
                    self.server = Reference(server_wd, policy, self.port)
                break
            except RuntimeError as err:
                if attempt == 4 or ("in use" not in str(err) and "bind" not in str(err)):
                    raise

    def copy(self, agent: str, src: str, proto: str = "latest") -> bool:
        """One agent run copying pub/f from ``src``: was the file copied?"""
        dest = self.tmp / f"dest-{uuid.uuid4().hex}"
        policy = write_policy(str(self.tmp / f"agent-{uuid.uuid4().hex}.cf"), AGENT.format(
            src=src, dest=dest, pub=self.pub, port=self.port, proto=proto))
        run = subprocess.run([agent, "-K", "-f", policy], env=self.env, capture_output=True,
                             text=True, timeout=120)
        out = run.stdout + run.stderr
        done = dest.exists() and dest.read_text() == "payload\n"
        assert done == ("R: copy done" in out), out
        assert done != ("R: copy failed" in out), out
        return done

    def hold(self, src: str, username: str = "root"):
        """An identified connection from ``src`` (cf-lite's client), kept open."""
        from cfpromise.net import client
        return client.connect("127.0.0.1", client.ConnectOptions(
            workdir=str(self.client_wd), port=self.port, trust=True, timeout=10,
            bind_address=src, username=username))

    def stop(self) -> str:
        self.server.stop()
        return self.server.text()


def agents() -> list[str]:
    found = [CF_AGENT]
    if LITE_AGENT:
        found.append(LITE_AGENT)
    return found


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("kind", sorted(CASES))
def test_rule_naming_127_0_0_1_does_not_name_127_0_0_12(tmp_path: Path, impl: str,
                                                         kind: str) -> None:
    _needs(impl)
    control, access, proto = CASES[kind]
    world = World(tmp_path, impl, control, access, trust_client=kind != "trustkeysfrom")
    try:
        other, named = EXPECTED[kind]
        for agent in agents():
            assert world.copy(agent, OTHER, proto) is other, (agent, kind, world.server.text())
        assert world.copy(CF_AGENT, NAMED, proto) is named, (kind, world.server.text())
    finally:
        log = world.stop()
    assert "Traceback" not in log


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_allowallconnects_names_one_address(tmp_path: Path, impl: str) -> None:
    """allowallconnects => { "127.0.0.1" }: a second simultaneous connection from
    127.0.0.12 is refused, one from 127.0.0.1 is admitted."""
    _needs(impl)
    world = World(tmp_path, impl, '  allowallconnects => { "127.0.0.1" };',
                  "admit_ips => { " + ALL + " }")
    try:
        held = world.hold(OTHER)
        try:
            for agent in agents():
                assert not world.copy(agent, OTHER), (agent, world.server.text())
        finally:
            held.close()
        held = world.hold(NAMED)
        try:
            assert world.copy(CF_AGENT, NAMED), world.server.text()
        finally:
            held.close()
    finally:
        log = world.stop()
    assert "Traceback" not in log


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_maproot_names_one_address(tmp_path: Path, impl: str) -> None:
    """maproot => { "127.0.0.1" }: a file only root may read is served to a non-root
    user connecting from 127.0.0.1 (classic protocol, where 3.21 applies maproot),
    never to one from 127.0.0.12."""
    _needs(impl)
    world = World(tmp_path, impl, '  allowlegacyconnects => { ' + ALL + ' };',
                  "admit_ips => { " + ALL + ' }, maproot => { "127.0.0.1" }',
                  client_user="nobody")
    secret = world.pub / "secret"
    secret.write_text("root only\n")
    os.chmod(secret, 0o600)
    from cfpromise.net import client
    from cfpromise.net import protocol as P

    def fetch(src: str) -> bytes | None:
        """What a GET of the root-only file brings (a refusal brings no content)."""
        opts = client.ConnectOptions(workdir=str(world.client_wd), port=world.port, trust=True,
                                     timeout=10, bind_address=src, username="nobody",
                                     version=P.Version.CLASSIC)
        conn = client.connect("127.0.0.1", opts)
        try:
            st = conn.stat(str(secret))
            data = bytearray()
            conn.get(str(secret), st.size, data.extend)
            return bytes(data)
        except client.NetError:
            return None
        finally:
            conn.close()
    try:
        assert fetch(OTHER) != b"root only\n", world.server.text()
        assert fetch(NAMED) == b"root only\n", world.server.text()
    finally:
        log = world.stop()
    assert "Traceback" not in log


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_maproot_is_classic_only(tmp_path: Path, impl: str) -> None:
    """3.21 sets maproot in the classic protocol only (server_classic.c): over TLS a
    non-root user gets a root-only file from no address, maproot or not."""
    _needs(impl)
    world = World(tmp_path, impl, "", "admit_ips => { " + ALL + ' }, maproot => { "127.0.0.1" }',
                  client_user="nobody")
    secret = world.pub / "secret"
    secret.write_text("root only\n")
    os.chmod(secret, 0o600)
    from cfpromise.net import client
    try:
        for src in (NAMED, OTHER):
            conn = world.hold(src, username="nobody")
            try:
                public = conn.stat(str(world.pub / "f"))
                got = bytearray()
                conn.get(str(world.pub / "f"), public.size, got.extend)
                assert bytes(got) == b"payload\n"          # the set-up works
                st = conn.stat(str(secret))
                data = bytearray()
                try:
                    conn.get(str(secret), st.size, data.extend)
                except client.NetError:
                    pass
                assert bytes(data) != b"root only\n", (src, world.server.text())
            finally:
                conn.close()
    finally:
        log = world.stop()
    assert "Traceback" not in log


# Rules tried from 127.0.0.12: (rule, admitted as an access rule's admit_ips, admitted
# by allowconnects).  The running servers settle both columns; address_matches must
# agree with them.
ROWS = [
    ("127.0.0.1", False, False),
    ("127.0.0", True, True),
    ("127.0.0.", False, False),
    ("127.0.0.0/28", True, True),
    ("127.0.0.0/29", False, False),
    ("127.0.0.10-20", True, True),
    ("127.0.0.1-5", False, False),
    ("127.0.0.1[0-9]", True, True),
    ("127.0.0.*", True, True),
    ("127.0.0.1.", True, False),            # a regex only where 3.21 always tries one
    ("(127.0.0.12|10.0.0.1)", True, True),
    ("127.0.0.1|127.0.0.12", False, False),  # PCRE's first match is not the whole address
    ("127.0.0.12|127.0.0.1", True, False),
    ("[", False, False),
]


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_rule_table_against_running_servers(tmp_path: Path, impl: str) -> None:
    _needs(impl)
    from cfpromise.net import client
    from cfpromise.server.acl import address_matches
    for rule, access, control in ROWS:
        assert address_matches(rule, OTHER, "always") is access, rule
        assert address_matches(rule, OTHER, "if_regex") is control, rule
    # access column: one directory per rule, one server
    dirs = [f"r{i}" for i in range(len(ROWS))]
    pub = tmp_path / "access" / "pub"
    rules = "\n".join(f'  "{pub}/{d}/" admit_ips => {{ "{r}" }};'
                      for d, (r, _, _) in zip(dirs, ROWS))
    world = World(tmp_path / "access", impl, "", 'admit_ips => { "10.9.9.9" };\n'
                  + rules.rstrip(";"))     # the template ends the last promise
    seen = {}
    try:
        for d in dirs:
            (world.pub / d).mkdir()
            (world.pub / d / "f").write_text("x")
        conn = world.hold(OTHER)
        try:
            for d, (rule, _, _) in zip(dirs, ROWS):
                try:
                    conn.stat(str(world.pub / d / "f"))
                    seen[rule] = True
                except client.NetError:
                    seen[rule] = False
        finally:
            conn.close()
    finally:
        world.stop()
    assert seen == {rule: access for rule, access, _ in ROWS}
    # control column: allowconnects => { rule }, a server each
    seen = {}
    for i, (rule, _, _) in enumerate(ROWS):
        world = World(tmp_path / f"control{i}", impl, f'  allowconnects => {{ "{rule}" }};',
                      "admit_ips => { " + ALL + " }")
        try:
            try:
                conn = world.hold(OTHER)
                conn.stat(str(world.pub / "f"))
                conn.close()
                seen[rule] = True
            except client.NetError:
                seen[rule] = False
        finally:
            world.stop()
    assert seen == {rule: control for rule, _, control in ROWS}
