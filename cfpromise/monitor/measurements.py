"""``measurements`` promises of ``monitor`` bundles, as cf-monitord 3.21 keeps them.

The engine evaluates monitor bundles like any bundle (guards, iteration, bodies); this
handler (registered for the ``measurements`` type) samples the stream of the promise and
records the value in the :class:`MeasurementSink` of the sample being taken (found through
a context variable, so the agent never actuates measurements by accident):

* ``stream_type => "file"`` reads the promiser (``track_growing_file`` resumes where the
  last sample stopped); ``"pipe"`` runs it (no shell) with a timeout;
* the line: ``select_line_matching`` (the whole line must match) or ``select_line_number``;
  the value: the first group of ``extraction_regex`` (searched in the line), else the line;
* ``data_type`` counter: the number of matching lines; int/real: the value (several lines:
  ``select_multiline_policy`` average (default), sum, first, last); string: the value;
  slist: every matching value;
* ``history_type`` weekly: a slot of the weekly statistics (``value_/av_/dev_HANDLE`` and
  its classes in env_data); scalar/static: a named event (``value_/av_/dev_HANDLE`` after
  the observables); log: a line ``ctime,epoch,value`` in ``state/HANDLE_measure.log``;
  string and slist values: ``state/static_data`` (``HANDLE:type:value``), read by the agent
  as ``mon.HANDLE``;
* ``action => ifelapsed`` (minutes): too soon, the last stream read is used again (the
  first sample after a start always reads).

A stream that is missing, a command that fails, hangs or prints garbage, a regex that
matches nothing: the promise is named in one log line (once, until it works again), no
value is recorded for it this time, and the sample goes on.
"""
from __future__ import annotations

import contextvars
import os
import re
import shlex
import subprocess
import time
from typing import Any, Callable

from cfpromise.agent.outcome import Outcome
from cfpromise.monitor.observables import DATA_TYPE_NUMBER
from cfpromise.promises.api import PromiseRun, handler

NUMERIC = ("counter", "int", "real")
DEFAULT_PIPE_TIMEOUT = 60.0

_SINK: contextvars.ContextVar["MeasurementSink"] = contextvars.ContextVar("monitor_sink")


class MeasurementError(Exception):
    """Why a measurement has no value this time (the message names no promise)."""


class MeasurementSink:
    """Where one sample's measurements go; the daemon provides the callbacks."""

    def __init__(self, *, statedir: str, weekly: Callable[[str, float, str, str], None],
                 scalar: Callable[[str, float], None], static: Callable[[str, str], None],
                 positions: dict[str, int], cache: dict[str, tuple[float, list[str]]],
                 restarted: bool, failures: dict[str, str],
                 log: Callable[[str, str], None], pipe_timeout: float = DEFAULT_PIPE_TIMEOUT
                 ) -> None:
        self.statedir = statedir
        self.weekly = weekly
        self.scalar = scalar
        self.static = static
        self.positions = positions
        self.cache = cache
        self.restarted = restarted
        self.failures = failures
        self.log = log
        self.pipe_timeout = pipe_timeout

    def fail(self, key: str, message: str) -> None:
        if self.failures.get(key) != message:
            self.failures[key] = message
            self.log("error", message)
        else:
            self.log("verbose", message)

    def active(self) -> contextvars.Token["MeasurementSink"]:
        return _SINK.set(self)


def reset(token: contextvars.Token[MeasurementSink]) -> None:
    _SINK.reset(token)


@handler("measurements")
def keep_measurement(run: PromiseRun) -> Outcome:
    sink = _SINK.get(None)
    if sink is None:             # the agent or cf-promises: nothing to measure
        return Outcome.KEPT
    handle = run.handle
    where = f"measurement '{handle or run.promiser}' ({run.where()})"
    if not handle:
        sink.fail(run.where(), f"The promised measurement has no handle to register it by: "
                               f"{run.where()}")
        return Outcome.FAILED
    try:
        value = _measure(run, sink, handle)
    except MeasurementError as err:
        sink.fail(handle, f"{where}: {err}; no value recorded")
        return Outcome.FAILED
    if sink.failures.pop(handle, None) is not None:
        sink.log("info", f"{where}: measured again")
    sink.log("info", f"Extracted value \"{value}\" for promise \"{handle}\"")
    return Outcome.KEPT


def _measure(run: PromiseRun, sink: MeasurementSink, handle: str) -> str:
    attrs = run.attributes
    data_type = str(attrs.get("data_type") or "string")
    history = str(attrs.get("history_type") or "scalar")
    stream_type = str(attrs.get("stream_type") or "file")
    match = run.body("match_value")
    if not os.path.isabs(run.promiser.split()[0] if run.promiser.split() else ""):
        raise MeasurementError(f"the promiser '{run.promiser}' is not an absolute path")
    if match.get("select_line_matching") and match.get("select_line_number") not in (None, ""):
        raise MeasurementError("cannot select a line both by pattern and by number")
    regex = match.get("extraction_regex")
    if regex and "(" not in regex:
        raise MeasurementError("the extraction_regex must contain a single backreference")
    lines = _stream(run, sink, handle, stream_type, match)
    if data_type in NUMERIC and history != "log":
        number = _number(lines, data_type, match)
        if history == "weekly":
            units = str(attrs.get("units") or "unknown")
            comment = str(attrs.get("comment") or "User defined measure")
            sink.weekly(handle, number, units, comment)
        else:
            sink.scalar(handle, number)
        return f"{number:f}"
    text = _symbolic(lines, data_type, match)
    if history == "log":
        path = os.path.join(sink.statedir, f"{handle}_measure.log")
        now = time.time()
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"{time.ctime(now)},{int(now)},{text}\n")
    else:
        sink.static(f"{handle}:{DATA_TYPE_NUMBER.get(data_type, 0)}", text)
    return text


def _stream(run: PromiseRun, sink: MeasurementSink, handle: str, stream_type: str,
            match: dict[str, Any]) -> list[str]:
    """The lines of the promise's stream, or the last ones read when ifelapsed says so."""
    action = run.body("action")
    try:
        ifelapsed = float(action.get("ifelapsed", 0) or 0)
    except (TypeError, ValueError):
        ifelapsed = 0.0
    key = f"{handle}\0{run.promiser}"
    cached = sink.cache.get(key)
    now = time.time()
    if cached is not None and not sink.restarted and now - cached[0] < ifelapsed * 60:
        sink.log("verbose", f"Measurement '{handle}': too soon (ifelapsed {ifelapsed:g}), "
                            "using the last sample")
        return cached[1]
    lines = _read_pipe(run.promiser, sink) if stream_type == "pipe" else \
        _read_file(run.promiser, key, sink, _true(match.get("track_growing_file")))
    sink.cache[key] = (now, lines)
    return lines


def _read_file(path: str, key: str, sink: MeasurementSink, growing: bool) -> list[str]:
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if growing:
                pos = sink.positions.get(key, 0)
                fh.seek(pos if pos <= size else 0)
            data = fh.read()
            if growing:
                sink.positions[key] = fh.tell()
    except FileNotFoundError:
        raise MeasurementError(f"unable to find stream '{path}'") from None
    except OSError as err:
        raise MeasurementError(f"unable to read '{path}' ({err.strerror})") from None
    return data.decode("utf-8", errors="replace").splitlines()


def _read_pipe(command: str, sink: MeasurementSink) -> list[str]:
    try:
        argv = shlex.split(command)
    except ValueError as err:
        raise MeasurementError(f"cannot parse the command '{command}' ({err})") from None
    if not argv or not os.access(argv[0], os.X_OK):
        raise MeasurementError(f"'{command}' promises to be executable but isn't")
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, timeout=sink.pipe_timeout,
                              start_new_session=True)
    except subprocess.TimeoutExpired:
        raise MeasurementError(f"the command '{command}' timed out after "
                               f"{sink.pipe_timeout:g} s") from None
    except OSError as err:
        raise MeasurementError(f"couldn't run '{command}' ({err.strerror})") from None
    return done.stdout.decode("utf-8", errors="replace").splitlines()


def _selected(lines: list[str], match: dict[str, Any]) -> list[str]:
    pattern = match.get("select_line_matching")
    number = match.get("select_line_number")
    if number not in (None, ""):
        try:
            index = int(number)
        except (TypeError, ValueError):
            raise MeasurementError(f"select_line_number '{number}' is not a number") from None
        return [lines[index - 1]] if 1 <= index <= len(lines) else []
    if pattern is None:
        pattern = ".*"
    try:
        rx = re.compile(pattern)
    except re.error as err:
        raise MeasurementError(f"select_line_matching '{pattern}' is not a regex ({err})") from None
    return [line for line in lines if rx.fullmatch(line)]


def _extract(line: str, match: dict[str, Any]) -> str | None:
    regex = match.get("extraction_regex")
    if not regex:
        return line
    try:
        found = re.search(regex, line)
    except re.error as err:
        raise MeasurementError(f"extraction_regex '{regex}' is not a regex ({err})") from None
    if found is None or not found.groups():
        return None
    return found.group(1) or ""


def _number(lines: list[str], data_type: str, match: dict[str, Any]) -> float:
    selected = _selected(lines, match)
    if not selected:
        raise MeasurementError("could not locate the line (no line matched)")
    if data_type == "counter":
        return float(len(selected))
    values: list[float] = []
    for line in selected:
        text = _extract(line, match)
        if text is None:
            continue
        try:
            values.append(float(text.strip()))
        except ValueError:
            raise MeasurementError(f"unable to extract a number from '{line}'") from None
    if not values:
        raise MeasurementError(f"the extraction_regex matched no line ('{selected[0]}')")
    policy = match.get("select_multiline_policy") or "average"
    if policy == "first":
        return values[0]
    if policy == "last":
        return values[-1]
    if policy == "sum" and data_type == "int":
        return sum(values)
    return sum(values) / len(values)


def _symbolic(lines: list[str], data_type: str, match: dict[str, Any]) -> str:
    selected = _selected(lines, match)
    if not selected:
        raise MeasurementError("found no matching line")
    if data_type == "counter":
        return str(len(selected))
    values = [v for v in (_extract(line, match) for line in selected) if v is not None]
    if not values:
        raise MeasurementError(f"the extraction_regex matched no line ('{selected[0]}')")
    return ",".join(values) if data_type == "slist" else values[0]


def _true(value: Any) -> bool:
    return str(value).lower() in ("true", "yes", "on")
