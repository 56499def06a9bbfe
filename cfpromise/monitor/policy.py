"""The monitor's view of the policy: ``body monitor control`` and the ``monitor`` bundles.

cf-monitord reads the policy as cf-agent does (the agent's loading: common bundles first so
that inputs resolve) and, at every sample, evaluates the promises of every ``monitor``
bundle (vars, classes, measurements; reports are a no-op there), the classes of the moment
deciding which apply.  Measurements are actuated by their handler
(``cfpromise.monitor.measurements``), which records into the sink of the sample being taken.
"""
from __future__ import annotations

import io
import os
import attrs
from typing import Any, Callable, Sequence

from cfpromise.agent.output import Output


# What cf-monitord keeps of a monitor bundle: its reports are not made (a no-op there)
MONITOR_TYPES = ("meta", "vars", "defaults", "classes", "measurements")


@attrs.define
class MonitorControl:
    forgetrate: float | None = None
    facility: str | None = None
    tcpdump: bool = False
    files: list[str] = attrs.field(factory=list)


class EngineOutput(Output):
    """The engine's output, sent to the daemon's log."""

    def __init__(self, level: str, log: Callable[[str, str], None]) -> None:
        super().__init__(level, False, io.StringIO())
        self.sink = log

    def log(self, level: str, message: str) -> None:
        self.counts[level] = self.counts.get(level, 0) + 1
        if self.enabled(level):
            self.shown += 1         # (cfpromise.agent.settle)
            self.sink(level, message)

    def report(self, text: str) -> None:
        self.sink("notice", f"R: {text}")


def _agent(path: str, workdir: str, out: Output, define: list[str], **options: Any) -> Any:
    from cfpromise.agent.engine import Agent, AgentOptions
    from cfpromise.agent.loading import install_facts, load, prepare_workdir
    from cfpromise.fast import PLAIN
    from cfpromise.fast.policycache import PolicyCache
    prepare_workdir(workdir)
    agent = Agent(AgentOptions(file=path, workdir=workdir, define=list(define),
                               ignore_locks=True, level="notice", **options), out)
    agent.parsing_as = "monitor"     # its parser keeps its own bundles (policyfile)
    if not PLAIN:               # CF_LITE_PLAIN: no policy cache
        agent.policy_cache = PolicyCache(os.path.join(workdir, "state", "policy_cache"))
    install_facts(agent)
    if os.path.exists(path):
        load(agent)
    return agent


def load_control(path: str, workdir: str, out: Output, define: Sequence[str] = (),
                 **options: Any) -> MonitorControl:
    """Load and check the policy (raises the agent's LoadError/PolicyError when invalid);
    ``body monitor control`` and the files read.  ``options``: more of the command
    line's (AgentOptions: negate, ignore_preferred_augments)."""
    from cfpromise.eval.context import Frame
    agent = _agent(path, workdir, out, list(define), **options)
    control = MonitorControl()
    if agent.bodies.get(("default", "control", "monitor")) is not None:
        agent.ctx.push(Frame("default", "control"))
        try:
            values = agent.resolver.resolve("monitor", "control", [], "default", {})
        finally:
            agent.ctx.pop()
        try:
            if values.get("forgetrate") not in (None, ""):
                control.forgetrate = float(values["forgetrate"])
        except (TypeError, ValueError):
            out.log("error", f"body monitor control: forgetrate '{values.get('forgetrate')}' "
                             "is not a number")
        if isinstance(values.get("monitorfacility"), str):
            control.facility = values["monitorfacility"]
        control.tcpdump = str(values.get("tcpdump", "")).lower() in ("true", "yes", "on")
    files = {os.path.abspath(path)}
    for item in list(agent.policy.bundles) + list(agent.policy.bodies):
        name = getattr(getattr(item, "coord", None), "file", "")
        if name:
            files.add(os.path.abspath(name))
    control.files = sorted(files)
    return control


def run_monitor_bundles(path: str, workdir: str, out: Output, define: Sequence[str] = ()) -> int:
    """Evaluate every monitor bundle (without parameters) once; the number evaluated."""
    agent = _agent(path, workdir, out, list(define))
    count = 0
    for bundle in list(agent.policy.bundles):
        if bundle.type == "monitor" and not bundle.args:
            agent.run_bundle(bundle, [], types=MONITOR_TYPES)
            count += 1
    return count
