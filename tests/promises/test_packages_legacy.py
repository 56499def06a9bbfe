"""Legacy ``packages`` promises (``package_method`` bodies) end to end with a fake manager.

The fake package manager is a small script; its "host" is a directory:
installed.txt and available.txt hold "name version arch" lines, calls.log gets
one line per command.  ``list`` prints installed.txt; ``add``/``update`` take
NAME or NAME=VERSION words and install the newest available (or that version);
``delete`` removes; ``verify`` exits 1 for a package named in broken.txt.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cfpromise.promises.packages.legacy.versions import Cmp, builtin

FAKE = r'''
import os, sys
state, action, names = sys.argv[1], sys.argv[2], sys.argv[3:]
def read(name):
    path = os.path.join(state, name)
    return [l.split() for l in open(path) if l.strip()] if os.path.exists(path) else []
def write(name, rows):
    with open(os.path.join(state, name), "w") as f:
        f.writelines(" ".join(r) + "\n" for r in rows)
with open(os.path.join(state, "calls.log"), "a") as log:
    log.write(" ".join([action] + names) + "\n")
installed = read("installed.txt")
if action == "list":
    for row in installed:
        print(" ".join(row))
elif action in ("add", "update"):
    for word in names:
        name, _, version = word.partition("=")
        choice = [r for r in read("available.txt") if r[0] == name and version in ("", "*", r[1])]
        if not choice:
            print("no such package: " + word)
            sys.exit(2)
        installed = [r for r in installed if r[0] != name] + [choice[-1]]
        print("installed " + " ".join(choice[-1]))
    write("installed.txt", installed)
elif action == "delete":
    gone = [w.partition("=")[0] for w in names]
    write("installed.txt", [r for r in installed if r[0] not in gone])
elif action == "verify":
    sys.exit(1 if names[0] in [r[0] for r in read("broken.txt")] else 0)
'''


class Host:
    def __init__(self, tmp_path: Path) -> None:
        self.dir = tmp_path / "host"
        self.dir.mkdir()
        self.script = tmp_path / "fakepm.py"
        self.script.write_text(FAKE)
        self.workdir = tmp_path / "wd"
        self.tmp = tmp_path

    def pm(self, action: str) -> str:
        return f"{sys.executable} {self.script} {self.dir} {action}"

    def set(self, name: str, rows: list[str]) -> None:
        (self.dir / name).write_text("".join(r + "\n" for r in rows))

    def installed(self) -> list[str]:
        path = self.dir / "installed.txt"
        return [l for l in path.read_text().splitlines() if l] if path.exists() else []

    def calls(self) -> list[str]:
        path = self.dir / "calls.log"
        return path.read_text().splitlines() if path.exists() else []

    def method(self, changes: str = "individual", extra: str = "") -> str:
        return f'''
body package_method fake
{{
  package_changes => "{changes}";
  package_list_command => "{self.pm('list')}";
  package_list_name_regex => "^(\\S+)\\s";
  package_list_version_regex => "^\\S+\\s+(\\S+)";
  package_list_arch_regex => "^\\S+\\s+\\S+\\s+(\\S+)";
  package_installed_regex => ".*";
  package_add_command => "{self.pm('add')}";
  package_delete_command => "{self.pm('delete')}";
  package_update_command => "{self.pm('update')}";
  package_verify_command => "{self.pm('verify')}";
  package_noverify_returncode => "1";
  package_list_update_ifelapsed => "0";
{extra}
}}
body classes cl(p)
{{
  promise_kept => {{ "$(p)_kept" }};
  promise_repaired => {{ "$(p)_repaired" }};
  repair_failed => {{ "$(p)_failed" }};
}}
'''

    def run(self, promises: str, *args: str, method: str | None = None,
            reports: str = "") -> subprocess.CompletedProcess[str]:
        policy = self.tmp / "p.cf"
        policy.write_text(f'''
body common control {{ bundlesequence => {{ "main" }}; }}
bundle agent main
{{
  packages:
{promises}
  reports:
{reports}
}}
{method if method is not None else self.method()}
''')
        return subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f",
                               str(policy), "-w", str(self.workdir), *args],
                              capture_output=True, text=True, timeout=120)


@pytest.fixture
def host(tmp_path: Path) -> Host:
    h = Host(tmp_path)
    h.set("available.txt", ["foo 1.0 amd64", "foo 1.2 amd64", "bar 2.0 amd64"])
    return h


def _report(classes: str) -> str:
    return "\n".join(f'    {c}:: "class {c}";' for c in classes.split())


def test_add_then_kept_without_running_the_add_command(host: Host) -> None:
    promise = '    "foo" package_policy => "add", package_method => fake, classes => cl("foo");'
    reports = _report("foo_kept foo_repaired foo_failed")
    first = host.run(promise, "-I", reports=reports)
    assert host.installed() == ["foo 1.2 amd64"], first.stdout + first.stderr
    assert "R: class foo_repaired" in first.stdout and "foo_failed" not in first.stdout
    assert "Installing foo..." in first.stdout
    assert host.calls() == ["list", "add foo"]
    second = host.run(promise, reports=reports)
    assert "R: class foo_kept" in second.stdout and "foo_repaired" not in second.stdout
    assert "add" not in " ".join(host.calls()[2:]), host.calls()


def test_the_schedule_runs_when_the_packages_section_ends(host: Host) -> None:
    """Later sections of the same bundle (commands) see the installed package."""
    policy = host.tmp / "p.cf"
    policy.write_text(f'''
body common control {{ bundlesequence => {{ "main" }}; }}
bundle agent main
{{
  packages:
    "foo" package_policy => "add", package_method => fake;
  commands:
    "/bin/sh -c 'grep -q foo {host.dir}/installed.txt && touch {host.tmp}/seen'";
}}
{host.method()}
''')
    subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f", str(policy),
                    "-w", str(host.workdir)], capture_output=True, text=True, timeout=120)
    assert (host.tmp / "seen").exists()


def test_delete_and_delete_of_an_absent_package(host: Host) -> None:
    host.set("installed.txt", ["foo 1.0 amd64", "bar 2.0 amd64"])
    promises = '''    "foo" package_policy => "delete", package_method => fake, classes => cl("foo");
    "nosuch" package_policy => "delete", package_method => fake, classes => cl("nosuch");'''
    out = host.run(promises, reports=_report("foo_repaired nosuch_kept nosuch_repaired"))
    assert host.installed() == ["bar 2.0 amd64"]
    assert "R: class foo_repaired" in out.stdout and "R: class nosuch_kept" in out.stdout
    assert "nosuch_repaired" not in out.stdout
    assert host.calls() == ["list", "delete foo"]


def test_bulk_changes_run_one_command_and_only_its_first_promise_gets_the_result(
        host: Host) -> None:
    """As cf-agent: the batch's first promise (the newest scheduled) gets the result."""
    promises = '''    "foo" package_policy => "add", package_method => fake, classes => cl("foo");
    "bar" package_policy => "add", package_method => fake, classes => cl("bar");'''
    out = host.run(promises, method=host.method("bulk"),
                   reports=_report("foo_repaired bar_repaired"))
    assert host.calls() == ["list", "add bar foo"]
    assert "R: class bar_repaired" in out.stdout and "R: class foo_repaired" not in out.stdout


def test_addupdate_updates_an_older_version_and_keeps_an_equal_one(host: Host) -> None:
    host.set("installed.txt", ["foo 1.0 amd64"])
    promise = '''    "foo" package_policy => "addupdate", package_version => "1.2",
      package_method => fake, classes => cl("foo");'''
    out = host.run(promise, "--report", f"json={host.tmp}/r.json",
                   reports=_report("foo_repaired"))
    assert "R: class foo_repaired" in out.stdout, out.stdout + out.stderr
    assert host.calls()[-1] == "update foo" and host.installed() == ["foo 1.2 amd64"]
    record = [r for r in json.loads((host.tmp / "r.json").read_text())["promises"]
              if r.get("promise_type") == "packages"]
    changes = [c for r in record for c in r.get("changes", [])]
    assert {"old_version": "1.0", "new_version": "1.2", "action": "update"}.items() <= \
        changes[0].items(), record
    calls = len(host.calls())
    again = host.run(promise, reports=_report("foo_kept"))
    assert "R: class foo_kept" in again.stdout and len(host.calls()) == calls + 1


def test_name_convention_and_select(host: Host) -> None:
    host.set("installed.txt", ["foo 1.0 amd64"])
    promise = '''    "foo" package_policy => "addupdate", package_select => ">=",
      package_version => "1.2", package_method => fake;'''
    host.run(promise, method=host.method(extra='  package_name_convention => '
                                               '"$(name)=$(version)";'))
    assert host.calls()[-1] == "update foo=1.2"


def test_custom_version_commands(host: Host) -> None:
    """The equal command says 01 == 1, so the promise is kept without updating."""
    host.set("installed.txt", ["foo 01 amd64"])
    extra = '''  package_version_less_command => "test $(v1) -lt $(v2)";
  package_version_equal_command => "test $(v1) -eq $(v2)";'''
    out = host.run('''    "foo" package_policy => "addupdate", package_version => "1",
      package_method => fake, classes => cl("foo");''',
                   method=host.method(extra=extra), reports=_report("foo_kept"))
    assert "R: class foo_kept" in out.stdout and host.calls() == ["list"]


def test_verify_as_3_21_does_it(host: Host) -> None:
    """cf-agent 3.21 never runs the verify command: an installed package that matches
    is kept before anything is scheduled, and a missing one "cannot be verified"."""
    host.set("installed.txt", ["foo 1.0 amd64"])
    out = host.run('''    "foo" package_policy => "verify", package_method => fake, classes => cl("foo");
    "bar" package_policy => "verify", package_method => fake, classes => cl("bar");''',
                   "-I", reports=_report("foo_kept bar_failed foo_failed"))
    assert "R: class foo_kept" in out.stdout and "R: class bar_failed" in out.stdout
    assert "foo_failed" not in out.stdout
    assert "Package 'bar' cannot be verified -- no match" in out.stdout
    assert host.calls() == ["list"]


def test_file_repositories(host: Host, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    for name in ("foo-1.0.amd64.pkg", "foo-1.2.amd64.pkg", "other-3.amd64.pkg"):
        (repo / name).write_text("")
    extra = f'''  package_file_repositories => {{ "{repo}" }};
  package_name_convention => "$(name)-$(version).$(arch).pkg";'''
    log = tmp_path / "added"
    method = host.method(extra=extra).replace(
        host.pm("add"), f"/bin/sh -c 'echo $0 >> {log}'")
    host.run('''    "foo" package_policy => "add", package_select => ">=", package_version => "1.0",
      package_architectures => { "amd64" }, package_method => fake;''', method=method)
    assert log.read_text().strip() == f"{repo}/foo-1.2.amd64.pkg"


def test_multiline_listing(host: Host) -> None:
    method = host.method().replace(
        f'package_list_command => "{host.pm("list")}";',
        'package_list_command => "/usr/bin/printf \'Package: foo\\nVersion: 1.2\\n'
        'Package: bar\\nVersion: 2.0\\n\'";').replace(
        'package_list_name_regex => "^(\\S+)\\s";', 'package_list_name_regex => "Package: (\\S+)";'
    ).replace('package_list_version_regex => "^\\S+\\s+(\\S+)";',
              'package_list_version_regex => "Version: (\\S+)";').replace(
        'package_list_arch_regex => "^\\S+\\s+\\S+\\s+(\\S+)";', '') + ""
    method = method.replace("package_list_update_ifelapsed", 'package_multiline_start => '
                            '"Package: .*";\n  package_list_update_ifelapsed')
    out = host.run('''    "bar" package_policy => "add", package_method => fake, classes => cl("bar");
    "baz" package_policy => "add", package_method => fake, classes => cl("baz");''',
                   method=method, reports=_report("bar_kept baz_failed"))
    assert "R: class bar_kept" in out.stdout and "R: class baz_failed" in out.stdout
    assert host.calls() == ["add baz"]


def test_dry_run_and_warn_change_nothing(host: Host) -> None:
    promise = '    "foo" package_policy => "add", package_method => fake, classes => cl("foo");'
    out = host.run(promise, "-n", reports=_report("foo_repaired"))
    assert host.installed() == [] and "add" not in " ".join(host.calls())
    # (cf-agent 3.21 says nothing of it at the default level; verbose names the command)
    assert "Would run the package command" not in out.stdout + out.stderr
    assert "foo_repaired" not in out.stdout
    verbose = host.run(promise, "-n", "-v")
    assert "Would run the package command" in verbose.stdout + verbose.stderr
    warn = host.run('''    "foo" package_policy => "add", package_method => fake, action => w;''',
                    "--report", f"json={host.tmp}/r.json",
                    method=host.method() + 'body action w { action_policy => "warn"; }')
    assert "Need to repair promise 'foo' by 'installing' package 'foo'" in \
        warn.stdout + warn.stderr
    assert host.installed() == [] and "add" not in " ".join(host.calls())
    records = json.loads((host.tmp / "r.json").read_text())["promises"]
    changes = [c for r in records for c in r.get("changes", [])]
    assert [(c["action"], c["package"], c["outcome"]) for c in changes] == \
        [("add", "foo", "warn")], records


@pytest.mark.parametrize("attribute, replace, expect", [
    ("package_list_command", ('package_list_command => ', '#'),
     "You must supply a method for determining the list of existing packages"),
    ("package_list_command", ('fakepm.py', 'fakepm-missing.py'),
     "Unable to obtain a list of installed packages"),
    ("package_add_command", ('package_add_command => ', '#'), "Package add command undefined"),
    ("package_list_name_regex", ('"^(\\S+)\\s"', '"(["'), "Invalid regular expression"),
    ("package_add_command", ("add\";", "add-fails\";"), "Package schedule execution failed"),
])
def test_bad_input_is_one_clear_not_kept_message(host: Host, attribute: str,
                                                 replace: tuple[str, str], expect: str) -> None:
    method = host.method().replace(*replace)
    if replace[1] == "#":
        method = "\n".join(l for l in method.splitlines() if not l.strip().startswith("#"))
    if "add-fails" in method:
        method = method.replace(host.pm("add-fails"), "/bin/false")
    out = host.run('    "foo" package_policy => "add", package_method => fake, classes => cl("foo");',
                   method=method, reports=_report("foo_failed"))
    text = out.stdout + out.stderr
    assert "R: class foo_failed" in out.stdout, text
    lines = [l for l in text.splitlines() if expect in l]
    assert len(lines) == 1 and "packages promise 'foo' in bundle 'main'" in lines[0], text
    assert attribute in lines[0], lines
    assert "Traceback" not in text and host.installed() == []


@pytest.mark.parametrize("v1, select, v2, expected", [
    ("1.0", "==", "1.0", Cmp.MATCH), ("1.0", "==", "1.1", Cmp.NO_MATCH),
    ("1.0", "<", "1.1", Cmp.MATCH), ("1.1", "<", "1.0", Cmp.NO_MATCH),
    ("1.0", ">", "1.0.1", Cmp.NO_MATCH), ("1.0.1", ">", "1.0", Cmp.MATCH),
    ("2.0", ">=", "2.0", Cmp.MATCH), ("1.9", "<=", "2.0", Cmp.MATCH),
    ("1.0-1", "==", "1.0.1", Cmp.ERROR), ("1.0", "!=", "1.1", Cmp.MATCH),
    ("10", "<", "9", Cmp.MATCH),          # token by token as strings, as 3.21
])
def test_builtin_version_comparison(v1: str, select: str, v2: str, expected: Cmp) -> None:
    assert builtin(v1, v2, select) is expected


# -- side by side with cf-agent 3.21 ---------------------------------------------------------

CF_AGENT = Path("/usr/bin/cf-agent")

SCENARIOS = {
    "reinstall": (["foo 1.0 amd64"],
                  '"foo" package_policy => "reinstall", package_version => "1.0", '
                  'package_method => fake, classes => cl("foo");', ""),
    "update-by-delete-and-add": (
        ["foo 1.0 amd64"],
        '"foo" package_policy => "update", package_version => "1.2", '
        'package_method => fake, classes => cl("foo");',
        'package_delete_convention => "$(name)=$(version)";'),
    "patch": (["foo 1.0 amd64"],
              '"bar" package_policy => "patch", package_method => fake, classes => cl("bar");',
              "PATCH"),
    "delete-in-range": (["foo 1.2 amd64", "bar 2.0 amd64"],
                        '"foo" package_policy => "delete", package_select => ">=", '
                        'package_version => "1.2", package_method => fake, classes => cl("foo");'
                        '\n    "bar" package_policy => "delete", package_select => "<", '
                        'package_version => "3", package_method => fake, classes => cl("bar");',
                        ""),
    "bulk-order": ([], '"foo" package_policy => "add", package_method => fake, '
                       'classes => cl("foo");\n    "bar" package_policy => "add", '
                       'package_method => fake, classes => cl("bar");\n    "foo" '
                       'package_policy => "delete", package_method => fake, '
                       'classes => cl("foo2");', "BULK"),
    "addupdate-missing": ([], '"foo" package_policy => "addupdate", package_version => "1.2", '
                              'package_method => fake, classes => cl("foo");', ""),
    "update-not-installed": ([], '"foo" package_policy => "update", package_method => fake, '
                                 'classes => cl("foo");', ""),
    "promiser-regexes": (["foo 1.0 amd64"],
                         '"foo-1.2-amd64" package_policy => "addupdate", '
                         'package_method => fake, classes => cl("foo");',
                         'package_name_regex => "^([^-]+)"; package_version_regex => '
                         '"^[^-]+-([^-]+)"; package_arch_regex => "^[^-]+-[^-]+-(.*)";'),
    "arch-not-listed": (["foo 1.0 amd64"],
                        '"foo" package_policy => "addupdate", package_version => "1.0", '
                        'package_architectures => { "i386", "amd64" }, '
                        'package_method => fake, classes => cl("foo");', ""),
}


def _differential(host: Host, installed: list[str], promise: str, extra: str,
                  agent: list[str]) -> tuple[list[str], list[str]]:
    host.set("installed.txt", installed)
    (host.dir / "calls.log").unlink(missing_ok=True)
    changes = "individual"
    if extra == "PATCH":
        extra = (f'  package_patch_command => "{host.pm("patch")}";\n'
                 f'  package_patch_list_command => "/usr/bin/printf \'bar 2.0 amd64\\n\'";\n'
                 '  package_patch_name_regex => "^(\\S+)";\n'
                 '  package_patch_version_regex => "^\\S+\\s+(\\S+)";')
    elif extra == "BULK":
        changes, extra = "bulk", ""
    elif extra:
        extra = "  " + extra
    method = host.method(changes, extra)
    classes = " ".join(f"{n}_{o}" for n in ("foo", "bar", "foo2")
                       for o in ("kept", "repaired", "failed"))
    policy = host.tmp / "p.cf"
    policy.write_text(f'''
body common control {{ bundlesequence => {{ "main" }}; }}
bundle agent main
{{
  packages:
    {promise}
  reports:
{_report(classes)}
}}
{method}
''')
    workdir = host.tmp / f"wd-{len(agent)}"
    (workdir / "bin").mkdir(parents=True, exist_ok=True)
    if not (workdir / "bin" / "cf-promises").exists():
        (workdir / "bin" / "cf-promises").symlink_to("/usr/bin/cf-promises")
    out = subprocess.run([*agent, "-K", "-f", str(policy)], capture_output=True, text=True,
                         timeout=120, env={**__import__("os").environ,
                                           "CFENGINE_TEST_OVERRIDE_WORKDIR": str(workdir)})
    reported = sorted(l for l in out.stdout.splitlines() if l.startswith("R: class"))
    return host.calls(), reported


@pytest.mark.skipif(not CF_AGENT.exists(), reason="needs cf-agent 3.21 (cfengine3)")
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_same_commands_and_classes_as_cf_agent(host: Host, scenario: str) -> None:
    installed, promise, extra = SCENARIOS[scenario]
    ours = _differential(host, installed, promise, extra,
                         [sys.executable, "-m", "cfpromise.cli.agent"])
    theirs = _differential(host, installed, promise, extra, [str(CF_AGENT)])
    if scenario != "bulk-order":
        assert ours == theirs
        return
    # A deliberate difference: cf-agent lists the packages again for each promise
    # while nothing is installed (an empty list looks like no list).
    calls = [c for i, c in enumerate(theirs[0]) if c != "list" or i == 0]
    assert ours[0] == calls
    assert ours[1] == theirs[1]


@pytest.mark.parametrize("command, name", [
    ("/usr/bin/env DEBIAN_FRONTEND=noninteractive LC_ALL=C /usr/bin/dpkg -l", "dpkg"),
    ("env LC_ALL=C rpm -qa", "rpm"),
    ("/usr/bin/printf 'x'", "printf"),
])
def test_software_cache_names_the_real_manager(command: str, name: str) -> None:
    from cfpromise.promises.packages.legacy.inventory import manager_name
    assert manager_name(command) == name


def test_software_cache_feeds_packagesmatching(host: Host) -> None:
    host.set("installed.txt", ["foo 1.0 amd64"])
    out = host.run('    "foo" package_policy => "add", package_method => fake;',
                   reports='''    "found $(m[0][name]) $(m[0][version]) $(m[0][arch])";''')
    assert (host.workdir / "state" / "software_packages.csv").read_text().startswith(
        "foo,1.0,amd64,"), out.stdout + out.stderr
    policy = host.tmp / "q.cf"
    policy.write_text('''
body common control { bundlesequence => { "main" }; }
bundle agent main
{
  vars: "m" data => packagesmatching("foo", ".*", ".*", ".*");
  reports: "found $(m[0][name]) $(m[0][version]) $(m[0][arch])";
}''')
    q = subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f", str(policy),
                        "-w", str(host.workdir)], capture_output=True, text=True, timeout=60)
    assert "R: found foo 1.0 amd64" in q.stdout, q.stdout + q.stderr


def test_list_update_command_and_software_cache_follow_ifelapsed(host: Host) -> None:
    host.set("installed.txt", ["foo 1.0 amd64"])
    method = host.method().replace('package_list_update_ifelapsed => "0";',
                                   'package_list_update_ifelapsed => "60";\n'
                                   f'  package_list_update_command => "{host.pm("refresh")}";')
    promise = '    "foo" package_policy => "add", package_method => fake, classes => cl("foo");'
    first = host.run(promise, method=method, reports=_report("foo_kept"))
    assert "R: class foo_kept" in first.stdout and host.calls() == ["refresh", "list"]
    second = host.run(promise, method=method, reports=_report("foo_kept"))
    assert "R: class foo_kept" in second.stdout
    assert host.calls() == ["refresh", "list"]        # both fresh: neither runs again
    third = host.run('    "bar" package_policy => "add", package_method => fake;', method=method)
    assert host.calls()[2:] == ["add bar"], third.stdout + third.stderr
    host.run(promise, method=method)                  # the add made the cache stale
    assert host.calls()[3:] == ["list"]
