"""A recording AgentServices and PromiseRun builders for promise-type tests."""
from __future__ import annotations

from typing import Any

import attrs

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.api import PromiseRun
from cfpromise.syntax import ast
from cfpromise.syntax.errors import Coord

PREFIX = {level: f"{level:>8}: " for level in
          ("debug", "verbose", "info", "notice", "warning", "error")}


@attrs.define
class FakeAgent:
    """Records what a handler asks of the agent."""

    dry_run: bool = False
    workdir: str = "/nonexistent"
    start_dir: str = "/"
    inform: bool = True
    logs: list[tuple[str, str]] = attrs.field(factory=list)
    reports: list[str] = attrs.field(factory=list)
    classes: dict[str, dict[str, Any]] = attrs.field(factory=dict)
    undefined: list[tuple[str, str]] = attrs.field(factory=list)
    variables: dict[str, tuple[str, Any, tuple[str, ...]]] = attrs.field(factory=dict)
    results: list[Outcome] = attrs.field(factory=list)
    logged: list[Outcome] = attrs.field(factory=list)    # action logs written (action_log)
    changes: list[dict[str, Any]] = attrs.field(factory=list)
    owns_classes: bool = False        # the handler called own_classes()

    def log(self, level: str, message: str) -> None:
        self.logs.append((level, message))

    def report(self, text: str) -> None:
        self.reports.append(text)

    def define_class(self, name: str, *, scope: str = "namespace", namespace: str = "default",
                     bundle: str | None = None, tags: tuple[str, ...] = (),
                     persist_minutes: int = 0) -> None:
        self.classes[f"{namespace}:{name}"] = {"scope": scope, "tags": tags,
                                               "persist_minutes": persist_minutes}

    def undefine_class(self, name: str, *, namespace: str = "default") -> None:
        self.undefined.append((namespace, name))
        self.classes.pop(f"{namespace}:{name}", None)

    def set_variable(self, namespace: str, bundle: str, name: str, type_: str, value: Any,
                     tags: tuple[str, ...] = ()) -> None:
        self.variables[f"{namespace}:{bundle}.{name}"] = (type_, value, tags)

    def eval_class_expr(self, expr: str) -> bool:
        return expr == "any"

    def state_path(self, *parts: str) -> str:
        return "/".join((self.workdir, "state", *parts))

    def note_change(self, run: PromiseRun, **info: object) -> None:
        self.changes.append(dict(info))

    def record_result(self, run: PromiseRun, outcome: Outcome) -> None:
        self.results.append(outcome)

    def own_classes(self, run: PromiseRun) -> None:
        self.owns_classes = True

    def action_log(self, run: PromiseRun, outcome: Outcome) -> None:
        self.logged.append(outcome)

    # -- for assertions

    def output(self, threshold: str = "info") -> list[str]:
        """The lines cf-agent would print at ``threshold`` and above (multi-line messages
        continue without a prefix)."""
        order = list(PREFIX)
        lines: list[str] = []
        for level, message in self.logs:
            if order.index(level) >= order.index(threshold):
                first, *rest = message.split("\n")
                lines.append(PREFIX[level] + first)
                lines.extend(rest)
        return lines

    def messages(self, level: str) -> list[str]:
        return [m for lv, m in self.logs if lv == level]

    def value(self, ref: str) -> Any:
        return self.variables[ref][1]


def make_run(promiser: str, agent: FakeAgent | None = None, *, promise_type: str = "commands",
             bundle: str = "main", namespace: str = "default", **attributes: Any) -> PromiseRun:
    """A PromiseRun for ``promiser`` with already-expanded ``attributes``."""
    promise = ast.Promise(promiser, coord=Coord("./test.cf", 7, 5))
    return PromiseRun(promise=promise, promise_type=promise_type, promiser=promiser,
                      attributes=dict(attributes), namespace=namespace, bundle=bundle,
                      agent=agent if agent is not None else FakeAgent())
