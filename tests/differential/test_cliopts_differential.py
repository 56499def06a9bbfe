"""Differential test: command lines as cf-agent 3.21 and cf-promises 3.21 read them
(:mod:`cliopts`: getopt_long's reading), each case run under both programs and compared:
the exit code, standard error and standard output, with the program's name, the
version line, the help and the man page (after their first line: cf-lite's options are
more and its help argparse's), log timestamps and the work directory masked, and
cf-agent -x's checks of each program's own stores left out.  Both programs get the same
words; the work directory comes from CFENGINE_TEST_OVERRIDE_WORKDIR."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.differential import cliopts, harness

pytestmark = harness.needs_cf_agent

_NAME = re.compile(r"cf-(?:lite-)?(agent|promises)")
_VERSION = re.compile(r"^(CFEngine Core 3\.21\.\d+|PROG \S+ \(CFEngine 3\.21\.\d+ language\))$")
_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} ")
_FIRST_LINES = (("Usage:", "usage:"), "USAGE"), (('.\\"', ".TH"), "MANPAGE")
_CHECK = re.compile(r"^\[ (YES|NO ) \] ")        # -x: each program's own stores
TOKENS = {"POLICY": "./p.cf", "OTHER": "./other.cf"}


def _lines(text: str, workdir: Path, tree: Path) -> list[str]:
    out = []
    for line in text.splitlines():
        line = _STAMP.sub("STAMP ", _NAME.sub("PROG", line)).replace(str(workdir), "WORKDIR")
        line = line.replace(str(tree), "HERE")
        first = next((mask for starts, mask in _FIRST_LINES if line.startswith(starts)), None)
        if first:
            out.append(first)
            break
        if not _CHECK.match(line):
            out.append("VERSION" if _VERSION.match(line) else line)
    return out


@pytest.fixture(scope="module")
def results(tmp_path_factory: Any) -> dict[str, tuple]:
    root = tmp_path_factory.mktemp("cliopts")

    def one(case: tuple, which: str) -> tuple:
        name, program, args = case
        tree = root / which / name
        tree.mkdir(parents=True)
        harness.write_policy(tree / "p.cf", cliopts.POLICY)
        harness.write_policy(tree / "other.cf", cliopts.OTHER)
        (tree / "wd").mkdir()
        if which == "ref":
            workdir = harness.reference_workdir(root, f"ref-wd-{name}")
            command = [f"cf-{program}"]
        else:
            workdir = root / f"lite-wd-{name}"
            command = [sys.executable, "-m", f"cfpromise.cli.{program}"]
        argv = [TOKENS.get(a, a).replace("WD", str(tree / "wd")) for a in args]
        env = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(workdir))
        run = subprocess.run([*command, *argv], capture_output=True, text=True, timeout=120,
                             cwd=tree, env=env, stdin=subprocess.DEVNULL)
        return (run.returncode, _lines(run.stderr, workdir, tree),
                _lines(run.stdout, workdir, tree))

    with ThreadPoolExecutor(max_workers=2) as pool:
        refs = [pool.submit(one, c, "ref") for c in cliopts.CASES]
        lites = [pool.submit(one, c, "lite") for c in cliopts.CASES]
        return {c[0]: (r.result(), l.result()) for c, r, l in zip(cliopts.CASES, refs, lites)}


@pytest.mark.parametrize("name", cliopts.NAMES)
def test_same_as_cfengine(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    assert ours == reference
