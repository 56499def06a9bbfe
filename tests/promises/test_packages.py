"""The packages promise with package modules, end to end with a fake module.

The fake module is a small script speaking the package module protocol; its
"host" is a directory (given as the module's default option): installed.txt
and updates.txt hold "name version arch" lines, calls.log gets one line per
request, and misbehave.txt makes it hang, crash, or answer outside the
protocol on one request.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cfpromise.promises.packages import protocol
from cfpromise.promises.packages.inventory import Inventories, cache_path, load

FAKE_MODULE = r'''#!{python}
import os, sys, time
request = sys.argv[1]
options, entries = [], []
for line in sys.stdin:
    key, _, value = line.rstrip("\n").partition("=")
    (options if key == "options" else entries).append(value if key == "options" else (key, value))
state = options[0] if options else ""
if state:                         # supports-api-version comes without options
    with open(os.path.join(state, "calls.log"), "a") as log:
        log.write(request + "\n")
mis = os.path.join(state, "misbehave.txt")
if os.path.exists(mis):
    how, _, on = open(mis).read().strip().partition(":")
    if on == request:
        if how == "hang":
            time.sleep(60)
        if how == "crash":
            sys.stderr.write("boom: the fake module crashed\n")
            sys.exit(3)
        if how == "garbage":
            print("this is not the protocol")
            sys.exit(0)
def read(name):
    path = os.path.join(state, name)
    return [l.split() for l in open(path)] if os.path.exists(path) else []
def write(name, rows):
    with open(os.path.join(state, name), "w") as f:
        f.writelines(" ".join(r) + "\n" for r in rows)
if request == "supports-api-version":
    print(1)
elif request == "get-package-data":
    name = dict(entries)["File"]
    if name.startswith("/"):      # a package file: /path/NAME_VERSION_ARCH.pkg
        n, v, a = os.path.basename(name)[:-4].split("_")
        print("PackageType=file\nName=%s\nVersion=%s\nArchitecture=%s" % (n, v, a))
    else:
        print("PackageType=repo\nName=" + name)
elif request == "file-install":
    rows = read("installed.txt")
    for k, v in entries:
        rows.append(os.path.basename(v)[:-4].split("_"))
    write("installed.txt", rows)
elif request in ("list-installed", "list-updates", "list-updates-local"):
    for n, v, a in read("installed.txt" if request == "list-installed" else "updates.txt"):
        print("Name=%s\nVersion=%s\nArchitecture=%s" % (n, v, a))
elif request in ("repo-install", "remove"):
    rows = read("installed.txt")
    pkgs = []
    for k, v in entries:
        if k == "Name":
            pkgs.append({{"Name": v}})
        else:
            pkgs[-1][k] = v
    for p in pkgs:
        rows = [r for r in rows if r[0] != p["Name"]]
        if request == "repo-install":
            ups = [u for u in read("updates.txt") if u[0] == p["Name"]]
            version = p.get("Version") or (ups[0][1] if ups else "1.0")
            rows.append([p["Name"], version, p.get("Architecture", "amd64")])
    write("installed.txt", rows)
else:
    sys.exit(2)
'''


@pytest.fixture()
def host(tmp_path: Path) -> Path:
    """The fake module in WORKDIR/modules/packages/fake and its state directory."""
    state = tmp_path / "host"
    state.mkdir()
    modules = tmp_path / "wd" / "modules" / "packages"
    modules.mkdir(parents=True)
    module = modules / "fake"
    module.write_text(FAKE_MODULE.format(python=sys.executable))
    module.chmod(0o755)
    return state


def policy(state: Path, promises: str, control: str = "") -> str:
    return f"""
body common control
{{
  bundlesequence => {{ "main" }};
{control}
}}
body package_module fake
{{
  query_installed_ifelapsed => "0";
  query_updates_ifelapsed => "0";
  default_options => {{ "{state}" }};
}}
bundle agent main
{{
  packages:
{promises}
}}
"""


PRESENT = '''      "sl" policy => "present", package_module => fake,
        classes => if_repaired_kept("sl");'''
CLASSES = """
body classes if_repaired_kept(x)
{
  promise_repaired => { "$(x)_repaired" };
  promise_kept => { "$(x)_kept" };
  repair_failed => { "$(x)_failed" };
}
bundle agent report
{
  reports:
    sl_repaired:: "repaired";
    sl_kept:: "kept";
    sl_failed:: "failed";
}
"""


def agent(tmp_path: Path, text: str, *args: str,
          env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "p.cf"
    path.write_text(text.replace('bundlesequence => { "main" }',
                                 'bundlesequence => { "main", "report" }') + CLASSES)
    return subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f", str(path),
                           "-w", str(tmp_path / "wd"), *args], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60, env={**os.environ, **(env or {})})


def calls(state: Path) -> list[str]:
    log = state / "calls.log"
    return log.read_text().split() if log.exists() else []


def installed(state: Path) -> list[list[str]]:
    path = state / "installed.txt"
    return [line.split() for line in path.read_text().splitlines()] if path.exists() else []


def reports(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line[3:] for line in proc.stdout.splitlines() if line.startswith("R: ")]


def test_present_installs_then_is_kept_without_installing(tmp_path: Path, host: Path) -> None:
    proc = agent(tmp_path, policy(host, PRESENT))
    assert reports(proc) == ["repaired"], proc.stdout + proc.stderr
    assert installed(host) == [["sl", "1.0", "amd64"]]
    assert calls(host).count("repo-install") == 1
    cache = load(cache_path(str(tmp_path / "wd"), "installed", "fake"))
    assert cache is not None and cache.has("sl", "1.0", "amd64")
    (host / "calls.log").unlink()
    proc = agent(tmp_path, policy(host, PRESENT))
    assert reports(proc) == ["kept"], proc.stdout + proc.stderr
    assert "repo-install" not in calls(host)
    assert proc.stderr == ""


def test_absent_removes_and_version_and_architecture_count(tmp_path: Path, host: Path) -> None:
    (host / "installed.txt").write_text("sl 1.0 amd64\nvim 9.0 amd64\n")
    absent = '''      "sl" policy => "absent", package_module => fake,
        classes => if_repaired_kept("sl");
      "vim" policy => "absent", version => "8.0", package_module => fake;'''
    proc = agent(tmp_path, policy(host, absent))
    assert reports(proc) == ["repaired"], proc.stdout + proc.stderr
    assert installed(host) == [["vim", "9.0", "amd64"]]     # version 8.0 is not installed
    assert calls(host).count("remove") == 1
    specific = '''      "sl" policy => "present", version => "2.0", architecture => "i386",
        package_module => fake, classes => if_repaired_kept("sl");'''
    proc = agent(tmp_path, policy(host, specific))
    assert reports(proc) == ["repaired"]
    assert ["sl", "2.0", "i386"] in installed(host)


def test_latest_installs_the_listed_update_once(tmp_path: Path, host: Path) -> None:
    (host / "installed.txt").write_text("sl 1.0 amd64\n")
    (host / "updates.txt").write_text("sl 2.0 amd64\n")
    latest = '''      "sl" policy => "present", version => "latest", package_module => fake,
        classes => if_repaired_kept("sl");'''
    proc = agent(tmp_path, policy(host, latest), "--report", f"json={tmp_path / 'r.json'}")
    assert reports(proc) == ["repaired"], proc.stdout + proc.stderr
    assert installed(host) == [["sl", "2.0", "amd64"]]
    changes = [c for rec in json.loads((tmp_path / "r.json").read_text())["promises"]
               for c in rec.get("changes", [])]
    assert changes == [{"kind": "package", "action": "upgrade", "package": "sl",
                        "module": "fake", "old_version": "1.0 (amd64)",
                        "new_version": "2.0 (amd64)"}]
    proc = agent(tmp_path, policy(host, latest))
    assert reports(proc) == ["kept"]


@pytest.mark.parametrize("flag, words", [("-n", "Should install repo type package: sl ("),
                                          ("", "but only warning promised")])
def test_dry_run_and_warn_change_nothing(tmp_path: Path, host: Path, flag: str,
                                         words: str) -> None:
    promise = PRESENT if flag else PRESENT.replace("package_module => fake,",
                                                   "package_module => fake, action => w,")
    text = policy(host, promise) + "body action w { action_policy => \"warn\"; }\n"
    proc = agent(tmp_path, text, *([flag] if flag else []))
    assert words in proc.stderr + proc.stdout
    assert installed(host) == [] and "repo-install" not in calls(host)
    assert "list-updates" not in calls(host)        # no apt-get update in a dry run either


@pytest.mark.parametrize("how, message", [
    ("crash", "package module 'fake' exited with code 3 on 'list-installed'; it sent stderr: "
              "boom: the fake module crashed"),
    ("garbage", "package module 'fake' answered 'list-installed' with a line outside the "
                "protocol: 'this is not the protocol'"),
    ("hang", "package module 'fake' did not answer 'list-installed' within 1 s and was killed"),
])
def test_misbehaving_module_fails_the_promise_with_one_message(
        tmp_path: Path, host: Path, how: str, message: str) -> None:
    (host / "misbehave.txt").write_text(f"{how}:list-installed")
    proc = agent(tmp_path, policy(host, PRESENT + '\n      "other" policy => "absent", '
                                  'package_module => fake;'),
                 env={protocol.TIMEOUT_ENV: "1"})
    output = (proc.stdout + proc.stderr).splitlines()
    errors = [line for line in output if "package module 'fake'" in line]
    assert len(errors) == 2 and message in errors[0], proc.stdout   # one per promise
    assert "Traceback" not in proc.stderr
    assert reports(proc) == ["failed"]
    assert proc.returncode == 0                       # the run goes on
    # no cache, and no half-written one
    assert not list((tmp_path / "wd" / "state").glob("packages_*"))


def test_missing_or_unusable_module(tmp_path: Path, host: Path) -> None:
    text = policy(host, PRESENT.replace("package_module => fake", "package_module => nosuch"))
    text = text.replace("body package_module fake", "body package_module nosuch")
    proc = agent(tmp_path, text)
    assert "Cannot find package module at location" in proc.stdout
    assert "modules/packages/nosuch" in proc.stdout and reports(proc) == ["failed"]
    (tmp_path / "wd" / "modules" / "packages" / "fake").chmod(0o644)
    proc = agent(tmp_path, policy(host, PRESENT))
    assert "access to file is restricted" in proc.stdout and reports(proc) == ["failed"]


def test_interface_choice(tmp_path: Path, host: Path) -> None:
    mixed = '      "sl" policy => "present", package_version => "1", package_module => fake;'
    proc = agent(tmp_path, policy(host, mixed))
    assert "Mixed old and new package promise attributes" in proc.stdout
    nopolicy = '      "sl" version => "1.0", package_module => fake;'
    proc = agent(tmp_path, policy(host, nopolicy))
    assert "New package promise failed sanity check" in proc.stdout
    # no attributes, common control names a package_module: present through it (CFE-4408)
    bare = '      "sl" classes => if_repaired_kept("sl");'
    proc = agent(tmp_path, policy(host, bare, '  package_module => "fake";'))
    assert reports(proc) == ["repaired"] and installed(host) == [["sl", "1.0", "amd64"]]


def test_package_inventory_feeds_packagesmatching(tmp_path: Path, host: Path) -> None:
    (host / "installed.txt").write_text("sl 1.0 amd64\nvim 9.0 amd64\n")
    (host / "updates.txt").write_text("vim 9.1 amd64\n")
    text = policy(host, "", '  package_inventory => { "fake" };') + """
bundle agent report
{
  vars:
    "i" data => packagesmatching("s.*", ".*", ".*", ".*");
    "u" data => packageupdatesmatching(".*", ".*", ".*", "fake");
  reports:
    "$(with)" with => format("%S %S", i, u);
}
"""
    path = tmp_path / "p.cf"
    path.write_text(text.replace('bundlesequence => { "main" }',
                                 'bundlesequence => { "main", "report" }'))
    run = [sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f", str(path),
           "-w", str(tmp_path / "wd")]
    first = subprocess.run(run, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert reports(first) == ["[] []"]            # the caches are written at the end of a run
    second = subprocess.run(run, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert reports(second) == [
        '[{"arch":"amd64","method":"fake","name":"sl","version":"1.0"}] '
        '[{"arch":"amd64","method":"fake","name":"vim","version":"9.1"}]'], second.stderr


def test_protocol_client_checks_answers(tmp_path: Path) -> None:
    script = tmp_path / "m"
    script.write_text("#!/bin/sh\ncase $1 in supports-api-version) echo 2;;\n"
                      "get-package-data) echo PackageType=repo; echo Name=a; echo Name=b;;\n"
                      "remove) echo ErrorMessage=cannot remove;;\nesac\n")
    script.chmod(0o755)
    module = protocol.locate(protocol.ModuleBody("m", 0, 0, module_path=str(script)), "/x")
    with pytest.raises(protocol.ModuleError, match="Unsupported package module wrapper API "
                                                   "version: 2"):
        module.api_version()
    with pytest.raises(protocol.ModuleError, match="a second Name line"):
        module.package_data("a", None, None, ())
    with pytest.raises(protocol.ModuleError, match="'remove' with an error: "
                                                   "'ErrorMessage=cannot remove'"):
        module.change("remove", ["Name=a"], ())
    # an interpreter runs the script, which then needs only to be readable
    script.chmod(0o644)
    body = protocol.ModuleBody("m", 0, 0, interpreter="/bin/sh", module_path=str(script))
    assert protocol.locate(body, "/x").argv == ["/bin/sh", str(script)]
    body = protocol.ModuleBody("m", 0, 0, interpreter="/nonexistent/sh", module_path=str(script))
    with pytest.raises(protocol.ModuleError, match="interpreter"):
        protocol.locate(body, "/x")


def test_cf_lite_apt_get_is_found_without_set_up(tmp_path: Path) -> None:
    module = protocol.locate(protocol.ModuleBody("apt_get", 0, 0), str(tmp_path))
    assert module.argv[0] == sys.executable and module.argv[-1].endswith("packages/apt_get")
    assert module.api_version() == 1
    data = module.package_data("sl", None, None, ())
    assert (data.type, data.name) == ("repo", "sl")
    if os.path.exists("/usr/bin/dpkg-query"):
        listed = Inventories(str(tmp_path), lambda level, text: None).refresh(
            module, (), "installed", repairs=0)
        assert listed.packages and all(len(p) == 3 for p in listed.packages)


def test_package_file_is_installed_once_and_checked_against_policy(tmp_path: Path,
                                                                  host: Path) -> None:
    package = tmp_path / "hello_2.1_amd64.pkg"
    package.write_text("")
    promise = f'''      "{package}" policy => "present", package_module => fake,
        classes => if_repaired_kept("sl");'''
    proc = agent(tmp_path, policy(host, promise))
    assert reports(proc) == ["repaired"], proc.stdout + proc.stderr
    assert installed(host) == [["hello", "2.1", "amd64"]] and "file-install" in calls(host)
    (host / "calls.log").unlink()
    assert reports(agent(tmp_path, policy(host, promise))) == ["kept"]
    assert "file-install" not in calls(host)
    wrong = promise.replace("policy =>", 'version => "3.0", policy =>')
    proc = agent(tmp_path, policy(host, wrong))
    assert "Package version and one specified in policy doesn't match: 2.1 -> 3.0" in proc.stdout
    assert reports(proc) == ["failed"]


def test_caches_refresh_after_their_ifelapsed(tmp_path: Path, host: Path) -> None:
    (host / "installed.txt").write_text("sl 1.0 amd64\n")
    hourly = policy(host, PRESENT).replace('query_installed_ifelapsed => "0"',
                                           'query_installed_ifelapsed => "60"')
    assert reports(agent(tmp_path, hourly)) == ["kept"]
    assert calls(host).count("list-installed") == 1        # no cache yet: listed
    (host / "calls.log").unlink()
    assert reports(agent(tmp_path, hourly)) == ["kept"]
    assert "list-installed" not in calls(host)             # fresh for an hour
    assert reports(agent(tmp_path, policy(host, PRESENT))) == ["kept"]
    assert "list-installed" in calls(host)                 # ifelapsed 0: every run
