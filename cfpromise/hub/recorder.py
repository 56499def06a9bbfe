"""The agent's side of the hub: at the end of a run, the run goes into the spool.

:class:`SpoolWriter` is an :class:`~cfpromise.agent.observer.Observer` placed after the
run recorder (:class:`~cfpromise.agent.runreport.RunRecorder`, whose per-promise records
it reads); the agent adds it when :func:`cfpromise.hub.spool.enabled` says the host
keeps reports for a hub.  Dry runs are not recorded (they changed nothing and their
outcomes are what *would* happen).  A spool that cannot be written costs one error
line, never the run.
"""
from __future__ import annotations

import json
import os
from typing import Any

from cfpromise.agent.observer import Observer
from cfpromise.hub import spool


def release_id(workdir: str) -> str | None:
    """The policy release id cf-promises / cf-lite-promises left in inputs."""
    try:
        with open(os.path.join(workdir, "inputs", "cf_promises_release_id"),
                  encoding="utf-8") as fh:
            value = json.loads(fh.read().rstrip().rstrip(",") or "{}")
    except (OSError, ValueError):
        return None
    rid = value.get("releaseId") if isinstance(value, dict) else None
    return str(rid) if rid else None


class SpoolWriter(Observer):
    def __init__(self, recorder: Any, workdir: str) -> None:
        self.recorder = recorder
        self.workdir = workdir

    def run_finished(self, agent: Any, exit_code: int) -> int:
        if getattr(agent.options, "dry_run", False):
            return exit_code
        rec = self.recorder
        try:
            spool.record_run(
                self.workdir, started=rec.started_at, seconds=rec.clock() - rec.started,
                exit_code=exit_code, release_id=release_id(self.workdir),
                promises=spool.promise_states(rec.records),
                inventory=spool.inventory_of(agent.ctx),
                monitoring=spool.monitoring_of(agent.ctx))
        except OSError as exc:
            agent.out.log("error", f"Could not record the run for the hub in "
                                   f"'{spool.spool_dir(self.workdir)}': {exc}")
        return exit_code
