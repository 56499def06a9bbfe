"""Play CFEngine's acceptance suite against cf-lite (and optionally against cf-agent 3.21).

Usage (from the repository root)::

    python tests/conformance/runner.py [FOLDER|TEST ...] [--agent CMD] [--reference] [-j N] ...

Each test is one ``.cf`` file of ``../shared/conformance/cfengine-acceptance``, run
on its own from the suite's top folder as ``AGENT -K -l -f ./dir/test.cf -D AUTO,DEBUG``
with a fresh work directory named in ``CFENGINE_TEST_OVERRIDE_WORKDIR`` and
``TEMP=<workdir>/tmp``, the way upstream's ``testall`` does it.  The verdict is
read from the agent's output (:func:`classify`, the rules of the suite's README).

The algorithm:

1. Select: walk the named folders (or the whole suite, minus ``selftest/``) for
   ``*.cf`` files that are not ``*.sub.cf`` helpers; leave out ``staging/``,
   ``unsafe/`` and ``network/`` tests unless their flag is given.
2. Copy the suite once per agent into a private temporary directory with a umask
   of 022: tests run as root may change files beside themselves (one chmods its
   ``.src`` sibling), and the shared corpus must stay untouched.  The suite's C
   helper tools (mock_package_manager, no_fds, custom_promise_binary, ...) are
   compiled once per run into that directory and copied into each copy's top
   folder, where upstream's build puts them (:mod:`support_tools`).
3. Cut the sorted list into blocks at every change between serial and parallel
   tests (``serial`` as a path word, and ``unsafe/``).  A parallel block runs on a
   thread pool of ``--jobs`` workers; a serial block runs one test at a time with
   nothing else running (a :class:`Gate` held exclusively).  Tests under
   ``timed/`` run in threads of their own: pass 1 gets the class ``test_pass_1``;
   when a pass prints ``Wait/N`` the thread sleeps N seconds without holding a
   slot, then runs pass N+1 in the same work directory.
4. After every agent run, processes still carrying the test's work directory in
   their environment (daemons the test started) are killed by pid.
5. Tabulate per top-level folder, print, and write ``conformance-results/``.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Iterator, Sequence

import attrs
import psutil

if __package__:
    from . import profiles, support_tools
    from .verdicts import (Kind, Outcome, TestCase, TestResult, Verdict, classify,  # noqa: F401
                           first_error)
else:  # run as a script: tests/conformance is sys.path[0]
    import profiles
    import support_tools
    from verdicts import (Kind, Outcome, TestCase, TestResult, Verdict, classify,  # noqa: F401
                          first_error)

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
Profile = profiles.Profile
SUITE_ENV = profiles.CORE.env
DEFAULT_SUITE = profiles.CORE.suite
RESULTS_DIR = REPO_ROOT / "conformance-results"
EXPECTED_PASS_FILE = profiles.CORE.expected_pass
REFERENCE_PASS_FILE = profiles.CORE.reference_pass
REFERENCE_TABLE_FILE = profiles.CORE.reference_table
DEFAULT_AGENT = "cf-lite-agent"
REFERENCE_AGENT = "/usr/bin/cf-agent"
WORKDIR_ENV = "CFENGINE_TEST_OVERRIDE_WORKDIR"
# Programs upstream's testall links into $WORKDIR/bin; tests reach them as $(sys.cf_*).
CF_PROGRAMS = ("cf-agent", "cf-promises", "cf-serverd", "cf-execd", "cf-key", "cf-secret",
               "cf-net", "cf-check", "cf-runagent", "cf-monitord")
PRUNED_DIRS = frozenset({"workdir", ".git"})


# --------------------------------------------------------------------------- selection

@attrs.frozen
class Selection:
    """Which of the optional test families to run."""

    staging: bool = False
    unsafe: bool = False
    network: bool = False


def _walk(folder: Path, suite: Path, prune: frozenset[str]) -> Iterator[str]:
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if d not in prune]
        for name in filenames:
            if name.endswith(".cf") and not name.endswith(".sub.cf"):
                yield (Path(dirpath) / name).relative_to(suite).as_posix()


def discover(suite: Path, names: Sequence[str], selection: Selection
             ) -> tuple[list[TestCase], dict[str, list[str]]]:
    """The tests named (folders or files relative to the suite; none = everything)
    and, apart, those left out by reason (``staging``, ``unsafe``, ``network``)."""
    suite = suite.resolve()
    paths: set[str] = set()
    if not names:
        paths.update(_walk(suite, suite, PRUNED_DIRS | {"selftest"}))
    for name in names:
        target = (suite / name.removeprefix("./")).resolve()
        if not target.is_relative_to(suite) or not target.exists():
            raise ValueError(f"no such test or folder in the suite: {name}")
        if target.is_dir():
            paths.update(_walk(target, suite, PRUNED_DIRS))
        elif target.name.endswith(".cf"):
            paths.add(target.relative_to(suite).as_posix())
        else:
            raise ValueError(f"not a .cf test: {name}")
    selected: list[TestCase] = []
    excluded: dict[str, list[str]] = {}
    for path in sorted(paths):
        test = TestCase(path)
        for reason, wanted in (("unsafe", selection.unsafe), ("staging", selection.staging),
                               ("network", selection.network)):
            if getattr(test, reason) and not wanted:
                excluded.setdefault(reason, []).append(path)
                break
        else:
            selected.append(test)
    return selected, excluded


def blocks(tests: Sequence[TestCase]) -> list[tuple[bool, list[TestCase]]]:
    """Cut the sorted tests into runs of (serial?, tests), upstream's block order."""
    out: list[tuple[bool, list[TestCase]]] = []
    for test in tests:
        if out and out[-1][0] == test.serial:
            out[-1][1].append(test)
        else:
            out.append((test.serial, [test]))
    return out


# --------------------------------------------------------------------------- agents

@attrs.frozen
class Agent:
    """An agent command to play the suite against, and what goes in $WORKDIR/bin."""

    label: str
    argv: tuple[str, ...]
    bin_links: tuple[tuple[str, str], ...] = ()
    traceback_is_crash: bool = True
    #: run as $WORKDIR/bin/cf-agent, the name upstream's tests look for in the process
    #: table (05_processes match "cf-agent" to find the agent itself)
    as_cf_agent: bool = False


def resolve_command(command: str) -> tuple[str, ...] | None:
    """Split ``command`` and find its program beside sys.executable (the project's venv,
    so the agent under test is the one installed with these tests), else on PATH."""
    argv = shlex.split(command)
    if not argv:
        return None
    program = argv[0]
    found = None
    if "/" not in program:
        candidate = Path(sys.executable).parent / program
        found = str(candidate) if os.access(candidate, os.X_OK) else None
    if found is None:
        found = shutil.which(program)
    return (os.path.abspath(found), *argv[1:]) if found else None


def make_agent(command: str, label: str, *, reference: bool = False) -> Agent | None:
    """An :class:`Agent` for ``command``; None when it cannot be found.

    Upstream links cf-agent and its sibling programs into $WORKDIR/bin ($(sys.bindir)).
    The reference gets /usr/bin/cf-*; cf-lite gets its agent as ``cf-agent`` and each
    ``cf-lite-X`` beside it as ``cf-X``.
    """
    argv = resolve_command(command)
    if argv is None:
        return None
    program = Path(argv[0])
    links: dict[str, str] = {}
    if len(argv) == 1:
        links[program.name] = str(program)
        links["cf-agent"] = str(program)
        for name in CF_PROGRAMS:
            sibling = program.parent / (name if reference else name.replace("cf-", "cf-lite-", 1))
            if sibling.is_file() and os.access(sibling, os.X_OK):
                links.setdefault(name, str(sibling))
    diff = shutil.which("diff")
    if diff:
        links.setdefault("diff", diff)
    return Agent(label, argv, tuple(sorted(links.items())), traceback_is_crash=not reference,
                 as_cf_agent=not reference and len(argv) == 1)


# --------------------------------------------------------------------------- execution

class Gate:
    """At most ``slots`` shared holders at once; an exclusive holder runs alone
    (and, once waiting, keeps new shared holders out)."""

    def __init__(self, slots: int) -> None:
        self._cond = threading.Condition()
        self._slots = max(1, slots)
        self._shared = 0
        self._exclusive = False
        self._waiting = 0

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: not self._exclusive and not self._waiting
                                and self._shared < self._slots)
            self._shared += 1
        try:
            yield
        finally:
            with self._cond:
                self._shared -= 1
                self._cond.notify_all()

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._cond:
            self._waiting += 1
            self._cond.wait_for(lambda: not self._exclusive and self._shared == 0)
            self._waiting -= 1
            self._exclusive = True
        try:
            yield
        finally:
            with self._cond:
                self._exclusive = False
                self._cond.notify_all()


@attrs.frozen
class RunConfig:
    """How to run: parallelism, limits, timed-test policy, where logs go."""

    jobs: int = attrs.field(factory=lambda: os.cpu_count() or 1)
    timeout: float = 60.0
    no_wait: bool = False
    max_wait: float = 600.0
    keep_workdirs: bool = False
    log_dir: Path | None = None
    profile: Profile = profiles.CORE


def copy_suite(suite: Path, dest: Path) -> Path:
    """Copy the suite to ``dest`` with modes 0644/0755 (umask 022)."""
    old = os.umask(0o022)
    try:
        for dirpath, dirnames, filenames in os.walk(suite):
            dirnames[:] = [d for d in dirnames if d not in PRUNED_DIRS]
            target = dest / Path(dirpath).relative_to(suite)
            target.mkdir(parents=True, exist_ok=True)
            for name in filenames:
                source = Path(dirpath) / name
                if source.is_symlink():
                    os.symlink(os.readlink(source), target / name)
                    continue
                shutil.copyfile(source, target / name)
                executable = os.stat(source).st_mode & 0o111
                os.chmod(target / name, 0o755 if executable else 0o644)
    finally:
        os.umask(old)
    return dest


def kill_leftovers(workdir: Path) -> list[int]:
    """Kill (by pid) processes whose environment names ``workdir`` as their
    CFENGINE_TEST_OVERRIDE_WORKDIR: daemons a test started and left behind."""
    killed: list[int] = []
    me = os.getpid()
    for proc in psutil.process_iter(["pid"]):
        if proc.pid == me:
            continue
        try:
            if proc.environ().get(WORKDIR_ENV) == str(workdir):
                proc.kill()
                killed.append(proc.pid)
        except (psutil.Error, OSError):
            continue
    return killed


class Execution:
    """One invocation's worth of test runs: private suite copies, work
    directories, the gate, and the running processes (for interruption)."""

    def __init__(self, suite: Path, agents: Sequence[Agent], config: RunConfig) -> None:
        self.config = config
        self.agents = list(agents)
        self.gate = Gate(config.jobs)
        self.stop = threading.Event()
        self._base = Path(tempfile.mkdtemp(prefix="cf-lite-conformance-"))
        try:
            tools = support_tools.build_tools(suite, self._base / "tools")
        except support_tools.ToolBuildError:
            shutil.rmtree(self._base, ignore_errors=True)
            raise
        profile = config.profile
        root = profiles.copy_root(suite.resolve(), profile)
        below = suite.resolve().relative_to(root)
        roots = {a.label: copy_suite(root, self._base / f"suite-{a.label}") for a in agents}
        self._suites = {label: copy / below for label, copy in roots.items()}
        try:
            for label, copy in self._suites.items():
                support_tools.install_tools(tools, copy)
                if profile.framework:
                    profiles.provide_framework(copy)
                profiles.build_tree(roots[label], profile)
        except profiles.BuildError:
            shutil.rmtree(self._base, ignore_errors=True)
            raise
        self._procs: dict[int, subprocess.Popen[bytes]] = {}
        self._lock = threading.Lock()
        self._host: profiles.HostState | None = None
        # Upstream's testall runs the first pass of every timed test before the first
        # other test (a timed test may prepare what others use: masterfiles'
        # 17_packages/01_init/unsafe/timed/001-prepare-repositories.cf).
        self._first_passes = threading.Condition()
        self._first_passes_left = 0
        self._counted: set[tuple[str, str]] = set()
        self._test_locks: dict[str, threading.Lock] = {}

    def abort(self) -> None:
        """Stop starting agents and kill the process groups of those running."""
        self.stop.set()
        with self._first_passes:
            self._first_passes.notify_all()
        with self._lock:
            for proc in list(self._procs.values()):
                with contextlib.suppress(OSError):
                    os.killpg(proc.pid, signal.SIGKILL)

    def close(self) -> None:
        self.abort()
        if self._host is not None:  # after the unsafe tests: the host as it was
            self._host.restore()
            self._host = None
        if not self.config.keep_workdirs:
            shutil.rmtree(self._base, ignore_errors=True)

    def _test_lock(self, test: TestCase) -> threading.Lock:
        with self._lock:
            return self._test_locks.setdefault(test.path, threading.Lock())

    def run(self, tests: Sequence[TestCase],
            on_result: Callable[[TestResult], None] | None = None) -> list[TestResult]:
        """Run every test with every agent: serial blocks alone, timed tests
        in their own threads, everything else on ``jobs`` workers."""
        results: list[TestResult] = []
        lock = threading.Lock()

        def one(agent: Agent, test: TestCase, serial: bool = False) -> None:
            result = self.run_one(agent, test, serial=serial)
            with lock:
                results.append(result)
            if on_result is not None:
                on_result(result)

        timed = [t for t in tests if t.timed]
        rest = [t for t in tests if not t.timed]
        timed_pool = ThreadPoolExecutor(max(1, len(timed) * len(self.agents)), "timed")
        pool = ThreadPoolExecutor(self.config.jobs, "test")
        with self._first_passes:
            self._first_passes_left = len(timed) * len(self.agents)
        if any(t.unsafe for t in tests) and os.geteuid() == 0 and self._host is None:
            (self._base / "host").mkdir()
            self._host = profiles.HostState(self.config.profile, self._base / "host")
            self._host.save()
        try:
            waiting = [timed_pool.submit(one, a, t, t.serial) for t in timed for a in self.agents]
            with self._first_passes:
                self._first_passes.wait_for(lambda: self._first_passes_left <= 0
                                            or self.stop.is_set())
            for serial, block in blocks(rest):
                jobs = [(a, t) for a in self.agents for t in block]
                if serial:
                    for agent, test in jobs:
                        one(agent, test, True)
                else:
                    for future in [pool.submit(one, a, t) for a, t in jobs]:
                        future.result()
            for future in waiting:
                future.result()
        except BaseException:
            self.abort()
            raise
        finally:
            for executor in (pool, timed_pool):
                executor.shutdown(wait=True, cancel_futures=True)
        return results

    def _first_pass_done(self, agent: Agent, test: TestCase) -> None:
        """Count a timed test's first pass as done (once per test and agent)."""
        if test.timed:
            with self._first_passes:
                if (test.path, agent.label) not in self._counted:
                    self._counted.add((test.path, agent.label))
                    self._first_passes_left -= 1
                    self._first_passes.notify_all()

    def run_one(self, agent: Agent, test: TestCase, *, serial: bool = False) -> TestResult:
        """All passes of one test for one agent, with its own fresh work directory."""
        try:
            return self._run_one(agent, test, serial=serial)
        finally:
            self._first_pass_done(agent, test)  # skipped, or stopped before its first pass

    def _run_one(self, agent: Agent, test: TestCase, *, serial: bool = False) -> TestResult:
        if test.timed and self.config.no_wait:
            return TestResult(test.path, agent.label, Verdict.SKIP, "timed test (--no-wait)")
        if test.unsafe and os.geteuid() != 0:
            return TestResult(test.path, agent.label, Verdict.SKIP, "unsafe test needs root")
        workdir = self._base / f"work-{agent.label}" / test.flat_name
        shutil.rmtree(workdir, ignore_errors=True)
        (workdir / "bin").mkdir(parents=True)
        (workdir / "tmp").mkdir()
        os.chmod(workdir / "tmp", 0o1777)
        for name, target in agent.bin_links:
            os.symlink(target, workdir / "bin" / name)
        profiles.link_includes(self._suites[agent.label], self.config.profile.includes, workdir)
        started = time.monotonic()
        waited = 0.0
        log: list[str] = []
        pass_num = 0
        while True:
            pass_num += 1
            classes = ([f"test_pass_{pass_num}"] if test.timed else []) + list(self.config.profile.classes)
            program = [str(workdir / "bin" / "cf-agent")] if agent.as_cf_agent else agent.argv
            argv = [*program, "-K", "-l", "-f", test.arg, "-D", ",".join(classes)]
            gate = self.gate.exclusive() if serial else self.gate.shared()
            with self._test_lock(test), gate:
                rc, output = self._spawn(agent, argv, workdir)
            log.append(f"$ {shlex.join(argv)}\n{output}\n[exit code {rc}]\n")
            if rc is None:
                outcome = Outcome(Verdict.TIMEOUT, f"no exit after {self.config.timeout:g} s")
            else:
                outcome = classify(test, output, rc, traceback_is_crash=agent.traceback_is_crash)
            self._first_pass_done(agent, test)
            if outcome.verdict is not Verdict.WAIT:
                break
            waited += outcome.wait
            if waited > self.config.max_wait:
                outcome = Outcome(Verdict.TIMEOUT, f"waits add up to more than {self.config.max_wait:g} s")
                break
            if self.stop.wait(outcome.wait):
                outcome = Outcome(Verdict.FAIL, "interrupted")
                break
        detail = outcome.detail.replace(str(self._base), "<tmp>")
        result = TestResult(test.path, agent.label, outcome.verdict, detail,
                            rc, time.monotonic() - started, pass_num)
        if self.config.log_dir is not None and result.verdict is not Verdict.PASS:
            logfile = self.config.log_dir / agent.label / f"{test.flat_name}.log"
            logfile.parent.mkdir(parents=True, exist_ok=True)
            logfile.write_text(f"{test.path}: {result.verdict.value} {result.detail}\n\n"
                               + "\n".join(log), errors="replace")
        if not self.config.keep_workdirs:
            shutil.rmtree(workdir, ignore_errors=True)
        return result

    def _spawn(self, agent: Agent, argv: Sequence[str], workdir: Path) -> tuple[int | None, str]:
        """Run the agent once; (exit code or None on timeout, output)."""
        if self.stop.is_set():
            return 130, "error: interrupted"
        env = {k: v for k, v in os.environ.items() if not k.startswith("CFENGINE_TEST_OVERRIDE")}
        env[WORKDIR_ENV] = str(workdir)
        env["TEMP"] = str(workdir / "tmp")
        outfile = workdir / "output.log"
        rc: int | None
        with open(outfile, "wb") as out:
            try:
                proc = subprocess.Popen(argv, cwd=self._suites[agent.label], env=env,
                                        stdin=subprocess.DEVNULL, stdout=out,
                                        stderr=subprocess.STDOUT, start_new_session=True)
            except OSError as exc:
                return 127, f"error: cannot execute {argv[0]}: {exc}"
            with self._lock:
                self._procs[proc.pid] = proc
            try:
                rc = proc.wait(timeout=self.config.timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                rc = None
            finally:
                with self._lock:
                    self._procs.pop(proc.pid, None)
        kill_leftovers(workdir)
        return rc, outfile.read_bytes().decode("utf-8", errors="replace")


def run_tests(suite: Path, tests: Sequence[TestCase], agents: Sequence[Agent],
              config: RunConfig, on_result: Callable[[TestResult], None] | None = None
              ) -> dict[str, dict[str, TestResult]]:
    """Run ``tests`` with each agent; results[agent label][test path]."""
    execution = Execution(suite, agents, config)
    try:
        flat = execution.run(tests, on_result)
    finally:
        execution.close()
    results: dict[str, dict[str, TestResult]] = {a.label: {} for a in agents}
    for result in flat:
        results[result.agent][result.test] = result
    return results


# --------------------------------------------------------------------------- reporting

COLUMNS = (("pass", Verdict.PASS), ("fail", Verdict.FAIL), ("skip", Verdict.SKIP),
           ("xfail", Verdict.XFAIL), ("sfail", Verdict.SFAIL), ("flaky", Verdict.FLAKEY),
           ("crash", Verdict.CRASH), ("tmout", Verdict.TIMEOUT))


def read_list(path: Path) -> list[str]:
    """Test paths listed one per line (``#`` comments and blank lines ignored)."""
    if not path.exists():
        return []
    lines = (line.strip() for line in path.read_text().splitlines())
    return [line.removeprefix("./") for line in lines if line and not line.startswith("#")]


def write_list(path: Path, header: str, tests: Sequence[str]) -> None:
    body = "".join(f"# {line}\n" for line in header.splitlines())
    path.write_text(body + "".join(f"{t}\n" for t in sorted(set(tests))))


def folder_table(tests: Sequence[TestCase], results: dict[str, TestResult],
                 ref_pass: set[str] | None = None, ref_live: dict[str, TestResult] | None = None
                 ) -> str:
    """Per top-level folder: tests, then counts per verdict; with reference data,
    cf-agent's passes, the gap (passes with CFEngine, fails with cf-lite) and the
    share of cf-agent's passes that this agent passes too."""
    rows: dict[str, list[TestCase]] = {}
    for test in tests:
        rows.setdefault(test.row, []).append(test)
    head = f"{'folder':<28}{'tests':>6}" + "".join(f"{name:>6}" for name, _ in COLUMNS)
    if ref_live is not None:
        head += f"{'cfe':>6}{'gap':>6}"
    if ref_pass is not None:
        head += f"{'of cf-agent passes':>24}"
    lines = [head, "-" * len(head)]
    for name, members in sorted(rows.items()) + [("TOTAL", list(tests))]:
        if name == "TOTAL":
            lines.append("-" * len(head))
        verdicts = [results[t.path].verdict for t in members if t.path in results]
        line = f"{name:<28}{len(members):>6}" + "".join(
            f"{verdicts.count(v):>6}" for _, v in COLUMNS)
        passed = {t.path for t in members if t.path in results
                  and results[t.path].verdict is Verdict.PASS}
        if ref_live is not None:
            ref = {t.path for t in members if t.path in ref_live
                   and ref_live[t.path].verdict is Verdict.PASS}
            line += f"{len(ref):>6}{len(ref - passed):>6}"
        if ref_pass is not None:
            ref = {t.path for t in members} & ref_pass
            share = f"{len(ref & passed)}/{len(ref)}"
            percent = f"{100 * len(ref & passed) / len(ref):.1f}%" if ref else "-"
            line += f"{share:>17} {percent:>6}"
        lines.append(line)
    return "\n".join(lines)


def summarize(suite: Path, tests: Sequence[TestCase], excluded: dict[str, list[str]],
              agents: Sequence[Agent], results: dict[str, dict[str, TestResult]],
              main_label: str | None, ref_pass: set[str] | None) -> str:
    """The human report: a table per agent, the gaps, then each failure."""
    out = [f"suite: {suite}", f"tests selected: {len(tests)}"]
    for reason, paths in sorted(excluded.items()):
        out.append(f"not run: {len(paths)} {reason} tests (use --{reason})")
    ref_label = next((a.label for a in agents if a.label != main_label), None)
    for agent in agents:
        is_main = agent.label == main_label
        out += ["", f"== {agent.label}: {shlex.join(agent.argv)}",
                folder_table(tests, results[agent.label],
                             ref_pass if is_main else None,
                             results.get(ref_label) if is_main and ref_label else None)]
        if is_main and ref_label is not None:
            out.append(f"cfe: passes with cf-agent in this run; gap: passes with CFEngine, "
                       f"fails with {main_label}")
        if is_main and ref_pass is not None:
            out.append("of cf-agent passes: how many of the tests the reference pass list "
                       f"lists (cf-agent 3.21 passes them) {main_label} passes")
    if main_label is not None and ref_label is not None:
        gaps = [t.path for t in tests
                if results[ref_label][t.path].verdict is Verdict.PASS
                and results[main_label][t.path].verdict is not Verdict.PASS]
        out += ["", f"== passes with CFEngine, fails with {main_label}: {len(gaps)}"]
        out += [f"  {path}  [{results[main_label][path].verdict.value}]" for path in gaps]
    shown = main_label if main_label is not None else ref_label
    if shown is not None:
        bad = [r for r in (results[shown][t.path] for t in tests)
               if r.verdict in (Verdict.FAIL, Verdict.CRASH, Verdict.TIMEOUT)]
        out += ["", f"== failures ({shown}): {len(bad)}"]
        out += [f"  {r.verdict.value:<8}{r.test}: {r.detail}" for r in bad]
    return "\n".join(out) + "\n"


def write_results(results_dir: Path, summary: str, suite: Path, agents: Sequence[Agent],
                  results: dict[str, dict[str, TestResult]],
                  excluded: dict[str, list[str]]) -> None:
    results_dir.mkdir(parents=True, exist_ok=True)
    (results_dir / "summary.txt").write_text(summary)
    data = {"suite": str(suite), "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "excluded": excluded,
            "agents": {a.label: {"command": list(a.argv),
                                 "results": {p: r.to_json() for p, r in
                                             sorted(results[a.label].items())}}
                       for a in agents}}
    (results_dir / "results.json").write_text(json.dumps(data, indent=1) + "\n")


def update_expected(path: Path, suite: Path, results: dict[str, TestResult],
                    profile: Profile = profiles.CORE) -> list[str]:
    """Grow the expected-pass list with this run's passes; drop entries whose test
    file is gone from the suite; return what was added.  Unsafe tests enter only a
    profile's list that allows them (its ratchet runs them as root only)."""
    old = [t for t in read_list(path) if (suite / t).is_file()]
    passed = [p for p, r in results.items() if r.verdict is Verdict.PASS
              and (profile.ratchet_unsafe or not TestCase(p).unsafe)]
    added = sorted(set(passed) - set(old))
    flag = "" if profile is profiles.CORE else f"--{profile.name} "
    write_list(path, "Acceptance tests (relative to the suite) that pass with cf-lite-agent.\n"
               f"Regenerate with: python tests/conformance/runner.py {flag}--update-expected "
               "[FOLDER ...]\n"
               "The list only grows; tests/conformance/test_ratchet.py checks every entry.",
               old + passed)
    return added


def write_reference(tests: Sequence[TestCase], results: dict[str, TestResult], version: str,
                    table_file: Path = REFERENCE_TABLE_FILE,
                    pass_file: Path = REFERENCE_PASS_FILE, flags: str = "--staging") -> None:
    """Save cf-agent's per-folder table and the list of tests it passes."""
    passed = [p for p, r in results.items() if r.verdict is Verdict.PASS]
    write_list(pass_file, f"Acceptance tests that {version} (cf-agent) passes on this host.\n"
               f"Generated by: python tests/conformance/runner.py --only-reference {flags} "
               "--write-reference", passed)
    others = [results[t.path] for t in tests
              if t.path in results and results[t.path].verdict is not Verdict.PASS]
    table_file.write_text(
        f"# {version} (cf-agent) on the acceptance suite, per top-level folder.\n"
        f"# Generated {time.strftime('%Y-%m-%d')} by runner.py --write-reference; the tests it\n"
        f"# passes are listed in {pass_file.name}.\n\n"
        + folder_table(tests, results) + f"\n\nNot passed ({len(others)}):\n"
        + "".join(f"  {r.verdict.value:<8}{r.test}: {r.detail}\n" for r in others))


# --------------------------------------------------------------------------- command line

def find_suite(explicit: str | None, profile: Profile = profiles.CORE) -> Path:
    return profile.find_suite(explicit)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  runner.py 10_files 01_vars/02_functions    some folders against cf-lite-agent\n"
               "  runner.py --reference 02_classes           side by side with cf-agent 3.21\n"
               "  runner.py --update-expected 01_vars        grow expected-pass.txt\n"
               "  runner.py --only-reference --staging --write-reference\n"
               "                                             regenerate reference-*.txt\n"
               "  runner.py --masterfiles --reference        masterfiles' own suite, both agents\n"
               "  runner.py --masterfiles --unsafe           ... with its unsafe tests (as root!)\n"
               "Results go to conformance-results/ (summary.txt, results.json, logs/).")
    p.add_argument("tests", nargs="*", help="folders or tests relative to the suite (default: all)")
    p.add_argument("--suite", help=f"the suite's top folder (default: ${SUITE_ENV} or {DEFAULT_SUITE};"
                   f" with --masterfiles ${profiles.MASTERFILES.env} or {profiles.MASTERFILES.suite})")
    p.add_argument("--masterfiles", dest="profile", action="store_const", const="masterfiles",
                   default="core", help="play masterfiles' own tests/acceptance as its testall "
                   "does (classes EXTRA and testing_masterfiles_policy_framework, its modules/, "
                   "its lib/), with its own ratchet and reference files")
    p.add_argument("--agent", default=DEFAULT_AGENT, help="agent command (default: %(default)s)")
    p.add_argument("--reference", action="store_true", help=f"also run {REFERENCE_AGENT}")
    p.add_argument("--only-reference", action="store_true", help=f"run only {REFERENCE_AGENT}")
    p.add_argument("--reference-agent", default=REFERENCE_AGENT, help="reference agent command")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                   help="agents run at once (default: all cores, %(default)s)")
    p.add_argument("--timeout", type=float, default=60.0, help="per agent run, seconds (default 60)")
    p.add_argument("--no-wait", action="store_true", help="skip timed tests instead of waiting")
    p.add_argument("--max-wait", type=float, default=600.0, help="cap on one timed test's waits")
    p.add_argument("--staging", action="store_true", help="also run staging/ tests (reported apart)")
    p.add_argument("--unsafe", action="store_true", help="also run unsafe/ tests (they change the host!)")
    p.add_argument("--network", action="store_true", help="also run network/ tests")
    p.add_argument("--results-dir", type=Path, default=RESULTS_DIR, help="default: %(default)s")
    p.add_argument("--keep-workdirs", action="store_true", help="keep the temporary work directories")
    p.add_argument("--update-expected", action="store_true", help="grow expected-pass.txt")
    p.add_argument("--write-reference", action="store_true",
                   help="write reference-3.21.txt and reference-pass.txt from the reference run")
    p.add_argument("-v", "--verbose", action="store_true", help="print every result as it comes")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    profile = profiles.PROFILES[args.profile]
    suite = find_suite(args.suite, profile)
    if not suite.is_dir():
        print(f"error: no acceptance suite at {suite} (set --suite or ${SUITE_ENV})", file=sys.stderr)
        return 2
    try:
        tests, excluded = discover(suite, args.tests, Selection(args.staging, args.unsafe, args.network))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    agents: list[Agent] = []
    main_label: str | None = None
    if not args.only_reference:
        agent = make_agent(args.agent, "cf-lite")
        if agent is None:
            print(f"error: agent not found: {args.agent}", file=sys.stderr)
            return 2
        agents.append(agent)
        main_label = agent.label
    if args.reference or args.only_reference or args.write_reference:
        reference = make_agent(args.reference_agent, "cf-agent", reference=True)
        if reference is None:
            print(f"error: reference agent not found: {args.reference_agent}", file=sys.stderr)
            return 2
        agents.append(reference)
    if args.update_expected and main_label is None:
        print("error: --update-expected needs the cf-lite agent", file=sys.stderr)
        return 2
    if args.write_reference and args.tests:
        print("error: --write-reference needs the whole suite (no test arguments)", file=sys.stderr)
        return 2
    log_dir = args.results_dir / "logs"
    for agent in agents:
        shutil.rmtree(log_dir / agent.label, ignore_errors=True)
    config = RunConfig(jobs=max(1, args.jobs), timeout=args.timeout, no_wait=args.no_wait,
                       max_wait=args.max_wait, keep_workdirs=args.keep_workdirs, log_dir=log_dir,
                       profile=profile)
    total = len(tests) * len(agents)
    done = [0]
    print_lock = threading.Lock()

    def progress(result: TestResult) -> None:
        with print_lock:
            done[0] += 1
            if args.verbose:
                print(f"[{done[0]}/{total}] {result.agent}: {result.verdict.value:<8}"
                      f"{result.test} ({result.duration:.1f}s) {result.detail}", flush=True)
            elif done[0] % 50 == 0 or done[0] == total:
                print(f"[{done[0]}/{total}]", file=sys.stderr, flush=True)

    started = time.monotonic()
    try:
        results = run_tests(suite, tests, agents, config, progress)
    except (support_tools.ToolBuildError, profiles.BuildError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    ref_pass = set(read_list(profile.reference_pass)) if profile.reference_pass.exists() else None
    summary = summarize(suite, tests, excluded, agents, results, main_label, ref_pass)
    summary += f"\n{total} runs in {time.monotonic() - started:.0f} s with {config.jobs} jobs\n"
    status = 0
    if main_label is not None:
        expected = set(read_list(profile.expected_pass))
        regressions = sorted(p for p, r in results[main_label].items()
                             if p in expected and r.verdict is not Verdict.PASS)
        if regressions:
            status = 1
            summary += (f"\nREGRESSIONS: {len(regressions)} tests of {profile.expected_pass.name} "
                        "no longer pass\n")
            summary += "".join(f"  {p}: {results[main_label][p].verdict.value} "
                               f"{results[main_label][p].detail}\n" for p in regressions)
    print(summary, end="")
    write_results(args.results_dir, summary, suite, agents, results, excluded)
    print(f"results written to {args.results_dir}")
    if args.update_expected and main_label is not None:
        added = update_expected(profile.expected_pass, suite, results[main_label], profile)
        print(f"{profile.expected_pass.name}: {len(added)} tests added")
        for path in added:
            print(f"  + {path}")
    if args.write_reference:
        version = subprocess.run([*agents[-1].argv, "--version"], capture_output=True,
                                 text=True).stdout.strip() or "CFEngine"
        flags = "--staging" if profile is profiles.CORE else f"--{profile.name}"
        write_reference(tests, results["cf-agent"], version, profile.reference_table,
                        profile.reference_pass, flags)
        print(f"wrote {profile.reference_table} and {profile.reference_pass}")
    return status


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    # Ctrl-C and kill both stop the agents and remove the temporary directories.
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
