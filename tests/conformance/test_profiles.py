"""The masterfiles profile of the conformance runner: the suite is played as masterfiles'
``testall`` plays it (its classes, its ``modules/`` linked into each work directory, the
tree's ``lib/`` reachable at ``../../lib``, core's framework files beside the tests),
timed tests' first passes come before the other tests, and unsafe tests skip without root.

A fake agent (a Python script) checks what it sees and prints the verdict."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import attrs
import pytest

from tests.conformance import profiles, runner
from tests.conformance.runner import RunConfig, TestCase, Verdict

FAKE = r'''#!{python}
import os, sys
argv = sys.argv[1:]
policy, classes = argv[3], argv[5].split(",")
work = os.environ["CFENGINE_TEST_OVERRIDE_WORKDIR"]
problems = []
if classes[-4:] != ["AUTO", "DEBUG", "EXTRA", "testing_masterfiles_policy_framework"]:
    problems.append("classes %s" % classes)
if not os.path.isfile("../../promises.cf"):
    problems.append("the tree was not built")
if not os.path.isfile("../../lib/stdlib.cf"):
    problems.append("no ../../lib/stdlib.cf from %s" % os.getcwd())
module = os.path.join(work, "modules", "packages", "mod")
if not os.path.islink(module) or open(module).read() != "module\n":
    problems.append("modules not linked into the workdir")
framework = open("default.cf.sub").read()
if "dcs.cf.sub" not in framework or "dcs.sub.cf" in framework or not os.path.isfile("dcs.cf.sub"):
    problems.append("framework files")
marker = os.path.join(os.path.dirname(os.getcwd()), "prepared")
if "timed" in policy:
    open(marker, "w").close()
elif not os.path.exists(marker):
    problems.append("the timed test's first pass did not come first")
name = policy
print("R: %s %s" % (name, "FAIL " + "; ".join(problems) if problems else "Pass"))
'''


def make_tree(root: Path) -> tuple[Path, Path]:
    """A masterfiles-like tree and a core suite with the framework files."""
    files = {
        "mf/lib/stdlib.cf": "bundle common stdlib {}\n",
        "mf/modules/packages/mod": "module\n",
        "mf/tests/acceptance/a/1_normal.cf": "# normal\n",
        "mf/tests/acceptance/a/timed/0_prepare.cf": "# timed\n",
        "mf/tests/acceptance/a/unsafe/u.cf": "# unsafe\n",
        "core/default.sub.cf": 'inputs => { "dcs.sub.cf", "plucked.sub.cf" };\n',
        "core/dcs.sub.cf": "bundle common G {}\n",
        "core/plucked.sub.cf": "body x y {}\n",
        "core/run_with_server.cf.sub": "bundle agent s {}\n",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "mf" / "tests" / "acceptance", root / "core"


def test_masterfiles_profile_runs_as_its_testall(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    suite, core = make_tree(tmp_path)
    monkeypatch.setattr(profiles, "CORE_SUITE", core)
    monkeypatch.setattr(profiles.provide_framework, "__defaults__", (core,))
    agent_path = tmp_path / "fake-agent"
    agent_path.write_text(FAKE.replace("{python}", sys.executable))
    agent_path.chmod(0o755)
    agent = runner.make_agent(str(agent_path), "cf-lite")
    assert agent is not None
    tests, excluded = runner.discover(suite, [], runner.Selection(unsafe=True))
    assert [t.path for t in tests] == ["a/1_normal.cf", "a/timed/0_prepare.cf", "a/unsafe/u.cf"]
    (tmp_path / "mf" / "configure").write_text("#!/bin/sh\necho configured > promises.cf\n")
    (tmp_path / "mf" / "configure").chmod(0o755)
    profile = attrs.evolve(profiles.MASTERFILES, build=("./configure",))
    config = RunConfig(jobs=2, profile=profile, log_dir=tmp_path / "logs")
    if os.geteuid() == 0:  # the unsafe test would run: keep to the safe ones here
        tests = tests[:2]
    results = runner.run_tests(suite, tests, [agent], config)["cf-lite"]
    for test in tests[:2]:
        assert results[test.path].verdict is Verdict.PASS, (
            (tmp_path / "logs" / "cf-lite" / f"{test.flat_name}.log").read_text())
    if os.geteuid() != 0:
        assert results["a/unsafe/u.cf"].verdict is Verdict.SKIP
        assert results["a/unsafe/u.cf"].detail == "unsafe test needs root"
    # The shared tree is untouched: no framework file was written into it, nothing built.
    assert not (suite / "default.cf.sub").exists()
    assert not (tmp_path / "mf" / "promises.cf").exists()


def test_a_failed_build_stops_the_run_clearly(tmp_path: Path) -> None:
    suite, core = make_tree(tmp_path)
    profile = attrs.evolve(profiles.MASTERFILES, build=("./configure",))
    agent = runner.make_agent(sys.executable, "cf-lite")
    assert agent is not None
    with pytest.raises(profiles.BuildError, match=r"'./configure' exited 127.*autoconf"):
        runner.run_tests(suite, [TestCase("a/1_normal.cf")], [agent],
                         RunConfig(jobs=1, profile=profile))


def test_provide_framework_keeps_files_the_tree_has(tmp_path: Path) -> None:
    suite, core = make_tree(tmp_path)
    (suite / "dcs.cf.sub").write_text("original\n")
    written = profiles.provide_framework(suite, core)
    assert sorted(written) == ["default.cf.sub", "plucked.cf.sub", "run_with_server.cf.sub"]
    assert (suite / "dcs.cf.sub").read_text() == "original\n"
    assert (suite / "default.cf.sub").read_text() == \
        'inputs => { "dcs.cf.sub", "plucked.cf.sub" };\n'


def test_update_expected_keeps_unsafe_only_where_the_profile_allows(tmp_path: Path) -> None:
    suite, _ = make_tree(tmp_path)
    results = {p: runner.TestResult(p, "cf-lite", Verdict.PASS, "")
               for p in ("a/1_normal.cf", "a/unsafe/u.cf")}
    target = tmp_path / "expected.txt"
    runner.update_expected(target, suite, results, profiles.MASTERFILES)
    assert runner.read_list(target) == ["a/1_normal.cf", "a/unsafe/u.cf"]
    runner.update_expected(target2 := tmp_path / "core.txt", suite, results, profiles.CORE)
    assert runner.read_list(target2) == ["a/1_normal.cf"]
    assert TestCase("a/unsafe/u.cf").serial


def test_host_state_is_put_back_after_unsafe_tests(tmp_path: Path) -> None:
    """What unsafe tests change outside the temp directories (files, folders, paths that
    did not exist) is put back as it was; the cleanup commands run after."""
    f, d, new = tmp_path / "sources.list", tmp_path / "sources.list.d", tmp_path / "test-repos"
    f.write_text("deb http://deb.debian.org/debian bookworm main\n")
    d.mkdir()
    (d / "keep.list").write_text("keep\n")
    marker = tmp_path / "cleaned"
    profile = attrs.evolve(profiles.MASTERFILES, unsafe_paths=(str(f), str(d), str(new)),
                           unsafe_cleanup=(f"touch {marker}",))
    (tmp_path / "store").mkdir()
    state = profiles.HostState(profile, tmp_path / "store")
    state.save()
    f.unlink()                               # what 001-prepare-repositories.cf does
    (d / "keep.list").unlink()
    (d / "testdebian.list").write_text("deb file:///test-repos/deb_repo1 package1 main\n")
    (new / "deb_repo1").mkdir(parents=True)
    state.restore()
    assert f.read_text() == "deb http://deb.debian.org/debian bookworm main\n"
    assert sorted(p.name for p in d.iterdir()) == ["keep.list"]
    assert not new.exists()
    assert marker.exists()
