"""Regular expressions in the server, with a bound on their work.

Why: cf-serverd matches regexes it gets from peers (CONTEXT's class pattern,
the class list of EXEC, a reverse-DNS name read as a regex by ``maproot``) and
policy regexes against peer-sent names, with PCRE, whose match limit bounds every
match.  Python's ``re`` has no such bound: ``(.|.)*!`` against a 26-character
class name ran for more than 50 s holding the interpreter, which froze every other
connection and SIGTERM with it (issue #27).

How: every server-side match goes through :func:`full_match` /
:func:`match_many`, as 3.21's StringMatchFull (PCRE, ``MULTILINE | DOTALL``,
no UTF mode: bytes; "full" means the *first* match found spans the subject):

1. RE2 (``google-re2``), a linear-time engine: the work is bounded by
   pattern x subject size, whatever the pattern; its compiled programs are
   bounded in memory (``max_mem``).  RE2 picks the leftmost-first match as PCRE
   does.  Measured here: ``(.|.)*!`` on 26 characters takes 6 microseconds;
   Python's ``re`` takes 0.19 s on 18 characters, 0.67 s on 20, 2.4 s on 22
   (x3.5 for every 2 more: the issue saw > 50 s on 26).
2. A pattern RE2 cannot run (backreferences, lookaround, ``\\Z``, possessive or
   atomic groups: the features that make backtracking necessary) is matched by
   Python's ``re`` (with cf-lite's PCRE translation) in a separate, niced
   process with a CPU limit, killed after :data:`FALLBACK_SECONDS`; at most
   :data:`FALLBACK_WORKERS` run at once (a request that cannot get a worker in
   time is refused).  The server's threads only wait on a pipe meanwhile, so no
   other connection is held.  Such a match that does not finish counts as no
   match -- as PCRE's match-limit error does in cf-serverd.

Subjects and patterns are limited to :data:`MAX_TEXT` bytes (longer: no match).
Without ``google-re2`` installed every match takes the worker path (slower,
still bounded).
"""
from __future__ import annotations

import os
import sys
import threading
from collections import OrderedDict
from typing import Iterable

MAX_TEXT = 4096
FALLBACK_SECONDS = 0.5
FALLBACK_WORKERS = 2
_CACHE_SIZE = 512

_re2: object = None                      # the re2 module, imported on first use
_OPTIONS: object = None


def _engine() -> object:
    """re2, or False without google-re2 (imported when first needed: the agent loads
    this module for policies with access promises and should not pay for it)."""
    global _re2, _OPTIONS
    if _re2 is None:
        try:
            import re2
        except ImportError:              # pragma: no cover - depends on the install
            _re2 = False
            return _re2
        options = re2.Options()
        options.dot_nl = True                            # PCRE_DOTALL
        options.encoding = re2.Options.Encoding.LATIN1   # bytes, as PCRE without UTF
        options.log_errors = False
        options.max_mem = 2 << 20                        # per compiled pattern
        _OPTIONS, _re2 = options, re2
    return _re2


_UNSUPPORTED = object()                  # RE2 cannot run this pattern: use a worker
_INVALID = object()                      # no engine accepts it: never matches
_lock = threading.Lock()
_compiled: OrderedDict[bytes, object] = OrderedDict()
_workers = threading.BoundedSemaphore(FALLBACK_WORKERS)


def _b(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def engine() -> str:
    return "re2" if _engine() else "worker"


def _compile(pattern: bytes, keep: bool) -> object:
    with _lock:
        found = _compiled.get(pattern)
        if found is not None:
            _compiled.move_to_end(pattern)
            return found
    re2 = _engine()
    if not re2:
        found = _UNSUPPORTED
    else:
        try:
            # (?m): PCRE_MULTILINE; a pattern's own flags still apply after it.
            found = re2.compile(b"(?m)" + pattern, _OPTIONS)  # type: ignore[attr-defined]
        except Exception:                # noqa: BLE001 - re2.error and friends
            found = _UNSUPPORTED
    if found is _UNSUPPORTED and not _valid_elsewhere(pattern):
        found = _INVALID
    if not keep:
        return found
    with _lock:
        _compiled[pattern] = found
        if len(_compiled) > _CACHE_SIZE:
            _compiled.popitem(last=False)
    return found


def _full(rx: object, subject: bytes) -> bool:
    m = rx.search(subject)               # type: ignore[attr-defined]
    return m is not None and m.start() == 0 and m.end() == len(subject)


def full_match(pattern: str, text: str) -> bool:
    """StringMatchFull(pattern, text), bounded.  An invalid pattern, one that
    takes too long, or an oversized one does not match.  For the policy's
    patterns (compiled once, kept)."""
    return match_many(pattern, [text], keep=True)[0]


def match_many(pattern: str, texts: Iterable[str], keep: bool = False) -> list[bool]:
    """:func:`full_match` of one pattern against several subjects (one worker
    process at most for them all).  A peer's pattern is not kept (``keep``):
    a peer cannot fill the cache, and its compiled program (at most
    ``max_mem``) goes with the request."""
    subjects = [_b(t) for t in texts]
    pat = _b(pattern)
    if not subjects or not pat or len(pat) > MAX_TEXT:
        return [False] * len(subjects)      # nothing to match: nothing compiled
    rx = _compile(pat, keep)
    if rx is _INVALID:
        return [False] * len(subjects)
    if rx is not _UNSUPPORTED:
        return [len(s) <= MAX_TEXT and _full(rx, s) for s in subjects]
    wanted = [i for i, s in enumerate(subjects) if len(s) <= MAX_TEXT]
    found = _worker_match(pattern, [subjects[i] for i in wanted])
    out = [False] * len(subjects)
    if found is None:
        return out
    for i, ok in zip(wanted, found):
        out[i] = ok
    return out


# --------------------------------------------------------------------------- the worker

_WORKER = r"""
import json, os, re, resource, sys
try:
    os.nice(19)
    resource.setrlimit(resource.RLIMIT_CPU, (2, 3))
    resource.setrlimit(resource.RLIMIT_AS, (512 << 20, 512 << 20))
except (OSError, ValueError):
    pass
job = json.loads(sys.stdin.buffer.read())
rx = re.compile(job["p"].encode("latin-1"), re.M | re.S)
out = []
for s in job["s"]:
    data = s.encode("latin-1")
    m = rx.search(data)
    out.append(m is not None and m.start() == 0 and m.end() == len(data))
sys.stdout.write(json.dumps(out))
"""


def _valid_elsewhere(pattern: bytes) -> bool:
    """Does Python's ``re`` (the worker's engine) accept the pattern?  Compiling is
    cheap and bounded; only matching can blow up."""
    import re
    text = _translated(pattern.decode("utf-8", "surrogateescape"))
    if text is None:
        return False
    try:
        re.compile(_b(text), re.M | re.S)
    except (re.error, OverflowError, ValueError, RecursionError):
        return False
    return True


def _translated(pattern: str) -> str | None:
    from cfpromise.eval.functions.pcre import translate
    try:
        return translate(pattern)
    except Exception:                    # noqa: BLE001 - PCRE features re lacks
        return None


def _worker_match(pattern: str, subjects: list[bytes]) -> list[bool] | None:
    """Python's ``re`` in a separate process, bounded in time, CPU and memory;
    None when it could not answer in time (or at all)."""
    import json
    import subprocess
    if not subjects:
        return []
    text = _translated(pattern)
    if text is None:
        return None
    if not _workers.acquire(timeout=FALLBACK_SECONDS):
        return None
    try:
        job = json.dumps({"p": _b(text).decode("latin-1"),
                          "s": [s.decode("latin-1") for s in subjects]})
        try:
            proc = subprocess.run([sys.executable, "-I", "-S", "-c", _WORKER],
                                  input=job.encode(), capture_output=True,
                                  timeout=FALLBACK_SECONDS, close_fds=True,
                                  env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
        except (subprocess.TimeoutExpired, OSError):
            return None
        if proc.returncode != 0:
            return None
        try:
            found = json.loads(proc.stdout)
        except ValueError:
            return None
        if not isinstance(found, list) or len(found) != len(subjects):
            return None
        return [bool(x) for x in found]
    finally:
        _workers.release()
