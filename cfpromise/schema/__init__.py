"""The CFEngine 3.21 language as data: bundle, promise and body types, attributes, functions.

The tables live in ``cfpromise/data/syntax.json`` (the shape of ``cf-promises -s
json``); :func:`schema` loads them once, read-only.  Code asks questions of the
:class:`Schema` instead of hard-coding the language.

Every program start needs them, and decoding 160 KB of JSON (plus importing json)
was about 10 M instructions of a 240 M cold ``cf-lite-promises`` check.  So the
same tables are also generated as Python (``_syntaxtab.py``, by ``python -m
cfpromise.fast.syntaxtab``, ``make tables``), which the interpreter keeps
byte-compiled.  A run uses a small part of them (a cold check of lib/files.cf:
9 of 30 promise types, 17 of 41 body types, 20 of 186 functions), so each promise
type, body type and function is kept there as marshal's bytes of its entry and
unmarshalled when first asked for (:data:`LAZY_SECTIONS`), and the attributes of
type data, which every parse needs, are listed ready: loading the module is then
6 M instructions fewer than building all its dictionaries was.  The JSON file
stays the source; the generated module is used only while its recorded size of
the JSON file and its marshal version still hold (``tests/schema/test_syntaxtab.py``
checks it is current).
"""
from __future__ import annotations

from functools import lru_cache
import marshal
import os

from cfpromise.fast.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LIST_TYPES = frozenset({"slist", "ilist", "rlist", "clist", "olist"})
SCALAR_TYPES = frozenset({"string", "int", "real", "option", "context", "irange", "rrange"})


@record
class Attribute:
    name: str
    type: str
    range: str | None
    visibility: str

    @property
    def is_list(self) -> bool:
        return self.type in LIST_TYPES


@record
class FunctionSig:
    name: str
    return_type: str
    params: tuple[tuple[str, str, str], ...]    # (type, range, description)
    variadic: bool
    collecting: bool
    cached: bool
    category: str


class _Lazy(dict):  # type: ignore[type-arg]
    """name -> value, each value built from the raw table on first access."""

    def __init__(self, raw: dict[str, Any], build: Any) -> None:
        super().__init__()
        self._raw = raw
        self._build = build

    def __missing__(self, key: str) -> Any:
        value = self._build(self._raw[key])
        self[key] = value
        return value

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        return self[key] if key in self._raw else default

    def __contains__(self, key: object) -> bool:
        return key in self._raw

    def __iter__(self) -> Any:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def keys(self) -> Any:  # type: ignore[override]
        return self._raw.keys()

    def items(self) -> Any:  # type: ignore[override]
        return ((k, self[k]) for k in self._raw)

    def values(self) -> Any:  # type: ignore[override]
        return (self[k] for k in self._raw)


class Schema:
    """Read-only lookups over the syntax tables (records are built lazily: start-up matters)."""

    def __init__(self, raw: dict[str, Any], data_lvals: frozenset[str] | None = None) -> None:
        self.raw = raw
        self._data_lvals = data_lvals
        self.bundle_types: dict[str, frozenset[str]] = {
            name: frozenset(info["promiseTypes"]) for name, info in raw["bundleTypes"].items()}
        self.promise_types: dict[str, dict[str, Attribute]] = _Lazy(raw["promiseTypes"], _attributes)
        self.body_types: dict[str, dict[str, Attribute]] = _Lazy(raw["bodyTypes"], _attributes)
        self.functions: dict[str, FunctionSig] = _Lazy(raw["functions"], _function)
        self._removed: dict[str, frozenset[str]] | None = None

    @property
    def removed_attributes(self) -> dict[str, frozenset[str]]:
        """Attributes CFEngine removed: accepted with a warning and dropped."""
        if self._removed is None:
            raw = self.raw
            self._removed = {
                name: frozenset(a for a, info in t["attributes"].items()
                                if info.get("status") == "removed")
                for name, t in list(raw["bodyTypes"].items()) + list(raw["promiseTypes"].items())}
        return self._removed

    def promise_attribute(self, promise_type: str, lval: str) -> Attribute | None:
        return self.promise_types.get(promise_type, {}).get(lval)

    def body_attribute(self, body_type: str, lval: str) -> Attribute | None:
        return self.body_types.get(body_type, {}).get(lval)

    def promise_type_known(self, name: str) -> bool:
        return name in self.promise_types

    def data_lvals(self) -> frozenset[str]:
        """Attributes of type data anywhere (a string given to them is an inline container)."""
        if self._data_lvals is None:
            self._data_lvals = data_lvals_of(self.raw)
        return self._data_lvals

    def to_json(self) -> dict[str, Any]:
        """The tables as plain dictionaries, as syntax.json holds them."""
        return {section: dict(table.items()) if isinstance(table, _Lazy) else table
                for section, table in self.raw.items()}


def data_lvals_of(raw: dict[str, Any]) -> frozenset[str]:
    return frozenset(name for t in raw["promiseTypes"].values()
                     for name, a in t["attributes"].items() if a["type"] == "data")


def _function(f: dict[str, Any], name: str = "") -> FunctionSig:
    return FunctionSig(f.get("name", name), f["returnType"],
                       tuple((p["type"], p.get("range", ""), p.get("description", ""))
                             for p in f["parameters"]),
                       f["variadic"], f["collecting"], f["cached"], f["category"])


def _attributes(info: dict[str, Any]) -> dict[str, Attribute]:
    return {name: Attribute(name, a["type"], a.get("range"), a.get("visibility", ""))
            for name, a in info["attributes"].items()}


SOURCE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      "data", "syntax.json")


def load_source() -> dict[str, Any]:
    """The tables as syntax.json holds them, each function with its name."""
    import json
    with open(SOURCE, encoding="utf-8") as fh:
        raw = json.load(fh)
    for name, f in raw["functions"].items():
        f.setdefault("name", name)
    return raw


# The sections the generated module keeps as marshal's bytes of each entry.
LAZY_SECTIONS = ("bodyTypes", "functions", "promiseTypes")


def _tables() -> tuple[dict[str, Any], frozenset[str] | None]:
    """The generated copy of the tables when it is current (with its entries unmarshalled
    on first use, and the data attributes), else the JSON file's tables (and None)."""
    try:
        from cfpromise.fast import _syntaxtab
        if (_syntaxtab.SOURCE_SIZE, _syntaxtab.MARSHAL) == (os.stat(SOURCE).st_size,
                                                           marshal.version):
            raw = dict(_syntaxtab.SYNTAX)
            for section in LAZY_SECTIONS:
                raw[section] = _Lazy(raw[section], marshal.loads)
            return raw, _syntaxtab.DATA_LVALS
    except (ImportError, AttributeError, OSError):
        pass
    return load_source(), None


@lru_cache(maxsize=1)
def schema() -> Schema:
    return Schema(*_tables())
