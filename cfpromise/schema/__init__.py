"""The CFEngine 3.21 language as data: bundle, promise and body types, attributes, functions.

The tables live in ``cfpromise/data/syntax.json`` (the shape of ``cf-promises -s
json``); :func:`schema` loads them once, read-only.  Code asks questions of the
:class:`Schema` instead of hard-coding the language.

Every program start needs them, so they are read from a generated, byte-compiled
copy when it is current (:mod:`cfpromise.fast.syntaxtab`), each type and function
built when first asked for (:class:`~cfpromise.fast.syntaxtab.Lazy`).
"""
from __future__ import annotations

from cfpromise.fast.memo import lru_cache  # (functools is not on the start path)
from cfpromise.fast.records import record
from cfpromise.fast.syntaxtab import Lazy, data_lvals_of, tables

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LIST_TYPES = frozenset({"slist", "ilist", "rlist", "clist", "olist"})
SCALAR_TYPES = frozenset({"string", "int", "real", "option", "context", "irange", "rrange"})
# bundle types 3.21's parser accepts that its syntax description does not list (the
# components' types without bundles of their own): they hold the promise types a common
# bundle holds
COMMON_LIKE_BUNDLE_TYPES = ("runagent", "executor", "hub", "knowledge", "keygenerator")


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


class Schema:
    """Read-only lookups over the syntax tables (records are built lazily: start-up matters)."""

    def __init__(self, raw: dict[str, Any], data_lvals: frozenset[str] | None = None) -> None:
        self.raw = raw
        self._data_lvals = data_lvals
        self.bundle_types: dict[str, frozenset[str]] = {
            name: frozenset(info["promiseTypes"]) for name, info in raw["bundleTypes"].items()}
        for name in COMMON_LIKE_BUNDLE_TYPES:
            self.bundle_types.setdefault(name, self.bundle_types["common"])
        self.promise_types: dict[str, dict[str, Attribute]] = Lazy(raw["promiseTypes"], _attributes)
        self.body_types: dict[str, dict[str, Attribute]] = Lazy(raw["bodyTypes"], _attributes)
        self.functions: dict[str, FunctionSig] = Lazy(raw["functions"], _function)
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
        return {section: dict(table.items()) if isinstance(table, Lazy) else table
                for section, table in self.raw.items()}

    def description(self) -> dict[str, Any]:
        """The tables as ``cf-promises -s json`` prints them: without what CFEngine
        removed (syntax.json keeps removed attributes and promise types, whose use the
        parser warns of and drops: cfpromise.schema.deprecations) and without the name
        each function entry carries here."""
        out = self.to_json()
        for section in ("bodyTypes", "promiseTypes"):
            out[section] = {
                name: dict(info, attributes={lval: a for lval, a in info["attributes"].items()
                                             if a.get("status") != "removed"})
                for name, info in out[section].items() if info.get("status") != "removed"}
        out["functions"] = {name: {k: v for k, v in f.items() if k != "name"}
                            for name, f in out["functions"].items()}
        return out

    def removed_promise_type(self, bundle_type: str, name: str) -> bool:
        """``name:`` is a promise type CFEngine removed from bundles of ``bundle_type``
        (syntax.json's ``status`` and ``bundleType``): its parser warns and skips."""
        info = self.raw["promiseTypes"].get(name)
        return (info is not None and info.get("status") == "removed"
                and info.get("bundleType") == bundle_type)


def _function(f: dict[str, Any], name: str = "") -> FunctionSig:
    return FunctionSig(f.get("name", name), f["returnType"],
                       tuple((p["type"], p.get("range", ""), p.get("description", ""))
                             for p in f["parameters"]),
                       f["variadic"], f["collecting"], f["cached"], f["category"])


def _attributes(info: dict[str, Any]) -> dict[str, Attribute]:
    return {name: Attribute(name, a["type"], a.get("range"), a.get("visibility", ""))
            for name, a in info["attributes"].items()}


@lru_cache(maxsize=1)
def schema() -> Schema:
    return Schema(*tables())
