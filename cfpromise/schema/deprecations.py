"""The parser's warnings about language CFEngine deprecated or removed.

cf-promises 3.21 (and cf-agent, which parses the policy itself) warns as it reads a
file, whether or not the policy has errors, and goes on:

* ``FILE:L:C: warning: Deprecated constraint 'LVAL' in body type 'TYPE' [-Wdeprecated]``
  for an attribute the syntax tables mark deprecated (``skipverify`` in ``body server
  control``, ``acl_directory_inherit`` and ``specify_inherit_aces`` in ``body acl``);
* ``... warning: Removed constraint 'LVAL' in promise type 'TYPE' [-Wremoved]`` for one
  marked removed (``host_licenses_paid`` in ``body common control``; 3.21 says "promise
  type" of a body);
* ``... warning: Removed body 'NAME' of type 'TYPE' [-Wremoved]`` for a body of a type
  CFEngine removed (the knowledge and reporter control bodies, the knowledge bundles'
  association: any body of those types);
* ``... warning: Removed promise type 'TYPE' in bundle type 'BUNDLE' [-Wremoved]`` at
  each guard of a promise type removed from that bundle type (``outputs:`` in an agent
  bundle; ``topics:``, ``things:``, ``inferences:``, ``occurrences:`` in a knowledge
  bundle), just past its ``:``.

What the parser does with them is what it installs (:func:`installed`): a removed
attribute is dropped before its value is checked (any type, any call, no error), and a
removed promise type sets its skip flag until the bundle's ``}``, so that section and
every later one of the bundle is neither checked (no type errors; only the parser's
"Unknown attribute" and class guard errors are still said) nor run; cf-promises' check
of the parsed policy (duplicate handles...) and cf-agent see the bundle without them.
A promise type that is removed from another bundle type than the one it is in is an
ordinary misplaced one ("Promise type 'outputs' not supported by 'common' bundle type").

The position is just after the last character of what was read: the rval's (its closing
quote, brace or parenthesis; a multi-line rval's last line; for a bare word, the ``;``
the parser read after it) or the body's ``{``.  The
source line and a caret follow, as for an error.  The statuses are the syntax tables'
(``status``; ``cf-promises -s json`` does not list removed attributes and promise types,
:meth:`cfpromise.schema.Schema.description`); the removed body types, which have no
attribute a policy could use, are named here.  A removed attribute repeated in one body
is kept at each place (cfpromise.syntax.convert.replace_repeats), so warned of at each
as cf-promises does; a deprecated one repeated is warned of once (the parser keeps only
the last, as CFEngine's policy does).
"""
from __future__ import annotations

from cfpromise.schema.rvalend import after_rval
from cfpromise.syntax import ast
from cfpromise.syntax.errors import Coord, Diagnostic, file_lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cfpromise.schema import Schema

# control body types 3.21's parser knows only to warn of (SYNTAX_STATUS_REMOVED)
REMOVED_BODY_TYPES = frozenset({"knowledge", "reporter", "association"})

_MESSAGES = {
    "deprecated": ("Deprecated constraint '{lval}' in body type '{type}'", "-Wdeprecated"),
    "removed": ("Removed constraint '{lval}' in promise type '{type}'", "-Wremoved"),
}


def warnings(policy: ast.Policy, sch: Schema) -> list[Diagnostic]:
    """The parser's deprecation warnings for ``policy``, in the order of the file."""
    found: list[tuple[Coord, str, str | None]] = []
    lines: dict[str, list[str] | None] = {}
    for body in policy.bodies:
        if body.type in REMOVED_BODY_TYPES:
            at = _after_brace(body.coord, lines)
            found.append((at, f"Removed body '{body.name}' of type '{body.type}' [-Wremoved]",
                          None))
            continue
        marked = marked_attributes(sch, body.type)
        if not marked:
            continue
        known = sch.body_types.get(body.type) or {}
        for c in body.constraints:
            if c.lval not in known:
                break           # (an unknown attribute sets the skip flag: no more warnings)
            status = marked.get(c.lval)
            if status is None:
                continue
            text, flag = _MESSAGES[status]
            at, source = after_rval(c, lines)
            found.append((at, text.format(lval=c.lval, type=body.type) + f" [{flag}]", source))
    for bundle in policy.bundles:
        for section in bundle.sections:
            if removed_guard(bundle.type, section.name):
                at = section.coord._replace(col=section.coord.col + len(section.name) + 1)
                found.append((at, f"Removed promise type '{section.name}' in bundle type "
                                  f"'{bundle.type}' [-Wremoved]", None))
    found.sort(key=lambda f: (f[0].line, f[0].col))
    # (on a file's first line 3.21's parser has no source line to show: "(null)")
    return [Diagnostic(coord, message, "warning", "(null)" if coord.line == 1 else source)
            for coord, message, source in found]


_MARKED: dict[tuple[int, str], dict[str, str]] = {}


def marked_attributes(sch: Schema, body_type: str) -> dict[str, str]:
    """{lval: status} of ``body_type``'s deprecated and removed attributes (each type's
    table read once, and only for the types a policy uses: start-up matters)."""
    key = (id(sch), body_type)
    if key not in _MARKED:
        info = sch.raw["bodyTypes"].get(body_type) or {}
        _MARKED[key] = {lval: a["status"] for lval, a in info.get("attributes", {}).items()
                        if a.get("status") in _MESSAGES}
    return _MARKED[key]


def _after_brace(coord: Coord, lines: dict[str, list[str] | None]) -> Coord:
    """Just after the ``{`` opening the body declared at ``coord`` (comments skipped)."""
    text = file_lines(coord.file, lines)
    if text is None:
        return coord
    line, col = coord.line - 1, coord.col - 1
    while line < len(text):
        row = text[line]
        while col < len(row):
            ch = row[col]
            if ch == "#":
                break
            if ch == "{":
                return _coord(coord, line, col + 2)
            col += 1
        line, col = line + 1, 0
    return coord


def _coord(coord: Coord, line: int, col: int) -> Coord:
    return Coord(coord.file, line + 1, col, coord.cf and coord.cf + line + 1 - coord.line)


# bundle types a program's parser installs after a removed body as ever (RelevantBundle:
# common, and the edit bundles cf-agent runs)
_RESET_BY = {"agent": frozenset({"common", "edit_line", "edit_xml"})}
# bundle types a program's parser installs at all (RelevantBundle: its own type, and those
# above); cf-agent leaves out a server, monitor, runagent... bundle: none of its promises is
# evaluated, no function they call is called, bundlesmatching() does not find it
# (cf-promises, parsing as "common", installs every bundle)
RELEVANT = {"agent": frozenset({"agent"}) | _RESET_BY["agent"]}


def irrelevant_bundles(policy: ast.Policy, parsing_as: str) -> set[int]:
    """Indexes (in ``policy.bundles``) of the bundles of a type the parser reading as
    ``parsing_as`` does not install (:data:`RELEVANT`)."""
    kept = RELEVANT.get(parsing_as)
    if kept is None:
        return set()
    return {i for i, b in enumerate(policy.bundles) if b.type not in kept}


def skipped_bundles(policy: ast.Policy, parsing_as: str) -> set[int]:
    """Indexes (in ``policy.bundles``) of the bundles 3.21's parser, reading as
    ``parsing_as`` ("agent" for cf-agent, "common" for cf-promises), leaves out after a
    removed body: a removed body sets its skip flag and leaves it set, the next normal
    body's ``{`` or a common (or edit) bundle clears it, and a bundle of the program's own
    type begun while it is set is not installed (its ``}`` clears the flag).  cf-agent
    then finds no such bundle; cf-promises installs every bundle."""
    reset_by = _RESET_BY.get(parsing_as)
    if reset_by is None or not any(b.type in REMOVED_BODY_TYPES for b in policy.bodies):
        return set()
    blocks = sorted([((b.coord.line, b.coord.col), "body", b.type, -1)
                     for b in policy.bodies]
                    + [((b.coord.line, b.coord.col), "bundle", b.type, i)
                       for i, b in enumerate(policy.bundles)])
    skip, out = False, set()
    for _, kind, type_, index in blocks:
        if kind == "body":
            skip = type_ in REMOVED_BODY_TYPES
        elif type_ in reset_by:
            skip = False
        else:
            if skip and type_ == parsing_as:
                out.add(index)
            skip = False
    return out


# -- what the parser installs --------------------------------------------------------
_GUARDS: dict[tuple[str, str], bool] = {}


def removed_guard(bundle_type: str, name: str) -> bool:
    """``name:`` in a ``bundle_type`` bundle is a removed promise type's guard (each
    pair looked up once: the parser asks at every section)."""
    key = (bundle_type, name)
    found = _GUARDS.get(key)
    if found is None:
        from cfpromise.schema import schema
        found = _GUARDS[key] = schema().removed_promise_type(bundle_type, name)
    return found


def removed_from(bundle: ast.Bundle) -> tuple[int, int] | None:
    """(line, column) of ``bundle``'s first removed promise type guard, from which on
    its parser installs nothing of the bundle; None when it has none.  (The parser keeps
    each such guard a section of its own, at its own place: cfpromise.syntax.parser.)"""
    first = None
    for section in bundle.sections:
        if removed_guard(bundle.type, section.name):
            at = (section.coord.line, section.coord.col)
            if first is None or at < first:
                first = at
    return first


def hidden(promise: ast.Promise, first: tuple[int, int] | None) -> bool:
    """``promise`` comes after the removed guard at ``first`` (:func:`removed_from`)."""
    return first is not None and (promise.coord.line, promise.coord.col) > first


def has_removed(policy: ast.Policy, sch: Schema) -> bool:
    """``policy`` uses language the parser warns of (so :func:`warnings` has work)."""
    return bool(policy.bodies) or any(removed_guard(b.type, s.name)
                                      for b in policy.bundles for s in b.sections)


def installed(policy: ast.Policy, sch: Schema) -> ast.Policy:
    """``policy`` as 3.21's parser installs it: without the removed attributes of its
    bodies, and each bundle without what follows its first removed promise type guard
    (a section that began before it keeps its promises from before it, and its place:
    cfpromise.syntax.parser).  The same
    object when nothing is removed."""
    bodies = tuple(_installed_body(b, sch) for b in policy.bodies)
    bundles = tuple(_installed_bundle(b) for b in policy.bundles)
    if all(n is o for n, o in zip(bodies, policy.bodies)) \
            and all(n is o for n, o in zip(bundles, policy.bundles)):
        return policy
    return ast.evolve(policy, bodies=bodies, bundles=bundles)


def _installed_body(body: ast.Body, sch: Schema) -> ast.Body:
    marked = marked_attributes(sch, body.type)
    if not marked or not any(marked.get(c.lval) == "removed" for c in body.constraints):
        return body
    return ast.evolve(body, constraints=tuple(c for c in body.constraints
                                              if marked.get(c.lval) != "removed"))


def _installed_bundle(bundle: ast.Bundle) -> ast.Bundle:
    first = removed_from(bundle)
    if first is None:
        return bundle
    sections = []
    for section in bundle.sections:
        if removed_guard(bundle.type, section.name):
            continue
        kept = tuple(p for p in section.promises if not hidden(p, first))
        if (section.coord.line, section.coord.col) < first:
            sections.append(section if len(kept) == len(section.promises)
                            else ast.evolve(section, promises=kept))
    return ast.evolve(bundle, sections=tuple(sections))


def interleaved(said: list[Diagnostic], errors: list[Diagnostic]) -> list[Diagnostic]:
    """The parser's warnings ``said`` among a file's ``errors`` in the order its parser
    says them, by place in the file: a plain log line (line 0) goes with the error after
    it; the errors of the check of the parsed policy (``bare``) all come after."""
    if not said or any(e.bare for e in errors):
        return said + errors
    out: list[Diagnostic] = []
    pending = list(said)
    group: list[Diagnostic] = []
    for e in errors:
        group.append(e)
        if e.coord.line == 0:
            continue
        while pending and (pending[0].coord.line, pending[0].coord.col) < \
                (e.coord.line, e.coord.col):
            out.append(pending.pop(0))
        out += group
        group = []
    return out + pending + group
