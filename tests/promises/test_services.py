"""services promises and the standard_services bundle, end to end through cf-lite-agent.

* the promise type: which bundle is called with what (service_bundle or
  default:standard_services(promiser, policy)), ``$(this.service_policy)``,
  outcomes, warn-only and dry run, the 3.21 checks (self dependency, windows);
* standard_services on SysV init: a tiny daemon of the test's own with its init
  script in a scratch directory (``def.services_init_dir``), really started,
  reloaded, stopped; boot start through update-rc.d with a uniquely named script
  in /etc/init.d (root only, removed afterwards);
* standard_services on systemd: the command lines, against a fake systemctl
  (``def.services_systemctl``) that keeps unit state in files (systemd is not
  PID 1 here).
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SERVICES_CF = REPO / "bundles" / "services.cf"


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
def daemon(tmp_path: Path):  # type: ignore[no-untyped-def]
    init_dir = tmp_path / "init.d"
    init_dir.mkdir()
    d = Daemon(tmp_path, init_dir, "cflt_svc")
    yield d
    d.kill()


def sysv_policy(init_dir: Path, state: str) -> str:
    return f"""
body common control {{ inputs => {{ "{SERVICES_CF}" }}; }}
bundle common def
{{
  vars:
      "services_manager" string => "sysvinit";
      "services_init_dir" string => "{init_dir}";
}}
bundle agent main
{{
  services:
      "cflt_svc" service_policy => "{state}", classes => c("svc");
  reports:
      "outcome $(cl)";
  vars:
      "cl" slist => classesmatching("svc_(kept|repaired|failed)");
}}
""" + CLASSES


def test_sysv_start_reload_custom_stop_converge(tmp_path: Path, daemon: Daemon) -> None:
    run = lambda state, *a: agent(tmp_path, sysv_policy(daemon.init_dir, state), *a)  # noqa: E731
    proc = run("start", "-n")
    assert daemon.pid is None and "Would execute" in proc.stdout + proc.stderr
    proc = run("start")
    assert reports(proc) == ["outcome svc_repaired"], proc.stdout
    assert daemon.pid is not None
    first = daemon.pid
    assert reports(run("start")) == ["outcome svc_kept"]      # second run: nothing to do
    assert daemon.pid == first
    assert reports(run("reload")) == ["outcome svc_repaired"]
    assert reports(run("rotate")) == ["outcome svc_repaired"]  # a custom word
    assert daemon.log() == ["start", "reload", "rotate"]
    assert reports(run("stop")) == ["outcome svc_repaired"]
    assert daemon.pid is None
    assert reports(run("stop")) == ["outcome svc_kept"]
    assert reports(run("reload")) == ["outcome svc_kept"]      # not running: nothing to reload
    assert daemon.log() == ["start", "reload", "rotate", "stop"]


def test_sysv_missing_init_script_is_not_kept(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    proc = agent(tmp_path, sysv_policy(tmp_path / "empty", "start"))
    assert reports(proc) == ["outcome svc_failed"], proc.stdout
    proc = agent(tmp_path, sysv_policy(tmp_path / "empty", "stop"))
    assert reports(proc) == ["outcome svc_kept"], proc.stdout


@pytest.fixture
def etc_init_d_daemon(tmp_path: Path):  # type: ignore[no-untyped-def]
    if os.geteuid() != 0:
        pytest.skip("needs root (writes /etc/init.d and /etc/rc?.d)")
    updatercd = shutil.which("update-rc.d") or "/usr/sbin/update-rc.d"
    if not os.access(updatercd, os.X_OK) or not Path("/etc/init.d").is_dir():
        pytest.skip("needs update-rc.d and /etc/init.d (Debian SysV tools)")
    d = Daemon(tmp_path, Path("/etc/init.d"), f"cflt_{uuid.uuid4().hex[:8]}")
    yield d
    d.kill()
    subprocess.run([updatercd, "-f", d.name, "remove"], capture_output=True)
    d.script.unlink(missing_ok=True)


def _links(name: str, kind: str) -> list[Path]:
    return sorted(Path("/etc").glob(f"rc[2345].d/{kind}[0-9][0-9]{name}"))


def test_sysv_boot_start_through_update_rc_d(tmp_path: Path, etc_init_d_daemon: Daemon) -> None:
    d = etc_init_d_daemon
    policy = lambda state: f"""
body common control {{ inputs => {{ "{SERVICES_CF}" }}; }}
bundle common def {{ vars: "services_manager" string => "sysvinit"; }}
bundle agent main
{{
  services:
      "{d.name}" service_policy => "{state}", classes => c("svc");
  reports:
      "outcome $(cl)";
  vars:
      "cl" slist => classesmatching("svc_(kept|repaired|failed)");
}}
""" + CLASSES  # noqa: E731
    assert reports(agent(tmp_path, policy("enable"))) == ["outcome svc_repaired"]
    assert len(_links(d.name, "S")) == 4 and d.pid is None    # enable: boot only
    assert reports(agent(tmp_path, policy("enable"))) == ["outcome svc_kept"]
    assert reports(agent(tmp_path, policy("disable"))) == ["outcome svc_repaired"]
    assert _links(d.name, "S") == [] and len(_links(d.name, "K")) == 4
    assert reports(agent(tmp_path, policy("disable"))) == ["outcome svc_kept"]
    assert reports(agent(tmp_path, policy("start"))) == ["outcome svc_repaired"]
    assert len(_links(d.name, "S")) == 4 and d.pid is not None
    assert reports(agent(tmp_path, policy("start"))) == ["outcome svc_kept"]
    assert reports(agent(tmp_path, policy("stop"))) == ["outcome svc_repaired"]
    assert _links(d.name, "S") == [] and d.pid is None


# -- standard_services on systemd (a fake systemctl) -------------------------------------------
FAKE_SYSTEMCTL = """#!/bin/sh
D={state}
echo "$*" >> "$D/calls"
set -- $(echo "$*" | sed -e 's/--quiet//g' -e 's/--property=[^ ]*//' -e 's/--value//')
case "$1" in
  is-active) [ -f "$D/active" ] ;;
  is-enabled) if [ -f "$D/masked" ]; then echo masked; exit 1; fi
              if [ -f "$D/enabled" ]; then echo enabled; exit 0; fi
              echo disabled; exit 1 ;;
  show) if [ -f "$D/needreload" ]; then echo yes; else echo no; fi ;;
  start|restart|reload-or-restart)
        if [ -f "$D/masked" ]; then echo "Failed to start $2.service: Unit $2.service is masked." >&2; exit 1; fi
        touch "$D/active" ;;
  stop) rm -f "$D/active" ;;
  enable) touch "$D/enabled" ;;
  disable) rm -f "$D/enabled" ;;
  daemon-reload) rm -f "$D/needreload" ;;
esac
"""


@pytest.fixture
def systemctl(tmp_path: Path) -> Path:
    state = tmp_path / "unit"
    state.mkdir()
    fake = tmp_path / "systemctl"
    fake.write_text(FAKE_SYSTEMCTL.format(state=state))
    fake.chmod(0o755)
    return state


def systemd_run(tmp_path: Path, state: str) -> tuple[list[str], list[str]]:
    calls = tmp_path / "unit" / "calls"
    calls.unlink(missing_ok=True)
    proc = agent(tmp_path, f"""
body common control {{ inputs => {{ "{SERVICES_CF}" }}; }}
bundle common def
{{
  vars:
      "services_manager" string => "systemd";
      "services_systemctl" string => "{tmp_path / 'systemctl'}";
}}
bundle agent main
{{
  services:
      "web" service_policy => "{state}", classes => c("svc");
  reports:
      "outcome $(cl)";
  vars:
      "cl" slist => classesmatching("svc_(kept|repaired|failed)");
}}
""" + CLASSES)
    made = [c for c in calls.read_text().splitlines()
            if not c.split()[0 if not c.startswith("--") else 1].startswith(("is-", "show"))] \
        if calls.exists() else []
    return reports(proc), [" ".join(w for w in c.split() if w != "--quiet") for c in made]


def test_systemd_start_means_active_and_enabled(tmp_path: Path, systemctl: Path) -> None:
    assert systemd_run(tmp_path, "start") == (["outcome svc_repaired"],
                                              ["start web", "enable web"])
    assert systemd_run(tmp_path, "start") == (["outcome svc_kept"], [])
    assert systemd_run(tmp_path, "stop") == (["outcome svc_repaired"], ["stop web", "disable web"])
    assert systemd_run(tmp_path, "stop") == (["outcome svc_kept"], [])


def test_systemd_enable_disable_restart_reload_custom(tmp_path: Path, systemctl: Path) -> None:
    assert systemd_run(tmp_path, "enable") == (["outcome svc_repaired"], ["enable web"])
    assert systemd_run(tmp_path, "enabled") == (["outcome svc_kept"], [])
    assert systemd_run(tmp_path, "reload") == (["outcome svc_kept"], [])   # not active
    assert systemd_run(tmp_path, "restart") == (["outcome svc_repaired"], ["restart web"])
    assert systemd_run(tmp_path, "reload") == (["outcome svc_repaired"],
                                               ["reload-or-restart web"])
    assert systemd_run(tmp_path, "try-restart") == (["outcome svc_repaired"],
                                                    ["try-restart web"])
    assert systemd_run(tmp_path, "disable") == (["outcome svc_repaired"], ["disable web"])
    assert (systemctl / "active").exists()                               # disable: boot only


def test_systemd_daemon_reload_first_and_masked_unit(tmp_path: Path, systemctl: Path) -> None:
    (systemctl / "needreload").touch()
    assert systemd_run(tmp_path, "start") == (["outcome svc_repaired"],
                                              ["daemon-reload", "start web", "enable web"])
    (systemctl / "active").unlink()
    (systemctl / "enabled").unlink()
    (systemctl / "masked").touch()
    outcome, made = systemd_run(tmp_path, "start")
    assert outcome == ["outcome svc_failed"] and "start web" in made
    assert systemd_run(tmp_path, "stop") == (["outcome svc_kept"], [])   # masked: nothing to undo


def test_systemd_missing_systemctl_is_not_kept_naming_it(tmp_path: Path, systemctl: Path) -> None:
    (tmp_path / "systemctl").unlink()
    proc = agent(tmp_path, f"""
body common control {{ inputs => {{ "{SERVICES_CF}" }}; }}
bundle common def
{{
  vars:
      "services_manager" string => "systemd";
      "services_systemctl" string => "{tmp_path / 'systemctl'}";
}}
bundle agent main
{{
  services:
      "web" service_policy => "stop", classes => c("svc");
  reports:
      "outcome $(cl)";
  vars:
      "cl" slist => classesmatching("svc_(kept|repaired|failed)");
}}
""" + CLASSES)
    assert reports(proc) == ["outcome svc_failed"]
    errors = [line for line in proc.stdout.splitlines() if "error:" in line]
    assert f"Proposed executable file '{tmp_path / 'systemctl'}' doesn't exist" in errors[0]
    assert "services promise 'web'" in errors[-1]
