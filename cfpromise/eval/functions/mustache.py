"""Mustache rendering as CFEngine 3.21 does it (for string_mustache and the
files promise's ``template_method => "mustache"``).

A port of libpromises/mustache.c, extensions included:

* ``{{%name}}`` renders a container as multi-line JSON, ``{{$name}}`` as
  compact JSON (a primitive renders as itself);
* ``-top-`` names the whole data (``{{%-top-}}``, ``{{#-top-}}...{{/-top-}}``);
* ``{{.}}`` is the current item and ``{{@}}`` its key (object key or array
  index) inside a section;
* dotted names ``a.b.c`` walk objects; a name is looked up from the innermost
  section outwards;
* sections take booleans and containers (iterated when non-empty); a section
  on another primitive is an error; ``{{^x}}`` inverts;
* standalone section/comment/delimiter tags swallow their line; ``{{=<% %>=}}``
  changes delimiters; ``{{{x}}}`` and ``{{&x}}`` do not HTML-escape, ``{{x}}``
  escapes ``& " < >``;
* integers and booleans print as text, reals as ``%.2f``, null as nothing.

:func:`render` raises :class:`MustacheError` for broken templates.
"""
from __future__ import annotations

from cfpromise.eval.functions import jsondata

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_VAR, _UNESCAPED, _SERIAL, _SERIAL_COMPACT = "var", "unescaped", "serial", "compact"
_SECTION, _END, _INVERTED, _COMMENT, _DELIM, _NONE = (
    "section", "end", "inverted", "comment", "delim", "none")
_NOT_RENDERABLE = {_COMMENT, _DELIM, _INVERTED, _SECTION, _END}


class MustacheError(ValueError):
    """The template is broken (unclosed tag or section, bad section value...)."""


class _Tag:
    __slots__ = ("type", "begin", "end", "content")

    def __init__(self, type_: str, begin: int, end: int, content: str) -> None:
        self.type = type_
        self.begin = begin
        self.end = end
        self.content = content


def _next_tag(text: str, pos: int, open_: str, close: str) -> _Tag:
    begin = text.find(open_, pos)
    if begin < 0:
        return _Tag(_NONE, len(text), len(text), "")
    start = begin + len(open_)
    first = text[start:start + 1]
    extra_end = None
    kind = _VAR
    if first == "#":
        kind = _SECTION
    elif first == "^":
        kind = _INVERTED
    elif first == "/":
        kind = _END
    elif first == "!":
        kind = _COMMENT
    elif first == "=":
        kind, extra_end = _DELIM, "="
    elif first == "{":
        kind, extra_end = _UNESCAPED, "}"
    elif first == "&":
        kind = _UNESCAPED
    elif first == "%":
        kind = _SERIAL
    elif first == "$":
        kind = _SERIAL_COMPACT
    if kind != _VAR:
        start += 1
    if extra_end is not None:
        stop = text.find(extra_end, start)
        if stop < 0 or not text.startswith(close, stop + 1):
            raise MustacheError(f"Broken mustache template, couldn't find end tag for quoted "
                                f"begin tag at '{text[pos:pos + 20]}'...")
        content, end = text[start:stop], stop + 1 + len(close)
    else:
        stop = text.find(close, start)
        if stop < 0:
            raise MustacheError(f"Broken Mustache template, could not find end delimiter "
                                f"after reading start delimiter at '{text[pos:pos + 20]}'...")
        content, end = text[start:stop], stop + len(close)
    return _Tag(kind, begin, end, content.strip(" \t"))


def _standalone(text: str, tag: _Tag) -> tuple[int, int] | None:
    """(line begin, line end) if the tag is alone on its line."""
    line_begin = 0
    i = tag.begin - 1
    while i >= 0:
        ch = text[i]
        if ch in " \t":
            line_begin = i
            i -= 1
            continue
        if ch == "\n":
            line_begin = i + 1
            break
        return None
    j = tag.end
    while True:
        if j >= len(text):
            return line_begin, j
        ch = text[j]
        if ch in " \t":
            j += 1
            continue
        if ch == "\n":
            return line_begin, j + 1
        if ch == "\r":
            if text[j + 1:j + 2] == "\n":
                return line_begin, j + 2
            j += 1
            continue
        return None


def _html(text: str) -> str:
    return (text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
            .replace(">", "&gt;"))


def _primitive_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "%.2f" % value
    return str(value)


class _Renderer:
    def __init__(self, template: str, data: Any) -> None:
        self.text = template
        self.open = "{{"
        self.close = "}}"
        self.stack: list[Any] = [data]
        self.out: list[str] = []
        self.key_seen = False          # a {{@}} tag was passed (rendered or skipped)

    def lookup(self, name: str) -> Any:
        parts = name.split(".")
        base: Any = _MISSING
        if parts[0] == "-top-":
            base = self.stack[0]
        for frame in reversed(self.stack):
            if isinstance(frame, dict) and parts[0] in frame:
                base = frame[parts[0]]
                break
        if base is _MISSING:
            return _MISSING
        for part in parts[1:]:
            if not isinstance(base, dict) or part not in base:
                return _MISSING
            base = base[part]
        return base

    def variable(self, tag: _Tag, key: str | None) -> None:
        name = tag.content
        if name == "@":
            if key is None:
                raise MustacheError("{{@}} Mustache tag must be used in a context where "
                                    "there's a valid key or iteration position")
            self.out.append(_html(key) if tag.type == _VAR else key)
            return
        value = self.stack[-1] if name == "." else self.lookup(name)
        if value is _MISSING:
            return
        if isinstance(value, (dict, list)):
            if tag.type in (_SERIAL, _SERIAL_COMPACT):
                self.out.append(jsondata.dumps(value, pretty=tag.type == _SERIAL))
                return
            raise MustacheError(f"Mustache variable '{name}' is a container; use "
                                f"{{{{%{name}}}}} or {{{{${name}}}}} to serialize it")
        text = _primitive_text(value)
        self.out.append(_html(text) if tag.type == _VAR and isinstance(value, str) else text)

    def render(self, pos: int, key: str | None, skip: bool, section: str | None) -> int:
        """Render from ``pos``; return the position after the section's end tag."""
        text = self.text
        while True:
            tag = _next_tag(text, pos, self.open, self.close)
            standalone = _standalone(text, tag) if tag.type in _NOT_RENDERABLE else None
            if standalone is not None:
                if not skip:
                    self.out.append(text[pos:standalone[0]])
                pos = standalone[1]
            else:
                if not skip:
                    self.out.append(text[pos:tag.begin])
                pos = tag.end
            if tag.type == _NONE:
                if section is not None:
                    raise MustacheError("Unexpected end to Mustache template")
                return pos
            if tag.type == _COMMENT:
                continue
            if tag.type == _DELIM:
                parts = tag.content.split()
                if len(parts) != 2 or any(len(p) > 10 for p in parts):
                    raise MustacheError(f"Could not parse delimiter mustache '{tag.content}'")
                self.open, self.close = parts
                continue
            if tag.type in (_VAR, _UNESCAPED, _SERIAL, _SERIAL_COMPACT):
                if tag.content == "@":
                    self.key_seen = True
                if not skip:
                    if tag.content:
                        self.variable(tag, key)
                    else:
                        self.out.append(self.open + self.close)
                continue
            if tag.type == _END:
                if section is None:
                    raise MustacheError(f"Unknown section close in mustache template "
                                        f"'{tag.content}'")
                return pos
            pos = self.section(tag, pos, skip)

    def section(self, tag: _Tag, pos: int, skip: bool) -> int:
        name = tag.content
        inverted = tag.type == _INVERTED
        value = self.lookup(name)
        if value is _MISSING or value is None:
            self.stack.append(None)
            end = self.render(pos, None, skip or not inverted, name)
            self.stack.pop()
            return end
        if isinstance(value, bool):
            self.stack.append(value)
            end = self.render(pos, None, skip or (not value) != inverted, name)
            self.stack.pop()
            return end
        if isinstance(value, dict) and value and not inverted and not self._iterates(pos, name):
            # cf-agent renders an object section once, with the object as context, unless
            # its body asks for the key ({{@}}): then once per member
            self.stack.append(value)
            end = self.render(pos, None, skip, name)
            self.stack.pop()
            return end
        if isinstance(value, (dict, list)) and value:
            items = list(value.items()) if isinstance(value, dict) else \
                [(str(i), v) for i, v in enumerate(value)]
            end = pos
            self.stack.append(value)        # the section's value stays visible
            for child_key, child in items:
                self.stack.append(child)
                end = self.render(pos, child_key, skip or inverted, name)
                self.stack.pop()
            self.stack.pop()
            return end
        if isinstance(value, (dict, list)):
            self.stack.append(value)
            end = self.render(pos, None, skip or not inverted, name)
            self.stack.pop()
            return end
        raise MustacheError(f"Mustache sections can only take a boolean or a container "
                            f"(array or map) value, but section '{name}' isn't getting one "
                            f"of those.")


    def _iterates(self, pos: int, name: str) -> bool:
        """Whether the section body from ``pos`` holds a {{@}} tag (a dry pass that
        leaves no output and restores the delimiters)."""
        saved = (self.key_seen, self.open, self.close, len(self.out))
        self.key_seen = False
        self.render(pos, None, True, name)
        found = self.key_seen
        self.key_seen, self.open, self.close = saved[0] or found, saved[1], saved[2]
        del self.out[saved[3]:]
        return found


_MISSING = object()


def render(template: str, data: Any) -> str:
    """Render a Mustache ``template`` with ``data`` (a JSON value)."""
    renderer = _Renderer(template, data)
    renderer.render(0, None, False, None)
    return "".join(renderer.out)
