"""The process table read from /proc gives psutil's rows (cfpromise.promises.processes.table).

On Linux the snapshot reads /proc itself, as psutil reads it, because psutil's import and
per-process machinery were 6% of a masterfiles dry run.  These tests hold the two readers
to the same rows: processes started here (sleeping, so nothing about them moves between
the two reads) field by field, every other process on the stable fields, and the command
line forms psutil special-cases.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from cfpromise.promises.processes import table

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/stat"),
                                reason="needs Linux's /proc (elsewhere psutil reads the table)")


def _psutil_table() -> dict[int, table.Process]:
    out = {}
    for info in table._psutil_rows():
        try:
            row = table._row(info)
        except (TypeError, ValueError, AttributeError):
            continue
        out[row.pid] = row
    return out


@pytest.fixture
def sleepers():
    """Processes whose every field stays put: argv with spaces, an empty argument, a
    carriage return (psutil reads the command line in text mode), one renice'd."""
    argvs = [["sleep", "600"],
             [sys.executable, "-c", "import time; time.sleep(600)", "a b", "", "x\ry"],
             ["nice", "-n", "5", "sleep", "601"]]
    procs = [subprocess.Popen(argv) for argv in argvs]
    try:
        yield [p.pid for p in procs]
    finally:
        for p in procs:
            p.kill()
            p.wait()


def test_rows_are_psutils_rows(sleepers: list[int]) -> None:
    import time
    time.sleep(0.3)     # the children are exec'd and asleep
    before = _psutil_table()
    mine = {p.pid: p for p in table.snapshot()}
    theirs = _psutil_table()
    for pid in sleepers:
        assert mine[pid] == theirs[pid]
    assert "x\ny" in mine[sleepers[1]].command
    assert mine[sleepers[2]].priority == min(os.nice(0) + 5, 19)     # (a nice'd test run)
    stable = ("pid", "ppid", "pgid", "user", "priority", "tty", "start", "command")

    def fields(row: table.Process) -> list:
        return [getattr(row, f) for f in stable]

    # every other process that psutil read alike before and after ours (a process of
    # another test may exec, a kernel worker's name says what it works on now: it may
    # change and change back between the reads, so kworkers are left out)
    still = [pid for pid in set(mine) & set(theirs) & set(before)
             if fields(before[pid]) == fields(theirs[pid])
             and not theirs[pid].command.startswith("[kworker/")]
    assert len(still) > len(sleepers)
    for pid in still:
        assert fields(mine[pid]) == fields(theirs[pid]), pid


def test_pid_order_and_kernel_threads_in_brackets() -> None:
    rows = table.snapshot()
    assert [p.pid for p in rows] == sorted(p.pid for p in rows)
    assert any(p.pid == os.getpid() and p.command for p in rows)
    # a process without a command line shows as [name], as ps shows a kernel thread
    for p in rows:
        assert p.command


@pytest.mark.parametrize("data, argv", [
    ("", []),
    ("sleep\x00600\x00", ["sleep", "600"]),
    ("a\x00\x00b\x00", ["a", "", "b"]),
    ("chrome --type=renderer", ["chrome", "--type=renderer"]),     # setproctitle: spaces
    ("nginx: worker process\x00", ["nginx:", "worker", "process"]),
    ("x\r\ny\x00", ["x\ny"]),
])
def test_command_line_forms(data: str, argv: list[str]) -> None:
    assert table._cmdline(data) == argv


def test_no_psutil_import_on_linux() -> None:
    code = ("import sys; from cfpromise.promises.processes import table; table.snapshot(); "
            "print('psutil' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
