"""python -m cfpromise.install: the systemd units and man pages, installed into a root
with ExecStart naming the installed programs, and the units accepted by systemd."""
from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cfpromise import install
from cfpromise.cli import manpage

UNITS = ["cf-lite-agent.service", "cf-lite-agent.timer", "cf-lite-hub.service",
         "cf-lite-monitord.service", "cf-lite-serverd.service"]


def _bindir(tmp_path: Path) -> Path:
    """A directory of (fake) installed programs, somewhere no default would guess."""
    bindir = tmp_path / "opt" / "bin"
    bindir.mkdir(parents=True)
    for program in manpage.PROGRAMS:
        (bindir / program).write_text("#!/bin/sh\nexit 0\n")
        (bindir / program).chmod(0o755)
    return bindir


def _unit(path: Path) -> configparser.ConfigParser:
    cfg = configparser.ConfigParser(strict=False, interpolation=None)
    cfg.optionxform = str       # type: ignore[assignment,method-assign]
    cfg.read(path)
    return cfg


def test_install_writes_units_and_pages_with_the_programs_paths(tmp_path: Path) -> None:
    bindir = _bindir(tmp_path)
    root = tmp_path / "root"
    assert install.main(["--root", str(root), "--bindir", str(bindir)]) == 0
    units = root / "etc" / "systemd" / "system"
    assert sorted(os.listdir(units)) == UNITS
    for name in UNITS:
        text = (units / name).read_text()
        assert "@BINDIR@" not in text
        assert oct((units / name).stat().st_mode & 0o777) == "0o644"
    serverd = _unit(units / "cf-lite-serverd.service")["Service"]
    assert serverd["ExecStart"] == f"{bindir}/cf-lite-serverd -F"
    assert serverd["Type"] == "simple" and serverd["Restart"] == "on-failure"
    assert serverd["ExecReload"] == "/bin/kill -HUP $MAINPID"
    monitord = _unit(units / "cf-lite-monitord.service")["Service"]
    assert monitord["ExecStart"] == f"{bindir}/cf-lite-monitord -F"
    assert monitord["ExecReload"] == "/bin/kill -HUP $MAINPID"
    hub = _unit(units / "cf-lite-hub.service")["Service"]
    assert hub["ExecStart"] == f"{bindir}/cf-lite-hub -F collect"
    agent = _unit(units / "cf-lite-agent.service")["Service"]
    assert agent["Type"] == "oneshot"
    assert agent["ExecStart"] == f"{bindir}/cf-lite-agent -f promises.cf --timestamp --report json"
    # the agent must change the host: no sandboxing at all
    assert not {k for k in agent if k.startswith(("Protect", "Private", "NoNew", "Restrict"))}
    timer = _unit(units / "cf-lite-agent.timer")["Timer"]
    assert timer["OnCalendar"] == "*:0/5" and timer["RandomizedDelaySec"]
    man8 = root / "usr" / "local" / "share" / "man" / "man8"
    assert sorted(os.listdir(man8)) == sorted(f"{p}.8" for p in manpage.PROGRAMS)
    assert (man8 / "cf-lite-agent.8").read_text() == manpage.page("cf-lite-agent")


def test_unit_and_man_dirs_and_dry_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bindir = _bindir(tmp_path)
    root = tmp_path / "root"
    assert install.main(["--root", str(root), "--bindir", str(bindir), "--unit-dir",
                         "/lib/systemd/system", "--man-dir", "/usr/share/man", "-n"]) == 0
    assert not root.exists()
    out = capsys.readouterr().out
    assert f"would write {root}/lib/systemd/system/cf-lite-serverd.service" in out
    assert f"would write {root}/usr/share/man/man8/cf-lite-net.8" in out
    assert install.main(["--root", str(root), "--bindir", str(bindir), "--unit-dir",
                         "/lib/systemd/system", "--man-dir", "/usr/share/man"]) == 0
    assert (root / "lib/systemd/system/cf-lite-agent.timer").is_file()
    assert (root / "usr/share/man/man8/cf-lite-net.8").is_file()


def test_install_refuses_a_bindir_without_the_programs(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert install.main(["--root", str(tmp_path / "root"), "--bindir", str(tmp_path)]) == 1
    assert "has no cf-lite-agent" in capsys.readouterr().err
    assert not (tmp_path / "root").exists()


def test_default_bindir_is_this_installations() -> None:
    """Without --bindir, ExecStart names the programs beside the running interpreter
    (this checkout's .venv/bin), where pip put them."""
    bindir = install.installed_bindir()
    assert bindir is not None
    assert Path(bindir, "cf-lite-serverd").is_file()
    assert Path(bindir).resolve() == Path(sys.executable).parent.resolve() or \
        Path(bindir) == Path(install.sysconfig.get_path("scripts"))


def test_systemd_analyze_accepts_the_units(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if not analyze:
        pytest.skip("systemd-analyze is not installed (package systemd)")
    bindir = install.installed_bindir()       # real programs: verify checks ExecStart
    assert bindir is not None
    root = tmp_path / "root"
    assert install.main(["--root", str(root), "--bindir", bindir]) == 0
    units = root / "etc" / "systemd" / "system"
    env = dict(os.environ, MANPATH=str(root / "usr" / "local" / "share" / "man"),
               SYSTEMD_LOG_COLOR="0")
    proc = subprocess.run([analyze, "verify", *UNITS], cwd=units, capture_output=True,
                          text=True, env=env, timeout=120)
    # verify reports an unknown directive or a bad value on stderr and still exits 0
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    # and it does see a mistake
    bad = units / "cf-lite-agent.timer"
    bad.write_text(bad.read_text().replace("[Timer]", "[Timer]\nOnCalender=*:0/5"))
    proc = subprocess.run([analyze, "verify", "--man=no", "cf-lite-agent.timer"], cwd=units,
                          capture_output=True, text=True, env=env, timeout=120)
    assert "OnCalender" in proc.stderr
