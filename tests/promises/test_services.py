"""services promises and the standard_services bundle, end to end through cf-lite-agent.

* the promise type: which bundle is called with what (service_bundle or
  default:standard_services(promiser, policy)), ``$(this.service_policy)``,
  outcomes, warn-only and dry run, the 3.21 checks (self dependency, windows);
* standard_services on SysV init as CFEngine 3.21's library does it (through the
  ``service`` command on a host without systemd and chkconfig): a tiny daemon of
  the test's own with a uniquely named init script in /etc/init.d (root only,
  removed afterwards), really started, reloaded, stopped.  The same against
  cf-agent 3.21 and masterfiles: tests/differential/test_stdlib_differential.py.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def agent(tmp_path: Path, policy: str, *args: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "p.cf"
    path.write_text(policy)
    path.chmod(0o600)
    return subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f", str(path),
                           "-w", str(tmp_path / "wd"), *args],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)


def reports(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line[3:] for line in proc.stdout.splitlines() if line.startswith("R: ")]


CLASSES = """
body classes c(p)
{
  promise_kept => { "$(p)_kept" };
  promise_repaired => { "$(p)_repaired" };
  repair_failed => { "$(p)_failed" };
}
"""


# -- the promise type ---------------------------------------------------------------------
def test_service_bundle_receives_promiser_and_policy_word(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  services:
      "svc_a" service_policy => "start", service_method => m, classes => c("a");
      "svc_b" service_policy => "try-restart", service_method => m, classes => c("b");
      "svc_c" service_policy => "stop", classes => c("c");
      "svc_d" service_method => m;          # 3.21's default policy: start
  reports:
      "class $(cl)";
  vars:
      "cl" slist => sort(classesmatching("[abc]_(kept|repaired|failed)"), "lex");
}
body service_method m
{
  service_bundle => mine("$(this.promiser)", "$(this.service_policy)");
  service_autostart_policy => "boot_time";
  service_dependence_chain => "start_parent_services";
  service_type => "generic";
}
bundle agent mine(s, p)
{
  reports: "mine $(s) $(p)";
}
bundle agent standard_services(service, state)
{
  commands: "/bin/true";
  reports: "std $(service) $(state)";
}
""" + CLASSES)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert reports(proc) == ["mine svc_a start", "mine svc_b try-restart", "std svc_c stop",
                             "mine svc_d start", "class a_kept", "class b_kept", "class c_repaired"]


def test_missing_standard_services_stops_the_run_like_cf_agent(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  services:
      "svc" service_policy => "start";
}
""")
    assert proc.returncode == 1
    assert "bundle 'default:standard_services' that was apparently not defined" in proc.stdout


def test_standard_services_from_another_namespace(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
body common control { bundlesequence => { "ns:b" }; }
bundle agent standard_services(service, state) { reports: "default std $(service) $(state)"; }
body file control { namespace => "ns"; }
bundle agent b { services: "svc" service_policy => "reload"; }
""")
    assert reports(proc) == ["default std svc reload"], proc.stdout


def test_warn_only_does_not_call_and_dry_run_only_warns(tmp_path: Path) -> None:
    marker = tmp_path / "touched"
    policy = f"""
bundle agent main
{{
  services:
      "svc" service_policy => "start", action => w, classes => c("w");
      "svc2" service_policy => "start", classes => c("n");
  reports:
      "class $(cl)";
  vars:
      "cl" slist => sort(classesmatching("[wn]_(kept|repaired|failed)"), "lex");
}}
body action w {{ action_policy => "warn"; }}
bundle agent standard_services(service, state)
{{
  files: "{marker}" create => "true";
}}
""" + CLASSES
    proc = agent(tmp_path, policy)
    assert "Bundle 'default:standard_services' should be invoked, but only a warning was " \
           "promised" in proc.stdout
    assert reports(proc) == ["class n_repaired", "class w_failed"]
    marker.unlink()
    proc = agent(tmp_path, policy, "-n")
    assert not marker.exists()
    assert "class n_failed" in proc.stdout and "class w_failed" in proc.stdout


def test_self_dependency_and_windows_type_are_not_actuated(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  services:
      "svc" service_policy => "start", service_dependencies => { "other", "svc" },
        classes => c("d");
      "win" service_policy => "start", service_method => w, classes => c("w");
  reports:
      "classes: $(cl)";
  vars:
      "cl" string => join(",", classesmatching("[dw]_.*"));
}
body service_method w { service_type => "windows"; }
bundle agent standard_services(service, state) { reports: "called $(service)"; }
""" + CLASSES, "-I")
    assert "Service promiser 'svc' has itself as dependency" in proc.stdout
    assert "Service type windows not supported on this platform." in proc.stdout
    assert reports(proc) == ["classes: "]


def test_report_json_names_the_service_and_state(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  services: "svc" service_policy => "restart";
}
bundle agent standard_services(service, state) { commands: "/bin/true"; }
""", "--report", f"json={tmp_path / 'r.json'}")
    assert proc.returncode == 0, proc.stdout
    record = next(p for p in json.loads((tmp_path / "r.json").read_text())["promises"]
                  if p["promise_type"] == "services")
    assert record["outcome"] == "repaired"
    assert record["changes"][0]["kind"] == "service"
    assert (record["changes"][0]["service"], record["changes"][0]["policy"]) == ("svc", "restart")


# -- standard_services on SysV init ---------------------------------------------------------
INIT_SCRIPT = """#!/bin/sh
### BEGIN INIT INFO
# Provides:          {name}
# Required-Start:
# Required-Stop:
# Default-Start:     2 3 4 5
# Default-Stop:      0 1 6
# Short-Description: cf-lite test daemon
### END INIT INFO
PIDFILE={scratch}/{name}.pid
LOG={scratch}/{name}.log
running() {{ [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }}
case "$1" in
  start) echo start >> "$LOG"; running && exit 0
         nohup sleep 600 </dev/null >/dev/null 2>&1 &
         echo $! > "$PIDFILE" ;;
  stop) echo stop >> "$LOG"; running && kill "$(cat "$PIDFILE")"; rm -f "$PIDFILE" ;;
  status) running ;;
  restart) "$0" stop; "$0" start ;;
  reload) echo reload >> "$LOG" ;;
  *) echo "$1" >> "$LOG" ;;
esac
"""


class Daemon:
    def __init__(self, scratch: Path, init_dir: Path, name: str) -> None:
        self.scratch, self.init_dir, self.name = scratch, init_dir, name
        self.script = init_dir / name
        self.script.write_text(INIT_SCRIPT.format(name=name, scratch=scratch))
        self.script.chmod(0o755)

    @property
    def pid(self) -> int | None:
        try:
            pid = int((self.scratch / f"{self.name}.pid").read_text())
            os.kill(pid, 0)
            return pid
        except (OSError, ValueError):
            return None

    def log(self) -> list[str]:
        path = self.scratch / f"{self.name}.log"
        return path.read_text().split() if path.exists() else []

    def kill(self) -> None:
        pid = self.pid
        if pid is not None:
            os.kill(pid, signal.SIGTERM)


@pytest.fixture
def etc_init_d_daemon(tmp_path: Path):  # type: ignore[no-untyped-def]
    if os.geteuid() != 0:
        pytest.skip("needs root (writes a uniquely named script in /etc/init.d)")
    if not Path("/etc/init.d").is_dir():
        pytest.skip("needs /etc/init.d (SysV init scripts)")
    d = Daemon(tmp_path, Path("/etc/init.d"), f"cflt_{uuid.uuid4().hex[:8]}")
    yield d
    d.kill()
    d.script.unlink(missing_ok=True)


def _links(name: str) -> list[Path]:
    return sorted(Path("/etc").glob(f"rc[0-6S].d/[SK][0-9][0-9]{name}"))


def std_policy(name: str, state: str) -> str:
    return f"""
body common control {{ inputs => {{ "{REPO / 'bundles' / 'stdlib.cf'}" }}; }}
bundle agent main
{{
  services:
      "{name}" service_policy => "{state}", classes => c("svc");
  reports:
      "outcome $(cl)";
  vars:
      "cl" slist => classesmatching("svc_(kept|repaired|failed)");
}}
""" + CLASSES


SERVICE_CMD = Path("/usr/sbin/service")


def test_sysv_through_the_service_command(tmp_path: Path, etc_init_d_daemon: Daemon) -> None:
    """As CFEngine 3.21's library on a host without systemd and chkconfig: the `service`
    command, start only when `status` fails (counted kept when it exits 0), reload and
    stop only when it succeeds, and boot links never touched."""
    if not SERVICE_CMD.exists():
        pytest.skip("needs /usr/sbin/service (Debian's init-system-helpers)")
    if Path("/sbin/chkconfig").exists() or Path("/run/systemd/system").exists():
        pytest.skip("this host has chkconfig or systemd: another layer is used")
    d = etc_init_d_daemon
    run = lambda state: reports(agent(tmp_path, std_policy(d.name, state)))  # noqa: E731
    assert run("start") == ["outcome svc_kept"]
    assert d.pid is not None
    first = d.pid
    assert run("start") == ["outcome svc_kept"] and d.pid == first
    assert run("reload") == ["outcome svc_kept"]
    assert run("stop") == ["outcome svc_kept"] and d.pid is None
    assert run("reload") == ["outcome svc_kept"]           # not running: nothing to reload
    assert run("restart") == ["outcome svc_kept"] and d.pid is not None
    assert run("disable") == ["outcome svc_kept"] and d.pid is None
    assert d.log() == ["start", "reload", "stop", "stop", "start", "stop"]
    assert _links(d.name) == []


def test_sysv_missing_init_script_is_not_kept(tmp_path: Path) -> None:
    if not SERVICE_CMD.exists() or Path("/sbin/chkconfig").exists() \
            or Path("/run/systemd/system").exists():
        pytest.skip("needs the `service` layer (no systemd, no chkconfig)")
    name = f"cflt_absent_{uuid.uuid4().hex[:8]}"
    assert reports(agent(tmp_path, std_policy(name, "start"))) == ["outcome svc_failed"]
    assert reports(agent(tmp_path, std_policy(name, "stop"))) == ["outcome svc_kept"]
