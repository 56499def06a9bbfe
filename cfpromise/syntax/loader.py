"""Load a policy and everything it includes: the entry file, then its ``inputs``.

Inputs come from ``body common control`` and ``body file control``; a relative
input is looked up in the entry file's directory (CFEngine's rule), each file
is read once however often it is named, and the files are parsed in the order
they are found (breadth first, as CFEngine does).  Input lists usually hold
variables (``"$(sys.libdir)/stdlib.cf"``, ``@(def.augments_inputs)``): the
caller passes an ``expand`` callback that resolves an rval to a list of file
names, or None when it cannot yet; the evaluator supplies one that knows every
variable, :func:`literal_inputs` knows only plain strings and ``this``.
"""
from __future__ import annotations

import os

from cfpromise.schema.validate import diagnostics
from cfpromise.syntax import ast
from cfpromise.syntax.errors import Diagnostic, PolicyError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Iterable

    # (rval, directory of the naming file, naming file) -> file names, or None if unresolvable
    Expander = Callable[[ast.Rval, str, str], list[str] | None]


class LoadedPolicy:
    """A plain slotted class, not attrs: it is on every run's start path (see ast.py)."""

    __slots__ = ("policy", "entry", "files", "errors", "unresolved")

    def __init__(self, policy: ast.Policy, entry: ast.Policy, files: list[str],
                 errors: list[Diagnostic], unresolved: list[tuple[str, ast.Rval]]) -> None:
        self.policy = policy          # everything merged
        self.entry = entry            # the entry file alone
        self.files = files
        self.errors = errors
        self.unresolved = unresolved  # (naming file, input rval) not yet resolvable


def input_rvals(policy: ast.Policy) -> Iterable[ast.Rval]:
    """The ``inputs`` attributes of the control bodies in ``policy``."""
    for body in policy.bodies:
        if body.name == "control" and body.type in ("common", "file"):
            for c in body.constraints:
                if c.lval == "inputs":
                    yield c.rval


def literal_inputs(rval: ast.Rval, directory: str, filename: str) -> list[str] | None:
    """Resolve plain strings and ``$(this.promise_dirname)``/``$(this.promise_filename)``."""
    items = rval.items if isinstance(rval, ast.List) else (rval,)
    out: list[str] = []
    for item in items:
        if not isinstance(item, ast.Scalar):
            return None
        text = item.value.replace("$(this.promise_dirname)", directory) \
                         .replace("${this.promise_dirname}", directory) \
                         .replace("$(this.promise_filename)", filename)
        if "$(" in text or "${" in text or "@(" in text or "@{" in text:
            return None
        out.append(text)
    return out


def resolve_path(name: str, directory: str) -> str:
    """As cf-agent joins them, without normalising (an input of ``./p.cf`` is ``./x.cf``)."""
    return name if os.path.isabs(name) else os.path.join(directory, name)


def load(entry: str, expand: Expander = literal_inputs, validate: bool = True,
         ignore_missing: bool = False, base: str = "", first_errors: bool = False
         ) -> LoadedPolicy:
    """Parse ``entry`` and its inputs (relative ones from ``base``, by default the entry's
    directory); syntax errors raise PolicyError at once, validation problems and missing
    inputs are collected in ``errors`` (``first_errors``: those of the first file that
    has any, whose inputs cf-promises then does not read)."""
    from cfpromise.syntax.parser import parse_file   # not imported by a cached agent run
    entry_policy = parse_file(entry)
    result = LoadedPolicy(entry_policy, entry_policy, [entry], [], [])
    if validate:
        result.errors += diagnostics(entry_policy, entry=True)
    seen = {os.path.realpath(entry)}
    queue = [(entry, entry_policy)]
    base = base or os.path.dirname(os.path.abspath(entry))   # relative inputs: the entry's
    while queue and not (first_errors and result.errors):
        filename, policy = queue.pop(0)
        directory = os.path.dirname(os.path.abspath(filename))   # for $(this.promise_dirname)
        for rval in input_rvals(policy):
            names = expand(rval, directory, filename)
            if names is None:
                result.unresolved.append((filename, rval))
                continue
            for name in names:
                path = resolve_path(name, base)
                real = os.path.realpath(path)
                if real in seen:
                    continue
                seen.add(real)
                if not os.path.isfile(path):
                    if not ignore_missing:
                        result.errors.append(Diagnostic(
                            rval.coord, f"Can't stat file '{path}' for parsing"))
                    continue
                included = parse_file(path)
                if validate:
                    result.errors += diagnostics(included)
                    if first_errors and result.errors:
                        break
                result.policy = result.policy.merged(included)
                result.files.append(path)
                queue.append((path, included))
    return result


def load_or_raise(entry: str, expand: Expander = literal_inputs) -> LoadedPolicy:
    loaded = load(entry, expand)
    if loaded.errors:
        raise PolicyError(loaded.errors)
    return loaded
