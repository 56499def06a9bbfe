"""Autoloading bundles and bodies by namespace from the bundle path (Puppet's autoloader,
without its relative-name trap, PUP-121).

A bundle or body that policy references and no loaded file defines is looked up
on the bundle path, in this order:

1. ``bundles/`` beside the main policy file;
2. the directories of ``--bundle-path`` (each value may hold several, separated
   by ``:``), then those of the ``CF_LITE_BUNDLE_PATH`` environment variable;
3. cf-lite's own standard library (``cfpromise/share/bundles``), whose files are
   indexed by the default-namespace blocks they define.

The name is first made fully qualified exactly as cf-agent 3.21 resolves it: a
name written ``ns:name`` is that; an unqualified one is in the namespace of the
block that refers to it (cf-agent does not fall back to ``default`` for a
namespaced reference); bundlesequence entries are in ``default``.  The file is
chosen by that fully qualified name alone: ``ns:name`` is ``DIR/ns/name.cf``,
``default:name`` is ``DIR/name.cf``; no other namespace is ever searched, so
``nagios:main`` referred to from namespace ``apache`` is ``bundles/nagios/main.cf``
and never ``bundles/apache/nagios.cf``.  The first directory holding the file
wins.  A file that does not define what it was loaded for is an error naming the
file, the reference and what the file defines.

Static references (written names in promise attributes, bodies, ``inherit_from``,
the bundlesequence, methods promisers) are loaded while the policy loads, so
``cf-lite-promises -c`` sees them (:meth:`Autoloader.static_pass`, called by
:func:`cfpromise.agent.loading.load` until nothing new is loaded).  A name known only
at run time (``usebundle => "$(b)"``, ``-b``) is loaded when the engine or the body
resolver misses it (:meth:`Autoloader.bundle_hook`, :meth:`Autoloader.body_hook`).
Loaded files are logged (verbose) and listed in ``--report json`` (``autoloaded``).
"""
from __future__ import annotations

import os

from cfpromise.fast import precompiled
from cfpromise.fast.records import record
from cfpromise.schema.values import is_unexpanded
from cfpromise.syntax import ast
from cfpromise.syntax.errors import Coord, Diagnostic
from cfpromise.syntax.names import find_block

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterable, Iterator

ENV_VAR = "CF_LITE_BUNDLE_PATH"
BUNDLE_LVALS = {"usebundle": ("agent", "common"), "edit_line": ("edit_line",),
                "edit_xml": ("edit_xml",), "home_bundle": ("agent", "common"),
                "service_bundle": ("agent", "common")}
_BLOCK = precompiled.compile(r"^\s*(body|bundle)\s+([A-Za-z0-9_]+)\s+([A-Za-z0-9_]+)", precompiled.MULTILINE)


@record
class Want:
    """A reference to a block: what it must be, where it is written."""

    kind: str                    # "bundle" or "body"
    types: tuple[str, ...]       # bundle types, or the one body type
    name: str                    # as written (maybe ns:name)
    namespace: str               # of the referring block
    coord: Coord

    @property
    def fqn(self) -> str:
        return self.name if ":" in self.name else f"{self.namespace}:{self.name}"

    def describe(self) -> str:
        return f"{self.kind} {'/'.join(self.types)} {self.fqn}"


@record
class Loaded:
    """One autoloaded file and the reference that brought it (a NamedTuple, not an
    attrs class: this module is imported by every run's loader, and attrs is not)."""

    path: str
    wanted: str                  # e.g. "bundle agent/common nagios:main"
    reference: str               # file:line:col
    run_time: bool

    def to_json(self) -> dict[str, Any]:
        return {"file": self.path, "for": self.wanted, "reference": self.reference,
                "when": "run-time" if self.run_time else "load"}


def relative_path(fqn: str) -> str:
    """``ns:name`` -> ``ns/name.cf``; ``default:name`` -> ``name.cf``."""
    ns, _, name = fqn.partition(":")
    return f"{name}.cf" if ns == "default" else os.path.join(ns, f"{name}.cf")


def search_dirs(policy_file: str, bundle_path: Iterable[str],
                environ: dict[str, str] | None = None, warn: Any = None) -> list[str]:
    """The user's part of the bundle path (module docstring, 1 and 2); entries given
    explicitly that do not exist are warned about and left out."""
    environ = os.environ if environ is None else environ
    dirs = [os.path.join(os.path.dirname(os.path.abspath(policy_file)), "bundles")]
    dirs = [d for d in dirs if os.path.isdir(d)]
    given = [(p, "--bundle-path") for item in bundle_path for p in item.split(os.pathsep) if p]
    given += [(p, ENV_VAR) for p in environ.get(ENV_VAR, "").split(os.pathsep) if p]
    for path, origin in given:
        if os.path.isdir(path):
            dirs.append(os.path.abspath(path))
        elif warn is not None:
            warn("warning", f"Bundle path entry '{path}' ({origin}) is not a directory: "
                            "ignored")
    return dirs


def _defines(policy: ast.Policy) -> list[str]:
    out = [f"bundle {b.type} {b.namespace}:{b.name}" for b in policy.bundles]
    out += [f"body {b.type} {b.namespace}:{b.name}" for b in policy.bodies
            if b.name != "control"]
    return out


def _holds(policy: ast.Policy, want: Want) -> bool:
    ns, _, name = want.fqn.partition(":")
    if want.kind == "bundle":
        return any(b.namespace == ns and b.name == name and b.type in want.types
                   for b in policy.bundles)
    return any(b.namespace == ns and b.name == name and b.type == want.types[0]
               for b in policy.bodies)


class Autoloader:
    """The bundle path of one agent run and what was loaded from it."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        options = agent.options
        self.dirs = search_dirs(options.file, getattr(options, "bundle_path", ()) or (),
                                warn=agent.out.log)
        self.loaded: list[Loaded] = []
        self.files: dict[str, ast.Policy] = {}    # realpath -> what it added
        self._stdlib: dict[tuple[str, str, str], str] | None = None
        self.absent: set[tuple[str, tuple[str, ...], str]] = set()   # no file: not again

    # -- where a name's file is -------------------------------------------------------
    def stdlib_index(self) -> dict[tuple[str, str, str], str]:
        """(kind, type, default-namespace name) -> the standard library file defining it."""
        if self._stdlib is None:
            # (its own module: a run that autoloads nothing from the library, as most
            # do, does not load its code)
            from cfpromise.agent.stdlibindex import stdlib_index
            self._stdlib = stdlib_index(_BLOCK)
        return self._stdlib

    def file_for(self, want: Want) -> tuple[str, bool] | None:
        """(path, from the standard library) of the file for ``want``, or None."""
        rel = relative_path(want.fqn)
        for directory in self.dirs:
            path = os.path.join(directory, rel)
            if os.path.isfile(path):
                return path, False
        ns, _, name = want.fqn.partition(":")
        if ns == "default":
            index = self.stdlib_index()
            for type_ in want.types:
                path = index.get((want.kind, type_, name))
                if path is not None:
                    return path, True
        return None

    # -- loading ----------------------------------------------------------------------
    def load(self, want: Want, run_time: bool = False) -> ast.Policy | None:
        """Read the file for ``want`` (None: there is none, or it was read already and
        defines it).  Raises LoadError when the file does not define what it was
        loaded for, PolicyError/LoadError for a file with errors."""
        from cfpromise.agent.policyfile import LoadError, read
        key = (want.kind, want.types, want.fqn)
        found = None if key in self.absent else self.file_for(want)
        if found is None:
            self.absent.add(key)
            return None
        path, stdlib = found
        real = os.path.realpath(path)
        ref = f"{want.coord.file}:{want.coord.line}:{want.coord.col}"
        if real in self.files:
            policy = self.files[real]
            if _holds(policy, want) or stdlib:
                return None
            raise LoadError([self._mismatch(path, want, policy)])
        policy = read(self.agent, path)
        if policy is None:      # the same text as a file read already: defines the same
            self.absent.add(key)
            return None
        if not stdlib and not _holds(policy, want):
            raise LoadError([self._mismatch(path, want, policy)])
        if stdlib:          # the policy's own definitions win over the library's
            policy = self._without_defined(policy)
        self.files[real] = policy
        self.loaded.append(Loaded(path, want.describe(), ref, run_time))
        self.agent.out.log("verbose", f"Autoloaded '{path}' for {want.describe()} "
                                      f"(referenced at {ref})")
        return policy

    def _mismatch(self, path: str, want: Want, policy: ast.Policy) -> Diagnostic:
        defines = ", ".join(_defines(policy)) or "nothing"
        return Diagnostic(want.coord, f"'{path}' was autoloaded for {want.describe()} but does "
                                      f"not define it (it defines: {defines})")

    def _without_defined(self, policy: ast.Policy) -> ast.Policy:
        agent = self.agent
        bundles = [b for b in policy.bundles
                   if (b.namespace, b.name) not in agent.bundles]
        bodies = [b for b in policy.bodies
                  if (b.namespace, b.name, b.type) not in agent.bodies]
        return ast.Policy(tuple(bundles), tuple(bodies), policy.promise_blocks, policy.path)

    def defined(self, want: Want) -> Any:
        """The block ``want`` names, as the agent finds it (without autoloading)."""
        agent = self.agent
        if want.kind == "bundle":
            return find_block(agent.bundles, want.name, want.namespace, want.types)
        resolver = agent.resolver
        hook, resolver.missing = resolver.missing, None
        try:
            return resolver.find(want.name, want.types[0], want.namespace)
        finally:
            resolver.missing = hook

    def missing(self, wants: Iterable[Want]) -> Iterator[Want]:
        seen: set[tuple[str, tuple[str, ...], str]] = set()
        for want in wants:
            key = (want.kind, want.types, want.fqn)
            if key not in seen:
                seen.add(key)
                if self.defined(want) is None:
                    yield want

    def static_pass(self) -> list[ast.Policy]:
        """Load the files of every written reference nothing defines yet, add them to
        the agent and return them (their inputs and common bundles are the caller's)."""
        out: list[ast.Policy] = []
        for want in list(self.missing(static_references(self.agent.policy, self.agent.schema))):
            if self.defined(want) is not None:        # a file loaded in this pass has it
                continue
            policy = self.load(want)
            if policy is not None:
                self.agent.add_policy(policy)
                out.append(policy)
        return out

    # -- run time ---------------------------------------------------------------------
    def _at_run_time(self, want: Want) -> bool:
        """Load ``want``'s file during the run; True when something was loaded.  Errors
        are reported and the name stays undefined (the caller then fails as before)."""
        from cfpromise.agent import policyfile
        from cfpromise.agent.order import LOAD_EVALUATION
        from cfpromise.syntax.errors import PolicyError
        agent = self.agent
        try:
            policy = self.load(want, run_time=True)
            if policy is None:
                return False
            agent.add_policy(policy)
            added = [policy]
            while True:          # what the new file refers to, statically
                more = self.static_pass()
                if not more:
                    break
                added += more
        except (PolicyError, policyfile.LoadError) as exc:
            policyfile.report_errors(exc.diagnostics, agent.options.start_dir)
            agent.out.log("error", f"Could not autoload {want.describe()}")
            return False
        for new in added:
            for bundle in new.bundles:
                if bundle.type == "common":
                    agent.run_bundle(bundle, [], types=LOAD_EVALUATION)
            agent.pre_evaluate_vars(new.bundles)
            agent.preliminary_convergence(new.bundles)
        return True

    def bundle_hook(self, name: str, namespace: str, types: tuple[str, ...]) -> Any:
        """Agent.autoload: a bundle the engine did not find (a name known at run time)."""
        if not name or "$" in name or "@" in name or not self._written(BUNDLE_LVALS):
            return None
        want = Want("bundle", tuple(types), name, namespace, self._where())
        return self.defined(want) if self._at_run_time(want) else None

    def body_hook(self, name: str, body_type: str, namespace: str) -> Any:
        """BodyResolver.missing: a body not found (a name known at run time)."""
        if not name or "$" in name or "@" in name or not self._written((body_type,)):
            return None
        want = Want("body", (body_type,), name, namespace, self._where())
        return self.defined(want) if self._at_run_time(want) else None

    def _written(self, lvals: Iterable[str]) -> bool:
        """Whether the promise being evaluated names a bundle or body itself (an
        attribute of ``lvals``, a body holding one, a methods promiser), or there is
        none (-b, the bundlesequence): a block the engine calls by default (services'
        ``default:standard_services``) is never autoloaded, as cf-agent never finds it."""
        frame = self.agent.ctx.frame
        promise = getattr(frame, "promise", None)
        if promise is None or getattr(frame, "ptype", "") == "methods":
            return True
        wanted = set(lvals) | {"service_method", "home_bundle"}
        return any(c.lval in wanted for c in getattr(promise, "constraints", ()))

    def _where(self) -> Coord:
        """The promise being evaluated (the reference of a run-time name)."""
        promise = getattr(self.agent.ctx.frame, "promise", None)
        coord = getattr(promise, "coord", None)
        return coord if isinstance(coord, Coord) else Coord("<run time>", 0, 0)


# -- the references written in policy ----------------------------------------------------

def _name(rval: ast.Rval) -> str | None:
    if isinstance(rval, ast.Scalar):
        name = rval.value
    elif isinstance(rval, ast.FnCall):
        name = rval.name
    else:
        return None
    if not name or is_unexpanded(name) or name.startswith("@"):
        return None
    return name


def static_references(policy: ast.Policy, sch: Any) -> Iterator[Want]:
    """Every bundle and body named literally in ``policy`` (module docstring)."""
    # the attributes that can name a block (most cannot): a set, so that the others are
    # left at once (the schema's tables are lazy mappings, each lookup a Python call)
    naming = None
    tables: dict[str, Any] = {}
    for bundle in policy.bundles:
        ns = bundle.namespace
        for section in bundle.sections:
            table = tables.get(section.name)
            if table is None:
                table = tables[section.name] = sch.promise_types.get(section.name, {})
            for promise in section.promises:
                calls = False
                for c in promise.constraints:
                    lval = c.lval
                    if naming is None:
                        naming = set(BUNDLE_LVALS).union(sch.body_types.keys())
                    if lval not in naming:
                        continue
                    attr = table.get(lval)
                    if attr is None:
                        continue
                    if lval in BUNDLE_LVALS:
                        name = _name(c.rval)
                        if name is not None:
                            calls = calls or lval == "usebundle"
                            yield Want("bundle", BUNDLE_LVALS[lval], name, ns, c.coord)
                    elif attr.type == "body":           # (a body type's name: ``naming``)
                        name = _name(c.rval)
                        if name is not None:
                            yield Want("body", (lval,), name, ns, c.coord)
                if section.name == "methods" and not calls and _name(
                        ast.Scalar(promise.promiser)) is not None:
                    yield Want("bundle", ("agent", "common"), promise.promiser, ns, promise.coord)
    for body in policy.bodies:
        table = sch.body_types.get(body.type, {})
        for c in body.constraints:
            lval = c.lval
            if lval == "inherit_from":
                name = _name(c.rval)
                if name is not None:
                    yield Want("body", (body.type,), name, body.namespace, c.coord)
                continue
            attr = table.get(lval)
            if attr is None:
                continue
            # (the attribute first, the name only for one that can hold a name)
            if attr.type == "bundle" or lval in BUNDLE_LVALS:
                name = _name(c.rval)
                if name is not None:
                    yield Want("bundle", BUNDLE_LVALS.get(lval, ("agent", "common")), name,
                               body.namespace, c.coord)
            elif attr.type == "body" and lval in sch.body_types:
                name = _name(c.rval)
                if name is not None:
                    yield Want("body", (lval,), name, body.namespace, c.coord)
        if body.type == "common" and body.name == "control":
            for c in body.constraints:
                if c.lval != "bundlesequence":
                    continue
                items = c.rval.items if isinstance(c.rval, ast.List) else (c.rval,)
                for item in items:
                    name = _name(item)
                    if name is not None:
                        coord = item.coord if item.coord.line else c.coord
                        yield Want("bundle", ("agent", "common"), name, "default", coord)
