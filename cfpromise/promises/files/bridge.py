"""What the files and edit_line handlers need from the engine beyond AgentServices.

Every reach into the running engine that :class:`~cfpromise.promises.api.AgentServices`
does not offer yet goes through this module, so that it can be replaced by a
public service method in one place.  Each function names the AgentServices
method that should replace it:

* :func:`expand` -> ``AgentServices.expand(text, extra=None) -> str`` (variable
  expansion in the current frame, unresolved references left as written) -- for
  ``expand_scalars``, ``replace_value`` with ``$(match.N)``, CFEngine templates,
  ``transformer`` and promiser back references;
* :func:`expand_all` -> ``AgentServices.expand_iterations(text) -> list[str]``
  (every implicit list iteration of a text) -- CFEngine templates;
* :func:`datastate` -> ``AgentServices.datastate() -> dict`` -- mustache
  templates without ``template_data``;
* :func:`agent_control` -> ``AgentServices.agent_control: dict`` -- the
  ``select_end_match_eof``, ``files_single_copy``, ``default_repository``...
  settings of ``body agent control``;
* :func:`pass_number` -> ``AgentServices.pass_number: int`` -- edit promises that
  could not select their region are tried again in the next pass, as in cf-agent;
* :func:`run_state` -> ``AgentServices.run_state(name) -> dict`` -- state cf-agent
  keeps for one run (files_single_copy, files already rotated).

With a fake AgentServices (tests) every function degrades gracefully.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _engine(agent: Any) -> Any:
    return getattr(agent, "_agent", None)


def _ctx(agent: Any) -> Any:
    engine = _engine(agent)
    return getattr(engine, "ctx", None)


def expand(agent: Any, text: str, extra: dict[str, str] | None = None) -> str:
    """``text`` with the ``$(...)`` references that resolve replaced (others kept)."""
    if "$" not in text:
        return text
    fn = getattr(agent, "expand", None)
    if callable(fn):
        return fn(text, extra)
    ctx = _ctx(agent)
    if ctx is None:
        return text
    saved = ctx._bind_extra(extra) if extra else None
    try:
        return ctx.expander().expand(text)
    finally:
        if extra:
            ctx.frame.extra = saved


def expand_all(agent: Any, text: str) -> list[str]:
    """Every expansion of ``text`` over the lists it refers to (implicit iteration)."""
    if "$" not in text:
        return [text]
    fn = getattr(agent, "expand_iterations", None)
    if callable(fn):
        return list(fn(text))
    ctx = _ctx(agent)
    if ctx is None:
        return [text]
    from cfpromise.eval.expand import combinations
    out: list[str] = []
    texts: list[str] = []

    def probe(bindings: dict[str, str]) -> None:
        exp = ctx.expander(bindings, iterate=True)
        texts.append(exp.expand(text))

    for _bindings in combinations(probe):
        out.append(texts[-1])
    return out


def datastate(agent: Any) -> dict[str, Any]:
    fn = getattr(agent, "datastate", None)
    if callable(fn):
        return fn()
    ctx = _ctx(agent)
    if ctx is None:
        return {"classes": {}, "vars": {}}
    from cfpromise.eval.functions.classes import template_data
    return template_data(ctx, None)


def agent_control(agent: Any) -> dict[str, Any]:
    """``body agent control``; values that referred to variables not defined yet when the
    body was read (cf-agent reads some settings late) are expanded now."""
    value = getattr(agent, "agent_control", None)
    if not isinstance(value, dict):
        engine = _engine(agent)
        value = getattr(engine, "agent_control", None)
    if not isinstance(value, dict):
        return {}
    if not any(isinstance(v, str) and "$" in v for v in value.values()):
        return value
    return {k: expand(agent, v) if isinstance(v, str) and "$" in v else v
            for k, v in value.items()}


def pass_number(agent: Any) -> int:
    """The pass of the bundle being evaluated (1..3); 3 when unknown."""
    value = getattr(agent, "pass_number", None)
    if isinstance(value, int):
        return value
    engine = _engine(agent)
    step = getattr(engine, "current_step", None)
    bundle_run = getattr(step, "run", None)
    number = getattr(bundle_run, "pass_no", None)
    return number if isinstance(number, int) else 3


def last_pass(agent: Any) -> bool:
    from cfpromise.agent.order import PASSES
    return pass_number(agent) >= PASSES


def run_state(agent: Any, name: str) -> dict[Any, Any]:
    """Per-run state shared by the promises of one agent run (cf-agent's globals: the
    files_single_copy cache, the files already rotated).  Replace with
    ``AgentServices.run_state(name) -> dict``."""
    fn = getattr(agent, "run_state", None)
    if callable(fn):
        return fn(name)
    owner = _engine(agent) or agent
    store = getattr(owner, "_cf_lite_files_state", None)
    if store is None:
        store = {}
        try:
            setattr(owner, "_cf_lite_files_state", store)
        except AttributeError:
            store = _FALLBACK.setdefault(id(owner), {})
    return store.setdefault(name, {})


_FALLBACK: dict[int, dict[str, dict[Any, Any]]] = {}


def run_edit_bundle(agent: Any, call: Any, buffer: Any, namespace: str, filename: str,
                    bundle_type: str = "edit_line") -> Any:
    """AgentServices.run_edit_bundle, with two engine fixes done here until the engine has
    them: a call with no arguments to a bundle that has parameters runs with them
    undefined, as in cf-agent (the service refuses it), another number is fatal; and the files promise's
    current step is restored afterwards (the engine resets it to None when a nested
    promise finishes, so later ``record_result`` calls of the files promise would be
    lost)."""
    engine = _engine(agent)
    saved_step = getattr(engine, "current_step", None)
    try:
        find = getattr(engine, "find_bundle", None)
        if callable(find):
            bundle = find(call.name, namespace, (bundle_type,))
            if bundle is not None and call.args and len(call.args) != len(bundle.args) \
                    and callable(getattr(engine, "scope_mismatch", None)):
                # validation let it through (a namespaced or qualified call, as in
                # cf-promises): cf-agent's ScopeAugment stops the run here
                engine.scope_mismatch(bundle, list(call.args))
            if bundle is not None and len(call.args) < len(bundle.args):
                from cfpromise.agent.outcome import Outcome, merge
                from cfpromise.agent.services import edit_scope
                with edit_scope(engine.ctx, filename, bundle_type, buffer):
                    sub = engine.run_bundle(bundle, list(call.args), inherit=engine.ctx.frame,
                                            edit=buffer)
                outcome = merge(sub.outcomes)
                return Outcome.KEPT if outcome is Outcome.SKIPPED else outcome
        return agent.run_edit_bundle(call, buffer, namespace=namespace,
                                     bundle_type=bundle_type, filename=filename)
    finally:
        if engine is not None and saved_step is not None:
            engine.current_step = saved_step


def dry_run(agent: Any) -> bool:
    """-n, or ``dryrun => "true"`` in body agent control (which the engine does not read
    yet: the files and edit_line handlers honour it)."""
    if getattr(agent, "dry_run", False):
        return True
    value = agent_control(agent).get("dryrun")
    return isinstance(value, str) and value.strip().lower() in ("true", "yes", "on")


def resolve_body_for(agent: Any, run: Any, lval: str, promiser: str) -> dict[str, Any] | None:
    """The body attribute ``lval`` of ``run`` resolved again with ``$(this.promiser)`` =
    ``promiser`` (cf-agent's GetExpandedAttributes for each file a promise handles).  None
    when the engine cannot do it.  Replace with ``AgentServices.resolve_body(run, lval,
    this={"promiser": ...})``."""
    engine = _engine(agent)
    step = getattr(engine, "current_step", None)
    constraint = run.promise.get(lval)
    if engine is None or step is None or constraint is None:
        return None
    frame = engine.ctx.frame
    saved = frame.this.get("promiser")
    frame.this["promiser"] = promiser
    try:
        body = engine.body(lval, constraint.rval, step)
    except Exception:
        return None
    finally:
        if saved is None:
            frame.this.pop("promiser", None)
        else:
            frame.this["promiser"] = saved
    return body if isinstance(body, dict) else None


def level_enabled(agent: Any, level: str) -> bool:
    """Whether messages at ``level`` are shown (so that hot paths skip building the
    others).  Replace with ``AgentServices.verbose`` (like ``inform``)."""
    if level == "info":
        return bool(getattr(agent, "inform", True))
    engine = _engine(agent)
    out = getattr(engine, "out", None)
    enabled = getattr(out, "enabled", None)
    return bool(enabled(level)) if callable(enabled) else True
