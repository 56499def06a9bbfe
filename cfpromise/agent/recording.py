"""Outcomes, locks and recording: what follows a promise's result.

A result is recorded once per promise iteration: the bundle call's outcomes,
the run's counts, the ``handle`` outcomes ``depends_on`` reads, the ``classes``
body's outcome classes (persistent ones too), the ``action`` body's log files,
the observers (run reports, the -v trace, --only) and the abort classes.  A
handler may reach a result after it returned (a section-end callback), and the
engine records it then (:meth:`Recording.record_later`).  Promise locks
(``ifelapsed``/``expireafter``, :mod:`cfpromise.agent.locks`) are named by the
promise and a digest of its attributes.

:class:`Recording` is one of the parts :class:`cfpromise.agent.engine.Agent` is
made of.
"""
from __future__ import annotations

import time

from cfpromise.agent.outcome import Outcome, merge

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cfpromise.agent.engine import BundleRun
    from cfpromise.promises.evaluators import Step


class Recording:
    """Recording results and taking locks (a part of the Agent; see the module
    docstring)."""

    def record(self, run: BundleRun, step: Step, outcome: Outcome,
               changes: list[dict[str, Any]] | None = None) -> None:
        run.outcomes.append(outcome)
        if step.ptype not in ("vars", "classes", "meta", "defaults"):
            self.counts[outcome] = self.counts.get(outcome, 0) + 1
        if step.handle:
            previous = self.handles.get(step.handle)
            merged = outcome if previous is None else merge([previous, outcome])
            if merged is not previous:
                self.world_changes += 1     # depends_on reads it (settle)
            self.handles[step.handle] = merged
        body = step.attributes.get("classes") if step.attributes is not None else None
        if body is None and step.promise.get("classes") is not None \
                and step.ptype != "classes":    # cf-agent sets none for classes promises
            body = self.body("classes", step.promise.get("classes").rval, step)
        if body and step.ptype != "classes" and not getattr(step, "own_classes", False):
            self.outcome_classes(body, outcome, step)
        if not (step.logged or step.own_classes):   # (a handler's cfPS wrote it)
            self.action_log(step, outcome)
        for observer in self.observers:
            observer.promise_done(self, step, outcome, step.seconds,
                                  self.changes if changes is None else changes)
        self.check_abort()

    def action_log(self, step: Step, outcome: Outcome) -> None:
        """The action body's log of ``outcome`` (:mod:`cfpromise.agent.actionlog`)."""
        action = step.attributes.get("action") if step.attributes is not None else None
        if isinstance(action, dict) and isinstance(action.get("log_string"), str):
            # (only then may the action body log: the module loads for such promises)
            from cfpromise.agent.actionlog import NO_LOG_TYPES, write_action_log
            if step.ptype not in NO_LOG_TYPES:
                write_action_log(action, outcome, self.out.log, step.ev.text, self.syslog)

    def failed_before_abort(self, step: Step) -> None:
        """The action log of a promise that fails just before a fatal error ends the run."""
        if step.attributes is None:
            step.attributes = self.attributes(step)
        if step.attributes is not None:
            self.action_log(step, Outcome.FAILED)

    def syslog(self, log_priority: Any, text: str) -> None:
        """An action body's ``udp_syslog`` log (:mod:`cfpromise.agent.syslogclient`)."""
        from cfpromise.agent.syslogclient import remote_syslog
        remote_syslog(self, log_priority, text)

    def outcome_classes(self, body: dict[str, Any], outcome: Outcome, step: Step) -> None:
        scope = body.get("scope", "namespace")
        names: list[str] = []
        cancel: list[str] = []
        if outcome is Outcome.KEPT:
            names, cancel = _list(body.get("promise_kept")), _list(body.get("cancel_kept"))
        elif outcome is Outcome.REPAIRED:
            names, cancel = _list(body.get("promise_repaired")), _list(body.get("cancel_repaired"))
        else:
            key = {Outcome.DENIED: "repair_denied", Outcome.TIMEOUT: "repair_timeout"}.get(
                outcome, "repair_failed")
            names = _list(body.get(key))
            if outcome in (Outcome.DENIED, Outcome.TIMEOUT):
                names += _list(body.get("repair_failed"))
            cancel = _list(body.get("cancel_notkept"))
        ns = step.run.bundle.namespace
        persist = _minutes(body.get("persist_time"))
        for name in names:
            name = _canon(name)
            if persist > 0:
                if body.get("scope") != "namespace":
                    self.out.log("info", f"Automatically promoting context scope for '{name}' "
                                         "to namespace visibility, due to persistence")
                self.out.log("verbose", f"C:    + persistent outcome class '{name}'")
                if not self.ctx.has_class_key(self.ctx.class_key(name, ns)):     # (kept as loaded)
                    self.ctx.define_class(name, (), "namespace", ns)
                self.out.log("verbose", f"Updating persistent class '{name}'")
                self.persistent.remember(name, persist, (), ns)
                continue
            if self.trace is not None:
                self.trace.outcome_class(name)
            self.ctx.define_class(name, scope="bundle" if scope == "bundle" else "namespace",
                                  namespace=ns)
        for name in cancel:
            self.ctx.undefine_class(_canon(name), ns)
            self.persistent.forget(_canon(name))
        for observer in self.observers:
            observer.outcome_classes(self, step, outcome, [_canon(n) for n in names])

    def check_abort(self) -> None:
        """abortclasses / abortbundleclasses (cfpromise.agent.abort): after every promise."""
        self.abort_watch.check(self)

    def record_later(self, step: Step, outcome: Outcome,
                     changes: list[dict[str, Any]] | None = None) -> None:
        """Record a result a handler reached for ``step``'s promise after it returned (from
        a section-end callback): outcome classes, counts, handles, run reports -- as if the
        handler had returned it."""
        previous, self.current_step = self.current_step, step
        try:
            self.record(step.run, step, outcome, list(changes or ()))
        finally:
            self.current_step = previous

    def lock(self, step: Step, attributes: dict[str, Any]) -> str | bool:
        """Take the promise's lock (ifelapsed/expireafter); False when it must be skipped,
        else a value for :meth:`unlock`.  -K and -n bypass locks, as in cf-agent.
        Handlers get it from :meth:`actuate`; the methods and reports evaluators take it
        themselves (cf-agent locks those too, not vars, classes, meta or defaults)."""
        if self.options.ignore_locks:
            return True
        from cfpromise.agent.locks import LockDB, LockDecision, lock_key
        if self.locks is None:
            self.locks = LockDB.open(self.options.workdir, log=self.out.log)
        action = attributes.get("action")
        if not isinstance(action, dict):
            action = {}
        ifelapsed = _minutes(action.get("ifelapsed"), self.agent_control.get("ifelapsed"), 1)
        expireafter = _minutes(action.get("expireafter"), self.agent_control.get("expireafter"),
                               120)
        digest = _digest(attributes)
        key = lock_key(step.ptype, step.promiser, step.run.bundle.name, step.handle, digest)
        grant = self.locks.try_acquire(key, ifelapsed, expireafter, time.time())
        message = grant.message()
        if self.trace is not None and grant.decision is not LockDecision.ACQUIRED:
            self.trace.drop()
        if message is not None:
            self.out.log(*message)
        return key if grant.decision is LockDecision.ACQUIRED else False

    def unlock(self, key: str | bool) -> None:
        """Release a lock :meth:`lock` granted: the promise completed now."""
        if isinstance(key, str):
            self.locks.release(key, time.time())


def _minutes(*candidates: Any) -> int:
    for value in candidates:
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            return int(value)
        if isinstance(value, int):
            return value
    return 0


def canonical(attributes: dict[str, Any]) -> str:
    """The attributes as one stable text (the identity of a promise, lock digests)."""
    from cfpromise.fast.jsondumps import dumps
    return dumps(attributes, sort_keys=True, default=str)


def _digest(attributes: dict[str, Any]) -> str:
    """A short stable digest (lock names persist across runs)."""
    import hashlib
    return hashlib.md5(canonical(attributes).encode()).hexdigest()[:16]


def _list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return [value] if isinstance(value, str) else []


def _canon(name: str) -> str:
    from cfpromise.eval.canon import canonify
    return canonify(name)
