"""A small TLS client and server runner for the cf-lite-serverd tests."""
from __future__ import annotations

import os
import random
import socket
import subprocess
import sys
import time
from typing import Any

from cfpromise.net import keys
from cfpromise.net import protocol as P


def make_workdir(path: str) -> keys.HostKey:
    os.makedirs(os.path.join(path, "ppkeys"), exist_ok=True)
    # private, as cf-key makes them: an agent refuses a ppkeys others may read (3.21's
    # "UNTRUSTED: Private key directory ... was not private!", cfpromise.agent.workdir)
    os.chmod(os.path.join(path, "ppkeys"), 0o700)
    os.chmod(path, 0o700)
    return keys.create_key_pair(keys.private_key_path(path), keys.public_key_path(path))


def _ephemeral_low() -> int:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range", encoding="ascii") as fh:
            return int(fh.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port() -> int:
    """A port for a test server to listen on, free now and chosen below the kernel's
    ephemeral range: the system never gives it out as the local port of an outgoing
    connection, so it is still free when the server binds it (a port from bind(0) is
    an ephemeral one, and another test's connection took one in between once)."""
    low = _ephemeral_low()
    for _ in range(200):
        port = random.randrange(max(1024, low - 12000), low)
        try:
            with socket.socket() as s:
                s.bind(("0.0.0.0", port))
        except OSError:
            continue
        return port
    with socket.socket() as s:        # the range is crowded: what the kernel gives
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_policy(path: str, text: str) -> str:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, 0o600)
    return path


class Server:
    """cf-lite-serverd -F in a subprocess, on its own port."""

    def __init__(self, workdir: str, policy: str, port: int, env: dict[str, str] | None = None,
                 preexec_fn: Any = None, address: str = "127.0.0.1"):
        """``address``: where it listens (its policy's ``bindtointerface``), to wait for."""
        self.port = port
        self.log_path = os.path.join(workdir, "serverd.log")
        environ = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=workdir,
                       CF_LITE_POLICY_CHECK_INTERVAL="0.2", **(env or {}))
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([sys.executable, "-m", "cfpromise.cli.serverd", "-F", "-v",
                                      "-f", policy, "--port", str(port)],
                                     stdout=self.log, stderr=subprocess.STDOUT, env=environ,
                                     preexec_fn=preexec_fn)
        deadline = time.time() + 60           # a loaded machine starts python slowly
        while time.time() < deadline:
            try:
                socket.create_connection((address, port), timeout=0.5).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("server did not start:\n" + self.text())

    def text(self) -> str:
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        return self.proc.returncode


class Client:
    """Just enough of the agent's side to talk to the server."""

    def __init__(self, port: int, key: keys.HostKey, username: str = "root",
                 version: int = 3, min_tls: str | None = None) -> None:
        from cfpromise.net.tls import client_context
        raw = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock: Any = client_context(key.private, min_version=min_tls).wrap_socket(raw)
        self.hello = self._line()
        self.sock.sendall(P.version_line(version, "cf-agent") + P.identity_line(username))
        self.welcome = self._line()

    def _line(self) -> bytes:
        data = b""
        while not data.endswith(b"\n"):
            chunk = self.sock.recv(1024)
            if not chunk:
                break
            data += chunk
        return data

    def recv_exact(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise P.ConnectionClosed("closed")
            data += chunk
        return data

    def request(self, payload: bytes | str) -> str:
        self.sock.sendall(P.encode(payload))
        return P.cstring(self.receive())

    def receive(self) -> bytes:
        return P.read_transaction(self.recv_exact)[0]

    def close(self) -> None:
        self.sock.close()
