"""Request handlers with good, malformed and hostile input (no network: a fake peer)."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from cfpromise.net import protocol as P
from cfpromise.server.policy import load_server_policy
from cfpromise.server.requests import Peer, Request, dispatch
from tests.server.helpers import write_policy

POLICY = """
body common control {{ bundlesequence => {{ "x" }}; }}
body server control {{ cfruncommand => "{echo} hello"; allowusers => {{ "root" }}; }}
bundle server x {{
 vars: "d" string => "{root}/pub";
 access:
  "$(d)/" admit_ips => {{ "127.0.0.1" }}, shortcut => "pub";
  "$(d)/closed/" admit_ips => {{ "127.0.0.1" }}, deny_ips => {{ "127.0.0.0/8" }};
  "{echo}" admit_ips => {{ "127.0.0.1" }};
  "the literal" resource_type => "literal", handle => "lit", admit_ips => {{ "127.0.0.1" }};
  "allowed_.*" resource_type => "context", admit_ips => {{ "127.0.0.1" }};
 roles:
  "allowed_.*" authorize => {{ "root" }};
}}
"""


class Wire:
    def __init__(self) -> None:
        self.data = bytearray()
        self.incoming: list[bytes] = []

    def send(self, data: bytes) -> None:
        self.data += data

    def receive(self) -> bytes:
        if not self.incoming:
            raise P.ConnectionClosed("no more")
        return self.incoming.pop(0)

    def transactions(self) -> list[str]:
        out, pos = [], 0
        while pos < len(self.data):
            more, length = P.parse_header(bytes(self.data[pos:pos + 8]))
            out.append(P.cstring(bytes(self.data[pos + 8:pos + 8 + length])))
            pos += 8 + length
        return out


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    root = tmp_path_factory.mktemp("srv")
    os.chmod(root, 0o755)
    pub = root / "pub"
    (pub / "sub").mkdir(parents=True)
    (pub / "closed").mkdir()
    (pub / "file").write_bytes(b"x" * 5000)
    (pub / "closed" / "c").write_text("no")
    (root / "secret").write_text("s3cret")
    os.chmod(root / "secret", 0o644)
    os.symlink(root / "secret", pub / "escape")
    os.symlink("/etc", pub / "etc")
    os.symlink("file", pub / "inside")
    echo = "/bin/echo"
    policy = write_policy(str(root / "s.cf"), POLICY.format(root=root, echo=echo))
    access = load_server_policy(policy, str(root / "wd"))
    return root, access


def run(access: object, payload: bytes | str, ip: str = "127.0.0.1",
        incoming: list[bytes] = (), workdir: str = "") -> tuple[bool, Wire]:
    wire = Wire()
    wire.incoming = list(incoming)
    logs: list[str] = []
    req = Request(access, Peer(ip=ip, key="MD5=00", username="root"), wire.send,  # type: ignore
                  wire.receive, lambda level, msg: logs.append(msg), workdir)
    data = payload.encode() if isinstance(payload, str) else payload
    return dispatch(req, data), wire


def test_stat_and_get_an_admitted_file(setup: tuple[Path, object]) -> None:
    root, access = setup
    keep, wire = run(access, f"SYNCH 1 STAT {root}/pub/file".replace("SYNCH 1",
                                                                     f"SYNCH {int(__import__('time').time())}"))
    first, second = wire.transactions()
    assert keep and first.startswith("OK: 0 ") and first.split()[6] == "5000" and second == "OK:"
    keep, wire = run(access, f"GET 2048 {root}/pub/file")
    assert keep and bytes(wire.data) == b"x" * 5000


def test_shortcut_and_symlink_inside_the_tree(setup: tuple[Path, object]) -> None:
    root, access = setup
    keep, wire = run(access, "GET 2048 pub/inside")
    assert bytes(wire.data) == b"x" * 5000


@pytest.mark.parametrize("path", ["{root}/pub/../secret", "{root}/pub/escape", "{root}/pub/etc/passwd",
                                  "{root}/pub/sub/../../secret", "{root}/secret", "/etc/passwd",
                                  "pub/../secret", "pub/escape", "relative/file",
                                  "{root}/pub/closed/c", "{root}/pub/missing"])
@pytest.mark.parametrize("command", ["GET 2048 {p}", "SYNCH 1700000000 STAT {p}", "OPENDIR {p}",
                                     "MD5 {p}"])
def test_escapes_and_denied_paths_get_nothing(setup: tuple[Path, object], path: str,
                                               command: str) -> None:
    root, access = setup
    keep, wire = run(access, command.format(p=path.format(root=root)))
    assert keep                      # a refusal keeps the connection
    assert wire.transactions() == [P.CF_FAILEDSTR]
    assert b"s3cret" not in wire.data and b"root:" not in wire.data


def test_denied_host_gets_nothing(setup: tuple[Path, object]) -> None:
    root, access = setup
    for command in (f"GET 2048 {root}/pub/file", f"OPENDIR {root}/pub", "VAR lit"):
        keep, wire = run(access, command, ip="10.9.9.9")
        assert wire.transactions() == [P.CF_FAILEDSTR]


def test_opendir_lists_names_and_terminator(setup: tuple[Path, object]) -> None:
    root, access = setup
    keep, wire = run(access, f"OPENDIR {root}/pub")
    names, done = P.parse_opendir_chunk(bytes(wire.data[8:]))
    assert done and {"file", "sub", "closed", ".", ".."} <= set(names)


def test_md5_compare(setup: tuple[Path, object]) -> None:
    root, access = setup
    good = hashlib.md5(b"x" * 5000).digest()
    _, wire = run(access, P.md5(f"{root}/pub/file", good))
    assert wire.transactions() == [P.CFD_FALSE]          # same: nothing to copy
    _, wire = run(access, P.md5(f"{root}/pub/file", b"\1" * 16))
    assert wire.transactions() == [P.CFD_TRUE]
    _, wire = run(access, f"MD5 {root}/pub/file".encode())   # digest missing: differs
    assert wire.transactions() == [P.CFD_TRUE]


def test_var_literal_and_version(setup: tuple[Path, object]) -> None:
    _, access = setup
    assert run(access, "VAR lit")[1].transactions() == ["the literal"]
    assert run(access, "VAR nope")[1].transactions() == [P.CF_FAILEDSTR]
    assert run(access, "VERSION")[1].transactions()[0].startswith("OK: 3.21")


@pytest.mark.parametrize("payload", [b"HELLO", b"GET", b"GET x /a", b"GET 0 /a", b"GET 99999 /a",
                                     b"SYNCH STAT /a", b"SYNCH 1 STAT ", b"OPENDIR", b"MD5",
                                     b"VAR", b"CONTEXT", b"QUERY", b"\xff\xfe garbage",
                                     b"GETX 1 /a", b"EXECUTE"])
def test_malformed_requests_are_denied_and_closed(setup: tuple[Path, object],
                                                  payload: bytes) -> None:
    _, access = setup
    keep, wire = run(access, payload)
    assert not keep and wire.transactions() == [P.BAD_REQUEST]


def test_null_transmission_keeps_connection(setup: tuple[Path, object]) -> None:
    _, access = setup
    keep, wire = run(access, b"\0junk")
    assert keep and not wire.data


def test_exec_runs_cfruncommand_with_authorised_classes(setup: tuple[Path, object]) -> None:
    _, access = setup
    terminator = P.CFD_TERMINATOR.encode()
    keep, wire = run(access, "EXEC -D allowed_one", incoming=[terminator])
    out = wire.transactions()
    assert out[0].startswith("cf-serverd executing cfruncommand: /bin/echo hello -D allowed_one")
    assert out[1] == "> hello -D allowed_one\n" and out[2] == "(exit code: 0)\n"
    assert out[-1] == P.CFD_TERMINATOR
    _, wire = run(access, "EXEC -D other", incoming=[terminator])
    assert wire.transactions()[0] == "EXEC denied role activation (check cf-serverd verbose output)"
    _, wire = run(access, "EXEC -D allowed_x;rm", incoming=[terminator])
    assert wire.transactions()[0].startswith("EXEC denied role activation")
    _, wire = run(access, "EXEC --evil", incoming=[terminator])
    assert wire.transactions()[0] == "EXEC denied: invalid arguments: --evil"
    _, wire = run(access, "EXEC -b main", incoming=[terminator])
    assert wire.transactions()[0] == "EXEC denied bundle activation (check cf-serverd verbose output)"
    _, wire = run(access, "EXEC", incoming=[b"no_such_class", terminator])
    assert wire.transactions()[0].startswith("Hello ")


def test_context_serves_admitted_persistent_classes(setup: tuple[Path, object],
                                                    tmp_path: Path) -> None:
    import json
    import time
    _, access = setup
    (tmp_path / "state").mkdir()
    now = time.time()
    (tmp_path / "state" / "persistent_classes.json").write_text(json.dumps({
        "allowed_x": {"expires": now + 600}, "allowed_old": {"expires": now - 5},
        "other": {"expires": now + 600}}))
    assert run(access, "CONTEXT allowed_.*", workdir=str(tmp_path))[1].transactions() == \
        ["allowed_x"]
    assert run(access, "CONTEXT other", workdir=str(tmp_path))[1].transactions() == \
        [P.CF_FAILEDSTR]
    assert run(access, "CONTEXT allowed_.*", ip="10.0.0.1",
               workdir=str(tmp_path))[1].transactions() == [P.CF_FAILEDSTR]


def test_open_checked_refuses_a_path_swapped_for_a_symlink(tmp_path: Path) -> None:
    from cfpromise.server.requests import open_checked
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "f").write_text("x")
    os.symlink(tmp_path / "real", tmp_path / "swapped")
    os.close(open_checked(str(tmp_path / "real" / "f")))
    with pytest.raises(OSError):
        open_checked(str(tmp_path / "swapped" / "f"))        # a directory became a symlink
    os.symlink(tmp_path / "real" / "f", tmp_path / "link")
    with pytest.raises(OSError):
        open_checked(str(tmp_path / "link"))                  # the file itself is a symlink


def test_get_of_a_directory_or_fifo_is_a_failed_block(setup: tuple[Path, object]) -> None:
    root, access = setup
    fifo = root / "pub" / "fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    for target in ("sub", "fifo"):
        keep, wire = run(access, f"GET 2048 {root}/pub/{target}")
        assert keep and bytes(wire.data) == P.CF_FAILEDSTR.encode().ljust(2048, b"\0")
    _, wire = run(access, P.md5(f"{root}/pub/fifo", b"\0" * 16))
    assert wire.transactions() == [P.CFD_TRUE]               # answered, not stuck on the FIFO
