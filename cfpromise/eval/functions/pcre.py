"""PCRE regular expressions on top of Python's ``re``, as cf-agent uses them.

cf-agent compiles every policy regex with PCRE2, options ``MULTILINE |
DOTALL``, without UTF mode: patterns and subjects are *bytes*, ``\\w`` and
``\\d`` are ASCII, ``.`` matches one byte (so ``^.$`` does not match ``é``).  We
do the same with ``bytes`` patterns; text is encoded as UTF-8 with
``surrogateescape``.

"Full match" in CFEngine (regcmp, classmatch, grep, ...) is not anchoring: it
takes the *first* match PCRE finds and accepts it if it spans the whole
subject, so ``regcmp("a|ab", "ab")`` is false.  :func:`full_match` does exactly
that with :meth:`re.Pattern.search`.

:func:`translate` rewrites the PCRE syntax Python's ``re`` lacks or reads
differently (one pass over the pattern, keeping a stack of open groups):

* POSIX classes ``[[:alpha:]]`` and negated ``[[:^digit:]]`` become byte ranges;
* ``\\z`` -> ``\\Z`` and PCRE's ``\\Z`` (end, or before a final newline) ->
  ``(?=\\n?\\Z)``; ``\\h \\H \\v \\V \\R \\N \\e \\cX \\x{..} \\o{..} \\Q..\\E``;
* ``(?<name>..)``, ``(?'name'..)``; references to groups (``\\N``, ``\\g{N}``,
  ``\\g{-N}``, ``\\k<name>``, ``(?P=name)``, conditions) with PCRE's reading and
  its errors at its offsets: :mod:`cfpromise.eval.functions.pcrerefs`;
* an inline option ``(?i)`` anywhere (Python only allows it at the start)
  becomes a scoped group ``(?i:...)`` running to the end of the enclosing
  group, reopened after each ``|`` of that group, which is PCRE's scope;
* ``{`` that does not start a quantifier is a literal in PCRE; literal
  ``[ & ~ |`` inside a class are escaped (Python warns about set operations).

Possessive quantifiers and atomic groups are native in Python 3.11.  A
subroutine call of a group it is not inside (``(?1)``, ``(?&name)``, with
``(?(DEFINE)...)``) becomes a copy of the group as PCRE 8 runs it
(:meth:`~cfpromise.eval.functions.pcrerefs.Refs.calls`).  PCRE features with no
``re`` counterpart (recursion ``(?R)``, a call inside its own group, ``\\G``,
``\\K``, branch reset ``(?|``, ``\\p{..}``, the ``U`` option) raise
:class:`RegexError` with a clear message.
"""
from __future__ import annotations

import re

from cfpromise.eval.functions.api import FunctionError
from cfpromise.eval.functions.pcrerefs import References, Refs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterator

_POSIX = {
    "alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z",
    "lower": "a-z", "space": "\\t\\n\\x0b\\f\\r ", "blank": " \\t",
    "punct": "!-/:-@\\[-`{-~", "print": " -~", "graph": "!-~",
    "cntrl": "\\x00-\\x1f\\x7f", "xdigit": "0-9A-Fa-f", "word": "a-zA-Z0-9_",
    "ascii": "\\x00-\\x7f",
}
_POSIX_SETS = {
    "alpha": set(range(65, 91)) | set(range(97, 123)),
    "digit": set(range(48, 58)),
    "upper": set(range(65, 91)), "lower": set(range(97, 123)),
    "space": {9, 10, 11, 12, 13, 32}, "blank": {9, 32},
    "print": set(range(32, 127)), "graph": set(range(33, 127)),
    "cntrl": set(range(0, 32)) | {127}, "ascii": set(range(0, 128)),
}
_POSIX_SETS["alnum"] = _POSIX_SETS["alpha"] | _POSIX_SETS["digit"]
_POSIX_SETS["word"] = _POSIX_SETS["alnum"] | {95}
_POSIX_SETS["xdigit"] = _POSIX_SETS["digit"] | set(range(65, 71)) | set(range(97, 103))
_POSIX_SETS["punct"] = _POSIX_SETS["graph"] - _POSIX_SETS["alnum"]

_QUANT = re.compile(r"\{\d+(,\d*)?\}")
_FLAG_GROUP = re.compile(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?\)")
_PY_FLAGS = set("imsx")


class RegexError(FunctionError):
    """The pattern is not a valid (or supported) PCRE regular expression."""


def _byte_ranges(values: set[int]) -> str:
    out: list[str] = []
    items = sorted(values)
    i = 0
    while i < len(items):
        j = i
        while j + 1 < len(items) and items[j + 1] == items[j] + 1:
            j += 1
        out.append(f"\\x{items[i]:02x}" if i == j else f"\\x{items[i]:02x}-\\x{items[j]:02x}")
        i = j + 1
    return "".join(out)


def _hex_escape(code: int, pattern: str) -> str:
    if code > 0xFF:
        raise regex_error("character code point value in \\x{} or \\o{} is too large",
                          pattern, len(pattern))
    return f"\\x{code:02x}"


class _Translator(References):
    def __init__(self, pattern: str, extended: bool, flags: str = "ms") -> None:
        self.p = pattern
        self.i = 0
        self.out: list[str] = []
        self.extended = extended
        self.flags = flags          # the options the pattern is compiled with
        # per open group: inline-option scopes opened at that level
        self.frames: list[list[str]] = [[]]
        self.scoped: dict[int, str] = {}    # frame -> options of its group (?i:...)
        self.refs = Refs(pattern, lambda what, at: regex_error(what, pattern, at), self.out)

    def options(self) -> dict[str, bool]:
        """The options i, m, s in force here (a called group runs under its own)."""
        state = {f: f in self.flags for f in "ims"}
        for level, scopes in enumerate(self.frames):
            for spec in [self.scoped.get(level, "")] + scopes:
                on, _, off = spec.partition("-")
                state.update({f: True for f in on if f in state})
                state.update({f: False for f in off if f in state})
        return state

    def error(self, what: str) -> RegexError:
        at_end = "at end of pattern" in what or "missing terminator" in what
        return regex_error(what, self.p, len(self.p) if at_end else self.i)

    def run(self) -> str:
        p = self.p
        while self.i < len(p):
            ch = p[self.i]
            if ch == "\\":
                self.escape(in_class=False)
            elif ch == "[":
                self.char_class()
            elif ch == "(":
                self.open_group()
            elif ch == ")":
                scopes = []
                if len(self.frames) > 1:
                    self.scoped.pop(len(self.frames) - 1, None)
                    scopes = self.frames.pop()
                    self.refs.close()
                self.out.append(")" * len(scopes) + ")")
                self.i += 1
            elif ch == "|":
                scopes = self.frames[-1]
                self.out.append(")" * len(scopes) + "|" + "".join(f"(?{s}:" for s in scopes))
                self.i += 1
            elif ch == "{":
                m = _QUANT.match(p, self.i)
                if m:
                    self.out.append(m.group(0))
                    self.i = m.end()
                else:
                    self.out.append("\\{")
                    self.i += 1
            elif ch == "}":
                self.out.append("\\}")
                self.i += 1
            elif ch == "#" and self.extended:
                end = p.find("\n", self.i)
                end = len(p) if end < 0 else end
                self.i = end
            else:
                self.out.append(ch)
                self.i += 1
        for scopes in reversed(self.frames):
            self.out.append(")" * len(scopes))
        self.deferred = self.refs.finish(self.out)
        return "".join(self.out)

    # -- groups -----------------------------------------------------------------
    def open_group(self) -> None:
        p, i = self.p, self.i
        if not p.startswith("(?", i) and not p.startswith("(*", i):
            self.refs.open(True, options=self.options())
            self.frames.append([])
            self.out.append("(")
            self.i += 1
            return
        if p.startswith("(*", i):
            raise self.error("backtracking control verbs are not supported")
        if p.startswith(("(?R", "(?|"), i):
            raise self.error("recursion, subroutine calls and branch reset are not supported")
        m = _FLAG_GROUP.match(p, i)
        if m:
            on, off = m.group(1), m.group(2) or ""
            self.check_flags(on + off)
            if "x" in on:
                self.extended = True
            spec = on + ("-" + off if off else "")
            if spec:
                self.out.append(f"(?{spec}:")
                self.frames[-1].append(spec)
            self.i = m.end()
            return
        rest = p[i + 2:]
        if rest.startswith(("P<", "<")) and not rest.startswith(("<=", "<!")):
            start = i + (4 if rest.startswith("P<") else 3)
            end = p.find(">", start)
            if end < 0:
                raise self.error("syntax error in subpattern name (missing terminator)")
            self.refs.open(True, p[start:end], end, self.options())
            self.frames.append([])
            self.out.append(f"(?P<{p[start:end]}>")
            self.i = end + 1
            return
        if rest.startswith("'"):
            end = p.find("'", i + 3)
            if end < 0:
                raise self.error("syntax error in subpattern name (missing terminator)")
            self.refs.open(True, p[i + 3:end], end, self.options())
            self.frames.append([])
            self.out.append(f"(?P<{p[i + 3:end]}>")
            self.i = end + 1
            return
        if rest.startswith(("P=", "P>", "&")):
            self.by_name("name" if rest.startswith("P=") else "recurse",
                          i + (4 if rest.startswith("P") else 3), ")")
            return
        if rest[:1].isdigit() or rest.startswith(("+", "-")) and rest[1:2].isdigit():
            self.recursion(i + 2)
            return
        if rest.startswith("("):         # conditional group
            close = p.find(")", i + 3)
            if close < 0:               # (PCRE's words; this loop must not go back to 0)
                self.i = len(p)
                raise self.error("assertion expected after (?( or (?(?C)" if i + 3 == len(p)
                                 else "malformed number or name after (?(")
            self.condition(i + 3, close)
            return
        flags = re.match(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?:", p[i:])
        if flags:
            self.check_flags(flags.group(1) + (flags.group(2) or ""))
            self.scoped[len(self.frames)] = flags.group(1) + "-" + (flags.group(2) or "")
        if rest.startswith("#"):
            end = p.find(")", i)
            self.i = len(p) if end < 0 else end + 1
            return
        self.frames.append([])
        self.refs.open(False)
        # (?: (?= (?! (?<= (?<! (?> and (?flags:  -- same in Python
        m2 = re.match(r"\(\?(?:[:=!>]|<=|<!|[a-zA-Z]*(?:-[a-zA-Z]*)?:)", p[i:])
        if not m2:
            raise self.error("unrecognized character after (? or (?-")
        self.out.append(m2.group(0))
        self.i += m2.end()

    def check_flags(self, letters: str) -> None:
        bad = set(letters) - _PY_FLAGS - {"J"}
        if bad:
            raise self.error(f"option '{''.join(sorted(bad))}' is not supported")

    # -- escapes ------------------------------------------------------------------
    def escape(self, in_class: bool) -> None:
        p, i = self.p, self.i
        if i + 1 >= len(p):
            raise self.error("\\ at end of pattern")
        c = p[i + 1]
        self.i = i + 2
        simple = {"h": "[ \\t]" if not in_class else " \\t",
                  "e": "\\x1b", "a": "\\x07"}
        if c in simple:
            self.out.append(simple[c])
        elif c == "H" and not in_class:
            self.out.append("[^ \\t]")
        elif c == "v":
            self.out.append("[\\n\\x0b\\f\\r\\x85]" if not in_class else "\\n\\x0b\\f\\r\\x85")
        elif c == "V" and not in_class:
            self.out.append("[^\\n\\x0b\\f\\r\\x85]")
        elif c == "R" and not in_class:
            self.out.append("(?:\\r\\n|\\n|\\x0b|\\f|\\r|\\x85)")
        elif c == "N" and not in_class:
            self.out.append("[^\\n]")
        elif c == "z" and not in_class:
            self.out.append("\\Z")
        elif c == "Z" and not in_class:
            self.out.append("(?=\\n?\\Z)")
        elif c == "c":
            if self.i >= len(p):
                raise self.error("\\c at end of pattern")
            self.out.append(_hex_escape(ord(p[self.i].upper()) ^ 0x40, self.p))
            self.i += 1
        elif c == "x" and p.startswith("{", self.i):
            end = p.find("}", self.i)
            self.out.append(_hex_escape(int(p[self.i + 1:end] or "0", 16), self.p))
            self.i = end + 1
        elif c == "o" and p.startswith("{", self.i):
            end = p.find("}", self.i)
            self.out.append(_hex_escape(int(p[self.i + 1:end] or "0", 8), self.p))
            self.i = end + 1
        elif c == "Q":
            end = p.find("\\E", self.i)
            end = len(p) if end < 0 else end
            self.out.append(re.escape(p[self.i:end]))
            self.i = min(len(p), end + 2)
        elif c == "E":
            pass
        elif c in "gk" and not in_class:
            self.backref(c)
        elif c in "123456789" and not in_class:
            self.digits(i + 1)
        elif c in "GKXCpP" and not in_class or c in "pP":
            raise self.error(f"\\{c} is not supported")
        else:
            self.out.append("\\" + c)

    # -- classes --------------------------------------------------------------------
    def char_class(self) -> None:
        p = self.p
        self.out.append("[")
        self.i += 1
        if p.startswith("^", self.i):
            self.out.append("^")
            self.i += 1
        first = True
        while self.i < len(p):
            ch = p[self.i]
            if ch == "]" and not first:
                self.out.append("]")
                self.i += 1
                return
            first = False
            if ch == "[" and p.startswith(("[:", "[=", "[."), self.i):
                end = p.find(":]", self.i + 2)
                name = p[self.i + 2:end] if end >= 0 else ""
                negate = name.startswith("^")
                key = name[1:] if negate else name
                if end < 0 or key not in _POSIX:
                    raise self.error(f"unknown POSIX class name '{name}'")
                if negate:
                    self.out.append(_byte_ranges(set(range(256)) - _POSIX_SETS[key]))
                else:
                    self.out.append(_POSIX[key])
                self.i = end + 2
            elif ch == "\\":
                self.escape(in_class=True)
            elif ch in "[&~|":
                self.out.append("\\" + ch)
                self.i += 1
            else:
                self.out.append(ch)
                self.i += 1
        raise self.error("missing terminating ] for character class")


def translate(pattern: str, extended: bool = False, flags: str = "ms") -> str:
    """The Python ``re`` spelling of the PCRE ``pattern`` (see module docs); RegexError
    when PCRE refuses a reference in it and ``re`` finds no syntax error of its own
    (which comes first: the caller's compile says it)."""
    text, deferred = translated(pattern, extended, flags)
    if deferred is not None:
        try:
            re.compile(text.encode("utf-8", "surrogateescape"), re.X if extended else 0)
        except (re.error, OverflowError, ValueError):
            return text
        raise deferred
    return text


def translated(pattern: str, extended: bool = False,
               flags: str = "ms") -> tuple[str, RegexError | None]:
    """:func:`translate`'s spelling, and the error PCRE gives of the pattern's
    references unless ``re`` finds a syntax error first (:mod:`.pcrerefs`)."""
    if not any(c in pattern for c in "\\[({}|#"):
        return pattern, None
    translator = _Translator(pattern, extended, flags)
    text = translator.run()
    return text, translator.deferred


_COMPILED: dict[tuple[str, str], re.Pattern[bytes]] = {}


def compile_regex(pattern: str, flags: str = "ms") -> re.Pattern[bytes]:
    """Compile a PCRE pattern for byte subjects; ``flags`` among ``imsx``
    (cf-agent's default is ``ms``).  RegexError if it is invalid.  Compiled patterns
    are kept for the run (policy compiles the same few patterns thousands of times:
    7,000 calls on masterfiles); invalid ones are not, so each use reports its error."""
    found = _COMPILED.get((pattern, flags))
    if found is not None:
        return found
    if len(_COMPILED) > 4096:
        _COMPILED.clear()
    found = _COMPILED[(pattern, flags)] = _compile_regex(pattern, flags)
    return found


def _compile_regex(pattern: str, flags: str) -> re.Pattern[bytes]:
    pyflags = 0
    for f in flags:
        pyflags |= {"i": re.I, "m": re.M, "s": re.S, "x": re.X}[f]
    try:
        text, deferred = translated(pattern, "x" in flags, flags)
        compiled = re.compile(text.encode("utf-8", "surrogateescape"), pyflags)
        if deferred is not None:
            raise deferred
        return compiled
    except RegexError:
        raise
    except re.error as exc:
        raise _from_python(exc, pattern) from None
    except (OverflowError, ValueError) as exc:
        raise regex_error(str(exc), pattern, len(pattern)) from None


def regex_error(what: str, pattern: str, offset: int) -> RegexError:
    """CompileRegex's message (3.21 libpromises/regex.c)."""
    return RegexError(f"Regular expression error: pcre_compile() '{what}' in expression "
                      f"'{pattern}' (offset: {offset})")


# Python's re error (what its message starts with) -> PCRE's message, and where PCRE
# says it stopped: "end" of the pattern, the error's "pos"ition (+ n), or the "brace"
# that closes the quantifier there
_PY_ERRORS: tuple[tuple[str, str, str, int], ...] = (
    ("missing ), unterminated subpattern", "missing )", "end", 0),
    ("unterminated character set", "missing terminating ] for character class", "end", 0),
    ("nothing to repeat", "nothing to repeat", "pos", 0),
    ("multiple repeat", "nothing to repeat", "pos", 0),
    ("unbalanced parenthesis", "unmatched parentheses", "pos", 0),
    ("min repeat greater than max repeat", "numbers out of order in {} quantifier", "brace", 0),
    ("bad character range", "range out of order in character class", "pos", 2),
    ("bad character in group name", "group name must start with a non-digit", "pos", 0),
)


def _from_python(exc: re.error, pattern: str) -> RegexError:
    text = str(exc.msg) if hasattr(exc, "msg") else str(exc)
    pos = exc.pos if getattr(exc, "pos", None) is not None else len(pattern)
    for prefix, what, where, extra in _PY_ERRORS:
        if text.startswith(prefix):
            offset = len(pattern) if where == "end" else \
                (pattern.find("}", pos) if where == "brace" else pos + extra)
            return regex_error(what, pattern, min(max(offset, 0), len(pattern)))
    return regex_error(text, pattern, min(pos, len(pattern)))


_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:-/=,;@%!<>'\" ")


def literal_prefix(pattern: str) -> str:
    """A prefix every full match of ``pattern`` starts with ("" when none is sure):
    the leading plain characters, less the last one when a quantifier follows it.
    No prefix for a pattern with an alternation anywhere or a leading option group.
    Lets a scan over thousands of names skip most of them with ``str.startswith``."""
    if "|" in pattern:
        return ""
    end = 0
    while end < len(pattern) and pattern[end] in _PLAIN:
        end += 1
    if end < len(pattern) and pattern[end] in "?*{":
        end -= 1
    return pattern[:max(end, 0)]


def _b(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _t(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def full_match(regex: str | re.Pattern[bytes], text: str) -> bool:
    """StringMatchFull: the first match starts at 0 and ends at the end."""
    rx = compile_regex(regex) if isinstance(regex, str) else regex
    data = _b(text)
    m = rx.search(data)
    return m is not None and m.start() == 0 and m.end() == len(data)


def search(regex: str | re.Pattern[bytes], text: str) -> tuple[int, int] | None:
    """StringMatch: byte offsets of the first match, or None."""
    rx = compile_regex(regex) if isinstance(regex, str) else regex
    m = rx.search(_b(text))
    return None if m is None else m.span()


def captures(regex: str, text: str) -> list[tuple[str, str]] | None:
    """StringMatchCaptures with names: [("0", whole), ("1" or name, group), ...]
    for the first match, or None.  Groups that did not take part are empty."""
    rx = compile_regex(regex)
    m = rx.search(_b(text))
    if m is None:
        return None
    names = {index: name for name, index in rx.groupindex.items()}
    out = [("0", _t(m.group(0)))]
    for index in range(1, (rx.groups or 0) + 1):
        value = m.group(index)
        out.append((names.get(index, str(index)), _t(value) if value is not None else ""))
    return out


def split(text: str, regex: str, max_entries: int, allow_blanks: bool) -> list[str]:
    """RlistFromSplitRegex (splitstring, readstringlist, lastnode, ...)."""
    rx = compile_regex(regex)
    data = _b(text)
    pos = 0
    out: list[str] = []
    while len(out) < max_entries:
        m = rx.search(data[pos:])
        if m is None or m.end() == 0:
            break
        piece = data[pos:pos + m.start()]
        if allow_blanks or piece:
            out.append(_t(piece))
        pos += m.end()
    if len(out) < max_entries:
        rest = data[pos:]
        if (allow_blanks and pos != 0) or rest:
            out.append(_t(rest))
    return out


def split_no_overflow(text: str, regex: str, max_entries: int) -> list[str]:
    """RlistFromRegexSplitNoOverflow (string_split): at most ``max_entries``,
    the last one holding the rest of the text."""
    rx = compile_regex(regex)
    data = _b(text)
    pos = 0
    out: list[str] = []
    while len(out) < max_entries - 1:
        m = rx.search(data[pos:])
        if m is None:
            break
        out.append(_t(data[pos:pos + m.start()]))
        pos += m.end()
    out.append(_t(data[pos:]))
    return out


def iter_lines_matching(regex: str, lines: Iterator[str]) -> Iterator[str]:
    """The lines that :func:`full_match` ``regex``."""
    rx = compile_regex(regex)
    for line in lines:
        if full_match(rx, line):
            yield line
