"""Whole-policy checks: references between blocks, arity, duplicates across files.

Two levels, because CFEngine itself is lenient and policy relies on it:

* :func:`policy_diagnostics` — what cf-promises 3.21 rejects on every run once
  all inputs are loaded: an undefined body, a function called with the wrong
  number of arguments, a bundle called with the wrong number of arguments,
  duplicate bundles or handles across files.  The agent validates with this.
* :func:`lint_diagnostics` — ``cf-lite-promises -c`` adds what cf-agent only
  finds at run time (or never): undefined bundles (``usebundle``,
  ``edit_line``, the bundlesequence), bodies given the wrong number of
  arguments, an ``inherit_from`` naming no body, literal function arguments of
  the wrong type.

A bundle reference holding a variable (``usebundle => $(b)``) can only be judged
at run time and is skipped; a body reference is never expanded (``perms => $(p)``
is an undefined body, as in cf-promises).  Unqualified names resolve in the
referring block's namespace, then in ``default``; nothing else is guessed.
"""
from __future__ import annotations

from cfpromise.fast.records import record
from cfpromise.schema import Schema, partial, schema
from cfpromise.schema.values import CHECKERS, ValueError_, is_unexpanded
from cfpromise.syntax import ast
from cfpromise.syntax.names import candidates
from cfpromise.syntax.errors import Coord, Diagnostic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any, Iterator

# Functions that need a CFEngine Enterprise hub or LDAP: reported by -c.
NOT_SUPPORTED = {name: "a CFEngine Enterprise hub" for name in (
    "hubknowledge", "remoteclassesmatching", "remotescalar", "hostswithclass")}
NOT_SUPPORTED.update({name: "LDAP" for name in ("ldaparray", "ldaplist", "ldapvalue", "regldap")})

# lval -> the bundle types it may name
BUNDLE_LVALS = {"usebundle": ("agent", "common"), "edit_line": ("edit_line",),
                "edit_xml": ("edit_xml",), "home_bundle": ("agent", "common"),
                "service_bundle": ("agent", "common")}


@record
class Reference:
    kind: str            # "body" or "bundle"
    types: tuple[str, ...]
    name: str            # as written (maybe ns:name)
    nargs: int | None    # None: not called with arguments
    namespace: str       # namespace of the referring block
    coord: Coord
    lval: str


class Index:
    """Bodies and bundles by (namespace, name) -> {type: args}."""

    def __init__(self, policy: ast.Policy) -> None:
        self.bodies: dict[tuple[str, str], dict[str, ast.Body]] = {}
        self.bundles: dict[tuple[str, str], dict[str, ast.Bundle]] = {}
        for body in policy.bodies:
            self.bodies.setdefault((body.namespace, body.name), {})[body.type] = body
        for bundle in policy.bundles:
            self.bundles.setdefault((bundle.namespace, bundle.name), {})[bundle.type] = bundle

    def find(self, ref: Reference) -> ast.Body | ast.Bundle | None:
        table = self.bodies if ref.kind == "body" else self.bundles
        for key in candidates(ref.name, ref.namespace):
            by_type = table.get(key, {})
            for t in ref.types:
                if t in by_type:
                    return by_type[t]
        return None


def _name_and_args(rval: ast.Rval, as_written: bool = False) -> tuple[str, int | None] | None:
    """The name a reference names and its argument count; None for a name holding a
    variable, unless ``as_written``: cf-agent expands no body name (``perms => $(p)`` is
    "Undefined body $(p) with type perms"), only bundle names."""
    if isinstance(rval, ast.Scalar) and (as_written or not is_unexpanded(rval.value)):
        return rval.value, None
    if isinstance(rval, ast.FnCall) and (as_written or not is_unexpanded(rval.name)):
        return rval.name, len(rval.args)
    return None


def references(policy: ast.Policy, sch: Schema) -> Iterator[Reference]:
    # the attributes that can name a block (most cannot): a set, so that the others are
    # left at once (the schema's tables are lazy mappings, each lookup a Python call)
    naming = None
    tables: dict[str, Any] = {}
    for bundle in policy.bundles:
        for section in bundle.sections:
            attrs_ = tables.get(section.name)
            if attrs_ is None:
                attrs_ = tables[section.name] = sch.promise_types.get(section.name, {})
            for promise in section.promises:
                for c in promise.constraints:
                    if naming is None:
                        naming = set(BUNDLE_LVALS).union(sch.body_types.keys())
                    if c.lval not in naming:
                        continue
                    attr = attrs_.get(c.lval)
                    if attr is None:
                        continue
                    body = attr.type == "body" and c.lval in sch.body_types
                    if not body and c.lval not in BUNDLE_LVALS:
                        continue
                    found = _name_and_args(c.rval, as_written=body)
                    if found is None:
                        continue
                    name, nargs = found
                    if body:
                        yield Reference("body", (c.lval,), name, nargs, bundle.namespace,
                                        c.coord, c.lval)
                    else:
                        yield Reference("bundle", BUNDLE_LVALS[c.lval], name, nargs,
                                        bundle.namespace, c.coord, c.lval)
    for body in policy.bodies:
        for c in body.constraints:
            if c.lval == "inherit_from":
                found = _name_and_args(c.rval)
                if found is not None:
                    yield Reference("body", (body.type,), found[0], found[1], body.namespace,
                                    c.coord, c.lval)


def _bundlesequence_refs(policy: ast.Policy) -> Iterator[Reference]:
    for body in policy.bodies:
        if body.type == "common" and body.name == "control":
            for c in body.constraints:
                if c.lval == "bundlesequence" and isinstance(c.rval, ast.List):
                    for item in c.rval.items:
                        found = _name_and_args(item)
                        if found is not None:
                            yield Reference("bundle", ("agent", "common"), found[0], found[1],
                                            body.namespace, item.coord if item.coord.line else c.coord,
                                            "bundlesequence")


def _function_calls(rval: ast.Rval, lval: str) -> Iterator[ast.FnCall]:
    if isinstance(rval, ast.FnCall):
        if lval not in BUNDLE_LVALS and lval != "bundlesequence":
            yield rval
        for arg in rval.args:
            yield from _function_calls(arg, "")
    elif isinstance(rval, ast.List):
        for item in rval.items:
            yield from _function_calls(item, lval)


def _calls(policy: ast.Policy, sch: Schema, common: bool = True) -> Iterator[ast.FnCall]:
    """Every function call in the policy; a top-level call that is really a
    parameterised body or bundle reference (``perms => mog(...)``) is left out, and
    without ``common`` those in a promise's common attributes (``if``, ``comment``...:
    cf-promises looks at them only when it evaluates the promise)."""
    def attribute_type(table: dict[str, object] | None, lval: str) -> str:
        attr = (table or {}).get(lval)
        if not common and getattr(attr, "visibility", "") == "global" \
                and getattr(attr, "type", "") != "body":
            return "common"
        return getattr(attr, "type", "")
    tables: dict[str, Any] = {}
    for bundle in policy.bundles:
        for section in bundle.sections:
            if section.name in tables:
                table = tables[section.name]
            else:
                table = tables[section.name] = sch.promise_types.get(section.name)
                if table is None and not common:
                    # a custom promise type's common attributes: judged when it runs
                    table = tables[section.name] = {
                        k: a for k, a in sch.promise_types.get("reports", {}).items()
                        if a.visibility == "global"}
            for promise in section.promises:
                for c in promise.constraints:
                    if isinstance(c.rval, ast.Scalar):
                        continue            # no call in it (most constraints)
                    kind = attribute_type(table, c.lval)
                    if kind == "common":
                        continue
                    ref = kind in ("body", "bundle")
                    yield from _function_calls(c.rval, "usebundle" if ref else c.lval)
    for body in policy.bodies:
        table = sch.body_types.get(body.type)
        for c in body.constraints:
            ref = c.lval == "inherit_from" or attribute_type(table, c.lval) in ("body", "bundle")
            yield from _function_calls(c.rval, "usebundle" if ref else c.lval)


def _arity_checked(ref: Reference) -> bool:
    """cf-promises 3.21 checks the arity of ``usebundle`` calls only: an ``edit_line``,
    ``edit_xml``, ``home_bundle`` or ``service_bundle`` call with the wrong number of
    arguments validates, and cf-agent stops the run when it enters the bundle
    (design-center's sketches rely on the validation: they pass cf-promises)."""
    return ref.lval == "usebundle"


def policy_diagnostics(policy: ast.Policy, sch: Schema | None = None, *,
                       full: bool = True) -> list[Diagnostic]:
    """What cf-promises rejects once the whole policy is loaded; undefined bodies only
    with ``full`` (cf-promises reports them for a runnable policy, one with ``body common
    control``, or under ``-c``; cf-agent always; a library file checked alone with plain
    ``cf-promises -f`` or ``-p json`` may use bodies it does not define)."""
    sch = sch or schema()
    index = Index(policy)
    out: list[Diagnostic] = []
    for ref in references(policy, sch):
        if full and ref.kind == "body" and ref.lval != "inherit_from" \
                and index.find(ref) is None:
            out.append(Diagnostic(ref.coord, f"Undefined body {ref.name} with type {ref.types[0]}"))
        if ref.kind == "bundle" and ref.nargs is not None and _arity_checked(ref):
            target = index.find(ref)
            if target is not None and len(target.args) != ref.nargs:
                out.append(Diagnostic(ref.coord, f"Conflicting arity in calling bundle {ref.name}, "
                                                 f"expected {len(target.args)} arguments, "
                                                 f"{ref.nargs} given"))
    # bundles and bodies defined twice across files (each file was checked on its own)
    # (the check's errors: file:line:0, no source line -- cfpromise.schema.partial)
    out += [partial.error(d.coord, d.message)
            for d in duplicates(policy.bundles, "bundle") + duplicates(policy.bodies, "body")]
    for call in _calls(policy, sch, common=False):
        if call.name == "ifelse" and len(call.args) % 2 == 0 and not any(
                isinstance(a, ast.Scalar) and a.value.startswith("@") for a in call.args):
            out.append(Diagnostic(call.coord, "Fatal CFEngine error: in built-in FnCall ifelse: "
                                              "even number of arguments"))
    return out


def duplicates(blocks: Iterable[ast.Bundle] | Iterable[ast.Body], kind: str,
               entry: bool = False) -> list[Diagnostic]:
    """cf-promises' PolicyCheckPartial, run on each file and again on the whole policy:
    every bundle (body) sharing its type, namespace and name with another is named at its
    own place, once for each other copy, in policy order.  ``body file control`` (one per file) does not
    count, nor does the ``__main__`` bundle of a file read through inputs (never run);
    the entry file's ``__main__`` is its ``main``."""
    keyed: list[tuple[tuple[str, str, str], str, Any]] = []
    count: dict[tuple[str, str, str], int] = {}
    for block in blocks:
        name = block.name
        if kind == "body" and block.type == "file":
            continue
        if kind == "bundle" and name == "__main__":
            if not entry:
                continue
            name = "main"
        key = (block.namespace, name, block.type)
        count[key] = count.get(key, 0) + 1
        keyed.append((key, name, block))
    if len(count) == len(keyed):
        return []
    # cf-promises compares every block with every other: one error per other copy
    return [Diagnostic(block.coord, f"Duplicate definition of {kind} {name} with type {block.type}")
            for key, name, block in keyed for _ in range(count[key] - 1)]


def lint_diagnostics(policy: ast.Policy, sch: Schema | None = None) -> list[Diagnostic]:
    """``-c``: the checks above plus what CFEngine only finds at run time."""
    sch = sch or schema()
    index = Index(policy)
    out = policy_diagnostics(policy, sch)
    for ref in list(references(policy, sch)) + list(_bundlesequence_refs(policy)):
        target = index.find(ref)
        if target is None:
            if ref.kind == "bundle":
                out.append(Diagnostic(ref.coord, f"Undefined bundle {ref.name} with type "
                                                 f"{' or '.join(ref.types)} (in '{ref.lval}')"))
            elif ref.lval == "inherit_from":
                out.append(Diagnostic(ref.coord, f"Undefined body {ref.name} with type "
                                                 f"{ref.types[0]} (in 'inherit_from')"))
            continue
        wanted = len(target.args)
        given = ref.nargs or 0
        if ref.kind == "body" and wanted != given:
            out.append(Diagnostic(ref.coord, f"Body {ref.name} of type {ref.types[0]} takes "
                                             f"{wanted} argument(s), {given} given"))
        if ref.kind == "bundle" and ref.nargs is None and wanted and ref.lval != "bundlesequence":
            out.append(Diagnostic(ref.coord, f"Bundle {ref.name} takes {wanted} argument(s), "
                                             "0 given"))
    for call in _calls(policy, sch):
        sig = sch.functions.get(call.name)
        if sig is None:
            continue
        if call.name in NOT_SUPPORTED:
            out.append(Diagnostic(call.coord, f"Function '{call.name}' needs {NOT_SUPPORTED[call.name]}"
                                              ": not supported by cf-lite"))
            continue
        for arg, (ptype, prange, _desc) in zip(call.args, sig.params):
            if isinstance(arg, ast.Scalar) and not is_unexpanded(arg.value) \
                    and ptype in ("int", "option", "real"):
                try:
                    CHECKERS[ptype](arg.value, prange)
                except ValueError_ as exc:
                    out.append(Diagnostic(call.coord, f"Argument '{arg.value}' to function "
                                                      f"'{call.name}': {exc}"))
    return sorted(out, key=lambda d: (d.coord.file, d.coord.line, d.coord.col))
