"""The CFEngine 3.21 language as data: bundle, promise and body types, attributes, functions.

The tables live in ``cfpromise/data/syntax.json`` (the shape of ``cf-promises -s
json``); :func:`schema` loads them once, read-only.  Code asks questions of the
:class:`Schema` instead of hard-coding the language.
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

import attrs

LIST_TYPES = frozenset({"slist", "ilist", "rlist", "clist", "olist"})
SCALAR_TYPES = frozenset({"string", "int", "real", "option", "context", "irange", "rrange"})


@attrs.frozen(slots=True)
class Attribute:
    name: str
    type: str
    range: str | None
    visibility: str

    @property
    def is_list(self) -> bool:
        return self.type in LIST_TYPES


@attrs.frozen(slots=True)
class FunctionSig:
    name: str
    return_type: str
    params: tuple[tuple[str, str, str], ...]    # (type, range, description)
    variadic: bool
    collecting: bool
    cached: bool
    category: str


class Schema:
    """Read-only lookups over the syntax tables."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw
        self.bundle_types: dict[str, frozenset[str]] = {
            name: frozenset(info["promiseTypes"]) for name, info in raw["bundleTypes"].items()}
        self.promise_types: dict[str, dict[str, Attribute]] = {
            name: _attributes(info) for name, info in raw["promiseTypes"].items()}
        self.body_types: dict[str, dict[str, Attribute]] = {
            name: _attributes(info) for name, info in raw["bodyTypes"].items()}
        self.functions: dict[str, FunctionSig] = {
            name: FunctionSig(name, f["returnType"],
                              tuple((p["type"], p.get("range", ""), p.get("description", ""))
                                    for p in f["parameters"]),
                              f["variadic"], f["collecting"], f["cached"], f["category"])
            for name, f in raw["functions"].items()}
        # Attributes CFEngine removed: accepted with a warning and dropped.
        self.removed_attributes: dict[str, frozenset[str]] = {
            name: frozenset(a for a, info in t["attributes"].items() if info.get("status") == "removed")
            for name, t in list(raw["bodyTypes"].items()) + list(raw["promiseTypes"].items())}
        # Which body type an attribute of type "body" takes: by its name (perms => body perms).
        self.control_body_for_bundle = {"agent": "agent", "common": "common", "server": "server",
                                        "monitor": "monitor"}

    def promise_attribute(self, promise_type: str, lval: str) -> Attribute | None:
        return self.promise_types.get(promise_type, {}).get(lval)

    def body_attribute(self, body_type: str, lval: str) -> Attribute | None:
        return self.body_types.get(body_type, {}).get(lval)

    def promise_type_known(self, name: str) -> bool:
        return name in self.promise_types

    def to_json(self) -> dict[str, Any]:
        return self.raw


def _attributes(info: dict[str, Any]) -> dict[str, Attribute]:
    return {name: Attribute(name, a["type"], a.get("range"), a.get("visibility", ""))
            for name, a in info["attributes"].items()}


@lru_cache(maxsize=1)
def schema() -> Schema:
    data = resources.files("cfpromise").joinpath("data/syntax.json").read_text()
    return Schema(json.loads(data))
