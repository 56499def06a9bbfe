"""What the agent reads back from WORKDIR or runs from it is used only when trusted
(cfpromise.agent.trust): persistent classes, the package caches, and modules in
WORKDIR/modules.  Each test plants a loosely owned file and shows it is ignored with
one warning (state) or not run (modules)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cfpromise.agent import trust
from tests.promises import test_custom_types as custom
from tests.promises.test_packages import FAKE_MODULE, PRESENT, agent as packages_agent, calls, \
    installed, policy as packages_policy, reports

host = pytest.fixture(lambda tmp_path: _host(tmp_path))


def _host(tmp_path: Path) -> Path:
    state = tmp_path / "host"
    state.mkdir()
    modules = tmp_path / "wd" / "modules" / "packages"
    modules.mkdir(parents=True)
    module = modules / "fake"
    module.write_text(FAKE_MODULE.format(python=sys.executable))
    module.chmod(0o755)
    return state


def run(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "p.cf"
    path.write_text(text)
    return subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f", str(path),
                           "-w", str(tmp_path / "wd")], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60, stdin=subprocess.DEVNULL)


def warnings(proc: subprocess.CompletedProcess[str], word: str) -> list[str]:
    return [line for line in (proc.stdout + proc.stderr).splitlines()
            if line.startswith(" warning:") and word in line]


def _plant(path: Path, text: str, mode: int = 0o666) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)


def test_loose_persistent_classes_are_ignored_once_and_rewritten(tmp_path: Path) -> None:
    store = tmp_path / "wd" / "state" / "persistent_classes.json"
    _plant(store, json.dumps({"planted": {"expires": time.time() + 3600, "tags": [],
                                          "namespace": "default"}}))
    text = 'bundle agent main\n{\n  reports:\n    planted::\n      "planted class defined";\n' \
           '    any::\n      "ran";\n}\n'
    proc = run(tmp_path, text)
    assert reports(proc) == ["ran"], proc.stdout
    assert len(warnings(proc, "Persistent classes ignored")) == 1, proc.stdout
    assert store.stat().st_mode & 0o777 == 0o600                  # rewritten, safely
    again = run(tmp_path, text)
    assert reports(again) == ["ran"] and not warnings(again, "ignored")


def test_loose_package_module_cache_is_ignored_and_rebuilt(tmp_path: Path, host: Path) -> None:
    """A trusted fresh cache saying "sl" is installed would keep the promise without a
    listing; a planted one is ignored: the module lists, installs, and the cache is
    rewritten (two promises read it: still one warning)."""
    cache = tmp_path / "wd" / "state" / "packages_installed_fake.json"
    _plant(cache, json.dumps({"module": "fake", "refreshed": time.time(),
                              "packages": [["sl", "1.0", "amd64"], ["vim", "9.0", "amd64"]]}))
    text = packages_policy(host, PRESENT + '\n      "vim" policy => "present", '
                                           'package_module => fake;').replace(
        'query_installed_ifelapsed => "0"', 'query_installed_ifelapsed => "600"')
    proc = packages_agent(tmp_path, text)
    assert reports(proc) == ["repaired"], proc.stdout + proc.stderr
    assert "list-installed" in calls(host) and ["sl", "1.0", "amd64"] in installed(host)
    assert len(warnings(proc, "Package module cache")) == 1, proc.stdout
    assert cache.stat().st_mode & 0o777 == 0o600
    assert "sl" in cache.read_text() and "vim" in cache.read_text()
    (host / "calls.log").unlink()
    again = packages_agent(tmp_path, text)                       # the rebuilt cache is used
    assert reports(again) == ["kept"] and "list-installed" not in calls(host)
    assert not warnings(again, "ignored")


INVENTORY = """
body common control {{ bundlesequence => {{ "main" }}; {control} }}
body package_module fake {{ default_options => {{ "{host}" }}; }}
bundle agent main
{{
  vars:
    "i" data => packagesmatching(".*", ".*", ".*", ".*");
    "again" data => packagesmatching("p.*", ".*", ".*", ".*");
    "u" data => packageupdatesmatching(".*", ".*", ".*", ".*");
  reports:
    "$(with)" with => format("%S %S %S", i, again, u);
}}
"""


def test_loose_caches_are_ignored_by_packagesmatching(tmp_path: Path, host: Path) -> None:
    state = tmp_path / "wd" / "state"
    _plant(state / "packages_installed_fake.json",
           json.dumps({"module": "fake", "refreshed": time.time(),
                       "packages": [["planted", "6.6", "amd64"]]}))
    _plant(state / "packages_updates_fake.json", json.dumps(
        {"module": "fake", "refreshed": time.time(), "packages": [["up", "1", "amd64"]]}),
        mode=0o600)
    proc = run(tmp_path, INVENTORY.format(control='package_inventory => { "fake" };', host=host))
    assert reports(proc)[0] == '[] [] [{"arch":"amd64","method":"fake","name":"up","version":"1"}]'
    assert len(warnings(proc, "Package module cache")) == 1, proc.stdout


def test_loose_legacy_software_cache_is_ignored_by_packagesmatching(tmp_path: Path) -> None:
    state = tmp_path / "wd" / "state"
    _plant(state / "software_packages.csv", "planted,6.6,amd64,apt\r\n")
    _plant(state / "software_patches_avail.csv", "up,1,amd64,apt\r\n", mode=0o600)
    proc = run(tmp_path, INVENTORY.format(control="", host=tmp_path))
    assert reports(proc)[0] == '[] [] [{"arch":"amd64","method":"apt","name":"up","version":"1"}]'
    assert len(warnings(proc, "Packages inventory")) == 1, proc.stdout


def test_package_module_in_a_loose_directory_is_not_run(tmp_path: Path, host: Path) -> None:
    (tmp_path / "wd" / "modules" / "packages").chmod(0o777)
    proc = packages_agent(tmp_path, packages_policy(host, PRESENT))
    assert reports(proc) == ["failed"], proc.stdout + proc.stderr
    assert calls(host) == [] and installed(host) == []
    assert "not run:" in proc.stdout and "writable by group or others" in proc.stdout


def test_package_module_of_another_owner_is_not_run(tmp_path: Path, host: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give a file another owner")
    os.chown(tmp_path / "wd" / "modules" / "packages" / "fake", 65534, 65534)
    proc = packages_agent(tmp_path, packages_policy(host, PRESENT))
    assert reports(proc) == ["failed"] and calls(host) == []
    assert "is owned by uid 65534" in proc.stdout


def test_usemodule_in_a_loose_directory_is_not_run(tmp_path: Path) -> None:
    modules = tmp_path / "wd" / "modules"
    marker = tmp_path / "ran"
    _plant(modules / "mod", f"#!/bin/sh\ntouch {marker}\necho +from_module\n", mode=0o755)
    text = ('bundle agent main\n{\n  classes:\n    "u" expression => usemodule("mod", "");\n'
            '  reports:\n    from_module::\n      "module ran";\n    any::\n      "done";\n}\n')
    proc = run(tmp_path, text)
    assert reports(proc) == ["module ran", "done"], proc.stdout + proc.stderr
    marker.unlink()
    modules.chmod(0o777)
    proc = run(tmp_path, text)
    assert reports(proc) == ["done"] and not marker.exists()
    assert "not run:" in proc.stdout and "writable by group or others" in proc.stdout


def test_promise_module_in_a_loose_workdir_directory_is_not_run(tmp_path: Path) -> None:
    directory = tmp_path / "wd" / "modules" / "promises"
    directory.mkdir(parents=True)
    wrapper = custom.write_module(tmp_path, "json")
    module = directory / "filemod"
    module.write_text(wrapper.read_text())
    module.chmod(0o755)
    policy = custom.file_policy(tmp_path, module)
    proc = custom.agent(tmp_path, policy)
    assert "both repaired" in custom.reports(proc), proc.stdout + proc.stderr
    (tmp_path / "target").unlink()
    (tmp_path / "target2").unlink()
    directory.chmod(0o777)
    proc = custom.agent(tmp_path, policy)
    assert "one failed" in custom.reports(proc) and not (tmp_path / "target").exists()
    assert "not run:" in proc.stdout and "writable by group or others" in proc.stdout


def test_module_problem_follows_a_link_to_its_target(tmp_path: Path) -> None:
    wd = tmp_path / "wd"
    (wd / "modules").mkdir(parents=True)
    target_dir = tmp_path / "elsewhere"
    target_dir.mkdir()
    target = target_dir / "m"
    target.write_text("#!/bin/sh\n")
    target.chmod(0o755)
    os.symlink(target, wd / "modules" / "m")
    assert trust.module_problem(str(wd / "modules" / "m"), str(wd)) is None
    target_dir.chmod(0o777)
    assert "writable by group or others" in trust.module_problem(str(wd / "modules" / "m"),
                                                                 str(wd))
    target_dir.chmod(0o755)
    target.chmod(0o777)
    assert "writable by group or others" in trust.module_problem(str(wd / "modules" / "m"),
                                                                 str(wd))


def test_loose_lock_database_is_set_aside_and_started_afresh(tmp_path: Path) -> None:
    text = 'bundle agent main\n{\n  reports:\n      "ran";\n}\n'
    path = tmp_path / "p.cf"
    path.write_text(text)
    argv = [sys.executable, "-m", "cfpromise.cli.agent", "-f", str(path), "-w", str(tmp_path / "wd")]
    first = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert reports(first) == ["ran"]
    locks = tmp_path / "wd" / "state" / "cf_lock.sqlite"
    assert subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout == ""  # locked
    locks.chmod(0o666)             # anyone could have written "ran a moment ago" for anything
    third = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert reports(third) == ["ran"], third.stdout
    assert len(warnings(third, "Lock database ignored")) == 1
    assert list(locks.parent.glob("cf_lock.sqlite.untrusted-*"))
    assert locks.stat().st_mode & 0o777 == 0o600
    (tmp_path / "wd" / "state").chmod(0o777)
    fourth = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert reports(fourth) == ["ran"] and len(warnings(fourth, "kept in memory")) == 1


def test_loose_monitor_data_is_not_read(tmp_path: Path) -> None:
    state = tmp_path / "wd" / "state"
    _plant(state / "env_data", "planted_class\nvalue_x=1\n")
    _plant(state / "static_data", "obs:0:planted\n")
    text = ('bundle agent main\n{\n  reports:\n    planted_class::\n      "class from env_data";\n'
            '    any::\n      "ran $(mon.value_x)";\n}\n')
    proc = run(tmp_path, text)
    assert reports(proc) == ["ran $(mon.value_x)"], proc.stdout
    assert len(warnings(proc, "Monitor data")) == 2            # one per file
    (state / "env_data").chmod(0o600)
    proc = run(tmp_path, text)
    assert reports(proc) == ["class from env_data", "ran 1"], proc.stdout


def test_loose_host_specific_data_is_not_loaded(tmp_path: Path) -> None:
    data = tmp_path / "wd" / "data" / "host_specific.json"
    _plant(data, json.dumps({"vars": {"planted": "yes"}}))
    text = 'bundle agent main\n{\n  reports:\n      "planted=$(data:variables.planted)";\n}\n'
    proc = run(tmp_path, text)
    assert reports(proc) == ["planted=$(data:variables.planted)"], proc.stdout
    assert len(warnings(proc, "Host-specific data")) == 1
    data.chmod(0o600)
    assert reports(run(tmp_path, text)) == ["planted=yes"]


def test_loose_software_cache_is_not_read_by_legacy_package_promises(tmp_path: Path) -> None:
    """A fresh trusted software cache saying "foo" is installed would keep the promise
    without listing; a planted one is ignored: the list command runs and foo is added."""
    from cfpromise.promises.packages.legacy.inventory import manager_name
    from tests.promises.test_packages_legacy import Host
    legacy = Host(tmp_path)
    legacy.set("available.txt", ["foo 1.2 amd64"])
    _plant(tmp_path / "wd" / "state" / "software_packages.csv",
           f"foo,1.2,amd64,{manager_name(legacy.pm('list'))}\n")
    method = legacy.method().replace('package_list_update_ifelapsed => "0";',
                                     'package_list_update_ifelapsed => "60";')
    proc = legacy.run('    "foo" package_policy => "add", package_method => fake;', method=method)
    assert legacy.calls() == ["list", "add foo"], proc.stdout + proc.stderr
    assert legacy.installed() == ["foo 1.2 amd64"]
    assert len(warnings(proc, "Software cache")) == 1, proc.stdout
