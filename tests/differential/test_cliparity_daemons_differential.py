"""Differential test: command lines as cf-serverd, cf-monitord and cf-runagent 3.21
read them (:mod:`cliparity_daemons`), each case run under both programs and compared:
the exit code, standard error and standard output, with the program's name, the
version line, the help after a usage line, log timestamps, the work directory and the
closed ports masked, and each side's own diagnostics (its words for a refused
connection, at info level; the reference's search for its Enterprise extension, at
verbose and debug level) left out.  A daemon that starts (it writes its pid
file) is stopped and fails its case: none should."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.differential import cliparity_daemons as cases
from tests.differential import harness
from tests.server.helpers import free_port, make_workdir

pytestmark = harness.needs_cf_agent

_NAME = re.compile(r"cf-(?:lite-)?(serverd|monitord|runagent)")
_VERSION = re.compile(r"^(CFEngine Core 3\.21\.\d+|PROG \S+ \(CFEngine (Core 3\.21 protocol|"
                      r"3\.21\.\d+ language)\))$")
_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} ")
# how each side says why a connection failed, before "Failed to connect to host"; and
# the reference looking for its Enterprise extension library (cf-lite loads none)
_OWN_WORDS = re.compile(r"^(\x1b\[\d+m)*(STAMP )?\s+(info: (Failed to connect to server|"
                        r"No server is responding|Connection refused|Could not connect|"
                        r"Connection to )|(verbose|debug): .*(extension plugin|shlib_open|"
                        r"shared library))")


def _lines(text: str, workdir: Path, ports: dict[str, int]) -> list[str]:
    out = []
    for line in text.splitlines():
        line = _STAMP.sub("STAMP ", _NAME.sub("PROG", line)).replace(str(workdir), "WORKDIR")
        for mask, port in ports.items():
            line = line.replace(str(port), mask)
        if line.startswith(("Usage:", "usage:")):
            out.append("USAGE")
            break
        if _OWN_WORDS.match(line):
            continue
        out.append("VERSION" if _VERSION.match(line) else line)
    return out


def _stop_daemons(workdir: Path) -> list[str]:
    started = []
    for pid_file in workdir.glob("*.pid"):
        try:
            pid = int(pid_file.read_text().split()[0])
            os.kill(pid, signal.SIGTERM)
            started.append(pid_file.name)
        except (ValueError, IndexError, OSError):
            pass
    return started


@pytest.fixture(scope="module")
def results(tmp_path_factory: Any) -> dict[str, tuple]:
    root = tmp_path_factory.mktemp("cliparity_daemons")
    ports = {"PORT1": free_port(), "PORT2": free_port()}
    while ports["PORT2"] == ports["PORT1"]:
        ports["PORT2"] = free_port()

    def one(case: tuple, which: str) -> tuple:
        name, program, args = case
        tree = root / name
        tree.mkdir(exist_ok=True)
        workdir = root / f"{which}-wd-{name}"
        workdir.mkdir(exist_ok=True)
        policy = tree / "runagent.cf"
        text = cases.RUNAGENT_POLICY
        for mask, port in ports.items():
            text = text.replace(mask, str(port))
        harness.write_policy(policy, text)
        argv = [a.replace("PORT1", str(ports["PORT1"])).replace("PORT2", str(ports["PORT2"]))
                for a in args]
        if program == "hailing":
            make_workdir(str(workdir))
            argv = [str(policy) if a == "POLICY" else a for a in argv]
            if "POLICY" not in args:
                argv = ["-f", str(policy), *argv]
            program = "runagent"
        command = ([f"cf-{program}"] if which == "ref"
                   else [sys.executable, "-m", f"cfpromise.cli.{program}"])
        env = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(workdir))
        try:
            run = subprocess.run([*command, *argv], capture_output=True, text=True, timeout=60,
                                 cwd=tree, env=env, input=cases.ANSWERS.get(name, ""),
                                 start_new_session=True)
            code, stdout, stderr = run.returncode, run.stdout, run.stderr
        except subprocess.TimeoutExpired as exc:
            code, stdout, stderr = "timeout", str(exc.stdout or ""), str(exc.stderr or "")
        time.sleep(0.1 if program != "runagent" else 0)
        started = _stop_daemons(workdir)
        return (code, _lines(stderr, workdir, ports), _lines(stdout, workdir, ports),
                started)

    with ThreadPoolExecutor(max_workers=2) as pool:
        refs = [pool.submit(one, c, "ref") for c in cases.CASES]
        lites = [pool.submit(one, c, "lite") for c in cases.CASES]
        return {c[0]: (r.result(), l.result()) for c, r, l in zip(cases.CASES, refs, lites)}


@pytest.mark.parametrize("name", cases.NAMES)
def test_same_as_cfengine(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    assert not reference[3] and not ours[3], "a daemon started"
    if name.startswith("hailing_background"):       # children's lines interleave
        reference = (reference[0], reference[1], sorted(reference[2]), reference[3])
        ours = (ours[0], ours[1], sorted(ours[2]), ours[3])
    assert ours == reference
