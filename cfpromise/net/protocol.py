"""The wire protocol CFEngine 3.21 speaks (libcfnet), shared by client and server.

Transactions (net.c SendTransaction/ReceiveTransaction): an 8-byte header,
``"%c %d"`` NUL-padded -- the status ``t`` (terminal, CF_DONE) or ``m`` (more
follows, CF_MORE) and the payload length, 1 .. 4088 (CF_BUFSIZE -
CF_INBAND_OFFSET) -- then the payload.  A zero, negative or larger length, a
status other than t/m, or a short read is a broken connection.

After TLS is up (versions 2 "tls" and 3 "cookie"), the identification is plain
lines, not transactions: the server sends ``CFE_v3 cf-serverd 3.21.x\\n``, the
client answers ``CFE_v<agreed> cf-agent <version>\\n`` and ``IDENTITY
USERNAME=<user>\\n``, and the server says ``OK WELCOME ...\\n``.  Version 1
("classic") is the pre-TLS protocol; cf-lite neither speaks nor accepts it.

Requests and replies (one transaction each, unless said):
``SYNCH <time> STAT <path>`` -> ``OK: <type> <mode> <lmode> <uid> <gid> <size>
<atime> <mtime> <ctime> <makeholes> <ino> <nlink> <dev>`` then ``OK:<link>``;
``GET <bufsize> <path>`` -> the raw file bytes (no framing) in 2048-byte
pieces, or a ``BAD: ...`` transaction; ``OPENDIR <path>`` -> NUL-separated names
in one or more transactions ending with CFD_TERMINATOR; ``MD5 <path>\\0\\0<16
digest bytes>`` -> ``CFD_TRUE`` (differs) / ``CFD_FALSE``; ``VAR <name>``,
``CONTEXT <regex>`` (comma-separated class names), ``EXEC <args>`` (output
transactions then CFD_TERMINATOR), ``VERSION``.  Any refusal is
``BAD: Unspecified server refusal (see verbose server output)``.
"""
from __future__ import annotations

import enum
import re
import attrs
from typing import Callable

CF_BUFSIZE = 4096
CF_INBAND_OFFSET = 8
CF_MSGSIZE = CF_BUFSIZE - CF_INBAND_OFFSET        # largest payload: 4088
CF_DONE, CF_MORE = "t", "m"
CF_SMALL_OFFSET = 2
CF_MAXLINKSIZE = 256
GET_BUFSIZE = 2048                                # what cf-agent asks for in GET
MD5_LEN = 16                                      # CF_DEFAULT_DIGEST_LEN
IDENT_LINE_MAX = 1024                             # TLSRecvLines buffer in the dialog

CFD_TERMINATOR = "---cfXen/gine/cfXen/gine---"
CFD_TRUE = "CFD_TRUE"
CFD_FALSE = "CFD_FALSE"
CF_FAILEDSTR = "BAD: Unspecified server refusal (see verbose server output)"
CF_CHANGEDSTR1 = "BAD: File changed "
CF_CHANGEDSTR2 = "while copying"
BAD_REQUEST = "BAD: Request denied"
OK_WELCOME = "OK WELCOME"

SERVER_NAME = "cf-serverd"
CLIENT_NAME = "cf-agent"
CFENGINE_VERSION = "3.21.0"          # what we announce; peers only parse CFE_vN

# Commands of the new (TLS) protocol, in 3.21's PROTOCOL_NEW order.
COMMANDS = ("EXEC", "GET", "OPENDIR", "SYNCH", "MD5", "VERSION", "VAR", "CONTEXT",
            "QUERY", "CALL_ME_BACK", "COOKIE")


class Version(enum.IntEnum):
    UNDEFINED = 0
    CLASSIC = 1
    TLS = 2
    COOKIE = 3


LATEST = Version.COOKIE


class ProtocolError(Exception):
    """The peer broke the protocol (the message says how); the connection is unusable."""


class ConnectionClosed(ProtocolError):
    """The peer closed the connection (or it timed out) mid-exchange."""


# --------------------------------------------------------------------------- versions

def parse_version_policy(text: str | None) -> Version:
    """ParseProtocolVersionPolicy: ``protocol_version`` in policy."""
    table = {"0": Version.UNDEFINED, "undefined": Version.UNDEFINED,
             "1": Version.CLASSIC, "classic": Version.CLASSIC,
             "2": Version.TLS, "tls": Version.TLS, "3": Version.COOKIE, "cookie": Version.COOKIE,
             "latest": LATEST}
    return table.get(text or "0", Version.UNDEFINED)


_CFE_V = re.compile(rb"CFE_v([+-]?\d+)")


def parse_version_line(line: bytes) -> int:
    """ParseProtocolVersionNetwork: the N of ``CFE_vN ...`` (0 = undefined; N may
    exceed LATEST when the peer is newer)."""
    m = _CFE_V.match(line)
    if m is None:
        return 0
    try:
        n = int(m.group(1))
    except ValueError:
        return 0
    return n if 0 < n < 1 << 31 else 0


def version_line(version: int, program: str, release: str = CFENGINE_VERSION) -> bytes:
    return f"CFE_v{int(version)} {program} {release}\n".encode()


def identity_line(username: str | None) -> bytes:
    return (f"IDENTITY USERNAME={username}\n" if username else "IDENTITY\n").encode()


def parse_identity(line: bytes) -> dict[str, str]:
    """The ``KEY=VALUE`` words after ``IDENTITY`` (ServerIdentificationDialog);
    raises ProtocolError when the line is not an IDENTITY line."""
    text = line.decode("utf-8", "replace").strip("\r\n")
    if not text.startswith("IDENTITY"):
        raise ProtocolError(f"expected an IDENTITY line, got '{text[:80]}'")
    fields: dict[str, str] = {}
    for word in text[len("IDENTITY"):].split():
        key, eq, value = word.partition("=")
        if not eq or not key:
            break
        fields[key] = value
    return fields


def welcome_line(username: str | None) -> bytes:
    return (f"{OK_WELCOME} USERNAME={username}\n" if username else f"{OK_WELCOME}\n").encode()


_USERNAME = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_.@$-]{0,63}\Z")


def valid_username(name: str) -> bool:
    """IsUserNameValid (a conservative POSIX user name)."""
    return bool(_USERNAME.match(name))


# --------------------------------------------------------------------------- framing

def encode(payload: bytes | str, more: bool = False) -> bytes:
    """One transaction: header + payload (1..4088 bytes).  Text is UTF-8 with the
    peer's undecodable bytes (surrogateescape, see :func:`cstring`) sent back as they came."""
    data = payload.encode("utf-8", "surrogateescape") if isinstance(payload, str) \
        else bytes(payload)
    if not 0 < len(data) <= CF_MSGSIZE:
        raise ValueError(f"transaction payload of {len(data)} bytes (allowed: 1..{CF_MSGSIZE})")
    header = f"{CF_MORE if more else CF_DONE} {len(data)}".encode()
    return header.ljust(CF_INBAND_OFFSET, b"\0") + data


_HEADER = re.compile(rb"([\x01-\xff])[ \t\n\r\v\f]*([+-]?\d+)")


def parse_header(header: bytes) -> tuple[bool, int]:
    """(more, length) of an 8-byte header; ProtocolError when it is bogus."""
    if len(header) != CF_INBAND_OFFSET:
        raise ProtocolError(f"bogus short header ({len(header)} bytes)")
    text = header.split(b"\0", 1)[0]
    m = _HEADER.match(text)
    if m is None:
        raise ProtocolError(f"bogus header: {text[:8]!r}")
    status, length = m.group(1).decode("latin-1"), int(m.group(2))
    if status not in (CF_MORE, CF_DONE):
        raise ProtocolError(f"bogus header (more='{status}')")
    if length > CF_MSGSIZE:
        raise ProtocolError(f"packet too long (len={length})")
    if length <= 0:
        raise ProtocolError(f"packet too short (len={length})")
    return status == CF_MORE, length


def read_transaction(recv_exact: Callable[[int], bytes]) -> tuple[bytes, bool]:
    """(payload, more) read through ``recv_exact(n)``, which returns exactly n
    bytes or raises ConnectionClosed."""
    more, length = parse_header(recv_exact(CF_INBAND_OFFSET))
    return recv_exact(length), more


async def read_transaction_async(reader: object) -> tuple[bytes, bool]:
    """The same for an asyncio StreamReader (IncompleteReadError -> ConnectionClosed)."""
    import asyncio
    try:
        header = await reader.readexactly(CF_INBAND_OFFSET)          # type: ignore[attr-defined]
        more, length = parse_header(header)
        return await reader.readexactly(length), more                 # type: ignore[attr-defined]
    except asyncio.IncompleteReadError as exc:
        raise ConnectionClosed(f"connection closed after {len(exc.partial)} bytes") from None


def cstring(payload: bytes) -> str:
    """The payload as the C side sees it: up to the first NUL."""
    return payload.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")


def is_bad(reply: str) -> bool:
    return reply.startswith("BAD:")


def is_ok(reply: str) -> bool:
    return reply.startswith("OK:")


# --------------------------------------------------------------------------- requests

def synch_stat(path: str, now: int) -> bytes:
    return f"SYNCH {int(now)} STAT {path}".encode("utf-8", "surrogateescape")


def get(path: str, bufsize: int = GET_BUFSIZE) -> bytes:
    return f"GET {bufsize} {path}".encode("utf-8", "surrogateescape")


def opendir(path: str) -> bytes:
    return f"OPENDIR {path}".encode("utf-8", "surrogateescape")


def md5(path: str, digest: bytes) -> bytes:
    if len(digest) != MD5_LEN:
        raise ValueError("MD5 digest must be 16 bytes")
    return f"MD5 {path}".encode("utf-8", "surrogateescape") + b"\0" * CF_SMALL_OFFSET + digest


def parse_md5_request(payload: bytes) -> tuple[str, bytes]:
    """(path, digest) of an ``MD5`` request (the digest follows the NUL-ended path
    and one more byte)."""
    end = payload.find(b"\0")
    if not payload.startswith(b"MD5 ") or end < 0:
        raise ProtocolError("malformed MD5 request")
    digest = payload[end + CF_SMALL_OFFSET:end + CF_SMALL_OFFSET + MD5_LEN]
    if len(digest) != MD5_LEN:
        raise ProtocolError("MD5 request without a 16-byte digest")
    return payload[4:end].decode("utf-8", "surrogateescape"), digest


# --------------------------------------------------------------------------- STAT

class FileType(enum.IntEnum):
    REGULAR = 0
    LINK = 1
    DIR = 2
    FIFO = 3
    BLOCK = 4
    CHAR = 5
    SOCK = 6


_TYPE_MODE = {FileType.REGULAR: 0o100000, FileType.LINK: 0o120000, FileType.DIR: 0o040000,
              FileType.FIFO: 0o010000, FileType.BLOCK: 0o060000, FileType.CHAR: 0o020000,
              FileType.SOCK: 0o140000}


@attrs.frozen
class RemoteStat:
    """A parsed STAT reply; ``mode`` carries the file-type bits as os.stat's does
    (for a link: the target's, with ``lmode`` the link's), like cf_remote_stat."""

    type: FileType
    mode: int
    lmode: int
    uid: int
    gid: int
    size: int
    atime: int
    mtime: int
    ctime: int
    makeholes: bool
    ino: int
    nlink: int
    dev: int
    readlink: str | None = None

    @property
    def st_mode(self) -> int:
        return self.mode

    @property
    def st_size(self) -> int:
        return self.size

    @property
    def st_mtime(self) -> int:
        return self.mtime

    @property
    def st_ctime(self) -> int:
        return self.ctime

    @property
    def st_atime(self) -> int:
        return self.atime

    @property
    def st_uid(self) -> int:
        return self.uid

    @property
    def st_gid(self) -> int:
        return self.gid

    @property
    def st_ino(self) -> int:
        return self.ino

    @property
    def st_nlink(self) -> int:
        return self.nlink

    @property
    def st_dev(self) -> int:
        return self.dev


def stat_reply(st: "object", readlink: str | None = None) -> tuple[bytes, bytes]:
    """The two STAT reply transactions for an os.stat_result (server side;
    for a symlink pass the lstat result's mode as ``lmode`` via ``readlink``)."""
    import stat as st_
    mode = st.st_mode                                     # type: ignore[attr-defined]
    kind = (FileType.DIR if st_.S_ISDIR(mode) else FileType.REGULAR if st_.S_ISREG(mode)
            else FileType.SOCK if st_.S_ISSOCK(mode) else FileType.CHAR if st_.S_ISCHR(mode)
            else FileType.BLOCK if st_.S_ISBLK(mode) else FileType.FIFO if st_.S_ISFIFO(mode)
            else FileType.LINK)
    blocks = getattr(st, "st_blocks", 0) * 512
    holes = 1 if st.st_size > blocks else 0              # type: ignore[attr-defined]
    first = (f"OK: {int(kind)} {mode & 0o7777} 0 {st.st_uid & 0xFFFFFFFF} "   # type: ignore
             f"{st.st_gid & 0xFFFFFFFF} {st.st_size} {int(st.st_atime)} "     # type: ignore
             f"{int(st.st_mtime)} {int(st.st_ctime)} {holes} {st.st_ino & 0x7FFFFFFF} "  # type: ignore
             f"{st.st_nlink} {st.st_dev}")                                    # type: ignore
    second = "OK:" + (readlink or "")
    return first.encode(), second.encode("utf-8", "surrogateescape")


def parse_stat_reply(first: str, second: bytes | None) -> RemoteStat:
    """StatParseResponse + the link transaction; ProtocolError if malformed."""
    if not first.startswith("OK:"):
        raise ProtocolError(f"unexpected STAT reply '{first[:80]}'")
    words = first[3:].split()
    if len(words) < 13:
        raise ProtocolError("Cannot read STAT reply (too few fields)")
    try:
        nums = [int(w) for w in words[:13]]
    except ValueError:
        raise ProtocolError("Cannot read STAT reply (non-numeric field)") from None
    try:
        ftype = FileType(nums[0])
    except ValueError:
        raise ProtocolError(f"Invalid file type identifier {nums[0]}") from None
    link = None
    if second is not None and len(second) > 3 and second.startswith(b"OK:"):
        link = cstring(second[3:]) or None
    lmode = nums[2]
    return RemoteStat(type=ftype, mode=(nums[1] & 0o7777) | _TYPE_MODE[ftype],
                      lmode=(lmode | 0o120000) if lmode else 0, uid=nums[3], gid=nums[4],
                      size=nums[5], atime=nums[6], mtime=nums[7], ctime=nums[8],
                      makeholes=bool(nums[9]), ino=nums[10], nlink=nums[11], dev=nums[12],
                      readlink=link)


# --------------------------------------------------------------------------- OPENDIR

def opendir_replies(names: list[str]) -> list[bytes]:
    """The OPENDIR reply transactions (CfOpenDirectory's packing), encoded."""
    out: list[bytes] = []
    buf = bytearray()
    for name in names:
        raw = name.encode("utf-8", "surrogateescape")[:CF_MAXLINKSIZE - 1]
        if len(raw) + 1 + len(buf) >= CF_BUFSIZE - CF_MAXLINKSIZE:
            out.append(encode(bytes(buf) + b"\0", more=True))
            buf = bytearray()
        buf += raw + b"\0"
    buf += CFD_TERMINATOR.encode() + b"\0"
    out.append(encode(bytes(buf) + b"\0"))
    return out


def parse_opendir_chunk(payload: bytes) -> tuple[list[str], bool]:
    """(names, finished) of one OPENDIR reply transaction; ProtocolError on an
    empty or refused packet."""
    if not payload or payload[0] == 0:
        raise ProtocolError("Empty server packet when listing directory")
    head = cstring(payload)
    if head.startswith("BAD:"):
        raise ProtocolError(head)
    names: list[str] = []
    for raw in payload.split(b"\0"):
        if not raw:
            break
        name = raw.decode("utf-8", "surrogateescape")
        if name == CFD_TERMINATOR:
            return names, True
        names.append(name)
    return names, False
