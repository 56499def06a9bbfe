"""The parse-time conversions the grammar's rules make, apart from the grammar.

:mod:`cfpromise.syntax.parser` holds the grammar (PLY's ``p_*`` rules); what
CFEngine converts while it parses is not grammar, and lives here:

* a string given to a ``data`` attribute that parses as a JSON object or array
  becomes a :class:`Data` container, any other string ``parsejson("...")``
  (:func:`inline_data`);
* a repeated attribute replaces the earlier one in its place (:func:`replace_repeats`);
* the blocks of a file sorted into a :class:`Policy` (:func:`policy`).
"""
from __future__ import annotations

from cfpromise.fast import precompiled
from cfpromise.fast.cmodules import attrgetter
from cfpromise.fast.jsondumps import dumps
from cfpromise.schema import schema
from cfpromise.syntax import ast, cfjson

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# (a quoted guard's attribute is its own: refused by the check, not replaced before it)
_lval_and_guard = attrgetter("lval", "classes", "varclass")

# Attributes of type data: a string given to them is an inline container (or parsejson()).
_DATA_LVALS: list[frozenset[str]] = []


def data_lvals() -> frozenset[str]:
    if not _DATA_LVALS:
        _DATA_LVALS.append(schema().data_lvals())
    return _DATA_LVALS[0]


def replace_repeats(constraints: list[ast.Constraint], body_type: str = ""
                    ) -> tuple[ast.Constraint, ...]:
    """A repeated attribute (same guard) replaces the earlier one in its place, as in
    CFEngine; in a body of ``body_type``, an attribute CFEngine removed is kept at each
    place, where its parser warns of it (cfpromise.schema.deprecations)."""
    if len(constraints) < 2 or \
            len(set(map(_lval_and_guard, constraints))) == len(constraints):
        return tuple(constraints)       # most promises: nothing repeats (told in C)
    removed: frozenset[str] = frozenset()
    if body_type:
        from cfpromise.schema.deprecations import marked_attributes
        removed = frozenset(lval for lval, status in marked_attributes(
            schema(), body_type).items() if status == "removed")
    out: list[ast.Constraint] = []
    where: dict[Any, int] = {}
    for c in constraints:
        key: Any = _lval_and_guard(c) if c.lval not in removed else id(c)
        if key in where:
            out[where[key]] = c
        else:
            where[key] = len(out)
            out.append(c)
    return tuple(out)


_NAKED_LIST = precompiled.compile(r"@\(([^()]+)\)|@\{([^{}]+)\}")


def inline_data(rval: ast.Scalar) -> ast.Rval:
    """A string given to a data attribute, as CFEngine converts it at parse time:
    ``@(name)`` -> ``mergedata("name")``; a JSON object/array -> a container;
    ``---`` YAML -> a container; anything else -> ``parsejson("...")``."""
    text = rval.value
    naked = _NAKED_LIST.fullmatch(text)
    if naked:
        return ast.FnCall("mergedata", (ast.Scalar(naked.group(1) or naked.group(2), ast.QUOTED, rval.coord),),
                          rval.coord)
    if text.startswith("---"):
        value = _yaml(text) if "$(" not in text and "${" not in text else None
        if value is not None:
            return ast.Data(value, text, rval.coord, canonical_json(value))
        return ast.FnCall("parseyaml", (rval,), rval.coord)
    if "$(" not in text and "${" not in text:
        try:
            value = cfjson.loads_container(text, exponent_integers=False)
        except cfjson.JsonError:        # (1e3: parsejson's reader, whose copy exits)
            pass
        else:
            return ast.Data(value, text, rval.coord, canonical_json(value))
    return ast.FnCall("parsejson", (rval,), rval.coord)


def _yaml(text: str) -> Any:
    """Inline YAML as a JSON container (dates and other YAML types become strings, keys
    become strings); None when it is not a mapping or sequence or cannot be read."""
    import json

    import yaml  # only policies with inline YAML pay for the import
    try:
        value = json.loads(json.dumps(yaml.safe_load(text), default=str))
    except Exception:      # YAMLError, bad tagged scalars, circular aliases...
        return None
    return value if isinstance(value, (dict, list)) else None


def canonical_json(value: Any) -> str:
    """``json.dumps(value, sort_keys=True, separators=(",", ":"))``, without importing
    json (and re with it) for the inline containers of a cold parse."""
    return dumps(value, sort_keys=True, separators=(",", ":"))



def policy(blocks: list[Any] | None, filename: str) -> ast.Policy:
    blocks = blocks or []
    return ast.Policy(
        tuple(b for b in blocks if isinstance(b, ast.Bundle)),
        tuple(b for b in blocks if isinstance(b, ast.Body)),
        tuple(b for b in blocks if isinstance(b, ast.PromiseBlock)),
        filename,
    )
