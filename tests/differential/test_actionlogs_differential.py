"""Differential test: the ``action`` body's private logs (:mod:`actionlogs`), each case run
under cf-agent 3.21 and cf-lite, the output and the log files compared; then a second run
(each log grows by one line per outcome), the verbose lines of the logs, and the
``udp_syslog`` datagrams a loopback listener receives (timestamp, host and pid masked)."""
from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest

from tests.differential import actionlogs, agentmisc, harness

pytestmark = harness.needs_cf_agent

results, test_same_run_as_cf_agent = agentmisc.observed_tests(actionlogs, actionlogs.logs)

_TWICE = ("files_create-files-fix", "files_copy_delete-one_file-fix", "commands-files-fix",
          "processes-files-fix", "packages-files-fix", "files_edit-files-fix",
          "bad_destinations", "locked")


def _policy(tmp_path: Path, name: str) -> Path:
    files = actionlogs.CASES[actionlogs.NAMES.index(name)][1]
    return harness.write_policy(tmp_path / "promises.cf", files["promises.cf"])


@pytest.mark.parametrize("name", _TWICE)
def test_second_run_as_cf_agent(tmp_path: Path, name: str) -> None:
    policy = _policy(tmp_path, name)
    for _ in range(2):
        ref, lite = harness.run_both(tmp_path, policy, ["-I"])
    ref_logs = actionlogs.logs(tmp_path / "ref-workdir")
    assert ref_logs or name == "locked"
    assert actionlogs.logs(tmp_path / "lite-workdir") == ref_logs
    lines = [agentmisc.observe(r.stdout, r.stderr, r.returncode, str(tmp_path / wd))
             for r, wd in ((ref, "ref-workdir"), (lite, "lite-workdir"))]
    assert lines[1] == lines[0]


_VERBOSE = re.compile(r"log file|Logging string|private log|syslog|L: ")


@pytest.mark.parametrize("name", ["files_create-files-fix", "bad_destinations",
                                  "syslog_unresolved", "commands-one_file-fix"])
def test_verbose_lines_as_cf_agent(tmp_path: Path, name: str) -> None:
    policy = _policy(tmp_path, name)
    ref, lite = harness.run_both(tmp_path, policy, ["-v"])

    def said(run: object, wd: str) -> list[str]:
        out = (run.stdout + run.stderr).replace(str(tmp_path / wd), "WORKDIR")  # type: ignore
        return [line.split(": ", 1)[1] for line in out.splitlines()
                if _VERBOSE.search(line) and ": " in line
                and not line.split(": ", 1)[1].startswith(("Setting syslog", "SET Syslog"))]
    assert said(lite, "lite-workdir") == said(ref, "ref-workdir")


_SYSLOG = """
body common control { bundlesequence => { "main" }; syslog_host => "127.0.0.1";
  syslog_port => "$(g.port)"; %(common)s }
%(agent)s
bundle common g { vars: "port" string => "PORT"; "long" string => format("%%1100s", "y"); }
body action u(p) { log_kept => "udp_syslog"; log_repaired => "udp_syslog";
  log_failed => "udp_syslog"; %(priority)s log_string => "msg $(this.promiser) $(p) %(text)s"; }
bundle agent main {
reports:
  "a" action => u("info");
  "b" action => u("debug");
commands:
  "/bin/false" action => u("failed");
  "/bin/true" action => u("repaired");
files:
  "$(sys.workdir)/w" create => "true", action => w;
}
body action w { action_policy => "warn"; log_repaired => "udp_syslog"; log_string => "never"; }
"""
SYSLOG_SHAPES = {
    "plain": {},
    "priorities": {"priority": 'log_priority => "$(p)";'},
    "alert": {"priority": 'log_priority => "alert";'},
    "prefix": {"common": 'output_prefix => "myprefix";'},
    "facility": {"agent": 'body agent control { agentfacility => "LOG_LOCAL3"; }'},
    "daemon": {"agent": 'body agent control { agentfacility => "LOG_DAEMON"; }'},
    "long": {"text": "$(g.long)"},
}
_MASK = re.compile(r"^<(\d+)>\w{3} [ \d]\d \d\d:\d\d:\d\d (\S+) (.*?)\[\d+\]: ")


def _datagrams(sock: socket.socket) -> list[tuple[str, bool]]:
    """Each datagram masked (its first 900 characters) and whether it was cut at 1023
    bytes (where the cut falls depends on the length of the pid)."""
    got = []
    try:
        while True:
            data = sock.recv(65536)
            text = _MASK.sub(lambda m: f"<{m[1]}>STAMP HOST {m[3]}[PID]: ",
                             data.decode(errors="replace"))
            got.append((text[:900], len(data) >= 1023))
    except socket.timeout:
        return got


@pytest.mark.parametrize("shape", sorted(SYSLOG_SHAPES))
@pytest.mark.parametrize("dryrun", [False, True])
def test_udp_syslog_as_cf_agent(tmp_path: Path, shape: str, dryrun: bool) -> None:
    fill = {"common": "", "agent": "", "priority": "", "text": ""}
    fill.update(SYSLOG_SHAPES[shape])
    sent = {}
    for which in ("ref", "lite"):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.bind(("127.0.0.1", 0))
            sock.settimeout(0.5)
            text = (_SYSLOG % fill).replace("PORT", str(sock.getsockname()[1]))
            policy = harness.write_policy(tmp_path / f"{which}.cf", text)
            args = ["-n"] if dryrun else []
            run = harness.run_reference(policy, args, harness.reference_workdir(tmp_path)) \
                if which == "ref" else harness.run_lite(policy, args, tmp_path / "lite-workdir")
            assert run.returncode == 0, run.stdout + run.stderr
            sent[which] = _datagrams(sock)
    assert sent["ref"] or dryrun
    assert sent["lite"] == sent["ref"]
