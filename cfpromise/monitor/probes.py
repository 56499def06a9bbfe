"""The probes cf-monitord 3.21 samples every 2.5 minutes, as cf-monitord computes them.

Each probe fills observables of a :class:`Sample` (names as in ``observables.FIXED`` and
``PROBE_SLOTS``).  :data:`PROBES` is the table the daemon walks; a probe that raises is
logged by the caller and the others still run.  Values and units follow cf-monitord:

* users / rootprocs / otherprocs: distinct users owning processes, processes of root, the
  others (psutil's process table; cf-monitord reads ``ps``), saved to ``state/cf_users``
  (and cf_rootprocs / cf_otherprocs, the process lists);
* diskfree: percent free on / (available / (available + used)), an integer;
* loadavg: the 1-minute load average; cpu, cpu0..cpu3: % busy since the last sample;
* connections: per service of ``observables.SERVICES``, TCP/UDP sockets on its port from
  /proc/net/{tcp,udp,tcp6,udp6} (local port: in, remote port: out), the matching lines
  saved to ``state/cf_incoming.<service>`` / ``cf_outgoing.<service>``, the listening ports;
* webaccess / weberrors / syslog / messages: bytes a log file grew since the last sample;
* temp0..temp3: thermal zones (psutil.sensors_temperatures); absent sensors leave 0;
* mem_*: /proc/meminfo in megabytes; io_*: /proc/diskstats rates since the last sample.
"""
from __future__ import annotations

import math
import os
import socket
import struct
import time
import attrs
from typing import Callable

from cfpromise.monitor.observables import SERVICES, SNIFFER_KINDS

LISTEN = 0x0A
LOG_FILES = (("webaccess", "/var/log/apache2/access_log"),
             ("weberrors", "/var/log/apache2/error_log"),
             ("syslog", "/var/log/syslog"), ("messages", "/var/log/messages"))


@attrs.define
class Sample:
    """One sample's observations."""
    values: dict[str, float] = attrs.field(factory=dict)
    listening: dict[str, list[tuple[str, str]]] = attrs.field(factory=lambda: {
        "tcp4": [], "tcp6": [], "udp4": [], "udp6": []})
    all_incoming: list[str] = attrs.field(factory=list)
    entropy_classes: list[str] = attrs.field(factory=list)

    def add(self, name: str, amount: float) -> None:
        self.values[name] = self.values.get(name, 0.0) + amount


class ProbeState:
    """What probes remember between samples (CPU ticks, log sizes, disk counters)."""

    def __init__(self, statedir: str) -> None:
        self.statedir = statedir
        self.cpu_last: dict[str, tuple[float, float]] = {}
        self.log_sizes: dict[str, float] = {}
        self.io_last: dict[str, tuple[float, float]] = {}

    def state_file(self, name: str) -> str:
        return os.path.join(self.statedir, name)


def _write_lines(path: str, lines: list[str]) -> None:
    """Replace a state file (mode 0600), as cf-monitord does at every sample (no fsync)."""
    from cfpromise.atomic import write_atomically
    write_atomically(path, "".join(line + "\n" for line in lines),
                     temp=f"{path}.tmp{os.getpid()}", fsync=False, make_dirs=False)


def processes(state: ProbeState, sample: Sample) -> None:
    import psutil
    users: list[str] = []
    root: list[str] = []
    other: list[str] = []
    for proc in psutil.process_iter(["username", "pid", "name"]):
        user = proc.info.get("username")
        if not user or user[0].isdigit():
            continue
        if user not in users:
            users.insert(0, user)
        line = f"{user} {proc.info['pid']} {proc.info.get('name') or ''}"
        (root if user == "root" else other).append(line)
    sample.add("users", len(users))
    sample.add("rootprocs", len(root))
    sample.add("otherprocs", len(other))
    _write_lines(state.state_file("cf_users"), users)
    _write_lines(state.state_file("cf_rootprocs"), root)
    _write_lines(state.state_file("cf_otherprocs"), other)


def disk(state: ProbeState, sample: Sample) -> None:
    st = os.statvfs("/")
    avail = st.f_bavail * st.f_frsize
    used = (st.f_blocks - st.f_bfree) * st.f_frsize
    sample.values["diskfree"] = float(int(100.0 * avail / (avail + used))) if avail + used else 0.0
    for name, path in LOG_FILES:
        try:
            size = float(os.stat(path).st_size)
        except OSError:
            sample.values[name] = 0.0
            continue
        last = state.log_sizes.get(name, 0.0)
        state.log_sizes[name] = size
        growth = size / 100 if last == 0 else size - last      # first: "spike mitigation"
        sample.values[name] = float(int(growth + 0.5))


def load(state: ProbeState, sample: Sample) -> None:
    sample.values["loadavg"] = os.getloadavg()[0]


def cpu(state: ProbeState, sample: Sample) -> None:
    import psutil
    rows = [("cpu", psutil.cpu_times())]
    rows += [(f"cpu{i}", t) for i, t in enumerate(psutil.cpu_times(percpu=True)[:4])]
    for name, times in rows:
        total = times.user + times.nice + times.system + times.idle
        busy = total - times.idle
        last_busy, last_total = state.cpu_last.get(name, (0.0, 0.0))
        state.cpu_last[name] = (busy, total)
        span = total - last_total
        value = 100.0 * (busy - last_busy) / span if span > 0 else 50.0
        sample.values[name] = value if 0 <= value <= 100 else 50.0


def temperatures(state: ProbeState, sample: Sample) -> None:
    import psutil
    sensors = getattr(psutil, "sensors_temperatures", None)
    readings = [entry.current for entries in (sensors() if sensors else {}).values()
                for entry in entries]
    for i, value in enumerate(readings[:4]):
        sample.values[f"temp{i}"] = float(value)


def memory(state: ProbeState, sample: Sample) -> None:
    fields = {}
    with open("/proc/meminfo", encoding="ascii") as handle:
        for line in handle:
            key, _, rest = line.partition(":")
            parts = rest.split()
            if parts:
                fields[key] = float(parts[0]) * 1024
    mb = 1024.0 * 1024.0
    for name, key in (("mem_total", "MemTotal"), ("mem_free", "MemFree"), ("mem_cached", "Cached"),
                      ("mem_swap", "SwapTotal"), ("mem_freeswap", "SwapFree")):
        sample.values[name] = fields.get(key, 0.0) / mb


def io(state: ProbeState, sample: Sample) -> None:
    now = time.time()
    totals = {"io_reads": 0.0, "io_writes": 0.0, "io_readdata": 0.0, "io_writtendata": 0.0}
    with open("/proc/diskstats", encoding="ascii") as handle:
        for line in handle:
            parts = line.split()
            if len(parts) < 10:
                continue
            disk_name = parts[2].replace("/", "!")
            reads, rsect, writes, wsect = (float(parts[3]), float(parts[5]), float(parts[7]),
                                           float(parts[9]))
            if not (reads or rsect or writes or wsect) or not _physical(disk_name):
                continue
            sector = _sector_size(disk_name)
            for key, value in (("reads", reads), ("writes", writes), ("readdata", rsect * sector),
                               ("writtendata", wsect * sector)):
                rate = _rate(state, f"{disk_name}/{key}", value, now)
                if rate is not None:
                    totals[f"io_{key}"] += rate
    totals["io_readdata"] /= 1024 * 1024
    totals["io_writtendata"] /= 1024 * 1024
    for name, value in totals.items():
        if value:
            sample.values[name] = value


def _rate(state: ProbeState, key: str, value: float, now: float) -> float | None:
    last = state.io_last.get(key)
    state.io_last[key] = (value, now)
    if last is None or int(now - last[1]) == 0:
        return None
    return float(int(max(value - last[0], 0.0) / int(now - last[1])))


def _physical(name: str) -> bool:
    base = f"/sys/class/block/{name}"
    if os.path.exists(f"{base}/partition"):
        return False
    try:
        return not os.listdir(f"{base}/slaves")
    except OSError:
        return True


def _sector_size(name: str) -> int:
    try:
        with open(f"/sys/class/block/{name}/queue/logical_block_size", encoding="ascii") as fh:
            return int(fh.read().strip() or 512)
    except (OSError, ValueError):
        return 512


# -- network --------------------------------------------------------------------------------
def _addr4(text: str) -> tuple[str, int]:
    addr, port = text.split(":")
    return socket.inet_ntop(socket.AF_INET, struct.pack("<I", int(addr, 16))), int(port, 16)


def _addr6(text: str) -> tuple[str, int]:
    addr, port = text.split(":")
    raw = b"".join(struct.pack("<I", int(addr[i:i + 8], 16)) for i in range(0, 32, 8))
    return socket.inet_ntop(socket.AF_INET6, raw), int(port, 16)


PROC_NET = (("/proc/net/tcp", "tcp4", _addr4), ("/proc/net/udp", "udp4", _addr4),
            ("/proc/net/tcp6", "tcp6", _addr6), ("/proc/net/udp6", "udp6", _addr6))


def network(state: ProbeState, sample: Sample) -> None:
    incoming: dict[str, list[str]] = {name: [] for _, name, _, _ in SERVICES}
    outgoing: dict[str, list[str]] = {name: [] for _, name, _, _ in SERVICES}
    for path, kind, parse in PROC_NET:
        try:
            with open(path, encoding="ascii") as handle:
                lines = handle.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if len(parts) < 4:
                continue
            try:
                local, lport = parse(parts[1])
                _remote, rport = parse(parts[2])
                st = int(parts[3], 16)
            except (ValueError, OSError, struct.error):
                continue
            if st == LISTEN:
                port = str(lport)
                if port not in sample.all_incoming:
                    sample.all_incoming.insert(0, port)
                listening = sample.listening[kind]
                if all(p != port for p, _ in listening):
                    listening.insert(0, (port, local))
            for number, name, obs_in, obs_out in SERVICES:
                if lport == number:
                    sample.add(obs_in, 1)
                    incoming[name].append(line)
                if rport == number:
                    sample.add(obs_out, 1)
                    outgoing[name].append(line)
    for number, name, obs_in, obs_out in SERVICES:
        sample.values.setdefault(obs_in, 0.0)
        sample.values.setdefault(obs_out, 0.0)
    for direction, table, stem in (("in", incoming, "cf_incoming"),
                                   ("out", outgoing, "cf_outgoing")):
        for _, name, _, _ in SERVICES:
            _save_snapshot(state, sample, f"{stem}.{name}", name.replace("-", "_"), direction,
                           table[name], remote_of=True)
    for direction, stem in (("in", "cf_incoming"), ("out", "cf_outgoing")):
        for kind in SNIFFER_KINDS:      # no tcpdump: empty distributions, low entropy
            _save_snapshot(state, sample, f"{stem}.{kind}", kind, direction, [], write=False)


def _save_snapshot(state: ProbeState, sample: Sample, filename: str, service: str,
                   direction: str, lines: list[str], remote_of: bool = False,
                   write: bool = True) -> None:
    """cf-monitord keeps a larger older snapshot for 40 minutes; else it writes the new one
    and publishes the entropy class of the remote addresses."""
    path = state.state_file(filename)
    try:
        st = os.stat(path)
        if sum(len(line) for line in lines) < st.st_size and time.time() < st.st_mtime + 40 * 60:
            return
    except OSError:
        pass
    counts: dict[str, int] = {}
    for line in lines:
        parts = line.split()
        remote = parts[2] if remote_of and len(parts) > 2 else ""
        address = remote.rsplit(":", 1)[0]
        counts[address] = counts.get(address, 0) + 1
    entropy = _entropy(list(counts.values()))
    kind = "high" if entropy > 0.9 else "low" if entropy < 0.2 else "medium"
    sample.entropy_classes.append(f"entropy_{service}_{direction}_{kind}")
    if write:
        _write_lines(path, lines)


def _entropy(counts: list[int]) -> float:
    if len(counts) < 2:
        return 0.0
    total = float(sum(counts))
    return -sum((c / total) * math.log(c / total) for c in counts) / math.log(len(counts))


Probe = Callable[[ProbeState, Sample], None]

# In cf-monitord's order (GetQ, then MonOtherGatherData: io then memory)
PROBES: tuple[tuple[str, Probe], ...] = (
    ("processes", processes),
    ("disk", disk),
    ("cpu", cpu),
    ("load", load),
    ("network", network),
    ("temperatures", temperatures),
    ("io", io),
    ("memory", memory),
)
