"""The promise module protocol of cf-agent 3.21, as messages (no I/O here).

The agent opens with ``cf-agent 3.21.0 v1`` and an empty line; the module answers
``NAME VERSION v1 FLAGS...`` and an empty line, where the flags choose the
protocol (``json_based`` or ``line_based``, the default) and may announce
``action_policy`` (the module honours ``action_policy => "warn"``: dry runs).

A request is either ``key=value`` lines (attributes as ``attribute_NAME=value``,
in the order cf-agent appends them: operation, log_level, promise_type,
promiser, line_number, filename, attributes) or one line of compact JSON with
sorted keys (attributes in an ``attributes`` object); an empty line ends it.
The response ends with an empty line too: ``key=value`` lines, or one JSON
line; in both, ``log_LEVEL=message`` lines may come first, and a JSON response
may carry a ``log`` array of ``{"level", "message"}``.  ``result_classes`` is a
comma-separated list in the line protocol and an array in JSON.
"""
from __future__ import annotations

import json
from typing import Any

import attrs

AGENT_VERSION = "3.21.0"
AGENT_HEADER = f"cf-agent {AGENT_VERSION} v1"

# log_LEVEL names a module may use -> cf-lite's output levels.
LOG_LEVELS: dict[str, str] = {
    "critical": "critical", "crit": "critical", "error": "error", "err": "error",
    "warning": "warning", "warn": "warning", "notice": "notice", "info": "info",
    "inform": "info", "verbose": "verbose", "debug": "debug",
}
# Most severe first: a promise's log_level hides the messages below it.
SEVERITY = ("critical", "error", "warning", "notice", "info", "verbose", "debug")
# log_level values -> output levels (ActionAttributeLogLevelFromString: "log" and any
# value it does not know are "error").
ACTION_LOG_LEVELS = {"inform": "info", "info": "info", "verbose": "verbose", "error": "error",
                     "log": "error"}


class ProtocolError(Exception):
    """The module sent something outside the protocol (the text says what)."""


@attrs.frozen
class Header:
    """What the module's header line says."""

    name: str
    version: str
    json: bool
    action_policy: bool
    protocol_specified: bool
    ambiguous: bool


def parse_header(line: str) -> Header:
    """``NAME VERSION v1 FLAGS...``; anything else is a :class:`ProtocolError`."""
    words = line.split(" ")
    if len(words) < 3 or words[2] != "v1" or not words[0]:
        raise ProtocolError(f"sent an invalid header (expected 'NAME VERSION v1 FLAGS'): "
                            f"{_quote(line)}")
    json_based, specified, ambiguous = False, False, False
    for flag in words[3:]:
        if flag in ("json_based", "line_based"):
            ambiguous = ambiguous or specified
            specified = True
            json_based = flag == "json_based"
    return Header(words[0], words[1], json_based, "action_policy" in words[3:], specified,
                  ambiguous)


@attrs.frozen
class Request:
    """One operation sent to a module (``fields`` in cf-agent's order)."""

    fields: tuple[tuple[str, Any], ...]
    attributes: tuple[tuple[str, Any], ...] = ()

    @property
    def operation(self) -> str:
        return str(dict(self.fields).get("operation", ""))


def encode(request: Request, json_based: bool) -> bytes:
    """The bytes to write, the terminating empty line included."""
    if json_based:
        message: dict[str, Any] = dict(request.fields)
        if request.attributes:
            message["attributes"] = dict(request.attributes)
        text = json.dumps(message, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return (text + "\n\n").encode()
    lines = [f"{key}={_scalar(value)}" for key, value in request.fields]
    lines += [f"attribute_{key}={_scalar(value)}" for key, value in request.attributes]
    for line in lines:
        if "\n" in line:
            raise ValueError(f"a value holds a newline, which the line-based protocol "
                             f"cannot carry: {_quote(line)}")
    return ("\n".join(lines) + "\n\n").encode()


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    raise ValueError("a list or data container cannot be sent over the line-based protocol")


@attrs.define
class Response:
    """A module's answer: its fields, its log messages (level, message) in order."""

    fields: dict[str, Any] = attrs.Factory(dict)
    log: list[tuple[str, str]] = attrs.Factory(list)

    @property
    def result(self) -> str | None:
        value = self.fields.get("result")
        return value if isinstance(value, str) else None

    @property
    def result_classes(self) -> list[str]:
        value = self.fields.get("result_classes")
        if isinstance(value, str):
            return [c for c in value.split(",") if c]
        if isinstance(value, list):
            return [c for c in value if isinstance(c, str) and c]
        return []


def parse_response(lines: list[str], json_based: bool) -> Response:
    """The lines of one response (without the ending empty line)."""
    response = Response()
    seen_json = False
    for line in lines:
        if line.startswith("log_"):
            level, sep, message = line[4:].partition("=")
            if not sep:
                raise ProtocolError(f"sent an invalid log line: {_quote(line)}")
            response.log.append((_level(level, line), message))
        elif not json_based:
            key, sep, value = line.partition("=")
            if not sep or not key:
                raise ProtocolError(f"sent a line outside the protocol: {_quote(line)}")
            response.fields[key] = value
        else:
            if seen_json:
                raise ProtocolError(f"sent a second JSON line in one response: {_quote(line)}")
            seen_json = True
            try:
                data = json.loads(line)
            except ValueError:
                raise ProtocolError(f"sent invalid JSON: {_quote(line)}") from None
            if not isinstance(data, dict):
                raise ProtocolError(f"sent JSON that is not an object: {_quote(line)}")
            response.fields = data
    if json_based and not seen_json:
        raise ProtocolError("sent an invalid/incomplete response with JSON based protocol "
                            "(no JSON line)")
    if json_based:
        for item in response.fields.get("log") or ():
            if not isinstance(item, dict) or not isinstance(item.get("message"), str):
                raise ProtocolError(f"sent an invalid log entry: {_quote(json.dumps(item))}")
            response.log.append((_level(str(item.get("level", "")), json.dumps(item)),
                                 item["message"]))
    return response


def _level(name: str, line: str) -> str:
    level = LOG_LEVELS.get(name.lower())
    if level is None:
        raise ProtocolError(f"sent a log line with an unknown level: {_quote(line)}")
    return level


def _quote(text: str, limit: int = 200) -> str:
    text = text if len(text) <= limit else text[:limit] + "..."
    return "'" + text.encode("unicode_escape").decode("ascii").replace("'", "\\'") + "'"


quote = _quote
