"""cf-lite-monitord's daemon: a sample every 2.5 minutes, as cf-monitord 3.21.

One sample (:meth:`MonitorDaemon.tick`):

1. every probe of ``probes.PROBES`` (a probe that raises is logged once and the others run);
2. the ``monitor`` bundles of the policy, whose ``measurements`` record into a sink;
3. the weekly statistics of every slot (``stats``), kept in the store (``store``);
4. ``state/env_data`` written atomically (``env_data.new`` renamed over it), the file
   cf-agent and cf-lite-agent read into ``mon.*`` variables and classes, in cf-monitord's
   order: per slot its classes and ``value_/av_/dev_``, then the scalar measurements, the
   listening ports, the port addresses and the entropy classes;
5. ``state/static_data`` (string/slist measurements) and ``state/ts_key`` (the slots).

The sampling interval is 150 s (``CF_LITE_MONITOR_INTERVAL`` or ``--interval`` change it,
for tests); between samples the daemon sleeps in the shared skeleton (``cfpromise.daemon``).
"""
from __future__ import annotations

import math
import os
import time
from typing import Any, Iterable

from cfpromise.daemon import Daemon, DaemonOptions
from cfpromise.monitor import measurements, probes, stats
from cfpromise.monitor.observables import FIXED, PROBE_SLOTS, SLOT_COUNT
from cfpromise.monitor.store import MonitorStore

DEFAULT_INTERVAL = 150.0
# cf-monitord keeps these classes as persistent classes (CF_PERSISTENCE: 10 minutes), so that
# agents started a little later still see a serious anomaly
PERSISTENT = ("_dev2", "_anomaly", "_microanomaly", "_ldt")
PERSISTENCE_MINUTES = 10


class MonitorDaemon(Daemon):
    name = "cf-monitord"

    def __init__(self, options: DaemonOptions, interval: float = DEFAULT_INTERVAL,
                 pipe_timeout: float = measurements.DEFAULT_PIPE_TIMEOUT,
                 stream: Any = None) -> None:
        super().__init__(options, stream)
        self.interval = interval
        self.pipe_timeout = pipe_timeout
        self.statedir = os.path.join(options.workdir, "state")
        self.store: MonitorStore | None = None
        self.stats: stats.Statistics | None = None
        self.probe_state = probes.ProbeState(self.statedir)
        self.control: Any = None
        self.forgetrate: float | None = None
        self.failures: dict[str, str] = {}
        self.stream_cache: dict[str, tuple[float, list[str]]] = {}
        self.restarted = True
        self.samples = 0

    # -- hooks ---------------------------------------------------------------------------------
    def load(self) -> Iterable[str]:
        from cfpromise.monitor.policy import EngineOutput, load_control
        out = EngineOutput(self.options.level, self.log)
        if not os.path.exists(self.options.file):
            self.log("verbose", f"No policy file '{self.options.file}': sampling the probes only")
            self.control = None
            return [self.options.file]
        try:
            control = load_control(self.options.file, self.options.workdir, out,
                                   self.options.define, negate=list(self.options.negate),
                                   ignore_preferred_augments=(
                                       self.options.ignore_preferred_augments))
        except Exception as err:
            raise ValueError(_load_error(err)) from None
        self.control = control
        if control.forgetrate is not None:
            self.forgetrate = control.forgetrate
            if self.stats is not None:
                self.stats.forgetrate = control.forgetrate
        if control.facility:
            self.facility = control.facility
            if self.out.syslog is not None:
                self.out.to_syslog(control.facility)
        return control.files

    def tick(self, now: float) -> float:
        import sqlite3
        try:
            self.sample(now)
        except sqlite3.DatabaseError as err:
            # reopened (integrity-checked, set aside if corrupt) at the next sample
            self.log("error", f"Monitor state error ({err}): reopening it at the next sample")
            self.shutdown()
        return self.interval

    def shutdown(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None

    def run_once(self) -> int:
        """``--once``: load the policy, take one sample, write env_data, exit."""
        try:
            self.load()
        except Exception as err:   # noqa: BLE001 - reported, exit 1
            self.log("error", f"Policy failed to load: {err}")
            return 1
        try:
            self.sample()
        finally:
            self.shutdown()
        return 0

    # -- one sample ----------------------------------------------------------------------------
    def _open(self) -> MonitorStore:
        if self.store is None:
            os.makedirs(self.statedir, mode=0o700, exist_ok=True)
            self.store = MonitorStore(self.statedir, self.log)
            try:
                age = float(self.store.get("DATABASE_AGE", "0") or 0)
            except ValueError:
                age = 0.0
            self.stats = stats.Statistics(age, self.forgetrate or stats.DEFAULT_FORGETRATE)
            for name, description, units in PROBE_SLOTS:
                self._slot(name, description, units)
        return self.store

    def _slot(self, name: str, description: str, units: str) -> str | None:
        """Register ``name`` in a slot (the same one again if it has one already)."""
        store = self._open()
        slots = store.slots()
        if any(n == name for _, n, _, _ in slots):
            return name
        used = {position for position, _, _, _ in slots}
        for position in range(len(FIXED), SLOT_COUNT):
            if position not in used:
                store.register_slot(position, name, description, units)
                return name
        self.log("error", "Measurement slots are all in use - it is not helpful to measure too "
                          f"much, you can't usefully follow this many variables ('{name}')")
        return None

    def sample(self, now: float | None = None) -> None:
        now = time.time() if now is None else now
        store = self._open()
        assert self.stats is not None
        sample = probes.Sample()
        for name, probe in probes.PROBES:
            try:
                probe(self.probe_state, sample)
            except Exception as err:   # noqa: BLE001 - one probe must not stop the others
                self._fail(f"probe:{name}", f"Probe '{name}' failed: {type(err).__name__}: {err}")
            else:
                self._recovered(f"probe:{name}", f"Probe '{name}' works again")
        weekly_failed = self._measure(sample, store)
        slot_names = {position: name for position, name, _, _ in store.slots()}
        names = [name for name, _, _ in FIXED] + [
            slot_names.get(position, "spare") for position in range(len(FIXED), SLOT_COUNT)]
        active = [n for n in names if n != "spare" and n not in weekly_failed]
        key = stats.timekey(now)
        averages = self.stats.update(sample.values, active, store.averages(key))
        store.save_averages(key, averages, self.stats.age)
        self.log("info", f"Updated averages at '{key}'")
        self.stats.leap_detection(sample.values, active)
        entropy = list(sample.entropy_classes)
        lines: list[str] = []
        for name in names:
            if name == "spare":
                lines += ["value_spare=0.00", "av_spare=0.00", "dev_spare=0.00"]
            elif name in averages:
                lines += self.stats.arm(sample.values, [name], averages, entropy)
        self.stats.done()
        _persist(self.options.workdir, [line for line in lines if line.endswith(PERSISTENT)], now)
        lines += _event_lines(store)
        lines += _port_lines(sample)
        lines += entropy
        _write_atomic(os.path.join(self.statedir, "env_data"), lines)
        _write_atomic(os.path.join(self.statedir, "static_data"),
                      [f"{k}:{v}" for k, v in store.statics()])
        _write_atomic(os.path.join(self.statedir, "ts_key"), _ts_key(store))
        self.restarted = False
        self.samples += 1

    def _measure(self, sample: probes.Sample, store: MonitorStore) -> set[str]:
        """Run the monitor bundles; the weekly measurements that failed this time."""
        if self.control is None or not os.path.exists(self.options.file):
            return set()
        from cfpromise.monitor.policy import EngineOutput, run_monitor_bundles
        weekly: set[str] = set()
        wanted: set[str] = set()

        def on_weekly(handle: str, value: float, units: str, comment: str) -> None:
            if self._slot(handle, comment, units) is not None:
                sample.values[handle] = value
                weekly.add(handle)

        def on_scalar(handle: str, value: float) -> None:
            store.save_event(handle, *stats.event_average(store.event(handle), value))

        positions = _load_positions(store)
        sink = measurements.MeasurementSink(
            statedir=self.statedir, weekly=on_weekly, scalar=on_scalar,
            static=store.save_static, positions=positions, cache=self.stream_cache,
            restarted=self.restarted, failures=self.failures, log=self.log,
            pipe_timeout=self.pipe_timeout)
        token = sink.active()
        try:
            run_monitor_bundles(self.options.file, self.options.workdir,
                                EngineOutput(self.options.level, self.log), self.options.define)
        except Exception as err:   # noqa: BLE001 - the probes' sample is still written
            self._fail("policy", f"Evaluating the monitor bundles failed: {_load_error(err)}")
        finally:
            measurements.reset(token)
        _save_positions(store, positions)
        for position, name, description, _units in store.slots():
            if description and name not in {n for n, _, _ in PROBE_SLOTS}:
                wanted.add(name)
        return wanted - weekly

    def _fail(self, key: str, message: str) -> None:
        if self.failures.get(key) != message:
            self.failures[key] = message
            self.log("error", message)

    def _recovered(self, key: str, message: str) -> None:
        if self.failures.pop(key, None) is not None:
            self.log("info", message)


def _load_error(err: Exception) -> str:
    diagnostics = getattr(err, "diagnostics", None)
    if diagnostics:
        first = diagnostics[0]
        coord = getattr(first, "coord", None)
        where = f"{coord.file}:{coord.line}:{coord.col}: " if coord is not None else ""
        return where + str(getattr(first, "message", first))
    return f"{type(err).__name__}: {err}" if not str(err) else str(err)


def _persist(workdir: str, names: list[str], now: float) -> None:
    """Add ``names`` to the agent's persistent classes (WORKDIR/state/persistent_classes.json)."""
    if not names:
        return
    import json
    from cfpromise.agent.persistence import PersistentClasses
    store = PersistentClasses(workdir)
    try:
        with open(store.path, encoding="utf-8") as fh:
            stored = json.load(fh)
    except (OSError, ValueError):
        stored = {}
    if isinstance(stored, dict):
        store.entries = {k: v for k, v in stored.items()
                         if isinstance(v, dict) and v.get("expires", 0) > now}
    for name in names:
        store.remember(name, PERSISTENCE_MINUTES, ("monitoring", "source=environment"), now=now)
    store.save()


def _event_lines(store: MonitorStore) -> list[str]:
    lines = []
    for name, q, expect, var in store.events():
        value = f"{q:.0f}" if int(q * 10) % 10 == 0 else f"{q:.2f}"
        lines += [f"value_{name}={value}", f"av_{name}={expect:.2f}",
                  f"dev_{name}={math.sqrt(max(var, 0.0)):.2f}"]
    return lines


def _port_lines(sample: probes.Sample) -> list[str]:
    def shown(ports: list[str]) -> str:
        return "{" + ",".join(f"'{p}'" for p in ports) + "}"
    lines = [f"@listening_ports={shown(sample.all_incoming)}"]
    for kind in ("udp6", "udp4", "tcp6", "tcp4"):
        lines.append(f"@listening_{kind}_ports={shown([p for p, _ in sample.listening[kind]])}")
    tcp = sample.listening["tcp6"] + sample.listening["tcp4"]
    if len(tcp) <= 512:
        for kind in ("tcp6", "tcp4"):
            lines += [f"{kind}_port_addr[{p}]={a}" for p, a in sample.listening[kind]]
    for kind in ("udp6", "udp4"):
        lines += [f"{kind}_port_addr[{p}]={a}" for p, a in sample.listening[kind]]
    return lines


def _ts_key(store: MonitorStore) -> list[str]:
    slots = {position: (name, desc, units) for position, name, desc, units in store.slots()}
    lines = []
    for i in range(SLOT_COUNT):
        if i < len(FIXED):
            name, desc, units = FIXED[i]
        elif i in slots:
            name, desc, units = slots[i]
        else:
            lines.append(f"{i},spare,unused")
            continue
        lines.append(f"{i},{name},{desc},{units},0.000,100.000,1")
    return lines


def _load_positions(store: MonitorStore) -> dict[str, int]:
    import json
    try:
        value = json.loads(store.get("file_positions", "{}") or "{}")
        return {str(k): int(v) for k, v in value.items()} if isinstance(value, dict) else {}
    except (ValueError, TypeError):
        return {}


def _save_positions(store: MonitorStore, positions: dict[str, int]) -> None:
    import json
    store.put("file_positions", json.dumps(positions, sort_keys=True))


def _write_atomic(path: str, lines: list[str]) -> None:
    """Replace a state file (mode 0600) through ``env_data.new`` as cf-monitord names it,
    other files through a per-process name; at every sample, so no fsync."""
    from cfpromise.atomic import write_atomically
    tmp = path + ".new" if path.endswith("env_data") else f"{path}.tmp{os.getpid()}"
    write_atomically(path, "".join(line + "\n" for line in lines), temp=tmp, fsync=False,
                     make_dirs=False)
