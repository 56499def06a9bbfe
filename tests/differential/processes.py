"""Generated shapes of the processes promise, for the differential test against cf-agent 3.21
(issue #26): every way a promise reaches its results, since cf-agent sets a promise's outcome
classes at each result it reaches (cfPS), not once for the promise.

Each case owns its sleepers: ``python3 -c ... ROOT/<case>/proc`` (0, 1 or 2 of them), found
by a promiser naming that path, so the cases of one policy never see each other's
processes, nor the two agents' runs (each has its own ROOT).  The shapes cross
``process_count`` (in range, out of range, with in_range_define / out_of_range_define /
both / neither, without match_range), ``signals`` (harmless ``cont``, ``term``, ``kill``,
pauses, several), ``restart_class``, ``process_stop`` (zero, nonzero, not executable),
``process_select`` (matching, matching nothing, without ``process_result``),
``action_policy => "warn"`` and a classes body that cancels one outcome class on another;
the test runs the policy twice, normally and under ``-n``.

Observed per case and run: the case's classes (``pc_<case>_...`` and the classes the
promise names) and how many of its sleepers are still alive; per run: the warning and
error lines, process-table entries and the scratch root replaced.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple


class Case(NamedTuple):
    name: str
    attrs: str          # the promise's attributes; @C@ is the case's name
    sleepers: int       # how many of the case's processes run before the first run
    target: str = "proc"   # the promiser's last part: "proc" (its sleepers) or "nothing"


_COUNTS = {
    "none": "",
    "in": "process_count => pcount(\"1,1\", \"@C@\")",
    "out0": "process_count => pcount(\"0,0\", \"@C@\")",
    "out25": "process_count => pcount(\"2,5\", \"@C@\")",
    "inonly": "process_count => pin(\"1,5\", \"@C@\")",
    "outonly": "process_count => pout(\"0,0\", \"@C@\")",
    "nodefine": "process_count => pbare(\"0,0\")",
    "norange": "process_count => pnorange(\"@C@\")",
}
_SIGNALS = {
    "nosig": "",
    "cont": 'signals => { "cont" }',
    "term": 'signals => { "term" }',
    "kill": 'signals => { "kill" }',
    "contterm": 'signals => { "cont", "0", "term" }',
}


def _cases() -> list[Case]:
    cases: list[Case] = []

    def add(name: str, attrs: list[str], sleepers: int = 1, target: str = "proc") -> None:
        cases.append(Case(name, ", ".join(a for a in attrs if a), sleepers, target))

    # process_count alone, over 0, 1 and 2 processes
    for cname, count in _COUNTS.items():
        for n in (0, 1, 2):
            add(f"{cname}{n}", [count], n)
    # signals, with and without restart_class, over 0 and 1 processes
    for sname, sig in _SIGNALS.items():
        for n in (0, 1):
            add(f"{sname}{n}", [sig], n)
            add(f"{sname}{n}r", [sig, 'restart_class => "pc_@C@_restart"'], n)
    # process_count with signals / restart_class (cf-agent goes on when out of range)
    for count in ("in", "out0", "out25"):
        add(f"{count}term", [_COUNTS[count], _SIGNALS["term"]])
        add(f"{count}restart", [_COUNTS[count], 'restart_class => "pc_@C@_restart"'], 0)
        add(f"{count}termr", [_COUNTS[count], _SIGNALS["term"],
                              'restart_class => "pc_@C@_restart"'])
    # process_stop
    for sname, stop in (("true", "/bin/true"), ("false", "/bin/false"),
                        ("missing", "/nonexistent/stop")):
        for n in (0, 1):
            add(f"stop{sname}{n}", [f'process_stop => "{stop}"'], n)
        add(f"stop{sname}term", [f'process_stop => "{stop}"', _SIGNALS["term"],
                                 'restart_class => "pc_@C@_restart"'])
        add(f"stop{sname}out", [f'process_stop => "{stop}"', _COUNTS["out0"]])
    # process_select
    for sname, select in (("root", 'process_select => powner("root")'),
                          ("nobody", 'process_select => powner("nobody")'),
                          ("noresult", "process_select => pnoresult"),
                          ("notroot", 'process_select => pnotowner("root")')):
        add(f"sel{sname}", [select, _COUNTS["out0"]])
        add(f"sel{sname}r", [select, 'restart_class => "pc_@C@_restart"'])
    # action_policy => "warn"
    for name, attrs, n in (("warnnone", [], 1), ("warnrestart0", ['restart_class => "pc_@C@_r"'], 0),
                           ("warnrestart1", ['restart_class => "pc_@C@_r"'], 1),
                           ("warnterm", [_SIGNALS["term"]], 1),
                           ("warnout", [_COUNTS["out0"]], 1), ("warnin", [_COUNTS["in"]], 1),
                           ("warnzero", ['process_count => pcount("0,0", "@C@")'], 2),
                           ("warnstop", ['process_stop => "/bin/true"'], 1)):
        add(name, [*attrs, "action => pwarn"], n)
    # cancel_kept / cancel_repaired: the order of the results shows
    add("cancelout", [_COUNTS["out0"]], 1)
    add("cancelterm", [_SIGNALS["term"]], 1)
    add("nothingr", ['restart_class => "pc_@C@_restart"'], 0, "nothing")
    add("restartzero", ['process_count => pcount("0,0", "@C@")',
                        'restart_class => "pc_@C@_restart"'], 0)
    return cases


CASES = _cases()
NAMES = [c.name for c in CASES]

_BODIES = """
body classes pout_c(p)
{
  promise_kept => { "$(p)_kept" };
  promise_repaired => { "$(p)_repaired" };
  repair_failed => { "$(p)_failed" };
  repair_denied => { "$(p)_denied" };
  repair_timeout => { "$(p)_timeout" };
}
body classes pcancel(p)
{
  promise_kept => { "$(p)_kept" };
  promise_repaired => { "$(p)_repaired" };
  repair_failed => { "$(p)_failed" };
  cancel_kept => { "$(p)_repaired" };
  cancel_repaired => { "$(p)_kept" };
}
body process_count pcount(range, c)
{
  match_range => "$(range)";
  in_range_define => { "pc_$(c)_in" };
  out_of_range_define => { "pc_$(c)_out" };
}
body process_count pin(range, c) { match_range => "$(range)"; in_range_define => { "pc_$(c)_in" }; }
body process_count pout(range, c) { match_range => "$(range)"; out_of_range_define => { "pc_$(c)_out" }; }
body process_count pbare(range) { match_range => "$(range)"; }
body process_count pnorange(c) { in_range_define => { "pc_$(c)_in" }; out_of_range_define => { "pc_$(c)_out" }; }
body process_select powner(u) { process_owner => { "$(u)" }; process_result => "process_owner"; }
body process_select pnotowner(u) { process_owner => { "$(u)" }; process_result => "!process_owner"; }
body process_select pnoresult { process_owner => { "root" }; }
body action pwarn { action_policy => "warn"; }
"""


def policy_text(root: Path) -> str:
    lines = ["body common control", "{", '  bundlesequence => { "main" };', "}", "",
             "bundle agent main", "{", "  processes:"]
    for case in CASES:
        body = "pcancel" if case.name.startswith("cancel") else "pout_c"
        attrs = case.attrs.replace("@C@", case.name)
        attrs = f"{attrs}, " if attrs else ""
        lines.append(f'      "{root}/{case.name}/{case.target}" {attrs}'
                     f'classes => {body}("pc_{case.name}");')
    lines += ["  vars:", '      "c" slist => classesmatching("pc_.*");', "  reports:",
              '      "pclass $(c)";', "}", _BODIES]
    return "\n".join(lines)


def start(root: Path) -> dict[str, list[subprocess.Popen]]:
    """The sleepers of every case under ``root`` (the caller stops them)."""
    procs: dict[str, list[subprocess.Popen]] = {}
    for case in CASES:
        d = root / case.name
        d.mkdir(parents=True, exist_ok=True)
        procs[case.name] = [
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)",
                              f"{d}/proc"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(case.sleepers)]
    return procs


def stop(procs: dict[str, list[subprocess.Popen]]) -> None:
    for plist in procs.values():
        for proc in plist:
            if proc.poll() is None:
                proc.kill()
            proc.wait()


def alive(procs: dict[str, list[subprocess.Popen]]) -> dict[str, int]:
    """How many sleepers of each case still run (poll() reaps the dead ones)."""
    return {name: sum(1 for p in plist if p.poll() is None) for name, plist in procs.items()}


def classes_of(stdout: str) -> dict[str, list[str]]:
    found = [line[len("R: pclass "):].strip() for line in stdout.splitlines()
             if line.startswith("R: pclass ")]
    out: dict[str, list[str]] = {}
    for name in NAMES:
        prefix = f"pc_{name}_"
        out[name] = sorted(c for c in found if c.startswith(prefix))
    return out


_PS = re.compile(r"(in process entry '|Matched '|Process alert '|to process )[^']*(')?")
_PID = re.compile(r"to pid \d+")


def log_lines(stdout: str, root: Path) -> list[str]:
    """The lines logged at info level and above (the -I run has info), sorted (the two agents order promises alike, but
    cf-lite writes some errors on standard error)."""
    out = []
    for line in stdout.replace(str(root), "ROOT").splitlines():
        if line.lstrip().startswith(("warning:", "error:", "info:", "notice:")):
            out.append(_PID.sub("to pid PID", _PS.sub(r"\1PS\2", line.rstrip())))
    return sorted(out)
