"""Start a real cf-serverd 3.21 (or a fake TLS server speaking bad replies) on a
free loopback port in a scratch work directory, for the interoperability tests."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable

from tests.server.helpers import free_port  # noqa: F401  (one port chooser for every test server)

CF_SERVERD = shutil.which("cf-serverd")
CF_KEY = shutil.which("cf-key")
CF_PROMISES = shutil.which("cf-promises")


def wait_port(port: int, timeout: float = 15) -> bool:
    end = time.time() + timeout
    while time.time() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.1)
    return False


SERVER_POLICY = """
body common control {{ bundlesequence => {{ "access" }}; }}
body server control
{{
  port => "{port}";
  allowconnects => {{ "127.0.0.1", "::1" }};
  allowallconnects => {{ "127.0.0.1", "::1" }};
  trustkeysfrom => {{ "127.0.0.1", "::1" }};
}}
bundle server access
{{
  access:
{rules}
}}
"""


class CfServerd:
    """cf-serverd 3.21 in ``workdir``, admitting 127.0.0.1 to ``admit`` paths."""

    def __init__(self, tmp: Path, admit: list[str], shortcuts: dict[str, str] | None = None,
                 lite_key: bool = False, policy_text: str | None = None) -> None:
        self.workdir = tmp / "server-wd"
        (self.workdir / "inputs").mkdir(parents=True)
        (self.workdir / "bin").mkdir()
        os.symlink(CF_PROMISES or "/usr/bin/cf-promises", self.workdir / "bin" / "cf-promises")
        self.port = free_port()
        rules = "\n".join(f'    "{p}" admit_ips => {{ "127.0.0.1" }};' for p in admit)
        rules += "\n".join(f'\n    "{p}" admit_ips => {{ "127.0.0.1" }}, shortcut => "{name}";'
                           for name, p in (shortcuts or {}).items())
        policy = self.workdir / "inputs" / "promises.cf"
        # policy_text: a whole policy of its own ({port} in it is the server's port)
        policy.write_text((policy_text or SERVER_POLICY).format(port=self.port, rules=rules))
        policy.chmod(0o600)
        self.env = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(self.workdir))
        if lite_key:            # cf-serverd runs on a key pair made by cf-lite-key
            import sys
            subprocess.run([sys.executable, "-m", "cfpromise.cli.key"], env=self.env, check=True,
                           capture_output=True)
        else:
            subprocess.run([CF_KEY or "cf-key"], env=self.env, check=True, capture_output=True)
        self.proc = subprocess.Popen([CF_SERVERD or "cf-serverd", "-F", "-f", str(policy)],
                                     env=self.env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        if not wait_port(self.port):
            self.stop()
            raise RuntimeError("cf-serverd did not start")

    @property
    def public_key(self) -> Path:
        return self.workdir / "ppkeys" / "localhost.pub"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class FakeServer:
    """A TLS server that identifies like cf-serverd, then answers every request
    with ``reply(request_payload) -> bytes`` (raw bytes, framed or not)."""

    def __init__(self, reply: Callable[[bytes], bytes], welcome: bytes = b"OK WELCOME\n") -> None:
        from cfpromise.net import keys, tls
        self.key = keys.generate()
        self.ctx = tls.server_context(self.key)
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.reply = reply
        self.welcome = welcome
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        from cfpromise.net import protocol as P
        while True:
            try:
                raw, _ = self.sock.accept()
            except OSError:
                return
            try:
                conn = self.ctx.wrap_socket(raw, server_side=True)
                conn.settimeout(5)
                conn.sendall(P.version_line(P.LATEST, P.SERVER_NAME))
                buf = b""
                while buf.count(b"\n") < 2:
                    chunk = conn.recv(1024)
                    if not chunk:
                        break
                    buf += chunk
                conn.sendall(self.welcome)

                def recv_exact(n: int) -> bytes:
                    data = b""
                    while len(data) < n:
                        chunk = conn.recv(n - len(data))
                        if not chunk:
                            raise P.ConnectionClosed("closed")
                        data += chunk
                    return data
                while True:
                    payload, _ = P.read_transaction(recv_exact)
                    answer = self.reply(payload)
                    if not answer:
                        break
                    conn.sendall(answer)
                conn.close()
            except Exception:                     # noqa: BLE001 - a test double
                raw.close()

    def close(self) -> None:
        self.sock.close()
