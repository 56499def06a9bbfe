"""Issue #27, item 2: the regexes peers send run bounded, after the access check, and
never stall another connection; SIGTERM stops the daemon whatever is in flight.

Figures are printed (pytest -s) and only generous bounds are asserted: before the
fix one CONTEXT ``(.|.)*!`` held the interpreter for more than 50 s."""
from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from cfpromise.net import keys
from cfpromise.net import protocol as P
from cfpromise.server import patterns
from cfpromise.server.policy import load_server_policy
from cfpromise.server.requests import Peer, Request, dispatch
from tests.server.helpers import Client, Server, free_port, make_workdir, write_policy

CLASS = "abcdefghijklmnopqrstuvwxyz"                  # 26 characters
# RE2 runs the first kind in linear time; the second needs backtracking (a
# backreference): it goes to the bounded worker process.
PATHOLOGICAL = ["(.|.)*!", "(a|a)*(b|b)*(.|.)*$x", "((.|.)*)*!", "(x+x+)+y",
                "((.|.)*)\\1!", "(?=(.|.)*!)a"]


# --------------------------------------------------------------------------- the matcher

@pytest.mark.parametrize("pattern,text,expected", [
    ("a|ab", "ab", False),                # PCRE's first match is "a": not a full match
    ("ab|a", "ab", True),
    ("class_.*", "class_x", True),
    ("cl.ss", "cl\nss", True),            # DOTALL
    ("^b$", "a\nb", False),               # the first match is not at 0
    ("a$\\nb", "a\nb", True),             # MULTILINE: $ before a newline
    ("(?i)CLASS", "class", True),
    ("[[:alpha:]]+_[0-9]+", "linux_64", True),
    ("(a)\\1", "aa", True),               # a backreference: the worker answers
    ("(?=a)a", "a", True),
    ("[", "[", False),                    # invalid: never matches
    ("", "", False),
])
def test_full_match_is_string_match_full(pattern: str, text: str, expected: bool) -> None:
    assert patterns.full_match(pattern, text) is expected


@pytest.mark.parametrize("pattern", PATHOLOGICAL)
def test_pathological_patterns_are_bounded(pattern: str) -> None:
    start = time.monotonic()
    assert patterns.match_many(pattern, [CLASS, CLASS * 2]) == [False, False]
    took = time.monotonic() - start
    print(f"{pattern!r}: {took * 1000:.1f} ms")
    assert took < patterns.FALLBACK_SECONDS + 2.0


def test_the_linear_engine_is_installed() -> None:
    """google-re2 is a dependency (setup.cfg): without it every match would take the
    slower worker path."""
    assert patterns.engine() == "re2"


def test_oversized_subjects_and_patterns_do_not_match() -> None:
    big = "a" * (patterns.MAX_TEXT + 1)
    assert patterns.match_many("a*", ["aaa", big]) == [True, False]
    assert not patterns.full_match(big, big)


# --------------------------------------------------------------------------- order of checks

POLICY = """
body common control {{ bundlesequence => {{ "x" }}; }}
body server control {{ cfruncommand => "/bin/echo hello"; allowusers => {{ "root" }}; }}
bundle server x {{
 access:
  "/bin/echo" admit_ips => {{ "127.0.0.1" }};
  "allowed_.*" resource_type => "context", admit_ips => {{ "127.0.0.1" }};
  "{pub}/" admit_ips => {{ "127.0.0.1" }};
}}
"""


def _persistent(workdir: Path, names: list[str]) -> None:
    (workdir / "state").mkdir(parents=True, exist_ok=True)
    (workdir / "state" / "persistent_classes.json").write_text(
        json.dumps({n: {"expires": time.time() + 3600} for n in names}))


def test_context_pattern_runs_after_the_access_check(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    policy = write_policy(str(tmp_path / "s.cf"), POLICY.format(pub=tmp_path))
    access = load_server_policy(policy, str(tmp_path / "wd"))
    _persistent(tmp_path, ["allowed_x", "secret_" + CLASS])
    seen: list[tuple[str, list[str]]] = []
    real = patterns.match_many

    def spy(pattern: str, texts, keep: bool = False):
        texts = list(texts)
        if not keep:                              # the peer's (not the policy's) patterns
            seen.append((pattern, texts))
        return real(pattern, texts, keep)
    monkeypatch.setattr(patterns, "match_many", spy)

    def ask(pattern: str, ip: str) -> list[str]:
        sent = bytearray()
        req = Request(access, Peer(ip=ip, key="MD5=00", username="root"), sent.extend,
                      lambda: b"", lambda level, msg: None, str(tmp_path))
        assert dispatch(req, f"CONTEXT {pattern}".encode())
        return [P.cstring(bytes(sent[8:]))]
    assert ask(".*", "127.0.0.1") == ["allowed_x"]
    assert seen == [(".*", ["allowed_x"])]         # the class it may not see is never matched
    seen.clear()
    assert ask("(.|.)*!", "10.0.0.1") == [P.CF_FAILEDSTR]
    assert seen == [("(.|.)*!", [])]               # admitted to nothing: nothing runs


# --------------------------------------------------------------------------- a live server

LIVE = """
body common control {{ bundlesequence => {{ "x" }}; }}
body server control {{ allowconnects => {{ "127.0.0.1" }}; allowallconnects => {{ "127.0.0.1" }};
  allowusers => {{ "root" }}; cfruncommand => "/bin/echo ran"; }}
bundle server x {{
 access:
  "{pub}/" admit_ips => {{ "127.0.0.1" }};
  "/bin/echo" admit_ips => {{ "127.0.0.1" }};
  ".*" resource_type => "context", admit_ips => {{ "127.0.0.1" }};
}}
"""


@pytest.fixture
def live(tmp_path: Path):
    os.chmod(tmp_path, 0o755)
    pub = tmp_path / "pub"
    pub.mkdir()
    (pub / "big").write_bytes(os.urandom(8 << 20))
    srv = tmp_path / "srv"
    make_workdir(str(srv))
    _persistent(srv, [CLASS, "allowed_" + CLASS])
    client_key = make_workdir(str(tmp_path / "cli"))
    keys.trust_key(str(srv), client_key.public, "root")
    policy = write_policy(str(tmp_path / "s.cf"), LIVE.format(pub=pub))
    server = Server(str(srv), policy, free_port())
    try:
        yield server, client_key, pub
    finally:
        server.stop()


def _copy(port: int, key: keys.HostKey, path: Path) -> float:
    """GET the whole file; its duration."""
    start = time.monotonic()
    c = Client(port, key)
    try:
        size = path.stat().st_size
        c.sock.sendall(P.encode(f"GET {P.CF_BUFSIZE - 8} {path}"))
        got = 0
        while got < size:
            chunk = c.sock.recv(min(1 << 16, size - got))
            assert chunk
            got += len(chunk)
    finally:
        c.close()
    return time.monotonic() - start


def _hostile(port: int, key: keys.HostKey, stop: threading.Event, answers: list[float],
             errors: list[str]) -> None:
    """CONTEXT and EXEC requests with pathological patterns until told to stop."""
    try:
        _hostile_loop(port, key, stop, answers)
    except Exception as err:        # noqa: BLE001 - reported by the test
        errors.append(f"{type(err).__name__}: {err}")


def _hostile_loop(port: int, key: keys.HostKey, stop: threading.Event,
                  answers: list[float]) -> None:
    i = 0
    while not stop.is_set():
        pattern = PATHOLOGICAL[i % len(PATHOLOGICAL)]
        i += 1
        c = Client(port, key)
        try:
            start = time.monotonic()
            if i % 2:
                reply = c.request(f"CONTEXT {pattern}")
                assert reply == P.CF_FAILEDSTR, reply
            else:
                c.sock.sendall(P.encode("EXEC"))
                c.sock.sendall(P.encode(pattern))
                c.sock.sendall(P.encode(P.CFD_TERMINATOR))
                reply = P.cstring(c.receive())
                assert reply.startswith("Hello "), reply     # no class matched
            answers.append(time.monotonic() - start)
        finally:
            c.close()


def test_a_pathological_pattern_never_stalls_a_copy(live) -> None:
    server, key, pub = live
    alone = min(_copy(server.port, key, pub / "big") for _ in range(3))
    stop = threading.Event()
    answers: list[float] = []
    errors: list[str] = []
    attacker = threading.Thread(target=_hostile, args=(server.port, key, stop, answers, errors),
                                daemon=True)
    attacker.start()
    try:
        while len(answers) < 2 and attacker.is_alive():
            time.sleep(0.05)
        attacked = [_copy(server.port, key, pub / "big") for _ in range(3)]
    finally:
        stop.set()
        attacker.join(30)
    assert not attacker.is_alive() and not errors, errors
    print(f"\n8 MB copy alone {alone:.3f} s, during pathological requests "
          f"{', '.join(f'{t:.3f}' for t in attacked)} s; {len(answers)} hostile requests "
          f"answered in at most {max(answers):.3f} s")
    assert len(answers) >= len(PATHOLOGICAL) // 2, server.text()
    assert max(answers) < patterns.FALLBACK_SECONDS + 2.0       # generous: bounded, not fast
    assert max(attacked) < alone + 5.0                           # generous: never stalled
    assert "Traceback" not in server.text()


def test_sigterm_stops_the_daemon_with_patterns_in_flight(live) -> None:
    server, key, pub = live
    idle = Client(server.port, key)                 # an identified peer, silent (600 s idle)
    stop = threading.Event()
    answers: list[float] = []
    threads = [threading.Thread(target=_hostile, args=(server.port, key, stop, answers, []),
                                daemon=True) for _ in range(3)]
    for t in threads:
        t.start()
    try:
        while len(answers) < 3:
            time.sleep(0.05)
        start = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        server.proc.wait(timeout=15)
        took = time.monotonic() - start
    finally:
        stop.set()
        idle.close()
    print(f"\nSIGTERM to exit with 3 hostile clients and an idle one: {took:.2f} s")
    assert took < 5.0
    assert server.proc.returncode == 0


def test_peer_patterns_do_not_fill_the_cache() -> None:
    before = len(patterns._compiled)
    for i in range(50):
        patterns.match_many(f"peer_{i}_(.|.)*", ["peer_1_x"])
    assert len(patterns._compiled) == before
    patterns.full_match("policy_.*", "policy_x")              # the policy's: kept
    assert b"policy_.*" in patterns._compiled


def test_one_exec_has_a_budget_for_its_class_patterns(tmp_path: Path) -> None:
    """Many slow (worker) patterns in one EXEC: the request is answered within the
    budget plus one pattern's bound, not after each of them ran."""
    from cfpromise.server import execreq
    policy = write_policy(str(tmp_path / "s.cf"), POLICY.format(pub=tmp_path))
    access = load_server_policy(policy, str(tmp_path / "wd"))
    names = " ".join(f"((.|.)*)\\1!{i}" for i in range(12))
    incoming = [names.encode(), b"x", P.CFD_TERMINATOR.encode()]
    sent = bytearray()
    req = Request(access, Peer(ip="127.0.0.1", key="MD5=00", username="root"), sent.extend,
                  lambda: incoming.pop(0), lambda level, msg: None, str(tmp_path))
    start = time.monotonic()
    assert execreq._classes_match(req) is False
    took = time.monotonic() - start
    print(f"\n12 slow class patterns in one EXEC: answered in {took:.2f} s")
    assert took < execreq.MATCH_BUDGET + 2 * patterns.FALLBACK_SECONDS + 1.0
    assert not incoming                            # every transaction was read
