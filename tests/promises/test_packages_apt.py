"""The packages promise against the real package manager (Debian: dpkg, apt-get).

* as root where apt can download: cf-lite's ``apt_get`` module installs ``sl``,
  a second run is kept without asking the module to install (its requests are
  logged by a wrapper), a promise of ``policy => "absent"`` removes it through
  masterfiles' module;
* masterfiles' rendered ``apt_get`` module (modules/packages/vendored/
  apt_get.mustache) runs unchanged under cf-lite: it lists the installed
  packages (the cache), keeps an installed package, and removes ``sl``.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cfpromise.promises.packages.protocol import SHIPPED

ROOT = Path(__file__).resolve().parents[2]
STDLIB = ROOT / "bundles" / "stdlib.cf"
VENDORED = Path("/usr/share/cfengine3/masterfiles/modules/packages/vendored/apt_get.mustache")

needs_dpkg = pytest.mark.skipif(not shutil.which("dpkg-query") or not shutil.which("apt-get"),
                                reason="needs dpkg and apt-get (Debian)")
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to install packages")


def installed(name: str) -> bool:
    proc = subprocess.run(["dpkg-query", "-W", "--showformat", "${Status}", name],
                          capture_output=True, text=True)
    return proc.returncode == 0 and proc.stdout.endswith(" installed")


def agent(tmp_path: Path, body: str, *args: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "p.cf"
    path.write_text(f"""
body common control
{{
  inputs => {{ "{STDLIB}" }};
  bundlesequence => {{ "main" }};
}}
bundle agent main
{{
{body}
}}
""")
    return subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f", str(path),
                           "-w", str(tmp_path / "wd"), "-I", *args],
                          capture_output=True, text=True, timeout=900)


def logging_module(tmp_path: Path, target: list[str]) -> Path:
    """WORKDIR/modules/packages/apt_get: logs each request, then runs ``target``."""
    modules = tmp_path / "wd" / "modules" / "packages"
    modules.mkdir(parents=True, exist_ok=True)
    log = tmp_path / "requests.log"
    wrapper = modules / "apt_get"
    wrapper.write_text(f'#!/bin/sh\necho "$1" >> "{log}"\nexec {" ".join(target)} "$@"\n')
    wrapper.chmod(0o755)
    return log


def render_masterfiles_module(tmp_path: Path) -> Path:
    """masterfiles' update policy renders the template into WORKDIR/modules/packages;
    apt_get.mustache has no tags, so the rendering is the file itself."""
    text = VENDORED.read_text()
    assert "{{" not in text
    target = tmp_path / "masterfiles_apt_get"
    target.write_text(text)
    target.chmod(0o755)
    return target


PRESENT = '''  packages:
      "sl" policy => "present", package_module => apt_get;'''


@needs_dpkg
@needs_root
def test_apt_get_installs_keeps_and_removes_sl(tmp_path: Path) -> None:
    if installed("sl"):
        subprocess.run(["apt-get", "remove", "-y", "-q", "sl"], capture_output=True, check=True)
    log = logging_module(tmp_path, [sys.executable, os.path.join(SHIPPED, "apt_get")])
    try:
        first = agent(tmp_path, PRESENT)
        if not installed("sl") and "Unable to locate package" in first.stdout + first.stderr:
            pytest.skip("needs apt to download from Debian (sl not found)")
        assert "Successfully installed package 'sl'" in first.stdout, first.stdout + first.stderr
        assert installed("sl")
        assert log.read_text().split().count("repo-install") == 1
        log.unlink()

        second = agent(tmp_path, PRESENT, "-v")
        assert "Package 'sl' already installed" in second.stdout
        requests = log.read_text().split()
        assert "repo-install" not in requests and "list-installed" in requests

        # removed through masterfiles' module (the library's package_absent, as
        # masterfiles', goes through the legacy package_method apt_get_permissive)
        if VENDORED.is_file():
            logging_module(tmp_path, [sys.executable, str(render_masterfiles_module(tmp_path))])
        third = agent(tmp_path, '''  packages:
      "sl" policy => "absent", package_module => apt_get;''')
        assert "Successfully removed package 'sl'" in third.stdout, third.stdout + third.stderr
        assert not installed("sl")
        assert "remove" in log.read_text().split()
    finally:
        if installed("sl"):
            subprocess.run(["apt-get", "remove", "-y", "-q", "sl"], capture_output=True)


@needs_dpkg
@pytest.mark.skipif(not VENDORED.is_file(), reason="needs masterfiles (cfengine3 package)")
def test_masterfiles_rendered_apt_get_runs_unchanged(tmp_path: Path) -> None:
    module = render_masterfiles_module(tmp_path)
    log = logging_module(tmp_path, [sys.executable, str(module)])
    proc = agent(tmp_path, '''  packages:
      "dpkg" policy => "present", package_module => apt_get;
      "cf-lite-no-such-package" policy => "absent", package_module => apt_get;''', "-v")
    assert "Package 'dpkg' already installed" in proc.stdout, proc.stdout + proc.stderr
    requests = log.read_text().split()
    assert {"supports-api-version", "get-package-data", "list-installed"} <= set(requests)
    assert "repo-install" not in requests and "remove" not in requests
    cache = (tmp_path / "wd" / "state" / "packages_installed_apt_get.json").read_text()
    assert '["dpkg", ' in cache
