"""The attribute a body's constraint is checked against, as cf-promises' parser finds it
(its CheckSelection), and its refusal when there is none.

A body named ``control`` of a control body type (``agent``, ``common``, ``server``...:
the body types no promise type's attribute names) is checked against that type's own
attributes.  Any other body -- a control type under another name too (``body common
foo``) -- is checked against the first body of any promise type's attributes that has
the attribute (its own type's first, then the others'); an attribute no such body has
is "Constraint lvalue "X" is not allowed in 'T' constraint body", said where the value
ends, after the check of the attribute's name against the body's own type (which let
``bundlesequence`` through in ``body common foo``).  An agent's promise block is checked
as a body against its own attributes (:func:`promise_block_attributes`).
"""
from __future__ import annotations

from cfpromise.fast.memo import lru_cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cfpromise.schema import Attribute, Schema



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


# a body's attribute under a quoted guard ("$(x)"::), said once its value is checked
VARCLASS = "Body attributes can't be put under a variable class '{}'"
_BLOCK: list[dict[str, Attribute]] = []


def promise_block_attributes() -> dict[str, Attribute]:
    """An agent's custom promise block's attributes (its module's path and interpreter,
    and those every body has): what its parser checks them against, as a body's."""
    if not _BLOCK:
        from cfpromise.schema import Attribute
        _BLOCK.append({name: Attribute(name, kind, "", "body") for name, kind in
                       (("meta", "slist"), ("inherit_from", "body"), ("path", "string"),
                        ("interpreter", "string"))})
    return _BLOCK[0]
