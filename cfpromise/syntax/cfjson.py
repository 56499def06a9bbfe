"""CFEngine's JSON reader: lenient where CFEngine is lenient, strict where it is strict.

Differences from the JSON standard that CFEngine 3.21 shows (and policy relies on):

* a trailing comma in an object or array is accepted: ``{"a": 1,}``;
* text after the top-level value is ignored: ``[1] x`` reads as ``[1]``;
* ``\\uXXXX`` escapes are kept literally (backslash, u and the digits);
* a repeated key keeps the last value.

:func:`loads` raises :class:`JsonError` (a ValueError) with the offset.
"""
from __future__ import annotations

from cfpromise.fast import precompiled

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_WS = precompiled.compile(r"[ \t\n\r]*")
_NUMBER = precompiled.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class JsonError(ValueError):
    def __init__(self, message: str, pos: int) -> None:
        super().__init__(f"{message} at offset {pos}")
        self.pos = pos


class _Reader:
    def __init__(self, text: str, exponent_integers: bool = True) -> None:
        self.text = text
        self.pos = 0
        self.exponent_integers = exponent_integers

    def ws(self) -> None:
        self.pos = _WS.match(self.text, self.pos).end()  # type: ignore[union-attr]

    def value(self) -> Any:
        self.ws()
        text, pos = self.text, self.pos
        if pos >= len(text):
            raise JsonError("Unexpected end of JSON data", pos)
        ch = text[pos]
        if ch == "{":
            return self.obj()
        if ch == "[":
            return self.arr()
        if ch == '"':
            return self.string()
        for word, val in (("true", True), ("false", False), ("null", None)):
            if text.startswith(word, pos):
                self.pos += len(word)
                return val
        m = _NUMBER.match(text, pos)
        if m:
            self.pos = m.end()
            num = m.group()
            if "." not in num and not self.exponent_integers and ("e" in num or "E" in num):
                raise JsonError("An integer with an exponent", pos)
            return float(num) if any(c in num for c in ".eE") else int(num)
        raise JsonError("Unable to parse json data, unrecognized token", pos)

    def string(self) -> str:
        text = self.text
        i = self.pos + 1
        out: list[str] = []
        while True:
            j = i
            while j < len(text) and text[j] not in '"\\':
                j += 1
            out.append(text[i:j])
            if j >= len(text):
                raise JsonError("Unterminated string", self.pos)
            if text[j] == '"':
                self.pos = j + 1
                return "".join(out)
            esc = text[j + 1: j + 2]
            if esc in _ESCAPES:
                out.append(_ESCAPES[esc])
            else:
                out.append("\\" + esc)
            i = j + 2

    def obj(self) -> dict[str, Any]:
        self.pos += 1
        result: dict[str, Any] = {}
        while True:
            self.ws()
            if self.text.startswith("}", self.pos):
                self.pos += 1
                return result
            if not self.text.startswith('"', self.pos):
                raise JsonError("Expected a key string in object", self.pos)
            key = self.string()
            self.ws()
            if not self.text.startswith(":", self.pos):
                raise JsonError("Expected ':' after key in object", self.pos)
            self.pos += 1
            result.pop(key, None)
            result[key] = self.value()
            self.ws()
            if self.text.startswith(",", self.pos):
                self.pos += 1
            elif not self.text.startswith("}", self.pos):
                raise JsonError("Expected ',' or '}' in object", self.pos)

    def arr(self) -> list[Any]:
        self.pos += 1
        result: list[Any] = []
        while True:
            self.ws()
            if self.text.startswith("]", self.pos):
                self.pos += 1
                return result
            result.append(self.value())
            self.ws()
            if self.text.startswith(",", self.pos):
                self.pos += 1
            elif not self.text.startswith("]", self.pos):
                raise JsonError("Expected ',' or ']' in array", self.pos)


def loads(text: str) -> Any:
    """Read one JSON value the way CFEngine does."""
    return _Reader(text).value()


def loads_container(text: str, exponent_integers: bool = True) -> Any:
    """Read a JSON object or array (what a data container holds); JsonError otherwise
    (and, without ``exponent_integers``, for an integer written with an exponent such
    as ``1e3``, which CFEngine reads as an integer it cannot copy)."""
    reader = _Reader(text, exponent_integers)
    reader.ws()
    if not text.startswith(("{", "["), reader.pos):
        raise JsonError("Unable to parse json data as object or array", reader.pos)
    return reader.value()
