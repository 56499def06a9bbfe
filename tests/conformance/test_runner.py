"""Tests of the conformance runner, driven through a fake agent on a mini suite.

The fake agent is a small Python script written into ``tmp_path``.  It checks the
invocation contract (``-K -l -f ./rel/path.cf -D ...,AUTO,DEBUG``, run from the
suite's top folder, a fresh work directory in CFENGINE_TEST_OVERRIDE_WORKDIR,
TEMP=<workdir>/tmp, policy not group/other-writable, cf-agent linked into
$WORKDIR/bin) and then obeys the ``# fake:`` lines of the policy, in order::

    # fake: print R: $(this.promise_filename) Pass    print a line
    # fake(test_pass_2): print ...                      only when -D has test_pass_2
    # fake(!test_pass_2): print ...                     only when it has not
    # fake: exit 3 | raise | sleep 5 | signal KILL      exit code, traceback, hang, signal
    # fake: write NAME                                  write a file beside the policy
    # fake: daemon PIDFILE                              leave a detached child running

With ``FAKE_AGENT_LOG`` set it appends ``start``/``end`` lines with times, so the
tests can see what ran at the same time.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import attrs
import psutil
import pytest

from tests.conformance import runner
from tests.conformance.runner import Outcome, RunConfig, Selection, TestCase, Verdict

FAKE_AGENT = r'''#!{python}
import os, re, signal, subprocess, sys, time

def contract(argv):
    problems = []
    if len(argv) != 6 or argv[:3] != ["-K", "-l", "-f"] or argv[4] != "-D":
        return ["argv %r" % argv]
    policy, classes = argv[3], argv[5].split(",")
    if not policy.startswith("./") or not os.path.isfile(policy):
        problems.append("policy %s not relative to the cwd" % policy)
    elif os.stat(policy).st_mode & 0o022:
        problems.append("policy writable by group or others")
    if classes[-2:] != ["AUTO", "DEBUG"]:
        problems.append("classes %s" % classes)
    workdir = os.environ.get("CFENGINE_TEST_OVERRIDE_WORKDIR", "")
    if not os.path.isdir(workdir):
        problems.append("no workdir")
    elif sorted(os.listdir(workdir)) != ["bin", "output.log", "tmp"] and not any(
            c.startswith("test_pass_") and c != "test_pass_1" for c in classes):
        problems.append("workdir not fresh: %s" % os.listdir(workdir))
    elif not os.path.exists(os.path.join(workdir, "bin", "cf-agent")):
        problems.append("no cf-agent in $WORKDIR/bin")
    if os.environ.get("TEMP") != os.path.join(workdir, "tmp") or not os.path.isdir(os.environ["TEMP"]):
        problems.append("TEMP")
    return problems

def main(argv):
    problems = contract(argv)
    if problems:
        print("error: contract: " + "; ".join(problems))
        return 99
    policy, classes = argv[3], set(argv[5].split(","))
    filename = os.getcwd() + "/" + policy
    log = os.environ.get("FAKE_AGENT_LOG")
    if log:
        with open(log, "a") as f:
            f.write("start %s %f\n" % (policy, time.time()))
    try:
        for line in open(policy):
            m = re.match(r"\s*#\s*fake(?:\(([^)]*)\))?:\s*(\w+)\s*(.*)", line)
            if not m:
                continue
            cond, verb, arg = m.groups()
            if cond and not all((c[1:] not in classes) if c.startswith("!") else (c in classes)
                                for c in cond.split(",")):
                continue
            arg = arg.replace("$(this.promise_filename)", filename).strip()
            if verb == "print":
                print(arg, flush=True)
            elif verb == "exit":
                return int(arg)
            elif verb == "raise":
                raise RuntimeError(arg or "boom")
            elif verb == "sleep":
                time.sleep(float(arg))
            elif verb == "signal":
                os.kill(os.getpid(), getattr(signal, "SIG" + arg))
            elif verb == "write":
                with open(os.path.join(os.path.dirname(policy), arg), "w") as f:
                    f.write("written by the fake agent\n")
            elif verb == "daemon":
                child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                                         start_new_session=True, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                with open(arg, "w") as f:
                    f.write(str(child.pid))
    finally:
        if log:
            with open(log, "a") as f:
                f.write("end %s %f\n" % (policy, time.time()))
    return 0

sys.exit(main(sys.argv[1:]))
'''

PASS = "# fake: print R: $(this.promise_filename) Pass\n"
FAIL = "# fake: print R: $(this.promise_filename) FAIL\n"


def dcs(word: str) -> str:
    """A verdict line as dcs.sub.cf prints it (named after dcs.sub.cf, not the test)."""
    return f"# fake: print R: /somewhere/./x/../dcs.sub.cf {word}\n"


@pytest.fixture
def fake_agent(tmp_path: Path) -> str:
    path = tmp_path / "bin" / "fake-agent"
    path.parent.mkdir()
    path.write_text(FAKE_AGENT.replace("{python}", sys.executable))
    path.chmod(0o755)
    return str(path)


def make_suite(root: Path, files: dict[str, str], mode: int = 0o664) -> Path:
    """A mini suite; the files are group-writable on purpose (the runner must copy)."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(mode)
    return root


def run(suite: Path, agent_cmd: str, names: tuple[str, ...] = (), *,
        selection: Selection = Selection(), **config: Any) -> dict[str, runner.TestResult]:
    """Run the mini suite with the fake agent: jobs=2, a 10 s timeout unless told."""
    tests, _ = runner.discover(suite, names, selection)
    agent = runner.make_agent(agent_cmd, "cf-lite")
    assert agent is not None
    settings = attrs.evolve(RunConfig(jobs=2, timeout=10.0), **config)
    return runner.run_tests(suite, tests, [agent], settings)["cf-lite"]


# Every verdict, through the fake agent: (test path, policy text, verdict, detail fragment).
CASES = [
    ("a/pass.cf", PASS, Verdict.PASS, ""),
    ("a/fail.cf", FAIL, Verdict.FAIL, "printed FAIL"),
    ("a/fail_then_pass.cf", FAIL + PASS, Verdict.FAIL, "and Pass"),
    ("a/fail_with_error.cf", "# fake: print error: it broke\n" + FAIL, Verdict.FAIL, "error: it broke"),
    ("a/no_verdict.cf", "# fake: print R: hello\n", Verdict.FAIL, "no verdict"),
    ("a/other_test.cf", "# fake: print R: /x/./a/pass.cf Pass\n", Verdict.FAIL, "no verdict"),
    ("a/unprefixed.cf", "# fake: print R: /abs/a/unprefixed.cf Pass\n", Verdict.FAIL, "spelling"),
    ("a/exit_nonzero.cf", PASS + "# fake: exit 1\n", Verdict.FAIL, "exit code 1"),
    ("a/traceback.cf", PASS + "# fake: raise kaboom\n", Verdict.CRASH, "RuntimeError: kaboom"),
    ("a/signal.cf", "# fake: signal KILL\n", Verdict.CRASH, "SIGKILL"),
    ("a/hang.cf", "# fake: sleep 30\n", Verdict.TIMEOUT, "no exit"),
    ("b/xfail.cf", dcs("XFAIL/CFE-1234") + FAIL, Verdict.XFAIL, "CFE-1234"),
    ("b/sfail.cf", dcs("SFAIL/ENT-42") + FAIL, Verdict.SFAIL, "ENT-42"),
    ("b/xfail_exit.cf", dcs("XFAIL/CFE-1") + "# fake: exit 2\n", Verdict.XFAIL, "CFE-1"),
    ("b/xfail_but_pass.cf", dcs("XFAIL/CFE-1") + PASS, Verdict.FAIL, "failure was expected"),
    ("b/flakey.cf", dcs("FLAKEY/ENT-6947") + FAIL, Verdict.FLAKEY, "ENT-6947"),
    ("b/flakey_pass.cf", dcs("FLAKEY/ENT-6947") + PASS, Verdict.PASS, ""),
    ("b/no_ticket.cf", dcs("FAIL/no_ticket_number") + FAIL, Verdict.FAIL, "ticket"),
    ("b/skip_unsupported.cf", dcs("Skip/unsupported"), Verdict.SKIP, "unsupported"),
    ("b/skip_needs_work.cf", dcs("Skip/needs_work"), Verdict.SKIP, "needs_work"),
    ("c/rejected.x.cf", "# fake: print error: syntax error\n# fake: exit 1\n", Verdict.PASS, ""),
    ("c/aborted.x.cf", "# fake: print cf-agent aborted on defined class 'x'\n# fake: exit 6\n",
     Verdict.PASS, ""),
    ("c/accepted.x.cf", PASS, Verdict.FAIL, "exited 0"),
    ("c/silent.x.cf", "# fake: exit 1\n", Verdict.FAIL, "no error printed"),
    ("c/traceback.x.cf", "# fake: print error: x\n# fake: raise\n", Verdict.CRASH, "traceback"),
    ("c/signal.x.cf", "# fake: print error: x\n# fake: signal SEGV\n", Verdict.CRASH, "SIGSEGV"),
    ("c/high_exit.x.cf", "# fake: print error: x\n# fake: exit 134\n", Verdict.CRASH, "134"),
    ("c/logged.error.cf", "# fake: print error: logged\n", Verdict.PASS, ""),
    ("c/quiet.error.cf", "", Verdict.FAIL, "no error printed"),
    ("d/wait_untimed.cf", "# fake: print R: $(this.promise_filename) Wait/1\n", Verdict.FAIL, "timed/"),
    ("d/timed/two_passes.cf", "# fake(test_pass_1): print R: $(this.promise_filename) Wait/1\n"
     "# fake(test_pass_2): print R: $(this.promise_filename) Pass\n", Verdict.PASS, ""),
    ("d/timed/three_passes.cf", "# fake(!test_pass_3): print R: $(this.promise_filename) Wait/0\n"
     "# fake(test_pass_3): print R: $(this.promise_filename) FAIL\n", Verdict.FAIL, "printed FAIL"),
]


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, runner.TestResult]:
    root = tmp_path_factory.mktemp("verdicts")
    agent = root / "fake-agent"
    agent.write_text(FAKE_AGENT.replace("{python}", sys.executable))
    agent.chmod(0o755)
    suite = make_suite(root / "suite", {path: text for path, text, _, _ in CASES})
    return run(suite, str(agent), timeout=3.0)


@pytest.mark.parametrize(("path", "verdict", "detail"),
                         [(p, v, d) for p, _, v, d in CASES], ids=[c[0] for c in CASES])
def test_verdict(verdicts: dict[str, runner.TestResult], path: str, verdict: Verdict,
                 detail: str) -> None:
    result = verdicts[path]
    assert result.verdict is verdict, result
    assert detail in result.detail


def test_timed_test_waits_and_reruns(verdicts: dict[str, runner.TestResult]) -> None:
    two = verdicts["d/timed/two_passes.cf"]
    assert two.passes == 2 and two.duration >= 1.0
    assert verdicts["d/timed/three_passes.cf"].passes == 3
    assert verdicts["a/pass.cf"].passes == 1


def test_timed_tests_skip_with_no_wait_and_stop_at_max_wait(tmp_path: Path, fake_agent: str) -> None:
    suite = make_suite(tmp_path / "suite", {
        "t/timed/a.cf": "# fake(test_pass_1): print R: $(this.promise_filename) Wait/5\n" + PASS})
    skipped = run(suite, fake_agent, no_wait=True)["t/timed/a.cf"]
    assert skipped.verdict is Verdict.SKIP and "--no-wait" in skipped.detail
    capped = run(suite, fake_agent, max_wait=2.0)["t/timed/a.cf"]
    assert capped.verdict is Verdict.TIMEOUT and capped.duration < 4


def test_classify_is_pure() -> None:
    test = TestCase("x/y.cf")
    line = "R: /suite/./x/y.cf"
    assert runner.classify(test, f"{line} Pass\n", 0) == Outcome(Verdict.PASS)
    assert runner.classify(test, f"{line} Wait/7\n", 0).verdict is Verdict.FAIL
    assert runner.classify(TestCase("x/timed/y.cf"), "R: /s/./x/timed/y.cf Wait/7\n", 0) == \
        Outcome(Verdict.WAIT, "Wait/7", 7)
    trace = "Traceback (most recent call last):\n  File \"m.py\"\nValueError: no\n"
    assert runner.classify(test, trace + f"{line} Pass\n", 0).verdict is Verdict.CRASH
    # A C agent cannot raise one itself: a traceback there comes from a child process.
    assert runner.classify(test, trace + f"{line} Pass\n", 0,
                           traceback_is_crash=False).verdict is Verdict.PASS
    assert runner.first_error("2026-01-01T00:00:00+0000    error: bad thing\nerror: b\n") == \
        "error: bad thing"


def test_selection_rules(tmp_path: Path) -> None:
    suite = make_suite(tmp_path, {name: PASS for name in [
        "01_a/x.cf", "01_a/staging/s.cf", "01_a/unsafe/u.cf", "01_a/network/n.cf",
        "01_a/helper.sub.cf", "01_a/helper.cf.sub", "01_a/data.json", "selftest/self.cf",
        "02_b/deep/er.cf", "default.sub.cf"]})
    tests, excluded = runner.discover(suite, [], Selection())
    assert [t.path for t in tests] == ["01_a/x.cf", "02_b/deep/er.cf"]
    assert excluded == {"staging": ["01_a/staging/s.cf"], "unsafe": ["01_a/unsafe/u.cf"],
                        "network": ["01_a/network/n.cf"]}
    tests, excluded = runner.discover(suite, ["01_a"], Selection(staging=True, network=True))
    assert [t.path for t in tests] == ["01_a/network/n.cf", "01_a/staging/s.cf", "01_a/x.cf"]
    assert excluded == {"unsafe": ["01_a/unsafe/u.cf"]}
    assert [t.row for t in tests] == ["01_a", "01_a (staging)", "01_a"]
    # Naming an unsafe test is not enough: it takes --unsafe.
    tests, excluded = runner.discover(suite, ["01_a/unsafe/u.cf"], Selection())
    assert tests == [] and excluded == {"unsafe": ["01_a/unsafe/u.cf"]}
    tests, _ = runner.discover(suite, ["01_a/unsafe/u.cf"], Selection(unsafe=True))
    assert tests == [TestCase("01_a/unsafe/u.cf")] and tests[0].serial
    assert [t.path for t in runner.discover(suite, ["selftest", "./01_a/x.cf"], Selection())[0]] \
        == ["01_a/x.cf", "selftest/self.cf"]
    for bad in ["nope", "../outside", "01_a/data.json"]:
        with pytest.raises(ValueError):
            runner.discover(suite, [bad], Selection())


def test_serial_detection_and_blocks() -> None:
    serial = ["a/serial/x.cf", "a/x_serial.cf", "a/serial_x.cf", "a/x_serial_y.cf", "a/unsafe/x.cf"]
    parallel = ["a/serialization.cf", "a/x.cf", "a/serials/x.cf"]
    assert all(TestCase(p).serial for p in serial)
    assert not any(TestCase(p).serial for p in parallel)
    tests = [TestCase(p) for p in ["a/1.cf", "a/2.cf", "a/3_serial.cf", "a/4_serial.cf", "a/5.cf"]]
    assert [(s, [t.path for t in b]) for s, b in runner.blocks(tests)] == [
        (False, ["a/1.cf", "a/2.cf"]), (True, ["a/3_serial.cf", "a/4_serial.cf"]), (False, ["a/5.cf"])]


def _intervals(log: Path) -> dict[str, tuple[float, float]]:
    spans: dict[str, list[float]] = {}
    for line in log.read_text().splitlines():
        _, policy, stamp = line.split()
        spans.setdefault(policy.removeprefix("./"), []).append(float(stamp))
    return {name: (s[0], s[1]) for name, s in spans.items()}


def test_serial_tests_run_alone_and_in_order(tmp_path: Path, fake_agent: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    slow = "# fake: sleep 0.4\n" + PASS
    suite = make_suite(tmp_path / "suite", {
        "s/1.cf": slow, "s/2.cf": slow, "s/3_serial.cf": slow, "s/4.cf": slow, "s/5.cf": slow,
        "s/serial/6.cf": slow, "s/7.cf": slow})
    log = tmp_path / "agent.log"
    monkeypatch.setenv("FAKE_AGENT_LOG", str(log))
    results = run(suite, fake_agent)
    assert {r.verdict for r in results.values()} == {Verdict.PASS}
    spans = _intervals(log)
    for serial in ("s/3_serial.cf", "s/serial/6.cf"):
        start, end = spans[serial]
        for other, (o_start, o_end) in spans.items():
            if other != serial:
                assert o_end <= start or o_start >= end, f"{other} overlapped {serial}"
    assert spans["s/2.cf"][1] <= spans["s/3_serial.cf"][0] <= spans["s/4.cf"][0]
    # Parallel tests did run side by side on the two jobs.
    assert spans["s/1.cf"][0] < spans["s/2.cf"][1] and spans["s/2.cf"][0] < spans["s/1.cf"][1]


def test_leftover_daemons_are_killed(tmp_path: Path, fake_agent: str) -> None:
    pidfile = tmp_path / "daemon.pid"
    suite = make_suite(tmp_path / "suite", {"d/x.cf": f"# fake: daemon {pidfile}\n" + PASS})
    assert run(suite, fake_agent)["d/x.cf"].verdict is Verdict.PASS
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                break
        except psutil.NoSuchProcess:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"daemon {pid} left running")


def test_the_suite_itself_is_never_written(tmp_path: Path, fake_agent: str) -> None:
    suite = make_suite(tmp_path / "suite", {"w/x.cf": "# fake: write side.txt\n" + PASS})
    before = sorted(p.name for p in (suite / "w").iterdir())
    assert run(suite, fake_agent)["w/x.cf"].verdict is Verdict.PASS  # policy copied 0644
    assert sorted(p.name for p in (suite / "w").iterdir()) == before
    assert (suite / "w" / "x.cf").stat().st_mode & 0o777 == 0o664


def test_missing_agent_fails_every_test(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite", {"m/x.cf": PASS})
    agent = runner.Agent("cf-lite", (str(tmp_path / "does-not-exist"),))
    results = runner.run_tests(suite, [TestCase("m/x.cf")], [agent], RunConfig(jobs=1))
    assert results["cf-lite"]["m/x.cf"].verdict is Verdict.FAIL
    assert runner.make_agent(str(tmp_path / "does-not-exist"), "cf-lite") is None


def test_report_with_reference(tmp_path: Path, fake_agent: str) -> None:
    suite = make_suite(tmp_path / "suite", {"r/ok.cf": PASS, "r/bad.cf": FAIL,
                                            "q/bad.cf": FAIL, "r/staging/s.cf": PASS})
    always_pass = tmp_path / "always-pass"
    always_pass.write_text(f"#!{sys.executable}\nimport os, sys\n"
                           "print('R: ' + os.getcwd() + '/' + sys.argv[4] + ' Pass')\n")
    always_pass.chmod(0o755)
    tests, excluded = runner.discover(suite, [], Selection(staging=True))
    main = runner.make_agent(fake_agent, "cf-lite")
    ref = runner.make_agent(str(always_pass), "cf-agent", reference=True)
    assert main is not None and ref is not None
    results = runner.run_tests(suite, tests, [main, ref], RunConfig(jobs=2, timeout=10))
    summary = runner.summarize(suite, tests, excluded, [main, ref], results, "cf-lite",
                               {"r/ok.cf", "r/bad.cf"})
    assert "passes with CFEngine, fails with cf-lite: 2" in summary
    assert "  q/bad.cf  [FAIL]" in summary and "  r/bad.cf  [FAIL]" in summary
    assert "r (staging)" in summary
    row = next(line for line in summary.splitlines() if line.startswith("r "))
    assert row.split() == ["r", "2", "1", "1", "0", "0", "0", "0", "0", "0", "2", "1", "1/2", "50.0%"]
    assert "== failures (cf-lite): 2" in summary
    runner.write_results(tmp_path / "out", summary, suite, [main, ref], results, excluded)
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    assert data["agents"]["cf-agent"]["results"]["q/bad.cf"]["verdict"] == "Pass"
    assert data["agents"]["cf-lite"]["results"]["q/bad.cf"]["verdict"] == "FAIL"
    runner.write_reference(tests, results["cf-agent"], "CFEngine Core 3.21.0",
                           tmp_path / "table.txt", tmp_path / "pass.txt")
    assert runner.read_list(tmp_path / "pass.txt") == sorted(t.path for t in tests)
    assert "TOTAL" in (tmp_path / "table.txt").read_text()


def test_update_expected_only_grows(tmp_path: Path) -> None:
    suite = make_suite(tmp_path / "suite", {"e/a.cf": "", "e/b.cf": "", "e/c.cf": "",
                                            "e/unsafe/u.cf": ""})
    listing = tmp_path / "expected-pass.txt"
    listing.write_text("# header\ne/a.cf\ne/gone.cf\n")

    def result(path: str, verdict: Verdict) -> runner.TestResult:
        return runner.TestResult(path, "cf-lite", verdict, "")
    added = runner.update_expected(listing, suite, {
        "e/a.cf": result("e/a.cf", Verdict.FAIL), "e/b.cf": result("e/b.cf", Verdict.PASS),
        "e/c.cf": result("e/c.cf", Verdict.SKIP), "e/unsafe/u.cf": result("e/unsafe/u.cf", Verdict.PASS)})
    assert added == ["e/b.cf"]
    assert runner.read_list(listing) == ["e/a.cf", "e/b.cf"]


def test_command_line(tmp_path: Path, fake_agent: str) -> None:
    suite = make_suite(tmp_path / "suite", {"01_x/ok.cf": PASS, "01_x/bad.cf": FAIL,
                                            "01_x/staging/s.cf": PASS})
    out = tmp_path / "results"
    env = {**os.environ, runner.SUITE_ENV: str(suite)}
    proc = subprocess.run([sys.executable, str(Path(runner.__file__)), "--agent", fake_agent,
                           "--results-dir", str(out), "--timeout", "10", "-v"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "not run: 1 staging tests" in proc.stdout
    assert "FAIL    01_x/bad.cf: printed FAIL" in proc.stdout
    assert (out / "summary.txt").read_text().startswith(f"suite: {suite}")
    data = json.loads((out / "results.json").read_text())
    assert data["agents"]["cf-lite"]["results"]["01_x/ok.cf"]["verdict"] == "Pass"
    assert "printed FAIL" in (out / "logs" / "cf-lite" / "01_x_bad_cf.log").read_text()
    missing = subprocess.run([sys.executable, str(Path(runner.__file__)), "--agent", "no-such-agent",
                              "--results-dir", str(out)], capture_output=True, text=True, env=env)
    assert missing.returncode == 2 and "agent not found" in missing.stderr


# --------------------------------------------------------------------------- support tools

TOOL_SOURCE = r'''#include <platform.h>
int main(int argc, char **argv)
{
    char *s = NULL;
    xasprintf(&s, "built %s", argc > 1 ? argv[1] : "-");
    puts(s);
    return 0;
}
'''


def test_support_tools_are_built_once_into_each_private_copy(tmp_path: Path, fake_agent: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.conformance import support_tools
    if support_tools.compiler() is None:
        pytest.skip("needs a C compiler (cc)")
    suite = make_suite(tmp_path / "suite", {"no_fds.c": TOOL_SOURCE, "a/pass.cf": PASS})
    agent = runner.make_agent(fake_agent, "cf-lite")
    assert agent is not None
    execution = runner.Execution(suite, [agent], RunConfig(jobs=1, keep_workdirs=True))
    try:
        copy = execution._suites["cf-lite"]
        built = copy / "no_fds"
        assert os.access(built, os.X_OK)
        out = subprocess.run([str(built), "ok"], capture_output=True, text=True).stdout
        assert out == "built ok\n"
        # Cached: a second build of the same sources compiles nothing.
        tools_dir = next(copy.parent.glob("tools"))
        stamp = (tools_dir / "no_fds").stat().st_mtime_ns
        monkeypatch.setenv("CC", "/nonexistent/cc")
        support_tools.build_tools(suite, tools_dir)
        assert (tools_dir / "no_fds").stat().st_mtime_ns == stamp
    finally:
        execution.close()
    assert not (suite / "no_fds").exists()  # never built into the suite itself


def test_support_tools_fail_clearly(tmp_path: Path, fake_agent: str,
                                    monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conformance import support_tools
    suite = make_suite(tmp_path / "suite", {"no_fds.c": TOOL_SOURCE, "a/pass.cf": PASS})
    monkeypatch.setenv("CC", "no-such-compiler-anywhere")
    with pytest.raises(support_tools.ToolBuildError, match=r"no C compiler \(cc\).*no_fds"):
        support_tools.build_tools(suite, tmp_path / "tools")
    rc = runner.main(["--suite", str(suite), "--agent", fake_agent,
                      "--results-dir", str(tmp_path / "results")])
    assert rc == 2
    assert "error: no C compiler (cc)" in capsys.readouterr().err
    if support_tools.compiler() is None and shutil.which("cc") is None:
        return
    monkeypatch.delenv("CC")
    (suite / "no_fds.c").write_text("int main( {")
    with pytest.raises(support_tools.ToolBuildError, match=r"cannot build no_fds from no_fds\.c"):
        support_tools.build_tools(suite, tmp_path / "tools2")
