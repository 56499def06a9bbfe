"""The remote syslog of the ``action`` body's ``udp_syslog`` log (cf-agent's RemoteSysLog).

A promise whose log is ``udp_syslog`` sends one RFC 3164 datagram,
``<PRI>Mmm dd hh:mm:ss HOST PREFIX[PID]: TEXT`` (the local time without its
weekday, ``sys.fqhost``, ``output_prefix`` of body common control -- empty
unless set -- and the agent's pid), cut to 1024 bytes, to every address of
``syslog_host`` (body common control, default ``localhost``) at ``syslog_port``
(default 514).  PRI is the ``log_priority`` (default ``error``) or'd with the
facility (body agent control ``agentfacility``, default ``LOG_USER``).  The host
is looked up at each message; one that does not resolve is said at info and the
run goes on.  The socket never waits: a datagram that cannot go is said in
verbose and dropped.

Only loaded by a run that has such a promise.
"""
from __future__ import annotations

import os
import socket
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

# log_priority -> its syslog severity (an unknown or missing one: error)
PRIORITIES = ("emergency", "alert", "critical", "error", "warning", "notice", "info", "debug")
DEFAULT_PRIORITY = 3
# agentfacility -> the facility code (already shifted, as syslog.h's LOG_* are)
FACILITIES = {"LOG_USER": 1 << 3, "LOG_DAEMON": 3 << 3,
              **{f"LOG_LOCAL{n}": (16 + n) << 3 for n in range(8)}}
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
RFC3164_LEN = 1024


def priority(name: Any) -> int:
    """The severity of a ``log_priority`` value."""
    return PRIORITIES.index(name) if name in PRIORITIES else DEFAULT_PRIORITY


def stamp(now: float) -> str:
    """cf-agent's local timestamp without the weekday: ``Nov  9 09:05:01``."""
    tm = time.localtime(now)
    return f"{_MONTHS[tm.tm_mon - 1]} {tm.tm_mday:2d} {tm.tm_hour:02d}:{tm.tm_min:02d}:" \
           f"{tm.tm_sec:02d}"


def message(pri: int, host: str, prefix: str, text: str, now: float | None = None) -> bytes:
    """The datagram: ``<PRI>STAMP HOST PREFIX[PID]: TEXT``, at most 1023 bytes."""
    raw = (f"<{pri}>{stamp(time.time() if now is None else now)} "
           f"{host[:256]} {prefix[:256]}[{os.getpid()}]: {text}")
    return raw.encode("utf-8", "surrogateescape")[:RFC3164_LEN - 1]


def send(log: Callable[[str, str], None], host: str, port: int, pri: int, fqhost: str,
         prefix: str, text: str) -> None:
    """Send ``text`` to ``host``:``port`` as cf-agent does (see the module)."""
    try:
        addresses = socket.getaddrinfo(host, str(port), socket.AF_UNSPEC, socket.SOCK_DGRAM)
    except (socket.gaierror, UnicodeError) as exc:
        reason = exc.strerror if isinstance(exc, socket.gaierror) else str(exc)
        log("info", f"Unable to find syslog_host or service: ({host}/{port}) {reason}")
        return
    except OSError as exc:
        log("info", f"Unable to find syslog_host or service: ({host}/{port}) {exc.strerror}")
        return
    data = message(pri, fqhost, prefix, text)
    shown = data.decode("utf-8", "surrogateescape")
    for family, kind, _proto, _name, address in addresses:
        log("verbose", f"Connect to syslog '{host}' = '{address[0]}' on port '{port}'")
        try:
            sock = socket.socket(family, kind, socket.IPPROTO_UDP)
        except OSError as exc:
            log("info", f"Couldn't open a socket. (socket: {exc.strerror})")
            continue
        try:
            sock.setblocking(False)
            sock.sendto(data, address)
        except OSError as exc:
            log("verbose", f"Couldn't send '{shown}' to syslog server '{host}'. "
                           f"(sendto: {exc.strerror})")
        else:
            log("verbose", f"Syslog message: '{shown}' to server '{host}'")
        finally:
            sock.close()


def remote_syslog(agent: Any, log_priority: Any, text: str) -> None:
    """``text`` to the syslog host the agent's control bodies name."""
    control = getattr(agent, "control", None) or {}
    agent_control = getattr(agent, "agent_control", None) or {}
    host = control.get("syslog_host")
    host = host if isinstance(host, str) and host else "localhost"
    port = _port(control.get("syslog_port"))
    facility = FACILITIES.get(agent_control.get("agentfacility"), FACILITIES["LOG_USER"])
    prefix = control.get("output_prefix")
    found = agent.ctx.lookup("sys.fqhost")
    fqhost = getattr(found, "value", found)
    send(agent.out.log, host, port, priority(log_priority) | facility,
         fqhost if isinstance(fqhost, str) else socket.getfqdn(),
         prefix if isinstance(prefix, str) else "", text)


def _port(value: Any) -> int:
    """syslog_port as cf-agent keeps it (a uint16_t: what does not fit wraps)."""
    try:
        return int(str(value)) % 65536 if value is not None else 514
    except ValueError:
        return 514
