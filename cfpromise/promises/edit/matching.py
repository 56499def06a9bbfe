"""Regular expressions and line selection as cf-agent's edit_line uses them.

* :func:`full` is CFEngine's FullTextMatch: a pattern equal to the text matches
  without being compiled; otherwise the first PCRE match must span the whole
  line (see :mod:`cfpromise.eval.functions.pcre`).
* :func:`block` is BlockTextMatch: the span of the first match anywhere.
* :func:`select_line` applies ``insert_select``/``delete_select`` bodies
  (SelectLine): the first list present decides.
* :func:`match_policy` is MatchPolicy, the ``whitespace_policy`` comparison of a
  promised line with a line of the file.

Compiled patterns are cached; an invalid pattern is reported once and then
never matches.
"""
from __future__ import annotations

import re
from functools import lru_cache

from cfpromise.eval.functions import pcre

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Sequence

_INVALID = object()


@lru_cache(maxsize=4096)
def _compiled(pattern: str) -> Any:
    try:
        return pcre.compile_regex(pattern)
    except Exception:        # RegexError and anything the translator trips on
        return _INVALID


def compile_or_none(pattern: str) -> re.Pattern[bytes] | None:
    rx = _compiled(pattern)
    return None if rx is _INVALID else rx


def regex_error(pattern: str) -> str | None:
    """cf-agent's error text for an invalid pattern, None if it compiles."""
    try:
        pcre.compile_regex(pattern)
    except Exception as exc:
        return str(exc)
    return None


def _b(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _t(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def full(pattern: str, text: str) -> bool:
    """FullTextMatch."""
    if pattern == text:
        return True
    rx = compile_or_none(pattern)
    if rx is None:
        return False
    data = _b(text)
    m = rx.search(data)
    return m is not None and m.start() == 0 and m.end() == len(data)


def full_groups(pattern: str, text: str) -> list[str] | None:
    """FullTextMatch that also returns the captures ($(match.0), $(match.1)...)."""
    rx = compile_or_none(pattern)
    if rx is None:
        return [text] if pattern == text else None
    data = _b(text)
    m = rx.search(data)
    if m is None or m.start() != 0 or m.end() != len(data):
        return [text] if pattern == text else None
    return [_t(g) if g is not None else "" for g in (m.group(0), *m.groups())]


def block(pattern: str, text: str) -> tuple[int, int, list[str]] | None:
    """BlockTextMatch on ``text``: (start, end, captures) of the first match, offsets in
    characters."""
    rx = compile_or_none(pattern)
    if rx is None:
        return None
    data = _b(text)
    m = rx.search(data)
    if m is None:
        return None
    start, end = m.span()
    if data.isascii():
        cstart, cend = start, end
    else:
        cstart, cend = len(_t(data[:start])), len(_t(data[:end]))
    groups = [_t(g) if g is not None else "" for g in (m.group(0), *m.groups())]
    return cstart, cend, groups


def contains(pattern: str, text: str) -> bool:
    rx = compile_or_none(pattern)
    return rx is not None and rx.search(_b(text)) is not None


# --- insert_select / delete_select ---------------------------------------------------

_SELECTORS = ("startwith", "not_startwith", "match", "not_match", "contains", "not_contains")


def line_selector(body: dict[str, Any], prefix: str) -> tuple[str, list[str]] | None:
    """The first selection list of an insert_select (``insert_if_``) or delete_select
    (``delete_if_``) body, as (kind, items)."""
    if not body:
        return None
    for kind in _SELECTORS:
        value = body.get(f"{prefix}{kind}_from_list")
        if value is None:
            continue
        items = value if isinstance(value, list) else [value]
        return kind, [str(v) for v in items]
    return None


def selector_count(body: dict[str, Any], prefix: str) -> tuple[int, int]:
    """(positive, negative) selection lists present (SanityCheckInsertions)."""
    pos = neg = 0
    for kind in _SELECTORS:
        if body and body.get(f"{prefix}{kind}_from_list") is not None:
            if kind.startswith("not_"):
                neg += 1
            else:
                pos += 1
    return pos, neg


def select_line(selector: tuple[str, list[str]] | None, line: str) -> bool:
    """SelectLine: does ``line`` pass the selection?"""
    if selector is None:
        return True
    kind, items = selector
    if kind == "startwith":
        return any(line.startswith(s) for s in items)
    if kind == "not_startwith":
        return not any(line.startswith(s) for s in items)
    if kind == "match":
        return any(full(s, line) for s in items)
    if kind == "not_match":
        return not any(full(s, line) for s in items)
    if kind == "contains":
        return any(contains(s, line) for s in items)
    if kind == "not_contains":
        return not any(contains(s, line) for s in items)
    return True


# --- whitespace_policy ---------------------------------------------------------------

def escape_regex(text: str) -> str:
    """EscapeRegexChars: cf-agent escapes only ``.`` and ``*``."""
    return text.replace(".", "\\.").replace("*", "\\*")


def _ignore_embedded(final: str) -> str:
    first = 0
    while first < len(final) and final[first].isspace():
        first += 1
    last = len(final) - 1
    while last > first and final[last].isspace():
        last -= 1
    out: list[str] = []
    i = 0
    while i < len(final):
        ch = final[i]
        if first < i < last and ch.isspace():
            while i + 1 < len(final) and final[i + 1].isspace():
                i += 1
            out.append("\\s+")
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def _ignore_leading(final: str) -> str:
    if final.startswith("\\s*"):
        return final
    return "\\s*" + final.lstrip()


def _ignore_trailing(final: str) -> str:
    if len(final) >= 4 and final[-4:-1] == "\\s*":
        return final
    stripped = final.rstrip()
    if not stripped and final:
        stripped = final[:1]
    return stripped + "\\s*"


_POLICY_STEPS: dict[str, Callable[[str], str]] = {
    "ignore_embedded": _ignore_embedded,
    "ignore_leading": _ignore_leading,
    "ignore_trailing": _ignore_trailing,
}


def match_policy(needle: str, haystack: str, policy: Sequence[str]) -> bool:
    """MatchPolicy: does the file line ``haystack`` count as the promised ``needle``?"""
    direct = needle == haystack
    if not policy:
        return direct
    ok = False
    for part in needle.split("\n"):
        ok = False
        final: str | None = None
        for opt in policy:
            if opt == "exact_match":
                ok = ok or direct
                break
            if final is None:
                final = escape_regex(part)
            step = _POLICY_STEPS.get(opt)
            if step is not None:
                final = step(final)
            ok = ok or full(final, haystack)
        if not ok:
            break
    return ok
