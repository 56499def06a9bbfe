"""A simulated fleet for bench/hub.py: N hosts, each with its own RSA key on its own
loopback address (127.1.x.y), answering cf-lite-hub's QUERY over the real protocol
(TLS with the host's key, cf-serverd's identification dialog, the QUERY answer framing of
cfpromise.hub.wire) with masterfiles-sized reports: a few hundred promises, a few of
them changing per run.  Run as a process: ``python bench/hubsim.py KEYDIR N PORT``;
prints ``ready`` when every address listens.

Answers are made from (host, sequence number): a hub that knows nothing gets a rebase
(the full state and one run), a hub that sends ``QUERY delta EPOCH SEQ`` gets the
``--runs`` runs after SEQ.  A run changes a promise on ``--changing`` of the hosts
(default 10%): two promises repaired, with what changed; the rest of the fleet is
converged (a run row and nothing else).
"""
from __future__ import annotations

import os
import random
import resource
import selectors
import socket
import ssl
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from cfpromise.hub import wire                      # noqa: E402
from cfpromise.net import protocol as P             # noqa: E402
from cfpromise.net import tls                       # noqa: E402

PROMISES = 300
RUN_INTERVAL = 300


def address(i: int) -> str:
    return f"127.1.{i // 250}.{i % 250 + 1}"


def policy_promises() -> dict[str, dict]:
    """The same masterfiles-like policy on every host: promise ids shared fleet-wide."""
    types = ["files", "packages", "processes", "services", "commands", "methods"]
    out = {}
    for n in range(PROMISES):
        pid = f"{n:020x}"
        out[pid] = {"bundle": f"default:bundle_{n // 10}", "promise_type": types[n % 6],
                    "promiser": f"/etc/cfengine/managed/item_{n}.conf", "handle":
                    f"h_{n}", "file": f"/var/cfengine/inputs/services/file_{n // 30}.cf",
                    "line": 10 + n, "outcome": "kept"}
    return out


POLICY = policy_promises()


def run(i: int, seq: int, changing: float, base: float) -> dict:
    rnd = random.Random(i * 1_000_003 + seq)
    when = int(base + seq * RUN_INTERVAL)
    changed = []
    if rnd.random() < changing:
        for outcome, pid in zip(("repaired", "failed"), rnd.sample(sorted(POLICY)[:20], 2)):
            changed.append({"id": pid, **POLICY[pid], "outcome": outcome,
                            "changes": [f"content: file={POLICY[pid]['promiser']}, "
                                        f"edit_lines=1"] if outcome == "repaired" else []})
    return {"seq": seq, "epoch": f"sim{i}", "start": when, "time": when, "duration": 1.8,
            "exit_code": 0, "release_id": "bench", "kept": PROMISES - len(changed),
            "repaired": min(len(changed), 1), "notkept": len(changed) // 2, "promises": changed, "gone": [],
            "monitoring": {"value_load": 0.3, "value_mem_free": 1000.0}}


def inventory(i: int) -> dict:
    return {"sys.fqhost": f"host{i}.bench.example", "sys.flavor": "debian_12",
            "sys.release": "6.1.0-26-amd64", "sys.arch": "x86_64", "sys.cpus": "2",
            "sys.ipv4": address(i), "classes": ["debian", "debian_12", "x86_64"],
            "software": [f"pkg{n},1.{n},amd64,apt_get" for n in range(100)]}


def answer(i: int, request: str, runs: int, changing: float, base: float) -> dict:
    parsed = wire.parse_request(request)
    kind, epoch, seq = parsed if parsed else ("rebase", "", 0)
    if kind == "delta" and epoch == f"sim{i}":
        return {"kind": "delta", "epoch": epoch,
                "runs": [run(i, s, changing, base) for s in range(seq + 1, seq + 1 + runs)]}
    first = run(i, 1, changing, base)
    first["inventory"] = inventory(i)
    return {"kind": "rebase", "epoch": f"sim{i}",
            "current": {"seq": 1, "promises": POLICY, "inventory": inventory(i),
                        "last_run": {k: first[k] for k in ("seq", "time", "kept", "repaired",
                                                           "notkept", "exit_code")},
                        "monitoring": first["monitoring"]},
            "runs": [first]}


class Fleet:
    def __init__(self, keydir: str, n: int, port: int, runs: int, changing: float) -> None:
        self.keydir, self.n, self.port, self.runs, self.changing = keydir, n, port, runs, changing
        self.base = float(os.environ.get("HUBSIM_BASE", "1700000000"))
        self.contexts: dict[int, ssl.SSLContext] = {}
        self.lock = threading.Lock()
        self.pool = ThreadPoolExecutor(max_workers=48)
        self.selector = selectors.DefaultSelector()

    def context(self, i: int) -> ssl.SSLContext:
        with self.lock:
            ctx = self.contexts.get(i)
        if ctx is None:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.options |= ssl.OP_NO_TICKET
            ctx.load_cert_chain(os.path.join(self.keydir, f"{i}.pem"))
            ctx.verify_mode = ssl.CERT_REQUIRED
            tls._accept_any_certificate(ctx)
            with self.lock:
                self.contexts[i] = ctx
        return ctx

    def listen(self) -> None:
        for i in range(self.n):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((address(i), self.port))
            s.listen(64)
            s.setblocking(False)
            self.selector.register(s, selectors.EVENT_READ, i)

    def serve_forever(self) -> None:
        while True:
            for key, _ in self.selector.select():
                try:
                    conn, _ = key.fileobj.accept()
                except BlockingIOError:
                    continue
                conn.setblocking(True)
                self.pool.submit(self.handle, key.data, conn)

    def handle(self, i: int, raw: socket.socket) -> None:
        try:
            raw.settimeout(30)
            sock = self.context(i).wrap_socket(raw, server_side=True)
            sock.sendall(P.version_line(P.LATEST, P.SERVER_NAME))
            data = b""
            while data.count(b"\n") < 2 and len(data) < 2048:
                chunk = sock.recv(1024)
                if not chunk:
                    return
                data += chunk
            sock.sendall(P.OK_WELCOME.encode() + b"\n")

            def exact(k: int) -> bytes:
                buf = b""
                while len(buf) < k:
                    chunk = sock.recv(k - len(buf))
                    if not chunk:
                        raise P.ConnectionClosed("closed")
                    buf += chunk
                return buf
            payload, _ = P.read_transaction(exact)
            reply = answer(i, P.cstring(payload), self.runs, self.changing, self.base)
            wire.send_answer(sock.sendall, wire.encode_answer(reply))
            sock.recv(1)                      # until the hub closes
        except (OSError, ssl.SSLError, P.ProtocolError, P.ConnectionClosed):
            pass
        finally:
            raw.close()


def main() -> int:
    keydir, n, port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    changing = float(sys.argv[5]) if len(sys.argv) > 5 else 0.1
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, n + 4096)), hard))
    fleet = Fleet(keydir, n, port, runs, changing)
    fleet.listen()
    print("ready", flush=True)
    fleet.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
