"""The installable product: a wheel built from this tree, installed into a fresh venv
outside the repository, runs the shipped default policy and policy that includes the
standard library through $(sys.libdir) (cfpromise.resources)."""
from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from cfpromise import resources
from cfpromise.cli import manpage

REPO = Path(__file__).resolve().parents[2]


def test_libdir_is_inputs_lib_once_it_has_a_standard_library(tmp_path: Path) -> None:
    inputs = tmp_path / "inputs"
    assert resources.libdir(str(inputs)) == resources.share_dir("bundles")
    assert os.path.isfile(os.path.join(resources.libdir(str(inputs)), "stdlib.cf"))
    (inputs / "lib").mkdir(parents=True)
    (inputs / "lib" / "stdlib.cf").write_text("# masterfiles' lib\n")
    assert resources.libdir(str(inputs)) == str(inputs / "lib")


def _installed_env() -> dict[str, str]:
    """The environment without what would put this checkout before the installed wheel."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """bin/ of a fresh venv with the wheel of this tree installed (needs PyPI or a pip cache
    for the build backend and the dependencies)."""
    tmp = tmp_path_factory.mktemp("wheel")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
                            str(tmp / "dist"), str(REPO)], capture_output=True, text=True,
                           timeout=600)
    if build.returncode != 0:
        pytest.skip(f"cannot build a wheel here (needs setuptools and wheel from PyPI): "
                    f"{build.stderr.strip()[-300:]}")
    wheel = next((tmp / "dist").glob("cf_lite-*.whl"))
    venv.EnvBuilder(with_pip=True).create(tmp / "venv")
    bin_ = tmp / "venv" / "bin"
    # (with a PYTHONPATH naming this checkout, pip would take its cf_lite.egg-info for an
    # installed cf-lite and skip the wheel)
    install = subprocess.run([str(bin_ / "python"), "-m", "pip", "install", "-q",
                              "--disable-pip-version-check", str(wheel)],
                             capture_output=True, text=True, timeout=900, env=_installed_env())
    if install.returncode != 0:
        pytest.skip(f"cannot install the wheel's dependencies here: {install.stderr[-300:]}")
    return bin_


def _agent(bin_: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(bin_ / "cf-lite-agent"), "-K", *args], capture_output=True,
                          text=True, cwd=cwd, env=_installed_env(), timeout=120)


def test_wheel_carries_the_library_and_runs_the_default_policy(installed: Path,
                                                                tmp_path: Path) -> None:
    where = subprocess.run([str(installed / "python"), "-c",
                            "from cfpromise import resources; print(resources.share_dir('bundles'))"],
                           capture_output=True, text=True, cwd=tmp_path, env=_installed_env())
    share = Path(where.stdout.strip())
    assert "site-packages" in str(share) and (share / "stdlib.cf").is_file()
    assert not str(share).startswith(str(REPO))
    proc = _agent(installed, tmp_path, "-f", "promises.cf", "-w", str(tmp_path / "wd"))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "wd" / "outputs" / "host_summary.txt").is_file()
    again = _agent(installed, tmp_path, "-f", "promises.cf", "-w", str(tmp_path / "wd"),
                   "--detailed-exitcodes")
    assert again.returncode == 0, again.stdout + again.stderr          # nothing changed


def test_wheel_policy_includes_the_standard_library_by_libdir(installed: Path,
                                                               tmp_path: Path) -> None:
    target = tmp_path / "made.txt"
    policy = tmp_path / "p.cf"
    policy.write_text(f"""
body common control
{{
  inputs => {{ "$(sys.libdir)/stdlib.cf" }};
  bundlesequence => {{ "main" }};
}}
bundle agent main
{{
  files:
      "{target}"
        create => "true",
        perms => m("600"),
        edit_line => insert_lines("from the standard library");
}}
""")
    policy.chmod(0o600)
    proc = _agent(installed, tmp_path, "-f", str(policy), "-w", str(tmp_path / "wd"))
    assert proc.returncode == 0, proc.stderr
    assert target.read_text() == "from the standard library\n"
    assert target.stat().st_mode & 0o777 == 0o600


def test_wheel_installs_units_and_man_pages_naming_its_programs(installed: Path,
                                                                tmp_path: Path) -> None:
    """The units and man pages are package data, and the one install command (run with the
    installed venv's interpreter) writes ExecStart with that venv's programs."""
    root = tmp_path / "root"
    proc = subprocess.run([str(installed / "python"), "-m", "cfpromise.install", "--root",
                           str(root)], capture_output=True, text=True, cwd=tmp_path,
                          env=_installed_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    units = root / "etc" / "systemd" / "system"
    assert sorted(os.listdir(units)) == ["cf-lite-agent.service", "cf-lite-agent.timer",
                                         "cf-lite-hub.service", "cf-lite-monitord.service",
                                         "cf-lite-serverd.service"]
    serverd = (units / "cf-lite-serverd.service").read_text()
    assert f"ExecStart={installed}/cf-lite-serverd -F\n" in serverd
    assert f"ExecStart={installed}/cf-lite-agent -f promises.cf" in \
        (units / "cf-lite-agent.service").read_text()
    pages = os.listdir(root / "usr" / "local" / "share" / "man" / "man8")
    assert sorted(pages) == sorted(f"{p}.8" for p in manpage.PROGRAMS)
