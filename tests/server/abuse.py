"""Tools of the abuse suite (tests/server/test_abuse.py): a server open to 127.0.0.0/24,
a silent-socket attacker that renews what the server drops, copies by cf-agent 3.21 and
by cf-lite's client, and the server's resident memory."""
from __future__ import annotations

import errno
import io
import os
import selectors
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

from cfpromise.net import client, keys
from cfpromise.net import protocol as P
from tests.server.helpers import Server, free_port, make_workdir, write_policy

CF_AGENT, CF_KEY = "/usr/bin/cf-agent", "/usr/bin/cf-key"

POLICY = """
body common control {{ bundlesequence => {{ "x" }}; }}
body server control {{
  allowconnects => {{ "127.0.0.0/24", "::1" }}; allowallconnects => {{ "127.0.0.0/24" }};
  allowlegacyconnects => {{ "127.0.0.1" }}; trustkeysfrom => {{ "127.0.0.1" }};
  {extra}
}}
bundle server x {{
 access:
  "{pub}/" admit_ips => {{ "127.0.0.1" }};
}}
"""


def have_cf_agent() -> bool:
    return all(os.access(p, os.X_OK) for p in (CF_AGENT, CF_KEY))


def start_server(tmp: Path, extra: str = "", env: dict[str, str] | None = None,
                 preexec_fn: object = None) -> tuple[Server, Path]:
    """cf-lite-serverd serving ``tmp/pub`` (a 200 KB file ``big``) to 127.0.0.1."""
    os.chmod(tmp, 0o755)
    pub = tmp / "pub"
    pub.mkdir(exist_ok=True)
    (pub / "big").write_bytes(os.urandom(200_000))
    wd = tmp / "srvwd"
    make_workdir(str(wd))
    policy = write_policy(str(tmp / "s.cf"), POLICY.format(pub=pub, extra=extra))
    return Server(str(wd), policy, free_port(), env, preexec_fn), pub


def lite_copy(tmp: Path, port: int, source: Path) -> bytes:
    """cf-lite's client: stat + get ``source`` (raises client.NetError when refused)."""
    wd = tmp / "litecli"
    if not (wd / "ppkeys" / "localhost.priv").exists():
        keys.ensure_host_key(str(wd))
    opts = client.ConnectOptions(workdir=str(wd), port=port, timeout=30, trust=True)
    with client.connect("127.0.0.1", opts) as conn:
        st = conn.stat(str(source))
        buf = io.BytesIO()
        conn.get(str(source), st.size, buf.write)
        return buf.getvalue()


AGENT = """
body common control {{ bundlesequence => {{ "main" }}; }}
bundle agent main {{
 files:
  "{dest}" copy_from => rc("{src}"), classes => cl("copy");
 reports:
  copy_repaired:: "copy done";
  copy_failed:: "copy failed";
}}
body copy_from rc(f) {{ source => "$(f)"; servers => {{ "127.0.0.1" }}; portnumber => "{port}";
  compare => "digest"; trustkey => "true"; }}
body classes cl(p) {{ promise_repaired => {{ "$(p)_repaired" }}; repair_failed => {{ "$(p)_failed" }}; }}
"""


def agent_copy(tmp: Path, port: int, source: Path, dest: Path) -> tuple[bool, str, float]:
    """cf-agent 3.21 copies ``source`` to ``dest``: (copied, its output, seconds taken)."""
    wd = tmp / "agentwd"
    env = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(wd))
    if not wd.exists():
        wd.mkdir(mode=0o700)
        subprocess.run([CF_KEY], env=env, check=True, capture_output=True)
        (wd / "bin").mkdir(exist_ok=True)
        os.symlink(shutil.which("cf-promises") or "/usr/bin/cf-promises", wd / "bin" / "cf-promises")
    policy = write_policy(str(tmp / f"agent-{dest.name}.cf"),
                          AGENT.format(dest=dest, src=source, port=port))
    started = time.monotonic()
    run = subprocess.run([CF_AGENT, "-K", "-f", policy], env=env, capture_output=True, text=True,
                         timeout=180)
    took = time.monotonic() - started
    out = run.stdout + run.stderr
    copied = "R: copy done" in out and dest.exists() and dest.read_bytes() == source.read_bytes()
    return copied, out, took


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


class TLSDialer:
    """Full TLS connections that identify, ask VERSION and hang up (one client context)."""

    def __init__(self, port: int) -> None:
        from cfpromise.net.tls import client_context
        self.port = port
        self.key = keys.HostKey(keys.generate())
        self.ctx = client_context(self.key.private)

    def one(self) -> None:
        raw = socket.create_connection(("127.0.0.1", self.port), timeout=30)
        with self.ctx.wrap_socket(raw) as s:
            self._line(s)
            s.sendall(P.version_line(3, "cf-agent") + P.identity_line("root"))
            if not self._line(s).startswith(b"OK WELCOME"):
                raise RuntimeError("not welcomed")
            s.sendall(P.encode("VERSION"))
            if not s.recv(100):
                raise RuntimeError("no VERSION reply")

    @staticmethod
    def _line(s: socket.socket) -> bytes:
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(1024)
            if not chunk:
                break
            data += chunk
        return data


class SilentAttack:
    """Holds ``plan`` = [(source address, how many)] sockets open to the server, silent or
    sending a few bytes of a ClientHello then nothing; whatever the server drops is
    reopened at once, until :meth:`stop`."""

    PARTIAL = bytes.fromhex("160301020001")           # a ClientHello's first bytes

    def __init__(self, port: int, plan: list[tuple[str, int]]) -> None:
        self.port = port
        self.plan = plan
        self.opened = 0
        self.dropped = 0
        self.failed = 0
        self._stop = threading.Event()
        self._sel = selectors.DefaultSelector()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @property
    def wanted(self) -> int:
        return sum(n for _, n in self.plan)

    def __enter__(self) -> "SilentAttack":
        self._thread.start()
        deadline = time.monotonic() + 30
        while self.opened < self.wanted and time.monotonic() < deadline:
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def _open(self, source: str, n: int) -> None:
        s = socket.socket()
        try:
            s.bind((source, 0))
            s.setblocking(False)
            err = s.connect_ex(("127.0.0.1", self.port))
            if err not in (0, errno.EINPROGRESS):
                raise OSError(err, os.strerror(err))
        except OSError:
            s.close()
            self.failed += 1
            return
        self.opened += 1
        self._sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE, (source, n))

    def _run(self) -> None:
        for source, count in self.plan:
            for n in range(count):
                self._open(source, n)
        while not self._stop.is_set():
            for key, events in self._sel.select(0.2):
                s: socket.socket = key.fileobj          # type: ignore[assignment]
                source, n = key.data
                if events & selectors.EVENT_WRITE:     # connected: drip, then wait
                    if n % 3 == 0:
                        try:
                            s.send(self.PARTIAL)
                        except OSError:
                            pass
                    self._sel.modify(s, selectors.EVENT_READ, key.data)
                    continue
                try:
                    data = s.recv(4096)
                except OSError:
                    data = b""
                if data:
                    continue
                self._sel.unregister(s)
                s.close()
                self.dropped += 1
                self._open(source, n)
        for key in list(self._sel.get_map().values()):
            key.fileobj.close()                         # type: ignore[union-attr]
        self._sel.close()
