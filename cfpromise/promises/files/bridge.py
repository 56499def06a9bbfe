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
    value = getattr(agent, "agent_control", None)
    if isinstance(value, dict):
        return value
    engine = _engine(agent)
    control = getattr(engine, "agent_control", None)
    return control if isinstance(control, dict) else {}


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
