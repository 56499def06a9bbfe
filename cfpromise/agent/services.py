"""The AgentServices a promise handler sees (see cfpromise.promises.api)."""
from __future__ import annotations

import os
from typing import Any

from cfpromise.eval.canon import canonify


class Services:
    def __init__(self, agent: Any) -> None:
        self._agent = agent
        self.dry_run: bool = agent.options.dry_run
        self.workdir: str = agent.options.workdir
        self.inform: bool = agent.out.enabled("info")

    def log(self, level: str, message: str) -> None:
        self._agent.out.log(level, message)

    def report(self, text: str) -> None:
        self._agent.out.report(text)

    def define_class(self, name: str, *, scope: str = "namespace", namespace: str = "default",
                     bundle: str | None = None, tags: tuple[str, ...] = (),
                     persist_minutes: int = 0) -> None:
        name = canonify(name)
        if persist_minutes > 0:
            self._agent.ctx.define_class(name, tuple(tags) + ("source=persistent",), "namespace",
                                         namespace)
            self._agent.persistent.remember(name, persist_minutes, tuple(tags), namespace)
            return
        self._agent.ctx.define_class(name, scope=scope, namespace=namespace, tags=tags)

    def undefine_class(self, name: str, *, namespace: str = "default") -> None:
        self._agent.ctx.undefine_class(canonify(name), namespace)

    def set_variable(self, namespace: str, bundle: str, name: str, type_: str, value: Any,
                     tags: tuple[str, ...] = ()) -> None:
        self._agent.ctx.set_var(namespace, bundle, name, type_, value, tags)

    def record_result(self, run: Any, outcome: Any) -> None:
        """Apply the promise's classes body for an intermediate result (see the Protocol)."""
        step = self._agent.current_step
        body = run.body("classes")
        if step is not None and body:
            self._agent.outcome_classes(body, outcome, step)

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
        agent.ctx.set_var("default", "edit", "filename", "string", filename)
        caller = agent.ctx.frame
        sub = agent.run_bundle(bundle, list(call.args), inherit=caller, edit=buffer)
        outcome = merge(sub.outcomes)
        return Outcome.KEPT if outcome is Outcome.SKIPPED else outcome

    def run_bundle(self, run: Any, call: Any, *, inherit: bool = False) -> Any:
        """Call an agent/common bundle for ``run`` as a methods promise does (see the
        Protocol); the promise's own lock was taken by the engine."""
        from cfpromise.agent.outcome import Outcome
        from cfpromise.promises.methods import call_bundle, find_or_fail
        agent = self._agent
        bundle = find_or_fail(agent, call.name, run.namespace, run.where())
        if bundle is None:
            return Outcome.SKIPPED
        warn_only = run.body("action").get("action_policy") in ("warn", "nop")
        outcome, _ = call_bundle(agent, bundle, list(call.args),
                                 inherit=agent.ctx.frame if inherit else None,
                                 warn_only=warn_only, where=run.where())
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
