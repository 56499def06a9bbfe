"""CFEngine's module protocol: the lines a module prints to define variables and classes.

A ``commands`` promise with ``module => "true"`` (and ``usemodule()``) feeds
every line its command prints to a :class:`ModuleSession`.  The first
character of a line says what it is, as in cf-agent 3.21's ``ModuleProtocol``:

==========================  ===================================================
``=name=value``             string variable ``context.name``
``@name= { "a", 'b' }``     slist, in CFEngine's list syntax (:func:`parse_list`)
``%name={json}``            data container (an object or an array)
``&name=/path/file.json``   data container read from a JSON/YAML/CSV/ENV file
``+class`` / ``-a,b``       define (namespace scope) / undefine classes
``^context=name``           bundle the next variables go to (``[A-Za-z0-9_]+``)
``^meta=t1,t2``             tags of the next variables and classes
``^persistence=minutes``    the next ``+class`` lines persist that long
anything else               printed as ``M 'command': line`` (when printing)
==========================  ===================================================

The context starts as the canonified basename of the command's first word
(``/usr/local/bin/my-mod x`` -> ``my_mod``).  Variables go to the default
namespace unless the name is qualified (``ns:bundle.var``, ``bundle.var``);
classes go to the namespace of the promise.  Limits and messages follow
cf-agent: a variable name holds at most 256 characters, a value 4095, a
``+``/``-`` line at most 1024 bytes, and a name with characters outside
``[A-Za-z0-9._[]/@-]`` is only reported at verbose level, never rejected.
Every variable and class is tagged ``source=module`` and
``derived_from=<command>`` besides the ``^meta`` tags.
"""
from __future__ import annotations

import csv
import io
import os
import re

from cfpromise.eval.canon import canonify
from cfpromise.eval.functions import jsondata

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    from cfpromise.promises.api import AgentServices

CF_BUFSIZE = 4096
CF_MAXVARSIZE = 1024
NAME_MAX = 256            # sscanf("%256[^=]") in ModuleProtocol
VALUE_MAX = 4095          # sscanf("%4095[^\n]")
CONTEXT_MAX = 50          # sscanf("context=%50[^\n]")
META_MAX = 1024           # sscanf("meta=%1024[^\n]")

_CONTEXT_NAME = re.compile(r"[a-zA-Z0-9_]+\Z")
_PERSISTENCE = re.compile(r"persistence=\s*([-+]?\d+)")
_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-[]/@")


def command_arg0(command: str) -> str:
    """CommandArg0: the first word, or the text inside a leading pair of double quotes."""
    if command.startswith('"'):
        rest, stop = command[1:], '"'
    else:
        rest, stop = command, " "
    cut = rest.find(stop)
    return rest if cut < 0 else rest[:cut]


def initial_context(command: str) -> str:
    """The bundle a module's variables go to before any ``^context``."""
    arg0 = command_arg0(command).rstrip("/") or "/"
    return canonify(os.path.basename(arg0) or "/")


def bytelen(text: str) -> int:
    """strlen(): cf-agent's limits count bytes."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "replace"))


# --- CFEngine's list syntax (RlistParseString) -------------------------------------------

_OPENED, _IO, _ELM1, _ELM2, _END1, _END2, _SEP, _PRECLOSED, _CLOSED, _ERROR = range(10)
_BLANK = " \t"


def parse_list(text: str) -> tuple[list[str] | None, str]:
    """Read ``{ "a", 'b' }`` like cf-agent's list parsing machine.

    Returns ``(items, "")`` or ``(None, error message)``.  Items are quoted with
    ``"`` or ``'`` and have no escapes; blanks are spaces and tabs; nothing may
    follow the closing brace but blanks.  As the acceptance suite requires (and
    later CFEngine releases accept), ``{ }`` is an empty list and a trailing comma
    is allowed.
    """
    items: list[str] = []
    state = _OPENED
    buf: list[str] = []
    i, n = 0, len(text)
    while state != _CLOSED and i < n:
        c = text[i]
        if state == _ERROR:
            return None, "Parsing error : Malformed string"
        if state == _OPENED:
            state = _OPENED if c in _BLANK else _IO if c == "{" else _ERROR
        elif state == _IO:
            if c in _BLANK:
                pass
            elif c in "'\"":
                buf.clear()
                state = _ELM1 if c == "'" else _ELM2
            else:
                state = _PRECLOSED if c == "}" else _ERROR
        elif state in (_ELM1, _ELM2):
            if c == ("'" if state == _ELM1 else '"'):
                items.append("".join(buf))
                buf.clear()
                state = _END1 if state == _ELM1 else _END2
            else:
                buf.append(c)
        elif state in (_END1, _END2):
            if c == ",":
                state = _SEP
            elif c == "}":
                state = _PRECLOSED
            elif c not in _BLANK:
                state = _ERROR
        elif state == _SEP:
            if c in _BLANK:
                pass
            elif c in "'\"":
                state = _ELM1 if c == "'" else _ELM2
            else:
                state = _PRECLOSED if c == "}" else _ERROR
        elif state == _PRECLOSED:
            if c not in _BLANK:
                state = _ERROR
        i += 1
    if state not in (_CLOSED, _PRECLOSED):
        return None, "Parsing error : Malformed string (unexpected end of input)"
    return items, ""


# --- data files (&name=path) -------------------------------------------------------------

def _read_env(text: str) -> dict[str, str]:
    """An ENV file (KEY=value lines, # comments, optional quotes) as an object."""
    result: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        result[key.strip()] = value
    return result


def _read_csv(text: str) -> list[list[str]]:
    return [row for row in csv.reader(io.StringIO(text)) if row]


_DATA_READERS: dict[str, tuple[str, Callable[[str], Any]]] = {
    ".csv": ("CSV", _read_csv),
    ".env": ("ENV", _read_env),
    ".yaml": ("YAML", jsondata.from_yaml),
    ".yml": ("YAML", jsondata.from_yaml),
}


def read_data_file(path: str) -> tuple[Any, str]:
    """GetDataFileTypeFromSuffix + JsonReadDataFile: ``(value, "")`` or ``(None, error)``."""
    kind, reader = _DATA_READERS.get(os.path.splitext(path)[1].lower(), ("JSON", jsondata.loads))
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError as exc:
        return None, f"module file protocol: Failed to read file {path}: {exc.strerror}"
    try:
        return reader(text), ""
    except (ValueError, csv.Error) as exc:
        return None, f"module file protocol: Failed to parse {kind} file {path}: {exc}"


# --- the session ---------------------------------------------------------------------------

class ModuleSession:
    """The state of one module run: its context, tags and persistence, line after line.

    ``print_other`` says whether lines that are not protocol lines are logged
    (``M 'command': line`` at info level); ``commands`` promises pass
    ``not no_output``.  ``namespace`` is the namespace of the promise, where the
    module's classes are defined.

    A plain slotted class, not an attrs class: masterfiles' dry run loads this module,
    and attrs' import and class generation were most of what the run's promise-type
    modules cost at start.
    """

    __slots__ = ("agent", "command", "namespace", "print_other", "context", "meta",
                 "persistence")

    def __init__(self, agent: AgentServices, command: str, namespace: str = "default",
                 print_other: bool = True) -> None:
        self.agent = agent
        self.command = command
        self.namespace = namespace
        self.print_other = print_other
        self.context = ""
        self.meta: list[str] = []
        self.persistence = 0

    @property
    def tags(self) -> tuple[str, ...]:
        base = [*self.meta, "source=module", f"derived_from={self.command}"]
        return tuple(dict.fromkeys(base))

    def feed(self, line: str) -> None:
        """Handle one line of the module's output (without its newline)."""
        if not self.context:
            self.context = initial_context(self.command)
            self.agent.log("verbose", f"Module context '{self.context}'")
        if not line:
            return
        action = _LINE_HANDLERS.get(line[0])
        if action is not None:
            action(self, line)
        elif self.print_other:
            self.agent.log("info", f"M '{self.command}': {line}")

    # -- helpers

    def _check_id(self, ident: str) -> None:
        """CheckID: report illegal characters (cf-agent 3.21 accepts the name anyway)."""
        for ch in ident:
            if ch not in _ID_CHARS:
                self.agent.log("verbose", "Module protocol contained an illegal character "
                               f"'{ch}' in class/variable identifier '{ident}'.")

    def _split_assignment(self, line: str) -> tuple[str, str, bool]:
        """sscanf("%256[^=]=%4095[^\\n]"): (name, value, had '=' after the name)."""
        body = line[1:]
        eq = body.find("=")
        name = body[:eq] if eq >= 0 else body
        name = name[:NAME_MAX]
        rest = body[len(name):]
        if not rest.startswith("="):
            return name, "", False
        return name, rest[1:1 + VALUE_MAX], True

    def _put(self, name: str, type_: str, value: Any) -> None:
        """VarRefParseFromScope(name, context): ``[ns:][bundle.]var[index]``."""
        namespace, bundle = "default", self.context
        head, bracket, index = name.partition("[")
        if ":" in head:
            namespace, head = head.split(":", 1)
        if "." in head:
            bundle, head = head.split(".", 1)
        self.agent.set_variable(namespace, bundle, head + bracket + index, type_, value, self.tags)

    # -- the line kinds

    def _extended(self, line: str) -> None:
        body = line[1:]
        if body.startswith("context=") and len(body) > len("context="):
            content = body[len("context="):][:CONTEXT_MAX]
            if _CONTEXT_NAME.match(content):
                self.agent.log("verbose", "Module changed variable context from "
                               f"'{self.context}' to '{content}'")
                self.context = content
            else:
                self.agent.log("error", "Module protocol was given an unacceptable ^context "
                               f"directive '{content}', skipping")
            return
        if body.startswith("meta=") and len(body) > len("meta="):
            content = body[len("meta="):][:META_MAX]
            self.agent.log("verbose", f"Module set meta tags to '{content}'")
            self.meta = [tag for tag in dict.fromkeys(content.split(",")) if tag]
            return
        match = _PERSISTENCE.match(body)
        if match:
            self.persistence = int(match.group(1))
            self.agent.log("verbose", f"Module set persistence to {self.persistence} minutes")
            return
        self.agent.log("info", f"Unknown extended module command '{line}'")

    def _define(self, line: str) -> None:
        length = bytelen(line)
        if length > CF_MAXVARSIZE:
            self.agent.log("error", "Module protocol was given an overlong +class line "
                           f"({length} bytes), skipping")
            return
        content = line[1:CF_MAXVARSIZE]
        self.agent.log("verbose", f"Activating classes from module protocol: '{content}'")
        self._check_id(content)
        namespace, name = self.namespace, content
        if ":" in content:
            namespace, name = content.split(":", 1)
        name = canonify(name)
        if not name:
            return
        if self.persistence > 0:
            self.agent.log("verbose", f"Module set persistent class '{content}' for "
                           f"{self.persistence} minutes")
        self.agent.define_class(name, scope="namespace", namespace=namespace, tags=self.tags,
                                persist_minutes=max(self.persistence, 0))

    def _undefine(self, line: str) -> None:
        length = bytelen(line)
        if length > CF_MAXVARSIZE:
            self.agent.log("error", "Module protocol was given an overlong -class line "
                           f"({length} bytes), skipping")
            return
        content = line[1:CF_MAXVARSIZE]
        self.agent.log("verbose", f"Deactivating classes from module protocol: '{content}'")
        self._check_id(content)
        for ref in dict.fromkeys(content.split(",")):
            if not ref:
                continue
            namespace, name = self.namespace, ref
            if ":" in ref:
                namespace, name = ref.split(":", 1)
            self.agent.undefine_class(name, namespace=namespace)

    def _string(self, line: str) -> None:
        length = bytelen(line)
        if length > CF_BUFSIZE + 256:
            self.agent.log("error", "Module protocol was given an overlong variable =line "
                           f"({length} bytes), skipping")
            return
        name, value, _ = self._split_assignment(line)
        if not name:
            return
        self._check_id(name)
        self.agent.log("verbose", f"Defined variable '{name}' in context '{self.context}' "
                       f"with value '{value}'")
        self._put(name, "string", value)

    def _slist(self, line: str) -> None:
        length = bytelen(line)
        if length > CF_BUFSIZE + 256 - 1:
            self.agent.log("error", "Module protocol was given an overlong variable @line "
                           f"({length} bytes), skipping")
            return
        name, content, _ = self._split_assignment(line)
        if not name:
            return
        self._check_id(name)
        items, error = parse_list(content)
        if items is None:
            self.agent.log("error", error)
            self.agent.log("error", f"Module protocol could not parse variable {name}'s "
                           f"data content {content}")
            return
        if any(bytelen(item) > CF_MAXVARSIZE for item in items):
            self.agent.log("error", "Module protocol was given a variable @ line with an "
                           "oversize entry, skipping")
            return
        self.agent.log("verbose", f"Defined variable '{name}' in context '{self.context}' "
                       f"with value '{content}'")
        self._put(name, "slist", items)

    def _data(self, line: str) -> None:
        body = line[1:]
        eq = body.find("=")
        name = (body[:eq] if eq >= 0 else body)[:NAME_MAX]
        if not name:
            return
        self._check_id(name)
        text = body[len(name) + 1:]
        try:
            value = jsondata.loads(text)
        except jsondata.JsonError as exc:
            # cf-agent prints an empty buffer where the JSON text belongs.
            self.agent.log("info", f"Failed to parse JSON '' for module protocol: {exc}")
            return
        if not isinstance(value, (dict, list)):
            self.agent.log("info", "Module protocol JSON '' should be object or array; wasn't")
            return
        self.agent.log("verbose", f"Defined data container variable '{name}' in context "
                       f"'{self.context}' with value '{text}'")
        self._put(name, "data", value)

    def _data_file(self, line: str) -> None:
        name, path, _ = self._split_assignment(line)
        if not name:
            return
        self._check_id(name)
        if not os.access(path, os.R_OK) or os.path.isdir(path):
            self.agent.log("error", f"could not load module file '{path}'")
            return
        value, error = read_data_file(path)
        if error:
            self.agent.log("error", error)
            return
        self._put(name, "data", value)


_LINE_HANDLERS: dict[str, Callable[[ModuleSession, str], None]] = {
    "^": ModuleSession._extended,
    "+": ModuleSession._define,
    "-": ModuleSession._undefine,
    "=": ModuleSession._string,
    "@": ModuleSession._slist,
    "%": ModuleSession._data,
    "&": ModuleSession._data_file,
}
