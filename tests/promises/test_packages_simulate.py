"""Packages under --simulate (recorded, never made), and the package_inventory caches
after legacy package_method changes (3.21's UpdatePackagesCache timing)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.promises.test_packages import agent, calls, host, installed, policy  # noqa: F401

CF_AGENT = "/usr/bin/cf-agent"


def simulate(tmp_path: Path, text: str, mode: str) -> subprocess.CompletedProcess[str]:
    return agent(tmp_path, text, f"--simulate={mode}")


def test_simulate_records_installs_and_removals_without_calling_the_module(
        tmp_path: Path, host: Path) -> None:  # noqa: F811
    (host / "installed.txt").write_text("vim 9.0 amd64\nnano 7.2 amd64\n")
    promises = '''      "sl" policy => "present", package_module => fake;
      "vim" policy => "absent", package_module => fake;
      "nano" policy => "present", package_module => fake;
      "gone" policy => "absent", package_module => fake;'''
    diff = simulate(tmp_path, policy(host, promises), "diff")
    assert "Package 'sl' would be installed\n\n" in diff.stdout
    assert "Package 'vim' would be removed\n\n" in diff.stdout
    assert "nano" not in diff.stdout.split("chroot", 1)[1]         # no difference to show
    assert not {"repo-install", "remove"} & set(calls(host))       # the module changed nothing
    assert installed(host) == [["vim", "9.0", "amd64"], ["nano", "7.2", "amd64"]]
    manifest = simulate(tmp_path, policy(host, promises), "manifest").stdout
    for line in ("Package 'sl' would be present", "Package 'vim' would be absent",
                 "Package 'nano' would be present", "Package 'gone' would be absent"):
        assert line in manifest
    assert installed(host) == [["vim", "9.0", "amd64"], ["nano", "7.2", "amd64"]]


def test_simulate_with_warn_policy_only_warns(tmp_path: Path, host: Path) -> None:  # noqa: F811
    promises = '''      "sl" policy => "present", package_module => fake, action => w;'''
    text = policy(host, promises) + 'body action w { action_policy => "warn"; }\n'
    proc = simulate(tmp_path, text, "diff")
    assert "Should install repo type package: sl, but only warning promised" in proc.stdout
    assert "would be installed" not in proc.stdout and installed(host) == []


# -- legacy package_method and the package_inventory caches ------------------------------

LEGACY = r"""
body common control {{ package_inventory => {{ "fake" }}; bundlesequence => {{ "main" }}; }}
body package_module fake
{{
  query_installed_ifelapsed => "0";
  query_updates_ifelapsed => "60";
  default_options => {{ "{state}" }};
}}
body package_method legacy
{{
  package_changes => "individual";
  package_list_command => "/bin/cat {state}/installed.txt";
  package_list_name_regex => "^(\S+) .*";
  package_list_version_regex => "^\S+ (\S+) .*";
  package_installed_regex => ".*";
  package_add_command => "{state}/add.sh";
  package_delete_command => "/bin/true";
  package_name_convention => "$(name)";
}}
bundle agent main
{{
  packages:
    doit::
      "foo" package_policy => "add", package_method => legacy;
  vars:
    "m" data => packagesmatching("foo", ".*", ".*", ".*");
    "n" int => length("m");
  reports:
    "matches $(n)";
}}
"""


def legacy_runs(tmp_path: Path, state: Path, argv: list[str]) -> list[str]:
    add = state / "add.sh"
    add.write_text(f'#!/bin/sh\necho "$1 1.0 amd64" >> {state}/installed.txt\n')
    add.chmod(0o755)
    (state / "installed.txt").write_text("")
    policy_file = tmp_path / "legacy.cf"
    policy_file.write_text(LEGACY.format(state=state))
    env = {**os.environ, "CFENGINE_TEST_OVERRIDE_WORKDIR": str(tmp_path / "wd")}
    seen = []
    for extra in (["-K"], ["-K", "-D", "doit"], [], []):
        proc = subprocess.run([*argv, *extra, "-f", str(policy_file)], capture_output=True,
                              text=True, timeout=120, env=env, cwd=tmp_path)
        seen.append(next((line[3:] for line in proc.stdout.splitlines()
                          if line.startswith("R: matches")), proc.stdout + proc.stderr))
    return seen


def test_legacy_change_reaches_packagesmatching_as_in_3_21(tmp_path: Path,
                                                           host: Path) -> None:  # noqa: F811
    """3.21 refreshes the package_inventory caches when a legacy promise schedules its
    change -- before the command runs -- and not again in that run: packagesmatching()
    shows the legacy install from the second run after it (measured with cf-agent 3.21)."""
    seen = legacy_runs(tmp_path, host, [sys.executable, "-m", "cfpromise.cli.agent"])
    assert seen == ["matches 0", "matches 0", "matches 0", "matches 1"]
    assert (host / "installed.txt").read_text() == "foo 1.0 amd64\n"


def test_legacy_cache_timing_equals_cf_agent(tmp_path: Path, host: Path) -> None:  # noqa: F811
    if not os.access(CF_AGENT, os.X_OK):
        pytest.skip(f"needs cf-agent 3.21 ({CF_AGENT})")
    (tmp_path / "wd" / "bin").mkdir(parents=True, exist_ok=True)
    os.symlink("/usr/bin/cf-promises", tmp_path / "wd" / "bin" / "cf-promises")
    assert legacy_runs(tmp_path, host, [CF_AGENT]) == \
        ["matches 0", "matches 0", "matches 0", "matches 1"]
