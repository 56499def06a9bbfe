"""The legacy ``package_method => apt_get`` of the standard library against the real apt.

As root where apt can download: ``sl`` is installed through masterfiles'
``apt_get`` package_method (bulk ``apt-get install``), a second run is kept
without an ``Installing`` step, ``package_policy => "delete"`` removes it.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STDLIB = ROOT / "bundles" / "stdlib.cf"

pytestmark = [
    pytest.mark.skipif(not shutil.which("dpkg-query") or not shutil.which("apt-get"),
                       reason="needs dpkg and apt-get (Debian)"),
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root to install packages"),
]


def installed(name: str) -> bool:
    proc = subprocess.run(["dpkg-query", "-W", "--showformat", "${Status}", name],
                          capture_output=True, text=True)
    return proc.returncode == 0 and proc.stdout.endswith(" installed")


def agent(tmp_path: Path, policy: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "p.cf"
    path.write_text(f'''
body common control {{ inputs => {{ "{STDLIB}" }}; bundlesequence => {{ "main" }}; }}
bundle agent main
{{
  packages:
      "sl" package_policy => "{policy}", package_method => apt_get, classes => r("sl");
  reports:
    sl_kept:: "sl kept";
    sl_repaired:: "sl repaired";
    sl_failed:: "sl failed";
}}
body classes r(p)
{{
  promise_kept => {{ "$(p)_kept" }};
  promise_repaired => {{ "$(p)_repaired" }};
  repair_failed => {{ "$(p)_failed" }};
}}
''')
    # apt waits for a dpkg lock another apt holds (another test, unattended upgrades)
    # instead of failing at once: APT_CONFIG passes through the body's /usr/bin/env
    config = tmp_path / "apt.conf"
    config.write_text('DPkg::Lock::Timeout "600";\n')
    return subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-I", "-f",
                           str(path), "-w", str(tmp_path / "wd")],
                          capture_output=True, text=True, timeout=900,
                          env={**os.environ, "APT_CONFIG": str(config)})


def test_apt_get_package_method_installs_keeps_and_deletes_sl(tmp_path: Path) -> None:
    if installed("sl"):
        subprocess.run(["apt-get", "remove", "-y", "-q", "sl"], capture_output=True, check=True)
    try:
        first = agent(tmp_path, "add")
        text = first.stdout + first.stderr
        if not installed("sl") and ("Unable to locate package" in text
                                    or "Could not resolve" in text):
            pytest.skip("needs apt to download from Debian (sl)")
        assert installed("sl"), text
        assert "Installing sl..." in text and "R: sl repaired" in first.stdout, text

        second = agent(tmp_path, "add")
        assert "R: sl kept" in second.stdout, second.stdout + second.stderr
        assert "Installing" not in second.stdout and "repaired" not in second.stdout

        third = agent(tmp_path, "delete")
        assert "R: sl repaired" in third.stdout, third.stdout + third.stderr
        assert not installed("sl")
    finally:
        if installed("sl"):
            subprocess.run(["apt-get", "remove", "-y", "-q", "sl"], capture_output=True)
