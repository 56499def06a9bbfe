"""Shared helpers of the monitor tests: a scratch work directory with a policy."""
from __future__ import annotations

import io
from pathlib import Path

from cfpromise.daemon import DaemonOptions
from cfpromise.monitor.daemon import MonitorDaemon

MATCH_BODY = """
body match_value m(line, ex) { select_line_matching => "$(line)"; extraction_regex => "$(ex)"; }
body match_value n(number) { select_line_number => "$(number)"; }
body match_value growing { select_line_matching => "v=.*"; extraction_regex => "v=(\\d+)";
                           track_growing_file => "true"; select_multiline_policy => "sum"; }
"""


def workdir_with(tmp_path: Path, monitor_body: str, extra: str = "") -> Path:
    work = tmp_path / "work"
    (work / "inputs").mkdir(parents=True, exist_ok=True)
    (work / "inputs" / "promises.cf").write_text(
        'body common control { bundlesequence => { "main" }; }\n'
        'bundle agent main { }\n'
        f"bundle monitor watch\n{{\n{monitor_body}\n}}\n{MATCH_BODY}\n{extra}")
    return work


def daemon(work: Path, **kw: float) -> tuple[MonitorDaemon, io.StringIO]:
    log = io.StringIO()
    opts = DaemonOptions(workdir=str(work), file=str(work / "inputs" / "promises.cf"),
                         foreground=True, level="info")
    d = MonitorDaemon(opts, stream=log, **kw)
    d.load()
    return d, log


def env_data(work: Path) -> dict[str, str]:
    out = {}
    for line in (work / "state" / "env_data").read_text().splitlines():
        name, eq, value = line.partition("=")
        out[name] = value if eq else ""
    return out
