"""The AgentServices a promise handler sees (see cfpromise.promises.api)."""
from __future__ import annotations

import os

from cfpromise.eval.canon import canonify

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Services:
    def __init__(self, agent: Any) -> None:
        self._agent = agent
        self.dry_run: bool = agent.options.dry_run
        self.workdir: str = agent.options.workdir
        self.start_dir: str = agent.options.start_dir
        self.inform: bool = agent.out.enabled("info")

    @property
    def simulation(self) -> Any:
        """--simulate: the run's changes chroot (cfpromise.agent.simulate), else None."""
        return self._agent.simulation

    def log(self, level: str, message: str) -> None:
        self._agent.out.log(level, message)

    def report(self, text: str) -> None:
        self._agent.out.report(text)

    def define_class(self, name: str, *, scope: str = "namespace", namespace: str = "default",
                     bundle: str | None = None, tags: tuple[str, ...] = (),
                     persist_minutes: int = 0) -> None:
        name = canonify(name)
        if persist_minutes > 0:
            ctx = self._agent.ctx
            if not ctx.has_class_key(ctx.class_key(name, namespace)):    # (kept as loaded)
                ctx.define_class(name, tuple(tags), "namespace", namespace)
            self._agent.persistent.remember(name, persist_minutes, tuple(tags), namespace)
            return
        self._agent.ctx.define_class(name, scope=scope, namespace=namespace, tags=tags)

    def undefine_class(self, name: str, *, namespace: str = "default") -> None:
        self._agent.ctx.undefine_class(canonify(name), namespace)

    def set_variable(self, namespace: str, bundle: str, name: str, type_: str, value: Any,
                     tags: tuple[str, ...] = ()) -> None:
        self._agent.ctx.set_var(namespace, bundle, name, type_, value, tags)

    def unset_variable(self, namespace: str, bundle: str, name: str) -> None:
        self._agent.ctx.vars.remove(namespace, bundle, name)

    def record_result(self, run: Any, outcome: Any) -> None:
        """Apply the promise's classes body for an intermediate result (see the Protocol)."""
        step = self._agent.current_step
        body = run.body("classes")
        if step is not None and body:
            self._agent.outcome_classes(body, outcome, step)
        if step is not None and step.own_classes:       # (a whole cfPS: its log too)
            self._agent.action_log(step, outcome)

    def action_log(self, run: Any, outcome: Any) -> None:
        """The promise's action body log for ``outcome``, now (see the Protocol)."""
        step = self._agent.current_step
        if step is not None:
            self._agent.action_log(step, outcome)
            step.logged = True

    def own_classes(self, run: Any) -> None:
        """The handler records its outcome classes itself (see the Protocol)."""
        step = self._agent.current_step
        if step is not None:
            step.own_classes = True

    def run_edit_bundle(self, call: Any, buffer: Any, *, namespace: str = "default",
                        bundle_type: str = "edit_line", filename: str = "") -> Any:
        """Run the edit_line (or edit_xml) bundle ``call`` against ``buffer``.

        The bundle runs in its normal order with up to three passes; its promise
        handlers reach the buffer through :meth:`edit_buffer`.  ``$(edit.filename)``
        names the file.  Returns the merged Outcome of the bundle's promises, or
        None when the bundle does not exist or its arity is wrong (logged).
        """
        from cfpromise.agent.outcome import Outcome, merge
        agent = self._agent
        bundle = agent.find_bundle(call.name, namespace, (bundle_type,))
        if bundle is None:
            self.log("error", f"Undefined bundle {call.name} with type {bundle_type}")
            return None
        if len(call.args) > len(bundle.args):
            self.log("error", f"Bundle {call.name} expects {len(bundle.args)} argument(s), "
                              f"{len(call.args)} given")
            return None
        # fewer arguments than parameters: the missing ones stay undefined (cf-agent)
        with edit_scope(agent.ctx, filename, bundle_type, buffer):
            sub = agent.run_bundle(bundle, list(call.args), inherit=agent.ctx.frame,
                                   edit=buffer)
        outcome = merge(sub.outcomes)
        return Outcome.KEPT if outcome is Outcome.SKIPPED else outcome

    def policy_bundle(self, name: str, namespace: str,
                      types: tuple[str, ...] = ("agent",)) -> Any:
        """The bundle ``name`` of the loaded policy (PolicyGetBundle: nothing autoloaded)."""
        from cfpromise.syntax.names import find_block
        return find_block(self._agent.bundles, name, namespace, types)

    def run_bundle(self, run: Any, call: Any, *, inherit: bool = False) -> Any:
        """Call an agent/common bundle for ``run`` as a methods promise does (see the
        Protocol); the promise's own lock was taken by the engine."""
        from cfpromise.agent.outcome import Outcome
        agent = self._agent
        bundle = agent.find_or_fail(call.name, run.namespace, run.where())
        if bundle is None:
            return Outcome.SKIPPED
        warn_only = run.body("action").get("action_policy") in ("warn", "nop")
        outcome, _ = agent.call_bundle(bundle, list(call.args),
                                       inherit=agent.ctx.frame if inherit else None,
                                       warn_only=warn_only, where=run.where(),
                                       written=call.name)
        return outcome

    def edit_buffer(self) -> Any:
        """The buffer of the innermost edit bundle being run (None outside one)."""
        for frame in reversed(self._agent.ctx.frames):
            if frame.edit is not None:
                return frame.edit
        return None

    def note_change(self, run: Any, **info: Any) -> None:
        """Record what a repair changed (for run reports): e.g. ``kind="content",
        diff=...``, ``kind="perms", old_mode=..., new_mode=...``, ``kind="command",
        exit_code=...``."""
        self._agent.changes.append(dict(info))

    def eval_class_expr(self, expr: str) -> bool:
        return self._agent.ctx.eval_class_expr(expr)

    def state_path(self, *parts: str) -> str:
        path = os.path.join(self.workdir, "state", *parts)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return path

    # -- hooks for promise types that need more of the run (packages) ----------------
    @property
    def run_cache(self) -> dict[Any, Any]:
        """The run's cache the built-in functions share (FunctionContext.cache)."""
        return self._agent.ctx.cache

    def run_state(self, name: str) -> dict[Any, Any]:
        """Per-run state a promise type keeps between its promises (cf-agent's globals:
        the files already rotated, the package modules' inventories...): a dict per name."""
        return self._agent.handler_state.setdefault(name, {})

    @property
    def repairs(self) -> int:
        """How many promises this run has repaired so far (state may have changed)."""
        from cfpromise.agent.outcome import Outcome
        return self._agent.counts.get(Outcome.REPAIRED, 0)

    def common_control(self, name: str) -> Any:
        """A ``body common control`` attribute, expanded (None when unset)."""
        return self._agent.control.get(name)

    def resolve_body(self, body_type: str, name: str, namespace: str = "default") -> Any:
        """The attributes of body ``name`` of ``body_type`` (no arguments), or None
        when no such body is defined."""
        from cfpromise.agent.bodies import BodyError
        if self._agent.resolver.find(name, body_type, namespace) is None:
            return None
        step = self._agent.current_step
        try:
            return self._agent.resolver.resolve(body_type, name, [], namespace,
                                                step.bindings if step is not None else {})
        except BodyError as exc:
            self.log("error", str(exc))
            return None

    def body_name(self, run: Any, lval: str) -> str | None:
        """The name of the body the promise's ``lval`` refers to (expanded), or None."""
        from cfpromise.agent.bodies import reference
        constraint = run.promise.get(lval)
        step = self._agent.current_step
        if constraint is None or step is None:
            return None
        ref = reference(constraint.rval, step.ev)
        return ref[0] if ref is not None else None

    # -- deferred work (legacy packages: operations batched to the end of the section) ----
    def at_section_end(self, key: str, factory: Any) -> Any:
        """The callback registered under ``key`` for the end of the promise-type section
        now being evaluated, created by ``factory()`` on first use; the engine calls it
        once when the section ends in this pass.  None outside a bundle's section."""
        step = self._agent.current_step
        if step is None:
            return None
        hooks = step.run.section_end
        if key not in hooks:
            hooks[key] = factory()
        return hooks[key]

    def defer(self, run: Any) -> Any:
        """A function ``finish(outcome, changes)`` that records a result for ``run``'s
        promise later (from a section-end callback); None outside a bundle's section.
        The handler returns Outcome.SKIPPED for a promise whose whole result it defers."""
        step = self._agent.current_step
        if step is None:
            return None
        agent = self._agent

        def finish(outcome: Any, changes: Any = ()) -> None:
            agent.record_later(step, outcome, list(changes))
        return finish


class edit_scope:
    """The ``edit.*`` variables cf-agent 3.21 defines while an edit bundle runs
    (ScheduleEditLineOperations / ScheduleEditXmlOperations), as a ``with`` block:
    ``edit.filename``, and for edit_line ``edit.empty_before_use`` ("true" when the file
    is emptied first: the ``edit_defaults`` asks it, or the promise has a template).
    They live in the edit bundle's frame in cf-agent, so they are undefined again once
    the bundle returns.  (A plain class: contextlib is kept off the start path.)"""

    __slots__ = ("ctx", "values", "saved")

    def __init__(self, ctx: Any, filename: str, bundle_type: str, buffer: Any) -> None:
        self.ctx = ctx
        self.values = {"filename": filename}
        if bundle_type == "edit_line":
            self.values["empty_before_use"] = \
                "true" if getattr(buffer, "empty_before_use", False) else "false"
        self.saved: dict[str, Any] = {}

    def __enter__(self) -> None:
        ctx = self.ctx
        self.saved = {name: ctx.vars.get("default", "edit", name) for name in self.values}
        for name, value in self.values.items():
            ctx.set_var("default", "edit", name, "string", value)

    def __exit__(self, *exc: Any) -> None:
        ctx = self.ctx
        for name, previous in self.saved.items():
            if previous is None:
                ctx.vars.remove("default", "edit", name)
            else:
                ctx.vars.set("default", "edit", name, previous)
