"""References to groups in a PCRE pattern, checked as cf-agent 3.21's PCRE (libpcre 8,
``pcre_compile()``) checks them, for :mod:`cfpromise.eval.functions.pcre`.

PCRE reads a pattern twice: its first pass finds the syntax errors (and counts the
groups, collects their names), its second looks the references up; a numbered back
reference (``\\2``, ``\\g{2}``) is checked only once the whole pattern is compiled.  So
one error, "reference to non-existent subpattern", comes at three offsets:

* a numbered back reference beyond the last group: the pattern's end;
* a name no group has (``(?P=n)``, ``\\k<n>``, ``(?&n)``, ``(?P>n)``), a recursion to a
  group that is not there (``(?2)``, ``(?+1)``): the character that ends it; a
  condition on one (``(?(2)``, ``(?(<n>)``): just after its ``)``;
* a relative reference before as many groups opened (``\\g{-2}``, ``(?-2)``): at once,
  its last character, among the first pass's errors.

Python's ``re`` knows none of this (it refuses a reference to a group not yet closed,
which PCRE allows: it fails to match there), so the translation writes each reference
as a placeholder and :meth:`Refs.finish` fills them in once the pattern is read: the
reference, ``(?!)`` where PCRE's could not match, and the error to give if Python finds
no syntax error of its own first (the first pass's errors come first in PCRE too).
"""
from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    from cfpromise.eval.functions.pcre import RegexError

_NAME = re.compile(r"[A-Za-z_]\w*")
_SIGNED = re.compile(r"([+-]?)(\d+)")
_NUMBER = re.compile(r"(-?)(\d+)")
_DIGITS = re.compile(r"\d*")

MISSING = "reference to non-existent subpattern"
NEVER = "(?!)"          # a reference that cannot match (its group is unset there)
RECURSION = "recursion, subroutine calls and branch reset are not supported"
COPIES_MAX = 1 << 16    # characters of the copies of called groups in one pattern


class Refs:
    """The groups of a pattern being translated and the references to them."""

    def __init__(self, pattern: str, error: Callable[[str, int], RegexError],
                 out: list[str]) -> None:
        self.pattern = pattern
        self.error = error          # (PCRE's words, offset) -> RegexError
        self.out = out              # the translation, one token per slot
        # capturing group -> [slot of its opening, slot of its closing], and the
        # options (flag letter -> on) in force where it opened
        self.spans: dict[int, list[int]] = {}
        self.options: dict[int, dict[str, bool]] = {}
        self.opened = 0             # capturing groups opened so far
        self.names: dict[str, int] = {}
        self.stack: list[int] = []  # per open group: its number, 0 if not capturing
        self.closed: set[int] = set()
        # (slot in the output, "number"/"name"/"recurse"/"condition", target, offset,
        # which groups were closed there)
        self.uses: list[tuple[int, str, int | str, int, frozenset[int]]] = []

    # -- groups ---------------------------------------------------------------
    def open(self, capturing: bool, name: str | None = None, end: int = 0,
             options: dict[str, bool] | None = None) -> None:
        """A group opens (its opening token is the next slot of ``out``); a name a group
        has already is PCRE's first-pass error at the name's end (``end``)."""
        if not capturing:
            self.stack.append(0)
            return
        self.opened += 1
        if name is not None:
            if name in self.names:
                raise self.error("two named subpatterns have the same name", end)
            self.names[name] = self.opened
        self.stack.append(self.opened)
        self.spans[self.opened] = [len(self.out), -1]
        self.options[self.opened] = options or {}

    def close(self) -> None:
        """The innermost open group closes (its closing token is the next slot)."""
        if self.stack:
            number = self.stack.pop()
            if number:
                self.closed.add(number)
                self.spans[number][1] = len(self.out)

    # -- references -----------------------------------------------------------
    def relative(self, back: int, last: int) -> int:
        """The group ``back`` groups before this point (``\\g{-N}``, ``(?-N)``)."""
        if back > self.opened:
            raise self.error(MISSING, last)
        return self.opened + 1 - back

    def use(self, out: list[str], kind: str, target: int | str, offset: int) -> None:
        """A reference written at the end of ``out`` (as a placeholder, filled in by
        :meth:`finish`)."""
        self.uses.append((len(out), kind, target, offset, frozenset(self.closed)))
        out.append("")

    def finish(self, out: list[str]) -> RegexError | None:
        """Fill in the placeholders of ``out``; the error PCRE gives of the references
        if the rest of the pattern is good: the second pass's first, else a numbered
        reference's at the end, else a recursion (which cf-lite does not do)."""
        second: RegexError | None = None
        at_end: RegexError | None = None
        calls: list[tuple[int, int, int]] = []
        for slot, kind, target, offset, closed in self.uses:
            number = self.names.get(target, 0) if isinstance(target, str) else target
            exists = 0 < number <= self.opened
            if kind == "condition":     # (one on a later group: Python refuses it)
                out[slot] = f"(?({number})" if exists else "(?:"
                if not exists and second is None:
                    second = self.error(MISSING, offset)
                continue
            if kind == "recurse":
                out[slot] = NEVER
                if not exists:
                    second = second or self.error(MISSING, offset)
                else:
                    calls.append((slot, number, offset))
                continue
            if exists and number in closed:
                out[slot] = f"(?P={target})" if isinstance(target, str) else f"(?:\\{number})"
                continue
            out[slot] = NEVER
            if not exists:
                if kind == "name":
                    second = second or self.error(MISSING, offset)
                else:
                    at_end = at_end or self.error(MISSING, len(self.pattern))
        return second or at_end or self.calls(out, calls)

    def calls(self, out: list[str], calls: list[tuple[int, int, int]]) -> RegexError | None:
        """Subroutine calls (``(?1)``, ``(?&n)``...) of groups they are not inside: each
        becomes a copy of the group as PCRE 8 runs it -- atomic, capturing nothing (a
        call's captures are undone when it returns), under the options in force where the
        group is written.  A recursion, or a back reference inside the called group to a
        group of its own, is refused."""
        uses = {slot: number for slot, kind, target, _o, _c in self.uses
                for number in [self.names.get(target, 0) if isinstance(target, str)
                               else target]}
        kinds = {slot: kind for slot, kind, *_rest in self.uses}
        openers = {span[0] for span in self.spans.values()}
        texts: dict[int, str] = {}
        for slot, number, offset in calls:
            text = self.copy(number, (), uses, kinds, openers)
            if text is None or sum(map(len, texts.values())) + len(text) > COPIES_MAX:
                return self.error(RECURSION, offset)
            texts[slot] = text
        for slot, text in texts.items():
            out[slot] = text
        return None

    def copy(self, number: int, inside: tuple[int, ...], uses: dict[int, int],
             kinds: dict[int, str], openers: set[int]) -> str | None:
        start, end = self.spans[number]
        if number in inside or end < 0:
            return None             # a recursion (or a call inside its own group)
        own = {n for n, (s, _e) in self.spans.items() if start <= s <= end}
        parts = []
        for slot in range(start, end + 1):
            if slot in openers:
                parts.append("(?:")
            elif kinds.get(slot) == "recurse":
                inner = self.copy(uses[slot], inside + (number,), uses, kinds, openers)
                if inner is None:
                    return None
                parts.append(inner)
            elif slot in kinds and uses[slot] in own:
                return None         # a reference to what the call itself captures
            else:
                parts.append(self.out[slot])
        wanted = self.options[number]
        on = "".join(sorted(f for f, v in wanted.items() if v))
        off = "".join(sorted(f for f, v in wanted.items() if not v))
        spec = on + ("-" + off if off else "")
        return f"(?>(?{spec}:{''.join(parts)}))" if spec else f"(?>{''.join(parts)})"


class References:
    """The translator's reading of references (a mixin of pcre's translator: its
    pattern ``p``, position ``i``, output ``out``, ``frames``, ``refs`` and ``error``)."""

    p: str
    i: int
    out: list[str]
    frames: list[list[str]]
    refs: Refs
    error: Callable[[str], Any]

    def by_name(self, kind: str, start: int, terminator: str) -> None:
        """A reference by the name from ``start`` to ``terminator``: a back reference
        ``(?P=n)`` ``\\k<n>``, or a subroutine call ``(?P>n)`` ``(?&n)``."""
        p = self.p
        m = _NAME.match(p, start)
        end = m.end() if m else start
        if end >= len(p) or p[end] != terminator:
            self.i = end
            raise self.error("syntax error in subpattern name (missing terminator)"
                             if end >= len(p) or end > start else
                             "subpattern name expected")
        if end == start:
            self.i = end
            raise self.error("subpattern name expected")
        self.refs.use(self.out, kind, p[start:end], end)
        self.i = end + 1

    def recursion(self, start: int) -> None:
        """``(?N)``, ``(?+N)``, ``(?-N)``: a call of group N (:meth:`Refs.calls`); PCRE's
        errors of a group that is not there, or of a number it refuses."""
        p = self.p
        m = _SIGNED.match(p, start)
        end = m.end() if m else start
        if m is None or end >= len(p) or p[end] != ")":
            self.i = end
            raise self.error("(?R or (?[+-]digits must be followed by )")
        sign, number = m.group(1), int(m.group(2))
        self.i = end
        if number == 0:
            raise self.error("a numbered reference must not be zero" if sign else RECURSION)
        target = self.refs.relative(number, end) if sign == "-" else \
            self.refs.opened + number if sign == "+" else number
        self.refs.use(self.out, "recurse", target, end)
        self.i = end + 1

    def condition(self, start: int, close: int) -> None:
        """``(?(N)``, ``(?(<n>)``, ``(?('n')``, ``(?(n)``: on a group that is not there,
        PCRE's error just after its ``)``; ``(?(R)``, ``(?(DEFINE)``... as they are."""
        p = self.p
        cond = p[start:close]
        target: int | str | None = None
        if cond[:1].isdigit() and not cond.isdigit() or cond[:1] in ("<", "'") and not (
                len(cond) > 2 and cond[-1] == (">" if cond[0] == "<" else "'")
                and _NAME.fullmatch(cond[1:-1])):
            skip = 1 if cond[:1] in ("<", "'") else 0
            m = (_NAME if skip else _DIGITS).match(cond, skip)
            self.i = start + (m.end() if m else skip)
            raise self.error("malformed number or name after (?(")
        if cond.isdigit():
            target = int(cond)
        elif cond[:1] in ("<", "'"):
            target = cond[1:-1]
        elif _NAME.fullmatch(cond) and not cond.startswith("R") and cond != "DEFINE":
            target = cond
        self.frames.append([])
        self.refs.open(False)
        if cond == "DEFINE":        # never matched itself: its groups are for calls
            self.out.append("(?:|(?!)")
        elif target is None:
            self.out.append(f"(?({cond})")
        else:
            self.refs.use(self.out, "condition", target, close + 1)
        self.i = close + 1

    def digits(self, start: int) -> None:
        """``\\N`` outside a class, as PCRE reads it: a back reference when N is below
        8 or that many groups have opened, else ``\\8``/``\\9`` are the digit and the
        rest up to three octal digits (``\\10`` with fewer groups is a backspace)."""
        p = self.p
        end = start
        while end < len(p) and p[end].isdigit():
            end += 1
        number = int(p[start:end])
        if number < 8 or number <= self.refs.opened:
            self.refs.use(self.out, "number", number, end - 1)
            self.i = end
            return
        if p[start] in "89":
            self.out.append(p[start])
            self.i = start + 1
            return
        end = start
        while end < len(p) and end < start + 3 and p[end] in "01234567":
            end += 1
        self.i = end - 1
        value = int(p[start:end], 8)
        if value > 0xFF:
            raise self.error("octal value is greater than \\377 in 8-bit non-UTF-8 mode")
        self.out.append(f"\\x{value:02x}")
        self.i = end

    def backref(self, c: str) -> None:
        """``\\g`` (a number, ``{-N}``, ``{name}``) and ``\\k`` (``<name>``, ``'name'``,
        ``{name}``), with PCRE's errors at PCRE's offsets."""
        p = self.p
        at = self.i                 # just after the letter
        if c == "k":
            close = {"<": ">", "'": "'", "{": "}"}.get(p[at:at + 1])
            if close is None:
                self.i = at - 1
                raise self.error("\\k is not followed by a braced, angle-bracketed, or "
                                 "quoted name")
            self.by_name("name", at + 1, close)
            return
        if p.startswith("{", at) and _NAME.match(p, at + 1):
            self.by_name("name", at + 1, "}")
            return
        braced = p.startswith("{", at)
        m = _NUMBER.match(p, at + braced)
        if m is None:
            if braced and p[at + 1:at + 2] == "+":
                self.i = at + 1
                raise self.error("subpattern name expected")
            self.i = at - 1
            raise self.error("a numbered reference must not be zero")
        end = m.end()
        if braced:
            if not p.startswith("}", end):
                self.i = len(p)
                raise self.error("syntax error in subpattern name (missing terminator)")
            end += 1
        last = end - 1              # (PCRE's offset: the reference's last character)
        self.i = last
        number = int(m.group(2))
        if number == 0:
            raise self.error("a numbered reference must not be zero")
        if m.group(1):
            number = self.refs.relative(number, last)
        self.refs.use(self.out, "number", number, last)
        self.i = end
