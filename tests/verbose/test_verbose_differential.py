"""The -v trace against cf-agent 3.21's, line for line, over tests/verbose/policies.

The trace lines (B:, V:, C:, P:, A:, the skip reasons, with the bundle accounting
numbers), normalised by trace_diff.trace_lines (work directories), must equal
cf-agent's.  cf-agent's lines are kept in expected/ so that the test runs
without CFEngine; with cf-agent installed, they are checked against a fresh run
of it as well.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from tests.verbose.trace_diff import CF_AGENT, lite_agent, run_both, scratch, trace_lines

HERE = Path(__file__).parent
POLICIES = sorted((HERE / "policies").glob("*.cf"))


def _lite(policy: Path, root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    wd = root / "lite"
    wd.mkdir(exist_ok=True)
    env = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(wd))
    return subprocess.run([lite_agent(), "-K", *extra, "-f", str(policy)], env=env,
                          capture_output=True, text=True, timeout=120, cwd=root)


@pytest.fixture
def root() -> Iterator[Path]:
    path = scratch()
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("policy", POLICIES, ids=[p.stem for p in POLICIES])
def test_trace_as_cf_agent(policy: Path, root: Path) -> None:
    expected = (HERE / "expected" / f"{policy.stem}.txt").read_text().splitlines()
    proc = _lite(policy, root, "-v")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert trace_lines(proc.stdout, str(root / "lite")) == expected


@pytest.mark.parametrize("policy", POLICIES, ids=[p.stem for p in POLICIES])
def test_expected_is_cf_agent(policy: Path, root: Path) -> None:
    if not os.access(CF_AGENT, os.X_OK):
        pytest.skip("needs cf-agent 3.21 (apt-get install cfengine3)")
    ref, lite = run_both(policy, root)
    expected = (HERE / "expected" / f"{policy.stem}.txt").read_text().splitlines()
    assert ref == expected
    assert lite == ref


def test_no_trace_without_verbose(tmp_path: Path) -> None:
    """Without -v (and at -I) not one trace line: normal output is as before."""
    policy = HERE / "policies" / "methods.cf"
    for extra in ((), ("-I",)):
        proc = _lite(policy, tmp_path, *extra)
        assert not any(line.lstrip().startswith(("verbose:", "B:", "P:", "A:"))
                       for line in proc.stdout.splitlines()), proc.stdout


def test_color_as_cf_agent(root: Path) -> None:
    """--color=always: cf-agent's colour per level, the reset after the newline."""
    proc = _lite(HERE / "policies" / "commands.cf", root, "-I", "--color=always")
    out = proc.stdout
    assert "\x1b[32m    info: Executing 'no timeout' ... '/bin/true'\n\x1b[0m" in out
    assert "\x1b[31m   error: Finished command related to promiser '/bin/false' -- an error " \
           "occurred, returned 1\n\x1b[0m" in out
    plain = _lite(HERE / "policies" / "commands.cf", root, "-I").stdout
    assert "\x1b[" not in plain
    assert out.replace("\x1b[32m", "").replace("\x1b[31m", "").replace("\x1b[0m", "") == plain


def _values(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("   debug: V: '")]


def test_debug_variable_values(root: Path) -> None:
    """-d adds cf-agent's ``V: 'x' => 'value'`` after each vars promise, in every pass."""
    policy = HERE / "policies" / "vars_classes.cf"
    values = _values(_lite(policy, root, "-d").stdout)
    assert "   debug: V: 'l' => 'a, b, c'" in values
    assert values.count("   debug: V: 'x' => 'hello'") == 3
    if os.access(CF_AGENT, os.X_OK):
        wd = root / "wref"
        (wd / "bin").mkdir(parents=True, exist_ok=True)
        os.symlink("/usr/bin/cf-promises", wd / "bin" / "cf-promises")
        ref = subprocess.run([CF_AGENT, "-K", "-d", "-f", str(policy)], capture_output=True,
                             text=True, timeout=120, cwd=root,
                             env=dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(wd)))
        assert values == _values(ref.stdout)
