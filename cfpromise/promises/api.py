"""The contract between the agent engine and the promise-type modules.

The engine evaluates a promise (guards, iteration, expansion, bodies) and calls
the promise type's handler once per iteration with a :class:`PromiseRun`:

* ``promiser`` and every attribute fully expanded; scalars are ``str``, lists
  ``list[str]``, data containers JSON values;
* a body attribute (``contain``, ``action``, ``classes``, ``perms`` ...) arrives
  as a ``dict`` of that body's attributes (inheritance applied, class-guarded
  sections selected, arguments substituted, values expanded);
* a bundle attribute (``usebundle``, ``edit_line``) arrives as a
  :class:`BundleCall`.

The handler inspects the host, repairs it unless ``run.warn_only``, and returns
an :class:`~cfpromise.agent.outcome.Outcome`.  The engine does the rest:
locks/ifelapsed, the ``classes`` body outcome classes, counting, reports.
Handlers register in :data:`HANDLERS` through :func:`handler`; the engine
never dispatches with an if/elif chain.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple, Protocol

import attrs

from cfpromise.agent.outcome import Outcome
from cfpromise.syntax import ast


class BundleCall(NamedTuple):
    """``usebundle => name(arg, ...)`` after expansion."""

    name: str                      # as written (maybe ns:name)
    args: tuple[Any, ...] = ()


class AgentServices(Protocol):
    """What a handler may ask of the running agent."""

    dry_run: bool                  # -n
    workdir: str
    inform: bool                   # -I

    def log(self, level: str, message: str) -> None:
        """level: error, warning, notice, info, verbose, debug (CFEngine's prefixes)."""

    def report(self, text: str) -> None:
        """An ``R: text`` line."""

    def define_class(self, name: str, *, scope: str = "namespace", namespace: str = "default",
                     bundle: str | None = None, tags: tuple[str, ...] = (),
                     persist_minutes: int = 0) -> None: ...

    def undefine_class(self, name: str, *, namespace: str = "default") -> None: ...

    def set_variable(self, namespace: str, bundle: str, name: str, type_: str, value: Any,
                     tags: tuple[str, ...] = ()) -> None:
        """Define ``ns:bundle.name`` (the commands module protocol uses it)."""

    def eval_class_expr(self, expr: str) -> bool: ...

    def run_edit_bundle(self, call: BundleCall, buffer: Any, *, namespace: str = "default",
                        bundle_type: str = "edit_line", filename: str = "") -> Outcome | None:
        """Run an edit_line/edit_xml bundle against ``buffer`` (normal order, three passes);
        its handlers reach the buffer through edit_buffer().  None if it cannot run."""

    def note_change(self, run: PromiseRun, **info: Any) -> None:
        """Record what a repair changed, for run reports (``kind`` plus details:
        content diff, old/new mode and owner, command exit code...)."""

    def edit_buffer(self) -> Any:
        """The buffer of the innermost edit bundle being run, or None."""

    def state_path(self, *parts: str) -> str:
        """A path under WORKDIR/state (created on demand)."""

    def record_result(self, run: PromiseRun, outcome: Outcome) -> None:
        """Apply ``run``'s ``classes`` body for an intermediate ``outcome`` right away.

        cf-agent sets a promise's outcome classes each time the promise reaches a
        result (cfPS), and one actuation can reach several: a command whose return
        code is listed in both ``kept_returncodes`` and ``failed_returncodes`` sets
        the kept *and* the failed classes (and clears both cancel_* lists).  The
        handler calls this for each such extra result; the Outcome it returns is
        still the promise's overall result, which the engine handles as usual.
        """


@attrs.define(slots=True, eq=False, repr=False)
class PromiseRun:
    promise: ast.Promise           # the source promise (coords, raw constraints)
    promise_type: str
    promiser: str
    attributes: dict[str, Any]
    namespace: str
    bundle: str                    # the bundle's name
    agent: AgentServices
    promisee: Any = None

    @property
    def handle(self) -> str | None:
        value = self.attributes.get("handle")
        return value if isinstance(value, str) else None

    def body(self, name: str) -> dict[str, Any]:
        """A body attribute as a dict ({} when absent)."""
        value = self.attributes.get(name)
        return value if isinstance(value, dict) else {}

    @property
    def warn_only(self) -> bool:
        """Report what would change instead of changing it (-n, action_policy warn/nop)."""
        policy = self.body("action").get("action_policy", "fix")
        return self.agent.dry_run or policy in ("warn", "nop")

    def where(self) -> str:
        """``promise 'x' in bundle 'b' (file:line)`` for messages."""
        c = self.promise.coord
        return f"{self.promise_type} promise '{self.promiser}' in bundle '{self.bundle}' ({c.file}:{c.line})"


Handler = Callable[[PromiseRun], Outcome]

HANDLERS: dict[str, Handler] = {}

# Promise type -> the module that registers its handler; imported the first time the type
# is actuated, so a run pays only for the promise types its policy uses.
HANDLER_MODULES: dict[str, str] = {
    "commands": "cfpromise.promises.commands",
    "processes": "cfpromise.promises.processes.handler",
    "files": "cfpromise.promises.files.handler",
    "delete_lines": "cfpromise.promises.edit.delete_lines",
    "insert_lines": "cfpromise.promises.edit.insert_lines",
    "field_edits": "cfpromise.promises.edit.field_edits",
    "replace_patterns": "cfpromise.promises.edit.replace_patterns",
    "measurements": "cfpromise.monitor.measurements",
    "access": "cfpromise.server.policy",
    "roles": "cfpromise.server.policy",
}


def handler_for(promise_type: str) -> Handler | None:
    found = HANDLERS.get(promise_type)
    if found is None and promise_type in HANDLER_MODULES:
        import importlib
        importlib.import_module(HANDLER_MODULES[promise_type])
        found = HANDLERS.get(promise_type)
    return found


def handler(promise_type: str) -> Callable[[Handler], Handler]:
    """Register the decorated function as the handler of ``promise_type``."""
    def register(fn: Handler) -> Handler:
        if promise_type in HANDLERS:
            raise ValueError(f"handler for {promise_type} registered twice")
        HANDLERS[promise_type] = fn
        return fn
    return register
