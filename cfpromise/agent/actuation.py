"""Actuation: a promise's attributes and bodies evaluated, then its handler called.

A promise type the engine does not evaluate itself is carried out by its handler
(:mod:`cfpromise.promises.api`): here every constraint is evaluated and checked,
body attributes are resolved (inheritance, arguments, default bodies), the
``PromiseRun`` is built, an identical promise already actuated in this run is
left out, the promise's lock is taken (:mod:`cfpromise.agent.recording`) and the
handler called.  Promise types that are not built in go to their promise module
(:mod:`cfpromise.promises.custom`).

:class:`Actuation` is one of the parts :class:`cfpromise.agent.engine.Agent` is
made of.
"""
from __future__ import annotations

from cfpromise.agent.abort import FatalError
from cfpromise.agent.bodies import BodyError, InheritanceError, body_reference, reference
from cfpromise.agent.outcome import Outcome
from cfpromise.agent.recording import canonical
from cfpromise.eval.rvals import UNRESOLVED, as_text
from cfpromise.promises.api import THIS_ATTRIBUTES, BundleCall, PromiseRun, handler_for
from cfpromise.schema.values import ValueError_, runtime_check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cfpromise.promises.evaluators import Step
    from cfpromise.syntax import ast


class Actuation:
    """Actuating promises through their handlers (a part of the Agent; see the module
    docstring)."""

    def attributes(self, step: Step) -> dict[str, Any] | None:
        """Every constraint evaluated; bodies resolved.  None: unresolved, wait."""
        table = self.schema.promise_types.get(step.ptype)
        custom = table is None
        if table is None:
            from cfpromise.promises.custom.handler import common_attributes
            table = common_attributes(self.schema)
        out: dict[str, Any] = {}
        ev = step.ev
        for c in step.promise.constraints:
            if c.lval in ("if", "ifvarclass", "unless", "depends_on"):
                continue
            attr = table.get(c.lval)
            kind = attr.type if attr is not None else ""
            if custom and attr is None and (value := self.custom_body(c, step)) is not None:
                pass                       # a body of a custom promise: sent as an object
            elif kind == "body":
                value = self.body(c.lval, c.rval, step)
                if value is None:
                    return None
            elif kind == "bundle":
                ref = reference(c.rval, ev)
                if ref is None:
                    continue
                value = BundleCall(ref[0], tuple(ref[1]))
            else:
                value = ev.value(c.rval, want_list=attr.is_list if attr is not None else custom)
                if value is UNRESOLVED:
                    value = None
                elif attr is not None and not ev.unresolved:
                    try:
                        runtime_check(c.lval, value, kind, attr.range)
                    except ValueError_ as exc:
                        raise FatalError(f"{c.coord.file}:{c.coord.line}: {exc}") from None
            out[c.lval] = value
        for lval, attr in table.items():
            if attr.type == "body" and lval not in out and step.promise.get(lval) is None:
                default = self.default_body(step, lval)
                if default is not None:
                    out[lval] = default
        if ev.unresolved and step.run.frame.edit is None and not step.last:
            return None     # (an edit promise acts at once, as written, as in cf-agent)
        return out

    def custom_body(self, c: ast.Constraint, step: Step) -> dict[str, Any] | None:
        """A custom promise's attribute that names a body of its type, as the object
        cf-agent sends the module; None when it names none."""
        from cfpromise.promises.custom.bodies import body_container
        try:
            return body_container(self.resolver, c.lval, c.rval, step.ev,
                                  step.run.bundle.namespace, step.bindings)
        except InheritanceError as exc:
            raise FatalError(str(exc)) from None
        except BodyError as exc:
            self.out.log("error", f"{exc} (in {step.where()})")
            return None

    def default_body(self, step: Step, lval: str) -> dict[str, Any] | None:
        """The body ``bodydefault:<promise type>_<attribute>`` stands in for a body
        attribute the promise does not set (cf-agent's default bodies)."""
        name = f"{step.ptype}_{lval}"
        if ("bodydefault", name, lval) not in self.bodies:
            return None
        self.out.log("verbose", f"Using the default body: {name}")
        try:
            return self.resolver.resolve(lval, f"bodydefault:{name}", [], "bodydefault",
                                         step.bindings)
        except BodyError as exc:
            self.out.log("error", f"{exc} (in {step.where()})")
            return None

    def body(self, body_type: str, rval: ast.Rval, step: Step) -> dict[str, Any] | None:
        ref = body_reference(rval, step.ev)
        if ref is None:
            return {}
        try:
            return self.resolver.resolve(body_type, ref[0], ref[1], step.run.bundle.namespace,
                                         step.bindings)
        except InheritanceError as exc:
            raise FatalError(str(exc)) from None
        except BodyError as exc:
            self.out.log("error", f"{exc} (in {step.where()})")
            return {}

    def actuate(self, step: Step) -> Outcome | None:
        ptype = step.ptype
        handler = handler_for(ptype, self.custom_handler)
        if handler is None:
            return self.unsupported(step)
        for name, default in THIS_ATTRIBUTES.get(ptype, {}).items():
            c = step.promise.get(name)
            value = step.ev.value(c.rval) if c is not None else default
            if value is not UNRESOLVED:
                step.run.frame.this[name] = as_text(value)
        attributes = self.attributes(step)
        if attributes is None:
            return None
        step.attributes = attributes
        if self.seen_before(step, attributes):
            return Outcome.SKIPPED
        promisee = step.promise.promisee
        if promisee is not None:
            promisee = step.ev.value(promisee, want_list=True)
        run = PromiseRun(step.promise, ptype, step.promiser, attributes,
                         step.run.bundle.namespace, step.run.bundle.name, self.services,
                         None if promisee is UNRESOLVED else promisee)
        key = self.lock(step, attributes)
        if key is False:
            return Outcome.SKIPPED
        previous, self.current_step = self.current_step, step
        outcome: Outcome | None = None
        try:
            outcome = handler(run)
            return outcome
        finally:
            self.current_step = previous
            if outcome is None:
                self.actuated.discard(self.last_identity)   # "try again next pass"
            self.unlock(key)

    def custom_handler(self, ptype: str) -> Any:
        """Promise types that are not built in are custom ones, carried out by the
        promise module their ``promise`` block names (or undefined: an error)."""
        if ptype in self.schema.promise_types:
            return None                      # built in, not supported yet
        if self.custom is None:
            from functools import partial
            from cfpromise.promises.custom.handler import evaluate
            from cfpromise.promises.custom.registry import CustomTypes
            self.custom = partial(evaluate, CustomTypes(self))
        return self.custom

    def seen_before(self, step: Step, attributes: dict[str, Any]) -> bool:
        """True when an identical promise (type, bundle, expanded promiser and attributes)
        was already actuated in this run: cf-agent actuates it once, even with -K."""
        bundle = step.run.bundle
        edit = step.run.frame.edit
        where = getattr(edit, "filename", None) or getattr(edit, "path", "") if edit is not None else ""
        identity = "\0".join((step.ptype, bundle.namespace, bundle.name, step.promiser,
                               canonical(attributes), str(where)))
        if identity in self.actuated:
            if self.trace is not None:
                self.trace.drop()
            self.out.log("verbose", f"Skipping {step.where()}: an identical promise was "
                                    "already actuated in this run")
            return True
        self.actuated.add(identity)
        self.last_identity = identity
        return False

    def unsupported(self, step: Step) -> Outcome:
        self.attributes(step)          # values are still checked, as cf-agent checks them
        if step.ptype not in self.unsupported_seen:
            self.unsupported_seen.add(step.ptype)
            self.out.log("warning", f"cf-lite does not support '{step.ptype}' promises yet: "
                                    f"they are not actuated (first: {step.where()})")
        else:
            self.out.log("verbose", f"Not actuated (not supported yet): {step.where()}")
        return Outcome.SKIPPED
