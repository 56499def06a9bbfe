"""Data containers the way CFEngine 3.21 reads, copies and writes them.

Reading (:func:`loads`) follows libntech's JSON parser rather than the JSON
standard, because policies rely on its leniency:

* the top-level value may be followed by anything (``[1] junk`` is ``[1]``);
* trailing commas are accepted, commas between array items are optional, the
  colon after an object key is optional and a key may be a bare word
  (``{ foo: 1 }``);
* string escapes are decoded twice (``"a\\\\nb"`` holds a newline), unknown
  escapes such as ``\\u00e9`` are kept literally;
* with a ``lookup`` function, a bare word in an array or object value position
  (``[ myvar, b.list, a[k] ]``) is replaced by that variable's JSON value;
* a repeated key moves to the end with its last value.

A real number read from text keeps that text (:class:`Real`, a float), as
CFEngine keeps the characters it parsed: ``join(",", '[2.50]')`` prints
``2.50``.  Copying a container (what storing it in a variable does) turns
reals into plain floats, which print as ``%.4f`` like CFEngine's
``JsonRealCreate``.  :func:`prim_text` and :func:`prim_str` are the two ways
CFEngine turns a primitive into text (``JsonPrimitiveGetAsString`` and
``JsonPrimitiveToString``; the latter prints reals as ``%.2f`` and has no text
for null).

Writing (:func:`dumps`) reproduces ``JsonWrite``/``JsonWriteCompact``: keys
sorted bytewise and written without escaping, 2-space indentation, ``[]`` for
an empty array but ``{`` newline ``}`` for an empty object, only ``"`` ``\\``
and the five control escapes escaped.
"""
from __future__ import annotations

import re

from cfpromise.eval.variables import json_copy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    Lookup = Callable[[str], Any]

_WS = " \t\n\r"
_SEPARATORS = _WS + ",]}"
_BARE_KEY = re.compile(r"\w[-\w]*\s*:", re.A)
_FLOAT_PREFIX = re.compile(r"-?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?")
_VAR_NAME = re.compile(r"(([a-zA-Z0-9_]+\.)?[a-zA-Z0-9._]+)(\[[^\[\]]+\])?")


class JsonError(ValueError):
    """The text is not JSON as CFEngine reads it."""


class Real(float):
    """A real number read from JSON text, remembering that text."""

    __slots__ = ("text",)

    def __new__(cls, text: str) -> Real:
        m = _FLOAT_PREFIX.match(text)
        obj = super().__new__(cls, float(m.group(0)) if m else 0.0)
        obj.text = text
        return obj


class ExpInteger(Real):
    """An integer written with an exponent and no dot (``1e3``, ``12e-1``): libntech
    types it an integer but keeps its text, so it reads as the real it is until a
    container holding it is copied, when converting the text exits
    (:class:`cfpromise.agent.abort.ConversionExit`)."""

    __slots__ = ()
    integer = True


# ---------------------------------------------------------------------------
# Reading


def loads(text: str, lookup: Lookup | None = None) -> Any:
    """Parse ``text`` as CFEngine's JsonParseWithLookup; JsonError on failure (its
    ``rest``: the text from where the parser stopped, which cf-agent names)."""
    return loads_end(text, lookup)[0]


def loads_end(text: str, lookup: Lookup | None = None) -> tuple[Any, int]:
    """:func:`loads`, and where the parser stopped: libntech's pointer rests on the last
    character of a top-level primitive (cf-agent's "Non-container" message names the
    text from there)."""
    parser = _Parser(text, lookup)
    try:
        value = parser.top()
    except JsonError as exc:
        exc.rest = text[parser.i:]      # type: ignore[attr-defined]
        raise
    return value, max(parser.i - 1, 0)


def loads_container(text: str, lookup: Lookup | None = None) -> Any:
    """:func:`loads` that must give an object or array."""
    value = loads(text, lookup)
    if not isinstance(value, (dict, list)):
        raise JsonError("Non-container from parsing JSON")
    return value


def _decode(raw: str) -> str:
    """JsonDecodeString: the second escape pass."""
    if "\\" not in raw:
        return raw
    out: list[str] = []
    i, n = 0, len(raw)
    table = {'"': '"', "\\": "\\", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
    while i < n:
        ch = raw[i]
        if ch == "\\" and i + 1 < n and raw[i + 1] in table:
            out.append(table[raw[i + 1]])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


class _Parser:
    def __init__(self, text: str, lookup: Lookup | None) -> None:
        self.s = text
        self.i = 0
        self.lookup = lookup

    def top(self) -> Any:
        s = self.s
        while self.i < len(s):
            ch = s[self.i]
            if ch == "{":
                return self.obj()
            if ch == "[":
                return self.arr()
            if ch in _WS:
                self.i += 1
                continue
            return self.primitive()
        raise JsonError("No data")

    # -- pieces ---------------------------------------------------------------
    def string(self) -> str:
        s, i = self.s, self.i + 1
        out: list[str] = []
        while i < len(s):
            ch = s[i]
            if ch == '"':
                self.i = i + 1
                return _decode("".join(out))
            if ch == "\\":
                i += 1
                if i >= len(s):
                    break
                esc = s[i]
                simple = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
                if esc in simple:
                    out.append(simple[esc])
                elif esc in '\\"/':
                    out.append(esc)
                else:
                    out.append("\\" + esc)
                i += 1
                continue
            out.append(ch)
            i += 1
        self.i = len(s)             # (libntech's pointer is at the end of the text)
        raise JsonError("Unable to parse json data as string, did not end with doublequote")

    def number(self) -> Any:
        s, start = self.s, self.i
        zero_started = seen_dot = seen_exp = False
        prev = ""
        i = start
        while i < len(s) and s[i] not in _SEPARATORS:
            ch = s[i]
            self.i = i              # (an error names the text from this character)
            if ch == "-":
                if prev not in ("", "e", "E"):
                    raise JsonError("Unable to parse json data as number, - not at the start "
                                    "or not after exponent")
            elif ch == "+":
                if prev not in ("e", "E"):
                    raise JsonError("Unable to parse json data as number, + without "
                                    "preceding exponent")
            elif ch == "0":
                if zero_started and not seen_dot and not seen_exp:
                    raise JsonError("Unable to parse json data as number, started with 0 "
                                    "before dot or exponent, duplicate 0 seen")
                if prev == "":
                    zero_started = True
            elif ch == ".":
                if seen_dot:
                    raise JsonError("Unable to parse json data as number, two or more dots "
                                    "(decimal points)")
                if not prev.isdigit():
                    raise JsonError("Unable to parse json data as number, dot not "
                                    "preceded by digit")
                seen_dot = True
            elif ch in "eE":
                if seen_exp:
                    raise JsonError("Unable to parse json data as number, duplicate exponent")
                if not prev.isdigit():
                    raise JsonError("Unable to parse json data as number, exponent without "
                                    "preceding digit")
                seen_exp = True
            else:
                if zero_started and not seen_dot and not seen_exp:
                    raise JsonError("Unable to parse json data as number, dot or exponent "
                                    "must follow leading 0")
                if not ch.isdigit() or not ch.isascii():
                    raise JsonError("Unable to parse json data as number, invalid symbol")
            prev = ch
            i += 1
        self.i = i
        if not prev.isdigit():
            raise JsonError("Unable to parse json data as string, did not end with digit")
        text = s[start:i]
        if seen_dot:
            return Real(text)
        return ExpInteger(text) if seen_exp else int(text)

    def word(self) -> tuple[bool, Any]:
        s, i = self.s, self.i
        for word, value in (("true", True), ("false", False), ("null", None)):
            if s.startswith(word, i):
                nxt = s[i + len(word): i + len(word) + 1]
                if nxt == "" or nxt in _SEPARATORS:
                    self.i = i + len(word)
                    return True, value
        return False, None

    def reference(self) -> tuple[bool, Any]:
        if self.lookup is None:
            return False, None
        m = _VAR_NAME.match(self.s, self.i)
        if not m:
            return False, None
        value = self.lookup(m.group(0))
        if value is None:
            # LookupVarRefToJson moves the parser to the name's last character before it
            # looks the name up: an error names the text from there ('[abc]': 'c]')
            self.i = m.end() - 1
            return False, None
        self.i = m.end()
        return True, value

    def primitive(self) -> Any:
        ch = self.s[self.i]
        if ch == '"':
            return self.string()
        if ch == "-" or ch.isdigit() and ch.isascii():
            return self.number()
        ok, value = self.word()
        if ok:
            return value
        raise JsonError("Unable to parse json data as object, unrecognized token beginning entry")

    def scalar_or_ref(self) -> Any:
        """A value in an array or after an object key that is not a container."""
        ch = self.s[self.i]
        if ch == "-" or ch.isdigit() and ch.isascii():
            return self.number()
        ok, value = self.word()
        if ok:
            return value
        ok, value = self.reference()
        if ok:
            return value
        raise JsonError("Unable to parse json data as object, unrecognized token beginning entry")

    # -- containers -----------------------------------------------------------
    def arr(self) -> list[Any]:
        s = self.s
        self.i += 1
        result: list[Any] = []
        prev = "["
        while self.i < len(s):
            ch = s[self.i]
            if ch in _WS:
                self.i += 1
                continue
            if ch == '"':
                result.append(self.string())
            elif ch == "[":
                if prev not in "[,":
                    raise JsonError("Unable to parse json data as array, did not start with '['")
                result.append(self.arr())
            elif ch == "{":
                if prev not in "[,":
                    raise JsonError("Unable to parse json data as array, did not start with '['")
                result.append(self.obj())
            elif ch == ",":
                if prev in ",[":
                    raise JsonError("Unable to parse json data as array, extraneous commas")
                self.i += 1
            elif ch == "]":
                self.i += 1
                return result
            else:
                result.append(self.scalar_or_ref())
            prev = s[self.i - 1]
        raise JsonError("Unable to parse json data as array, did not end with ']'")

    def obj(self) -> dict[str, Any]:
        s = self.s
        self.i += 1
        result: dict[str, Any] = {}
        key: str | None = None
        prev = "{"

        def put(k: str, v: Any) -> None:
            result.pop(k, None)
            result[k] = v

        while self.i < len(s):
            ch = s[self.i]
            if ch in _WS:
                self.i += 1
                continue
            if ch == '"':
                text = self.string()
                if key is not None:
                    put(key, text)
                    key = None
                else:
                    key = text
            elif ch == ":":
                if key is None or prev in ":,":
                    raise JsonError("Unable to parse json data as object, ':' seen without "
                                    "having specified an l-value")
                self.i += 1
            elif ch == ",":
                if key is not None or prev in ":,":
                    raise JsonError("Unable to parse json data as object, ',' seen without "
                                    "having specified an r-value")
                self.i += 1
            elif ch == "[":
                if key is None:
                    raise JsonError("Unable to parse json data as object, array not allowed "
                                    "as l-value")
                put(key, self.arr())
                key = None
            elif ch == "{":
                if key is None:
                    raise JsonError("Unable to parse json data as object, object not allowed "
                                    "as l-value")
                put(key, self.obj())
                key = None
            elif ch == "}":
                if key is not None:
                    raise JsonError("Unable to parse json data as object, tried to close "
                                    "object having opened an l-value")
                self.i += 1
                return result
            else:
                m = _BARE_KEY.match(s, self.i) if key is None else None
                if m:
                    colon = s.index(":", self.i)
                    key = s[self.i:colon].rstrip(_WS)
                    self.i = colon
                    ch = ":"
                    self.i += 1
                elif key is not None:
                    put(key, self.scalar_or_ref())
                    key = None
                else:
                    raise JsonError("Unable to parse json data as object, unrecognized "
                                    "token beginning entry")
            prev = s[self.i - 1]
        raise JsonError("Unable to parse json data as string, did not end with '}'")


# ---------------------------------------------------------------------------
# Primitives as text


def prim_text(value: Any) -> str:
    """JsonPrimitiveGetAsString: the text CFEngine holds for a primitive."""
    if isinstance(value, str):
        return value
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, Real):
        return value.text
    if isinstance(value, float):
        return _real4(value)
    return str(value)


def prim_str(value: Any) -> str:
    """JsonPrimitiveToString: like :func:`prim_text` but reals as ``%.2f``."""
    if isinstance(value, float) and not isinstance(value, bool):
        return "%.2f" % value
    return prim_text(value)


def _real4(value: float) -> str:
    import math
    if math.isnan(value) or math.isinf(value):
        value = 0.0
    return "%.4f" % value


# ---------------------------------------------------------------------------
# Copying and merging


# JsonCopy: a deep copy; reals (Real is a float) lose their source text, integers wrap
# to 32 bits -- the one copy, kept where the variable store (on the start path) has it
copy = json_copy


def merge(a: Any, b: Any) -> Any:
    """JsonMerge of two containers: arrays concatenate, objects update (a key
    given again moves to the end), an array merged with an object adds its
    items under the keys "0", "1", ..."""
    if isinstance(a, list) and isinstance(b, list):
        return copy(a) + copy(b)
    if isinstance(a, list):           # array + object: object first
        a, b = b, a
    result = copy(a)
    items = b.items() if isinstance(b, dict) else ((str(i), v) for i, v in enumerate(b))
    for k, v in items:
        result.pop(k, None)
        result[k] = copy(v)
    return result


# ---------------------------------------------------------------------------
# Writing


def _key_order(key: str) -> bytes:
    return key.encode("utf-8", "surrogateescape")


def _encode(text: str) -> str:
    if not any(c in text for c in '"\\\b\f\n\r\t'):
        return text
    return (text.replace("\\", "\\\\").replace('"', '\\"').replace("\b", "\\b")
            .replace("\f", "\\f").replace("\n", "\\n").replace("\r", "\\r")
            .replace("\t", "\\t"))


def _prim_json(value: Any) -> str:
    if isinstance(value, str):
        return '"' + _encode(value) + '"'
    return prim_text(value)


def dumps(value: Any, pretty: bool = True) -> str:
    """JsonWrite (``pretty``) or JsonWriteCompact of ``value``."""
    out: list[str] = []
    if pretty:
        _write(out, value, 0)
    else:
        _write_compact(out, value)
    return "".join(out)


def _write(out: list[str], value: Any, level: int) -> None:
    if isinstance(value, dict):
        out.append("{\n")
        keys = sorted(value, key=_key_order)
        for n, key in enumerate(keys):
            out.append("  " * (level + 1) + f'"{key}": ')
            child = value[key]
            if isinstance(child, (dict, list)):
                _write(out, child, level + 1)
            else:
                out.append(_prim_json(child))
            out.append(",\n" if n < len(keys) - 1 else "\n")
        out.append("  " * level + "}")
    elif isinstance(value, list):
        if not value:
            out.append("[]")
            return
        out.append("[\n")
        for n, child in enumerate(value):
            out.append("  " * (level + 1))
            if isinstance(child, (dict, list)):
                _write(out, child, level + 1)
            else:
                out.append(_prim_json(child))
            out.append(",\n" if n < len(value) - 1 else "\n")
        out.append("  " * level + "]")
    else:
        out.append(_prim_json(value))


def _write_compact(out: list[str], value: Any) -> None:
    if isinstance(value, dict):
        out.append("{")
        for n, key in enumerate(sorted(value, key=_key_order)):
            if n:
                out.append(",")
            out.append(f'"{key}":')
            _write_compact(out, value[key])
        out.append("}")
    elif isinstance(value, list):
        out.append("[")
        for n, child in enumerate(value):
            if n:
                out.append(",")
            _write_compact(out, child)
        out.append("]")
    else:
        out.append(_prim_json(value))


# ---------------------------------------------------------------------------
# YAML


_YAML_TRUE = frozenset({"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE",
                        "on", "On", "ON"})
_YAML_FALSE = frozenset({"n", "N", "no", "No", "NO", "false", "False", "FALSE",
                         "off", "Off", "OFF"})
_YAML_NULL = frozenset({"", "~", "null", "Null", "NULL"})


def from_yaml(text: str) -> Any:
    """A YAML document as CFEngine's JsonParseYamlString builds it from libyaml
    events: plain scalars become null (``~``, empty, null), booleans (y, yes,
    true, on / n, no, false, off in three casings), JSON numbers, else strings;
    quoted scalars stay strings; aliases are ignored.  JsonError if the YAML is
    broken; the whole result is copied (reals print as ``%.4f``)."""
    import yaml

    root: list[Any] = []
    stack: list[Any] = [root]
    keys: list[str | None] = [None]
    try:
        for event in yaml.parse(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            top = stack[-1]
            if isinstance(event, yaml.ScalarEvent):
                if isinstance(top, dict) and keys[-1] is None:
                    keys[-1] = event.value
                    continue
                _yaml_add(top, keys, _yaml_scalar(event))
            elif isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                child: Any = [] if isinstance(event, yaml.SequenceStartEvent) else {}
                if isinstance(top, dict) and keys[-1] is None:
                    raise JsonError("YAML Parse: Unexpected start event inside a "
                                    "container without a key")
                _yaml_add(top, keys, child)
                stack.append(child)
                keys.append(None)
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                stack.pop()
                keys.pop()
    except yaml.YAMLError as exc:
        # libyaml stops at the error; cf-agent 3.21 keeps what its events built until
        # then (open containers closed, a key without its value left out): "[" is [],
        # "a: [" is {"a": []}; nothing built at all is the error
        if not root:
            raise JsonError(f"libyaml internal failure: {exc}") from None
    if not root:
        raise JsonError("No data")
    return copy(root[0])


def _yaml_add(top: Any, keys: list[str | None], value: Any) -> None:
    if isinstance(top, dict):
        key = keys[-1] or ""
        top.pop(key, None)
        top[key] = value
        keys[-1] = None
    else:
        top.append(value)


def _yaml_scalar(event: Any) -> Any:
    value: str = event.value
    plain, quoted = event.implicit
    tag = event.tag or "tag:yaml.org,2002:str"
    if plain or tag == "tag:yaml.org,2002:null":
        if value in _YAML_NULL:
            return None
    if not quoted and (plain or tag == "tag:yaml.org,2002:bool"):
        if value in _YAML_TRUE:
            return True
        if value in _YAML_FALSE:
            return False
    if not quoted and (plain or tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")):
        if value and (value[0] == "-" or value[0].isdigit()):
            try:
                return _Parser(value, None).number()
            except JsonError:
                pass
    return value
