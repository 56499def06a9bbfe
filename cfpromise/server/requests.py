"""The requests of the TLS protocol (versions 2 and 3), one handler each, as cf-serverd 3.21.

A handler gets the :class:`Request` (who asks, what the policy admits, where to
write) and the request payload; it writes its replies -- transactions, or the raw
file stream of GET -- and returns whether the connection stays open.  Replies and
error strings are cf-serverd's: a refused resource gets ``BAD: Unspecified server
refusal (see verbose server output)`` and the connection stays open; a malformed
request gets ``BAD: Request denied`` and is closed.

Every path request (GET, OPENDIR, SYNCH/STAT, MD5) goes through one resolution:
a relative first component is a ``shortcut``; the path must be absolute; it is
canonicalised with symlinks and ``..`` resolved (a missing path is refused), and
only then checked against the ``access`` rules -- so no spelling of a path and no
symlink reaches a file outside an admitted tree.
"""
from __future__ import annotations

import hashlib
import os
import pwd
import re
import stat as st_
import time
from typing import Any, Callable

import attrs

from cfpromise.net import protocol as P
from cfpromise.server.paths import canonical_request_path
from cfpromise.server.policy import ServerAccess

CLOCK_DRIFT = 3600
READ_CHUNK = 64 * 1024
EXEC_CLASS_TRANSACTIONS = 10


@attrs.define(slots=True, eq=False)
class Peer:
    ip: str
    hostname: str = ""
    key: str = ""                  # MD5=... (KeyPrintableHash)
    username: str = ""
    protocol: int = int(P.Version.TLS)

    @property
    def uid(self) -> int:
        try:
            return pwd.getpwnam(self.username).pw_uid if self.username else -1
        except (KeyError, OSError):
            return -1


@attrs.define(slots=True, eq=False)
class Request:
    access: ServerAccess
    peer: Peer
    send: Callable[[bytes], None]              # raw bytes to the peer
    receive: Callable[[], bytes]               # the next transaction's payload
    log: Callable[[str, str], None]
    workdir: str = ""
    run_command: Callable[[str], Any] | None = None   # EXEC: yields output lines, then exit code

    def reply(self, payload: bytes | str, more: bool = False) -> None:
        """One transaction; a reply naming a long path is cut to the frame's size, as
        cf-serverd's fixed buffers cut it, rather than failing the connection."""
        if isinstance(payload, str):
            payload = payload.encode("utf-8", "surrogateescape")
        self.send(P.encode(payload[:P.CF_MSGSIZE], more))

    def refuse(self, what: str) -> bool:
        self.reply(P.CF_FAILEDSTR)
        self.log("verbose", f"REFUSAL to user='{self.peer.username or '?'}' of request: {what}")
        return True

    def protocol_error(self, what: str) -> bool:
        self.reply(P.BAD_REQUEST)
        self.log("info", f"Closing connection due to illegal request: {what}")
        return False

    def path_allowed(self, path: str) -> bool:
        p = self.peer
        return self.access.paths.check_path(path, p.ip, p.hostname, p.key)


Handler = Callable[[Request, bytes, str], bool]
HANDLERS: dict[str, Handler] = {}


def request(name: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        HANDLERS[name] = fn
        return fn
    return register


def command_of(text: str) -> str | None:
    for name in P.COMMANDS:
        if text.startswith(name) and text[len(name):len(name) + 1] in ("", " "):
            return name
    return None


def dispatch(req: Request, payload: bytes) -> bool:
    """Handle one request; False closes the connection."""
    text = P.cstring(payload)
    if not text:
        req.log("warning", f"Got NULL transmission (of size {len(payload)})")
        return True
    name = command_of(text)
    handler = HANDLERS.get(name) if name else None
    if handler is None:
        req.log("warning", f"Unexpected protocol command: {text[:200]}")
        return req.protocol_error(text[:200])
    return handler(req, payload, text)


# --------------------------------------------------------------------------- paths

def expand_shortcut(path: str, req: Request) -> str:
    if path.startswith("/"):
        return path
    first, sep, rest = path.partition("/")
    target = req.access.shortcuts.get(first)
    if target is None:
        return path
    p = req.peer
    for var, value in zip(("$(connection.ip)", "$(connection.hostname)", "$(connection.key)"),
                          (p.ip, p.hostname, p.key)):
        if value:
            target = target.replace(var, value)
    return target + sep + rest


def open_checked(path: str, flags: int = 0) -> int:
    """Open ``path`` (already canonical and admitted) without following a symlink, and
    make sure the object opened is the one checked: a directory swapped for a symlink
    between the check and the open is refused (OSError)."""
    # O_NONBLOCK: a FIFO in an admitted tree must not hang the connection at open()
    fd = os.open(path.rstrip("/") or "/",
                 os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK | flags)
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        real = None
    if real is not None and real != (path.rstrip("/") or "/"):
        os.close(fd)
        raise OSError(13, "Permission denied (path changed after the access check)")
    return fd


def _strip_slash(path: str) -> str:
    return path[:-1] if len(path) > 1 and path.endswith("/") else path


def _resolve(req: Request, raw: str, what: str) -> str | None:
    expanded = expand_shortcut(raw, req)
    path = canonical_request_path(expanded)
    if path is None:
        req.log("info", f"Failed to canonicalise filename '{expanded}'")
    return path


# --------------------------------------------------------------------------- requests

@request("VERSION")
def version(req: Request, payload: bytes, text: str) -> bool:
    req.reply(f"OK: {P.CFENGINE_VERSION}")
    return True


_GET = re.compile(r"GET\s+([+-]?\d+) ([^\n]+)")


@request("GET")
def get(req: Request, payload: bytes, text: str) -> bool:
    m = _GET.match(text)
    if m is None or not 0 < int(m.group(1)) <= P.CF_BUFSIZE:
        return req.protocol_error(text)
    bufsize = int(m.group(1))
    path = _resolve(req, m.group(2), "GET")
    if path is None:
        return req.refuse(text)
    path = _strip_slash(path)
    if not req.path_allowed(path):
        req.log("info", f"access denied to GET: {path}")
        return req.refuse(text)
    if bufsize >= P.CF_BUFSIZE:
        bufsize = 2048
    send_file(req, path, bufsize)
    return True


def _padded(text: str, size: int) -> bytes:
    data = text.encode("utf-8", "surrogateescape")
    return data.ljust(size, b"\0")[:max(size, len(data))]


def transfer_rights(req: Request, path: str, info: os.stat_result) -> bool:
    uid = req.peer.uid
    if uid == 0:
        return True
    p = req.peer
    # 3.21 sets maproot in the classic protocol only (server_classic.c); over TLS
    # only root, the owner, or a world-readable file (tests/server/test_acl_e2e.py).
    entry = req.access.paths.path_entry(path, p.ip, p.hostname, p.key) \
        if p.protocol == int(P.Version.CLASSIC) else None
    if entry is not None and entry.maps_root(p.ip, p.hostname):
        return True
    if info.st_uid != uid and not info.st_mode & st_.S_IROTH:
        req.log("info", f"Remote user '{req.peer.username}' is not owner of the file, access "
                        "denied, consider maproot or making file world-readable")
        return False
    return True


def send_file(req: Request, path: str, bufsize: int) -> None:
    """CfGetFile: the file's bytes as a raw stream (the client reads exactly the
    size STAT told it); a refusal is a CF_FAILEDSTR block of ``bufsize`` bytes."""
    try:
        info = os.stat(path)
    except OSError:
        info = None
    if info is not None and not transfer_rights(req, path, info):
        req.log("info", f"REFUSE access to file: {path}")
        req.refuse(path)
        req.send(_padded(P.CF_FAILEDSTR, bufsize))
        return
    try:
        fd = open_checked(path)
    except OSError as err:
        req.log("error", f"Open error of file '{path}'. (open: {err.strerror})")
        req.send(_padded(P.CF_FAILEDSTR, bufsize))
        return
    try:
        opened = os.fstat(fd)
        if not st_.S_ISREG(opened.st_mode):
            req.log("error", f"Open error of file '{path}'. (not a regular file)")
            req.send(_padded(P.CF_FAILEDSTR, bufsize))
            return
        size = opened.st_size
        sent = 0
        while sent < size:
            try:
                chunk = os.read(fd, min(READ_CHUNK, size - sent))
            except OSError as err:
                req.log("error", f"Read failed in GetFile. (read: {err.strerror})")
                break
            if not chunk:
                break
            sent += len(chunk)
            if sent < size and os.stat(path).st_size != size or sent > size:
                req.send(_padded(f"BAD: File changed while copying: {path}", 2048))
                return
            req.send(chunk)
    finally:
        os.close(fd)


_OPENDIR = re.compile(r"OPENDIR ([^\n]+)")


@request("OPENDIR")
def opendir(req: Request, payload: bytes, text: str) -> bool:
    m = _OPENDIR.match(text)
    if m is None:
        return req.protocol_error(text)
    path = _resolve(req, m.group(1), "OPENDIR")
    if path is None:
        return req.refuse(text)
    if not path.endswith("/"):
        path += "/"
    if not req.path_allowed(path):
        req.log("info", f"access denied to OPENDIR: {path}")
        return req.refuse(text)
    try:
        fd = open_checked(path, os.O_DIRECTORY)
        try:
            names = [".", ".."] + sorted(os.listdir(fd))
        finally:
            os.close(fd)
    except OSError as err:
        req.log("info", f"Couldn't open directory '{path}' (DirOpen:{err.strerror})")
        req.reply(f"BAD: cfengine, couldn't open dir {path}")
        return True
    for packet in P.opendir_replies(names):
        req.send(packet)
    return True


_SYNCH = re.compile(r"SYNCH\s+([+-]?\d+) STAT ([^\n]+)")


@request("SYNCH")
def synch(req: Request, payload: bytes, text: str) -> bool:
    m = _SYNCH.match(text)
    if m is None:
        return req.protocol_error(text)
    remote_time = int(m.group(1))
    path = _resolve(req, m.group(2), "STAT")
    if path is None:
        return req.refuse(text)
    path = path if not os.path.isdir(path) else (path if path.endswith("/") else path + "/")
    if not os.path.isdir(path):
        path = _strip_slash(path)
    if not req.path_allowed(path):
        req.log("info", f"access denied to STAT: {path}")
        return req.refuse(text)
    now = int(time.time())
    if req.access.denybadclocks and abs(now - remote_time) > CLOCK_DRIFT:
        message = f"BAD: Clocks are too far unsynchronized {now}/{remote_time}"
        req.log("info", f"denybadclocks {message}")
        req.reply(message)
        return True
    stat_file(req, path)
    return True


def stat_file(req: Request, path: str) -> None:
    name = _strip_slash(path)
    if len(os.path.basename(name)) > P.CF_MAXLINKSIZE:
        req.reply(f"BAD: Filename suspiciously long [{name}]")
        return
    try:
        info = os.lstat(name)
    except OSError:
        req.reply(f"BAD: unable to stat file {name}")
        return
    link = ""
    lmode = 0
    if st_.S_ISLNK(info.st_mode):
        lmode = info.st_mode & 0o7777
        try:
            link = os.readlink(name)
        except OSError:
            req.reply("BAD: unable to read link")
            return
        try:
            info = os.stat(name)
        except OSError:
            pass
    first, _ = P.stat_reply(info, link or None)
    if lmode:
        words = first.decode().split(" ")
        words[3] = str(lmode)
        first = " ".join(words).encode()
    req.reply(first)
    if len(link) + 3 > P.CF_MSGSIZE:
        req.reply(f"BAD: Symlink resolves to a path too long ({len(link) + 3}) to send "
                  "over the protocol.")
        return
    req.reply(("OK:" + link).encode("utf-8", "surrogateescape"))


@request("MD5")
def md5(req: Request, payload: bytes, text: str) -> bool:
    m = re.match(r"MD5 ([^\n]+)", text)
    if m is None:
        return req.protocol_error(text)
    path = _resolve(req, m.group(1), "MD5")
    if path is None:
        return req.refuse(text)
    path = _strip_slash(path)
    if not req.path_allowed(path):
        req.log("info", f"access denied to file: {path}")
        return req.refuse(text)
    start = len(text.encode("utf-8", "surrogateescape")) + P.CF_SMALL_OFFSET
    digest = payload[start:start + 16].ljust(16, b"\0")
    h = hashlib.md5()
    try:
        fd = open_checked(path)
        if not st_.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise OSError(21, "not a regular file")
        with os.fdopen(fd, "rb") as f:
            for block in iter(lambda: f.read(READ_CHUNK), b""):
                h.update(block)
    except OSError:
        pass
    req.reply(P.CFD_FALSE if h.digest() == digest else P.CFD_TRUE)
    return True


@request("VAR")
def var(req: Request, payload: bytes, text: str) -> bool:
    name = text[4:].split("\n", 1)[0][:255] if text.startswith("VAR ") else ""
    if not name:
        return req.protocol_error(text)
    p = req.peer
    if not req.access.literals.check_exact(name, p.ip, p.hostname, p.key):
        req.log("info", f"access denied to variable: {name}")
        return req.refuse(text)
    value = req.access.literal_data.get(name)
    req.reply(value[:P.CF_MSGSIZE - 1] if value else "BAD: Not found")
    return True


def persistent_classes(workdir: str) -> list[str]:
    import json
    path = os.path.join(workdir, "state", "persistent_classes.json")
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return []
    now = time.time()
    out = []
    if isinstance(data, dict):
        for name, entry in data.items():
            expires = entry.get("expires", entry.get("expiry")) if isinstance(entry, dict) else None
            if not isinstance(expires, (int, float)) or expires > now:
                out.append(name)
    return out


@request("CONTEXT")
def context(req: Request, payload: bytes, text: str) -> bool:
    pattern = text[8:].split("\n", 1)[0][:255] if text.startswith("CONTEXT ") else ""
    if not pattern:
        return req.protocol_error(text)
    from cfpromise.server.patterns import match_many
    p = req.peer
    # The access rules first: the peer's pattern (bounded, patterns.py) only ever
    # runs on the classes this peer may see, and not at all when it may see none.
    allowed = [c for c in persistent_classes(req.workdir)
               if req.access.classes.check_regex(c, p.ip, p.hostname, p.key)]
    matched = [c for c, ok in zip(allowed, match_many(pattern, allowed)) if ok]
    if not matched:
        req.log("info", f"No allowed classes for remoteclassesmatching: {pattern}")
        return req.refuse(text)
    req.reply(",".join(matched)[:P.CF_MSGSIZE - 1])
    return True


@request("QUERY")
def query(req: Request, payload: bytes, text: str) -> bool:
    words = text.split()
    if len(words) < 2:
        return req.protocol_error(text)
    p = req.peer
    if not req.access.queries.check_exact(words[1][:127], p.ip, p.hostname, p.key):
        req.log("info", f"access denied to query: {text[6:]}")
        return req.refuse(text)
    from cfpromise.hub import wire
    parsed = wire.parse_request(text)
    if parsed is None or not req.workdir:
        return req.protocol_error(text)
    from cfpromise.hub import spool
    kind, epoch, seq = parsed
    select = req.access.report_data_select.get(words[1])
    data = wire.encode_answer(spool.answer(req.workdir, kind, epoch, seq,
                                           select if isinstance(select, dict) else None))
    wire.send_answer(req.send, data)
    req.log("verbose", f"Answered query '{kind}' ({len(data)} bytes)")
    return True


@request("COOKIE")
def cookie(req: Request, payload: bytes, text: str) -> bool:
    if req.peer.protocol < int(P.Version.COOKIE):
        return req.protocol_error(text)
    p = req.peer
    if not req.access.queries.check_exact("delta", p.ip, p.hostname, p.key):
        req.log("info", f"access denied to cookie query: {text}")
        return req.refuse(text)
    return req.protocol_error(text)


@request("CALL_ME_BACK")
def call_me_back(req: Request, payload: bytes, text: str) -> bool:
    p = req.peer
    if not req.access.queries.check_exact("collect_calls", p.ip, p.hostname, p.key):
        req.log("info", "access denied to Call-Collect, check the ACL for class: collect_calls")
        return False
    from cfpromise.hub.callcollect import collect_call
    return collect_call(req, req.receive)


@request("EXEC")
def exec_(req: Request, payload: bytes, text: str) -> bool:
    from cfpromise.server.execreq import do_exec
    keep = do_exec(req, text[4:].lstrip(" \t"))
    req.reply(P.CFD_TERMINATOR.encode() + b"\0")
    return keep
