"""EXEC: a remote run asked by cf-runagent, as cf-serverd 3.21's DoExec2.

Steps, each refusing on its own: ``cfruncommand`` must be set and its program
(argument 0, canonicalised) admitted by a path ``access`` rule; the IDENTITY user
must be in ``allowusers``; the classes the client sends (``-s``) must match one
the server has; each class of ``-D`` must be authorised by a ``roles`` promise
for that user and each bundle of ``-b`` by a ``resource_type => "bundle"``
access rule (names limited to ``[A-Za-z0-9_:]``).  Only then is
``cfruncommand -D ... --bundlesequence ...`` run, without a shell, and its output
sent back a line per transaction (``> line``), then ``(exit code: N)``.
"""
from __future__ import annotations

import re
import shlex
import subprocess
import time
from typing import TYPE_CHECKING

from cfpromise.net import protocol as P

if TYPE_CHECKING:
    from cfpromise.server.requests import Request

_ACCEPT = re.compile(r"[A-Za-z0-9_:]+\Z")
MAX_COMMAND = P.CF_BUFSIZE
MATCH_BUDGET = 2.0      # seconds of class matching for one EXEC (each pattern is bounded too)


def _classes_match(req: Request) -> bool | None:
    """MatchClasses: read the client's class transactions up to the terminator.
    None: the connection failed."""
    from cfpromise.server.patterns import match_many
    defined = req.access.defined_classes
    names = sorted(defined)
    deadline = time.monotonic() + MATCH_BUDGET
    sent: list[str] = []
    for count in range(1, 11):
        try:
            payload = req.receive()
        except Exception:             # noqa: BLE001 - a peer gone: nothing more to do
            return None
        text = P.cstring(payload)
        if text.startswith(P.CFD_TERMINATOR):
            if count == 1:
                return True
            break
        sent += text.split(" ")
        for name in text.split(" "):
            if not name or time.monotonic() > deadline:
                continue            # past the budget: read on, match no more
            # the client's name is a regex: matched bounded (patterns.py)
            if name in defined or any(match_many(name, names)):
                return True
    req.reply(f"Hello {req.peer.hostname or req.peer.ip} ({req.peer.ip}), nothing relevant to "
              "do here...\n\n")
    return False


def _authorised(req: Request, table: object, args: str) -> tuple[bool, str, str]:
    """AuthorizeDelimitedArgs: (admitted, the comma list, what follows it)."""
    args = args.lstrip(" \t")
    end = len(args)
    for i, c in enumerate(args):
        if c in " \t":
            end = i
            break
    words, rest = args[:end], args[end:]
    p = req.peer
    for token in words.split(",") if words else []:
        if not _ACCEPT.match(token) or not table.check_regex(  # type: ignore[attr-defined]
                token, p.ip, p.hostname, p.key, p.username):
            req.log("info", f"Access denied to: {token}")
            return False, words, rest
    return True, words, rest


def do_exec(req: Request, args: str) -> bool:
    from cfpromise.server.paths import canonical_request_path
    access = req.access
    command = access.cfruncommand
    if not command:
        req.log("info", "EXEC denied due to empty cfruncommand")
        req.refuse("EXEC")
        return False
    try:
        argv = shlex.split(command)
    except ValueError:
        argv = []
    arg0 = canonical_request_path(argv[0]) if argv else None
    if arg0 is None:
        req.log("info", "EXEC failed, invalid cfruncommand arg0")
        req.refuse("EXEC")
        return False
    if not req.path_allowed(arg0):
        req.log("info", f"EXEC denied due to ACL for file: {arg0}")
        req.refuse("EXEC")
        return False
    if req.peer.username not in access.allowusers:
        req.log("info", f"EXEC denied due to not allowed user: {req.peer.username}")
        req.refuse("EXEC")
        return False
    matched = _classes_match(req)
    if matched is None:
        return False
    if not matched:
        message = "EXEC denied due to failed class match (check cf-serverd verbose output)"
        req.log("info", message)
        req.reply(message)
        return True
    extra: list[str] = []
    rest = args.lstrip(" \t")
    while rest:
        if rest.startswith("-D"):
            ok, words, rest = _authorised(req, access.roles, rest[2:])
            if not ok:
                return _deny(req, "EXEC denied role activation (check cf-serverd verbose output)")
            if words:
                extra += ["-D", words]
        elif rest.startswith("-b"):
            ok, words, rest = _authorised(req, access.bundles, rest[2:])
            if not ok:
                return _deny(req, "EXEC denied bundle activation (check cf-serverd verbose "
                                  "output)")
            if words:
                extra += ["--bundlesequence", words]
        else:
            return _deny(req, f"EXEC denied: invalid arguments: {rest}")
        rest = rest.lstrip(" \t")
    full = argv + extra
    shown = " ".join([command] + extra)
    if len(shown) >= MAX_COMMAND:
        req.reply(f"EXEC denied: too long ({len(shown)} B) command: {shown}"[:P.CF_MSGSIZE])
        return False
    req.reply(f"cf-serverd executing cfruncommand: {shown}\n"[:P.CF_MSGSIZE])
    req.log("info", f"cf-serverd executing cfruncommand: {shown}")
    try:
        proc = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
    except OSError as err:
        req.reply(f"Unable to run '{shown}' (pipe: {err.strerror})"[:P.CF_MSGSIZE])
        return False
    assert proc.stdout is not None
    with proc.stdout:
        for raw in proc.stdout:
            line = raw.rstrip(b"\n")[:P.CF_MSGSIZE - 5]
            req.reply(b"> " + line + b"\n")
    code = proc.wait()
    req.reply(f"(exit code: {code if code >= 0 else 128 - code})\n")
    return True


def _deny(req: Request, message: str) -> bool:
    req.log("info", message)
    req.reply(message[:P.CF_MSGSIZE])
    return True
