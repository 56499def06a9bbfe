"""The attribute a body's constraint is checked against, as cf-promises' parser finds it
(its CheckSelection), and its refusal when there is none.

A body named ``control`` of a control body type (``agent``, ``common``, ``server``...:
the body types no promise type's attribute names) is checked against that type's own
attributes.  Any other body -- a control type under another name too (``body common
foo``) -- is checked against the first body of any promise type's attributes that has
the attribute (its own type's first, then the others'); an attribute no such body has
is "Constraint lvalue "X" is not allowed in 'T' constraint body", said where the value
ends, after the check of the attribute's name against the body's own type (which let
``bundlesequence`` through in ``body common foo``).
"""
from __future__ import annotations

from cfpromise.fast.memo import lru_cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cfpromise.schema import Attribute, Schema

# A body attribute under a variable class guard (``"$(x)"::``) is kept with this before
# the guard's text as its ``classes``: cf-promises' parser refuses it only once the value
# is checked and only for an attribute it keeps (not a removed or unknown one), so the
# check (cfpromise.schema.validate) says it; a NUL is never in a guard the lexer reads.
VARIABLE_GUARD = "\x00"


@lru_cache(maxsize=4)
def control_body_types(sch: Schema) -> frozenset[str]:
    """The body types no promise type's attribute holds: the components' control bodies."""
    held = {lval for ptype in sch.raw["promiseTypes"].values()
            for lval, info in ptype["attributes"].items() if info["type"] == "body"}
    return frozenset(sch.raw["bodyTypes"]) - held


def selection(sch: Schema, body_type: str, name: str, lval: str,
              ) -> tuple[Attribute | None, str | None]:
    """(the attribute ``lval``'s value is checked against or None, the refusal or None)
    in ``body body_type name``."""
    controls = control_body_types(sch)
    if name == "control" and body_type in controls:
        attr = sch.body_types.get(body_type, {}).get(lval)
        if attr is not None:
            return attr, None
    order = [body_type] if body_type not in controls else []
    order += [t for t in sch.raw["bodyTypes"] if t not in controls and t != body_type]
    for other in order:
        attr = sch.body_types.get(other, {}).get(lval)
        if attr is not None:
            return attr, None
    return None, f"Constraint lvalue \"{lval}\" is not allowed in '{body_type}' constraint body"
