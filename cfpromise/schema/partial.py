"""cf-promises' check of a parsed file (PolicyCheckPartial), as against its parser's.

cf-promises 3.21 finds a policy's errors in two stages.  Its parser reports what it
meets as it reads (unknown attributes, values of the wrong shape...), each at the
parser's position with the source line and a caret.  Only when a file parsed without
error does it check the parsed policy, and those errors name an element's line only:
``FILE:LINE:0: error: MESSAGE``, no source line (PolicyErrorWrite: "need to track
columns").  Their order is the check's, not the file's:

1. bundles defined twice;
2. each bundle in turn: a reserved name ("Use of a reserved container name as a bundle
   name"), then each promise of its built-in sections, then of its custom ones (a
   bundle's sections of one type are one section, where the type first appears):
   an empty reference as promiser, a built-in type its bundle type has not, the
   attributes only the parser let by, the vars and classes promises' own checks
   (numerical or invalid names, a second type), a custom promise's ``ifvarclass`` or
   ``expireafter``;
3. bodies defined twice; each body in turn (a control body with arguments; its type's
   own check, :data:`BODY_RULES`: an action body's logs without a ``log_string``, an acl
   body's exclusive pairs);
4. promise handles used twice (a handle is compared with its first use only).

The line is the element's as the parser recorded it: a bundle's name, a section's type,
a promise's promiser, a constraint's rval end (:attr:`cfpromise.syntax.ast.Constraint.line`).
"""
from __future__ import annotations

from cfpromise.syntax import ast
from cfpromise.syntax.errors import Coord, Diagnostic
from cfpromise.syntax.varstring import walk

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

# PolicyCheckBundle's reserved names: the special variable contexts
RESERVED_BUNDLE_NAMES = frozenset({"sys", "const", "mon", "edit", "match", "this"})
# ValidateCustomPromise: common attributes custom promises refuse -> the message's tail
CUSTOM_REFUSED = {
    "ifvarclass": "Common attribute 'ifvarclass' not supported for custom promises, "
                  "use 'if' instead ({type} promises)",
    "expireafter": "Common attribute 'expireafter' not implemented for custom promises "
                   "({type})",
}


def at_line(coord: Coord, line: int = 0) -> Coord:
    """The check's position of an element at ``coord``: its line (CFEngine's count;
    ``line`` when given), column 0."""
    return Coord(coord.file, line or coord.cfline, 0)


def error(coord: Coord, message: str, line: int = 0) -> Diagnostic:
    return Diagnostic(at_line(coord, line), message, bare=True)


def reserved_name(bundle: ast.Bundle) -> list[Diagnostic]:
    if bundle.name in RESERVED_BUNDLE_NAMES:
        return [error(bundle.coord, "Use of a reserved container name as a bundle name "
                                    f"\"{bundle.name}\"")]
    return []


def control_arguments(body: ast.Body) -> list[Diagnostic]:
    if body.name == "control" and body.args:
        return [error(body.coord, f"Control bodies cannot take arguments, body {body.type} "
                                  "control")]
    return []


# a body type's own check (the check_body of its BodySyntax): (attributes any of which ...,
# ... needs this one present (None: excludes the others), message)
BODY_RULES: dict[str, tuple[tuple[tuple[str, ...], str | None, str], ...]] = {
    "action": ((("log_kept", "log_repaired", "log_failed"), "log_string",
                "An action body with log_kept, log_repaired or log_failed is required to "
                "have a log_string attribute"),),
    "acl": ((("acl_directory_inherit", "acl_default"), None,
             "An acl body cannot have both acl_directory_inherit and acl_default. Please "
             "use acl_default only"),
            (("specify_inherit_aces", "specify_default_aces"), None,
             "An acl body cannot have both specify_inherit_aces and specify_default_aces. "
             "Please use specify_default_aces only")),
}


def body_rules(body: ast.Body) -> list[Diagnostic]:
    """The check of ``body``'s type (BODY_RULES), whatever class guards its attributes."""
    have = {c.lval for c in body.constraints}
    out = []
    for names, needed, message in BODY_RULES.get(body.type, ()):
        if needed is not None and have.intersection(names) and needed not in have \
                or needed is None and have.issuperset(names):
            out.append(error(body.coord, message))
    return out


def sections_in_check_order(bundle: ast.Bundle,
                            builtin: frozenset[str] | dict) -> list[tuple[str, list[ast.Promise]]]:
    """The bundle's sections as cf-promises keeps them: one per promise type, where the
    type first appears, built-in types first, then custom ones."""
    merged: dict[str, list[ast.Promise]] = {}
    for section in bundle.sections:
        merged.setdefault(section.name, []).extend(section.promises)
    return ([(n, p) for n, p in merged.items() if n in builtin]
            + [(n, p) for n, p in merged.items() if n not in builtin])


def duplicate_handles(policy: ast.Policy, builtin: frozenset[str] | dict,
                      unexpanded: Callable[[str], bool]) -> list[Diagnostic]:
    """PolicyCheckDuplicateHandles: a literal handle already used by a promise of the
    same class guard (compared with the first promise that used it only)."""
    first: dict[str, ast.Promise] = {}
    out: list[Diagnostic] = []
    for bundle in policy.bundles:
        for name, promises in sections_in_check_order(bundle, builtin):
            if name not in builtin:
                continue
            for promise in promises:
                c = promise.get("handle")
                if c is None or not isinstance(c.rval, ast.Scalar) or (
                        unexpanded(c.rval.value) and not walk(c.rval.value)[1]):
                    continue        # (a broken reference is no reference: compared as is)
                other = first.get(c.rval.value)
                if other is None:
                    first[c.rval.value] = promise
                elif other.classes == promise.classes:
                    out.append(error(promise.coord, f"Duplicate promise handle "
                                                    f"{c.rval.value} found"))
    return out


def broken_handles(policy: ast.Policy, builtin: frozenset[str] | dict) -> list[str]:
    """The handles the check of handles finds a broken reference in (IsCf3VarString's
    "Broken variable syntax or bracket mismatch in string", said by the parser's error
    function at ``FILE:1:1``: no failure of its own), in the check's order."""
    out = []
    for bundle in policy.bundles:
        for name, promises in sections_in_check_order(bundle, builtin):
            if name in builtin:
                out += [c.rval.value for promise in promises
                        if (c := promise.get("handle")) is not None
                        and isinstance(c.rval, ast.Scalar) and walk(c.rval.value)[1]]
    return out
