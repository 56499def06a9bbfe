"""The contract between the agent engine and the promise-type modules.

The engine evaluates a promise (guards, iteration, expansion, bodies) and calls
the promise type's handler once per iteration with a :class:`PromiseRun`:

* ``promiser`` and every attribute fully expanded; scalars are ``str``, lists
  ``list[str]``, data containers JSON values;
* a body attribute (``contain``, ``action``, ``classes``, ``perms`` ...) arrives
  as a ``dict`` of that body's attributes (inheritance applied, class-guarded
  sections selected, arguments substituted, values expanded);
* a bundle attribute (``usebundle``, ``edit_line``, ``home_bundle``, also inside a
  body: ``service_bundle``) arrives as a :class:`BundleCall`; the handler calls
  it through ``agent.run_bundle`` (agent/common bundles) or ``agent.run_edit_bundle``;
* attributes listed in :data:`THIS_ATTRIBUTES` are also ``$(this.<name>)`` while
  the bodies are resolved.

The handler inspects the host, repairs it unless ``run.warn_only``, and returns
an :class:`~cfpromise.agent.outcome.Outcome`.  The engine does the rest:
locks/ifelapsed, the ``classes`` body outcome classes, counting, reports.
Handlers register in :data:`HANDLERS` through :func:`handler`; the engine
never dispatches with an if/elif chain.

The promise types the engine evaluates itself (vars, classes, meta, defaults,
methods, reports: :mod:`cfpromise.promises.evaluators`) get a ``Step`` whose
``agent`` offers :class:`EvaluatorServices`.  Either kind stops the run with
:class:`FatalError`.  Promise types import nothing else of the engine.
"""
from __future__ import annotations

from cfpromise.agent.abort import FatalError, SelfReference
from cfpromise.agent.outcome import Outcome
from cfpromise.fast.records import record
from cfpromise.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Protocol


@record
class BundleCall:
    """``usebundle => name(arg, ...)`` after expansion."""

    name: str                      # as written (maybe ns:name)
    args: tuple[Any, ...] = ()


if TYPE_CHECKING:
    class AgentServices(Protocol):
        """What a handler may ask of the running agent."""

        dry_run: bool                  # -n
        workdir: str
        start_dir: str                 # where the run started (files promises move it)
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

        def unset_variable(self, namespace: str, bundle: str, name: str) -> None:
            """Take ``ns:bundle.name`` away again (a files promise's match.N after it)."""

        def eval_class_expr(self, expr: str) -> bool: ...

        def run_edit_bundle(self, call: BundleCall, buffer: Any, *, namespace: str = "default",
                            bundle_type: str = "edit_line", filename: str = "") -> Outcome | None:
            """Run an edit_line/edit_xml bundle against ``buffer`` (normal order, three passes);
            its handlers reach the buffer through edit_buffer().  None if it cannot run."""

        def run_bundle(self, run: PromiseRun, call: BundleCall, *,
                       inherit: bool = False) -> Outcome:
            """Call the agent/common bundle ``call`` for ``run`` as a methods promise would
            (``service_bundle`` of services, ``home_bundle`` of users): the name is resolved
            from ``run``'s namespace, the arity checked, the call made with the caller's
            classes when ``inherit``; under warn-only the bundle is not called (WARN).
            Returns the merged outcome of the bundle's promises (KEPT when none ran).
            A missing bundle stops the run as in cf-agent (unless ignore_missing_bundles:
            SKIPPED)."""

        def policy_bundle(self, name: str, namespace: str,
                          types: tuple[str, ...] = ("agent",)) -> Any:
            """The bundle ``name`` of the loaded policy (nothing autoloaded), or None."""

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

        def action_log(self, run: PromiseRun, outcome: Outcome) -> None:
            """Write ``run``'s action body log for ``outcome`` now, where cf-agent does
            (a command's at each result its return code reaches, before its quoted output
            and "Completed execution"); the engine then writes none for the Outcome the
            handler returns.  A handler that owns its classes (:meth:`own_classes`) gets
            the log with each :meth:`record_result`, as cf-agent's cfPS writes it."""

        def own_classes(self, run: PromiseRun) -> None:
            """The handler of ``run`` sets the promise's outcome classes itself, one
            :meth:`record_result` per result cf-agent reaches (cfPS by cfPS, in its order),
            so the engine does not apply them again for the Outcome the handler returns
            (which still counts, reports and feeds ``depends_on``): cf-agent may reach a
            result whose classes it never sets (a processes promise under warn) and may set
            kept after repaired."""

        def at_section_end(self, key: str, factory: Callable[[], Callable[[], None]]
                           ) -> Callable[[], None] | None:
            """The callback registered under ``key`` for the end of the section (promise type)
            now being evaluated, created by ``factory()`` on first use and called once by the
            engine when the section ends in this pass -- where cf-agent runs its batch of
            legacy package operations.  None outside a bundle's section."""

        def defer(self, run: PromiseRun) -> Callable[[Outcome, list[dict[str, Any]]], None] | None:
            """``finish(outcome, changes)``: record a result of ``run``'s promise later (from a
            section-end callback) -- classes body, counts, depends_on, run report -- as if the
            handler had returned it.  A handler returns Outcome.SKIPPED for a promise whose
            result is wholly deferred.  None outside a bundle's section."""

        def run_state(self, name: str) -> dict[Any, Any]:
            """Per-run state a promise type keeps between its promises (a dict per name)."""

        @property
        def repairs(self) -> int:
            """How many promises this run has repaired so far."""

        def common_control(self, name: str) -> Any:
            """A ``body common control`` attribute (None when unset)."""

        def resolve_body(self, body_type: str, name: str, namespace: str = "default") -> Any:
            """Body ``name`` of ``body_type`` as a dict, or None when undefined."""

        def body_name(self, run: PromiseRun, lval: str) -> str | None:
            """The name of the body the promise's ``lval`` refers to."""


if TYPE_CHECKING:
    class EvaluatorServices(Protocol):
        """What an evaluator (``Step.agent``) may ask of the engine, beyond the handlers'
        services: the evaluation context and the engine's steps an evaluator takes
        itself (a methods promise calls a bundle under its own lock)."""

        ctx: Any                       # cfpromise.eval.context.EvalContext
        out: Any                       # cfpromise.agent.output.Output
        options: Any                   # cfpromise.agent.options.AgentOptions
        control: dict[str, Any]        # body common control, evaluated
        policy: Any                    # the loaded ast.Policy
        persistent: Any                # persistent classes (cfpromise.agent.persistence)
        trace: Any                     # the -v trace, or None
        deferrals: int                 # results that are not final yet (agent.settle)
        scalar_lists: dict[int, tuple[str, str]]   # vars promise -> (list type, scalar value)

        def attributes(self, step: Any) -> dict[str, Any] | None:
            """Every constraint of ``step`` evaluated, bodies resolved; None: wait."""

        def body(self, body_type: str, rval: Any, step: Any) -> dict[str, Any] | None:
            """The body ``rval`` names, resolved ({} when it names none)."""

        def seen_before(self, step: Any, attributes: dict[str, Any]) -> bool:
            """An identical promise was already actuated in this run (leave it out)."""

        def lock(self, step: Any, attributes: dict[str, Any]) -> str | bool:
            """Take the promise's lock; False: skip it, else the key for unlock()."""

        def unlock(self, key: str | bool) -> None: ...

        def find_bundle(self, name: str, namespace: str,
                        types: tuple[str, ...] = ("agent", "common")) -> Any: ...

        def find_or_fail(self, name: str, namespace: str, where: str, step: Any = None) -> Any:
            """The bundle a promise calls; None to skip it; FatalError when missing (after
            ``step``'s promise has failed: its action log)."""

        def call_bundle(self, bundle: Any, args: list[Any], *, inherit: Any, warn_only: bool,
                        where: str, written: str | None = None) -> tuple[Outcome, Any]:
            """Call ``bundle`` as a methods promise does: (merged outcome, its BundleRun)."""

        def run_bundle(self, bundle: Any, args: list[Any], *, inherit: Any = None,
                       types: tuple[str, ...] | None = None, edit: Any = None,
                       keep_arrays: bool = False) -> Any: ...


# The entry file the command line named from the working directory (-f ./p.cf, -f .p.cf,
# the argument p.cf): (its absolute path, as written) and (the directory its inputs are
# read from, with a slash, as cf-agent names it): set once by name_as_given.
_GIVEN: list[tuple[str, str]] = []


def name_as_given(path: str, given: str, base: str) -> None:
    """cf-agent's messages name the entry ``path`` as ``given`` and a file under its
    inputs' directory ``base`` from the given path's directory (``.`` for none)."""
    _GIVEN[:] = [(path, given), (base.rstrip("/") + "/",
                                 (given.rpartition("/")[0] or ".") + "/")]


def inputs_directory(entry: str) -> str:
    """Where ``entry``'s relative inputs are: the directory of the path as the command
    line wrote it (so the argument ``p.cf``'s input is ``$CWD/./inc.cf``, as in cf-agent)."""
    if _GIVEN and _GIVEN[0][0] == entry:
        return _GIVEN[1][0].rstrip("/")
    return entry.rpartition("/")[0] or "."      # (cf-promises' "p.cf": "./inc.cf")


def shown_path(filename: str, start_dir: str) -> str:
    """A policy file as cf-agent names it in its messages: the path as it was given, so
    ``-f ./x.cf`` (which cf-lite keeps as ``$CWD/./x.cf``, the run's start directory
    then the path given) is ``./x.cf``, and an input beside it ``./lib/y.cf``; the
    argument ``p.cf`` is ``p.cf`` (:func:`name_as_given`);
    ``$(this.promise_filename)`` stays whole in both."""
    if _GIVEN:
        (entry, given), (base, shown) = _GIVEN
        if filename == entry:
            return given
        if filename.startswith(base):
            return shown + filename[len(base):]
    if start_dir and filename.startswith(start_dir):
        rest = filename[len(start_dir.rstrip("/")) + 1:]
        if rest.startswith(("./", "../")):
            return rest
    return filename


class PromiseRun:
    """One promise as a handler sees it.  A plain slotted class, not attrs: it is on
    every run's start path (see cfpromise/syntax/ast.py)."""

    __slots__ = ("promise", "promise_type", "promiser", "attributes", "namespace", "bundle",
                 "agent", "promisee")

    def __init__(self, promise: ast.Promise, promise_type: str, promiser: str,
                 attributes: dict[str, Any], namespace: str, bundle: str,
                 agent: AgentServices, promisee: Any = None) -> None:
        self.promise = promise            # the source promise (coords, raw constraints)
        self.promise_type = promise_type
        self.promiser = promiser
        self.attributes = attributes
        self.namespace = namespace
        self.bundle = bundle              # the bundle's name
        self.agent = agent
        self.promisee = promisee

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

    def belongs_to(self) -> str:
        """cf-agent's line after a promise's error (:func:`belongs`)."""
        return belongs(self.bundle, self.promise.coord, getattr(self.agent, "start_dir", ""))

    def promise_ref(self) -> list[str]:
        """cf-agent's PromiseRef, every line: where the promise is, then its comment
        (``Comment is '...'``) and its promisees (``This was a promise to ' {"a","b"}'``,
        a list as RlistWrite writes it) when it has them."""
        return [self.belongs_to()] + referred(self.attributes.get("comment"), self.promisee,
                                             isinstance(self.promise.promisee, ast.List))


def belongs(bundle: str, coord: Any, start_dir: str, shown: str | None = None) -> str:
    """The first line of cf-agent's PromiseRef: ``Promise belongs to bundle 'b' in file
    'f' near line N`` (the one spelling of it: every promise type, the evaluators, a
    function's caller), the file as given (:func:`shown_path`; ``shown``: found already)."""
    if shown is None:
        shown = shown_path(coord.file, start_dir)
    return f"Promise belongs to bundle '{bundle}' in file '{shown}' near line {coord.line}"


def referred(comment: Any, promisee: Any, as_list: bool) -> list[str]:
    """PromiseRef's lines after the first: the promise's comment, then its promisees
    (``as_list``: written as a list, so shown as one even when it expanded to a text)."""
    lines = []
    if isinstance(comment, str):
        lines.append(f"Comment is '{comment}'")
    if isinstance(promisee, list) or as_list:
        items = promisee if isinstance(promisee, list) else [promisee]
        if items:
            written = ",".join('"' + str(i).replace('"', '\\"') + '"' for i in items)
            lines.append(f"This was a promise to ' {{{written}}}'")
    elif isinstance(promisee, str):
        lines.append(f"This was a promise to '{promisee}'")
    return lines


if TYPE_CHECKING:
    Handler = Callable[[PromiseRun], Outcome]

# Promise attributes the engine publishes as ``$(this.<attribute>)`` (expanded; the
# default when the promise does not set it) before it resolves the promise's bodies, so
# a body can pass them on, e.g.
# ``service_bundle => my_services("$(this.promiser)", "$(this.service_policy)")``.
THIS_ATTRIBUTES: dict[str, dict[str, str]] = {
    "services": {"service_policy": "start"},
}

HANDLERS: dict[str, Handler] = {}

# Promise type -> the checks its verifier makes before it takes the promise's lock
# (messages only).  cf-agent makes them in every pass, so again for a promise done in
# an earlier pass, and for one an identical promise or a lock holds back; the engine
# calls them so (the handler itself does not).
BEFORE_LOCK: dict[str, Callable[[PromiseRun], None]] = {}
# Promise type -> the checks before the lock that its handler makes itself on the first
# actuation (an edit promise's region), so made by the engine only for a promise met again;
# an outcome it returns is the promise's in that pass (recorded: outcome classes, counts)
AGAIN: dict[str, Callable[[PromiseRun], Any]] = {}

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
    "build_xpath": "cfpromise.promises.edit.xml",
    "insert_tree": "cfpromise.promises.edit.xml",
    "delete_tree": "cfpromise.promises.edit.xml",
    "delete_attribute": "cfpromise.promises.edit.xml",
    "set_attribute": "cfpromise.promises.edit.xml",
    "delete_text": "cfpromise.promises.edit.xml",
    "set_text": "cfpromise.promises.edit.xml",
    "insert_text": "cfpromise.promises.edit.xml",
    "packages": "cfpromise.promises.packages.handler",
    "services": "cfpromise.promises.services",
    "users": "cfpromise.promises.users.handler",
    "storage": "cfpromise.promises.storage.handler",
    "databases": "cfpromise.promises.databases.handler",
    "guest_environments": "cfpromise.promises.guest_environments.handler",
    "measurements": "cfpromise.monitor.measurements",
    "access": "cfpromise.server.policy",
    "roles": "cfpromise.server.policy",
}

# Modules whose ``end_of_run(services)`` the agent calls once, when the run ends
# (after the bundlesequence, also under -n): work a promise type does per run.
END_OF_RUN_MODULES: tuple[str, ...] = (
    "cfpromise.promises.packages.endrun",     # package_inventory caches (UpdatePackagesCache)
)


def handler_for(promise_type: str,
                fallback: Callable[[str], Handler | None] | None = None) -> Handler | None:
    """The handler of a built-in promise type, else what ``fallback`` (the run's
    custom promise types, learnt from the policy's ``promise`` blocks) offers."""
    found = HANDLERS.get(promise_type)
    if found is None and promise_type in HANDLER_MODULES:
        import importlib
        importlib.import_module(HANDLER_MODULES[promise_type])
        found = HANDLERS.get(promise_type)
    if found is None and fallback is not None:
        found = fallback(promise_type)
    return found


def before_lock(promise_type: str) -> Callable[[Callable[[PromiseRun], None]],
                                               Callable[[PromiseRun], None]]:
    """Register the decorated function as ``promise_type``'s checks before the lock
    (:data:`BEFORE_LOCK`); it lives in the module that registers the handler."""
    def register(fn: Callable[[PromiseRun], None]) -> Callable[[PromiseRun], None]:
        BEFORE_LOCK[promise_type] = fn
        return fn
    return register


def again(*promise_types: str) -> Callable[[Callable[[PromiseRun], Any]],
                                           Callable[[PromiseRun], Any]]:
    """Register the decorated function as the checks before the lock made again for a
    promise of these types met again (:data:`AGAIN`)."""
    def register(fn: Callable[[PromiseRun], Any]) -> Callable[[PromiseRun], Any]:
        for promise_type in promise_types:
            AGAIN[promise_type] = fn
        return fn
    return register


def handler(promise_type: str) -> Callable[[Handler], Handler]:
    """Register the decorated function as the handler of ``promise_type``."""
    def register(fn: Handler) -> Handler:
        if promise_type in HANDLERS:
            raise ValueError(f"handler for {promise_type} registered twice")
        HANDLERS[promise_type] = fn
        return fn
    return register
