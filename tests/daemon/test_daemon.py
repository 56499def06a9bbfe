"""The shared daemon skeleton (cfpromise/daemon.py) in a real subprocess: pid file, signals,
policy reload on change and on SIGHUP, a bad reload keeping the old policy, a failing tick
not killing the loop, idle without CPU."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cfpromise.daemon import InputWatch, running_pid

SCRIPT = r'''
import os, sys, time
from cfpromise.daemon import Daemon, PolicyError, DaemonOptions

class Toy(Daemon):
    name = "cf-toyd"
    ticks = 0
    def load(self):
        text = open(self.options.file).read()
        if "bad" in text:
            raise PolicyError(f"{self.options.file}: bad policy")
        self.log("notice", "loaded " + text.strip())
        return [self.options.file]
    def tick(self, now):
        self.ticks += 1
        self.log("notice", f"tick {self.ticks}")
        if self.ticks == 2:
            raise RuntimeError("probe exploded")
        return 0.2
    def shutdown(self):
        self.log("notice", "shutdown")

opts = DaemonOptions(workdir=sys.argv[1], file=sys.argv[2], foreground=len(sys.argv) < 4,
                     policy_check_interval=0.2)
Toy.retry_after = 0.2
Toy.single_instance = os.environ.get("TOY_MANY") != "1"
sys.exit(Toy(opts).run())
'''


def _start(tmp_path: Path) -> tuple[subprocess.Popen[str], Path, Path]:
    script = tmp_path / "toyd.py"
    script.write_text(SCRIPT)
    policy = tmp_path / "policy.cf"
    policy.write_text("one\n")
    log = tmp_path / "log"
    proc = subprocess.Popen([sys.executable, str(script), str(tmp_path), str(policy)],
                            stdout=open(log, "w"), stderr=subprocess.STDOUT, text=True)
    return proc, policy, log


def _wait_for(log: Path, text: str, timeout: float = 10.0) -> str:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        content = log.read_text()
        if text in content:
            return content
        time.sleep(0.05)
    raise AssertionError(f"{text!r} not logged; log:\n{log.read_text()}")


def test_pid_file_signals_and_reload(tmp_path: Path) -> None:
    proc, policy, log = _start(tmp_path)
    try:
        _wait_for(log, "loaded one")
        pid_file = tmp_path / "cf-toyd.pid"
        _wait_for(log, "tick 1")
        assert pid_file.read_text().strip() == str(proc.pid)
        # a failing tick is logged and the loop goes on
        content = _wait_for(log, "tick 3")
        assert "probe exploded" in content and "cf-toyd    error:" in content
        # a changed policy file is reloaded (digest), a bad one keeps the old policy
        policy.write_text("two\n")
        _wait_for(log, "loaded two")
        policy.write_text("bad\n")
        _wait_for(log, "keeping the old one")
        assert proc.poll() is None
        # SIGHUP reloads now
        policy.write_text("three\n")
        os.kill(proc.pid, signal.SIGHUP)
        _wait_for(log, "loaded three")
        # a second copy refuses to start while the first runs
        second = subprocess.run([sys.executable, str(tmp_path / "toyd.py"), str(tmp_path),
                                 str(policy)], capture_output=True, text=True, timeout=30)
        assert second.returncode == 1 and "already running" in second.stdout
        # a daemon that allows more copies (cf-serverd on another port) starts beside it
        many = subprocess.Popen([sys.executable, str(tmp_path / "toyd.py"), str(tmp_path),
                                 str(policy)], stdout=subprocess.PIPE, text=True,
                                env=dict(os.environ, TOY_MANY="1"))
        try:
            assert "loaded" in many.stdout.readline()
        finally:
            many.terminate()
            many.wait(timeout=10)
        os.kill(proc.pid, signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
        assert "shutdown" in log.read_text()
        assert not pid_file.exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_sigint_stops_cleanly(tmp_path: Path) -> None:
    proc, _policy, log = _start(tmp_path)
    try:
        _wait_for(log, "tick 1")
        os.kill(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=10) == 0
        assert not (tmp_path / "cf-toyd.pid").exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_detached_writes_pid_and_stops(tmp_path: Path) -> None:
    script = tmp_path / "toyd.py"
    script.write_text(SCRIPT)
    policy = tmp_path / "policy.cf"
    policy.write_text("one\n")
    done = subprocess.run([sys.executable, str(script), str(tmp_path), str(policy), "detach"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0
    pid_file = tmp_path / "cf-toyd.pid"
    end = time.monotonic() + 10
    while not pid_file.exists() and time.monotonic() < end:
        time.sleep(0.05)
    pid = int(pid_file.read_text())
    try:
        assert pid != os.getpid() and os.getsid(pid) != os.getsid(0)   # a session of its own
    finally:
        os.kill(pid, signal.SIGTERM)
    while pid_file.exists() and time.monotonic() < end:
        time.sleep(0.05)
    assert not pid_file.exists()


def test_idle_loop_uses_no_cpu(tmp_path: Path) -> None:
    psutil = pytest.importorskip("psutil")
    script = tmp_path / "idle.py"
    script.write_text(
        "import sys\nfrom cfpromise.daemon import Daemon, DaemonOptions\n"
        "class Idle(Daemon):\n    name = 'cf-idled'\n"
        "    def load(self): return [self.options.file]\n"
        "    def tick(self, now): return 3600\n"
        "sys.exit(Idle(DaemonOptions(workdir=sys.argv[1], file=sys.argv[2], foreground=True,"
        " policy_check_interval=1.0)).run())\n")
    (tmp_path / "p.cf").write_text("x")
    proc = subprocess.Popen([sys.executable, str(script), str(tmp_path), str(tmp_path / "p.cf")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 10
        while not (tmp_path / "cf-idled.pid").exists() and time.monotonic() < end:
            time.sleep(0.05)
        time.sleep(0.3)
        ps = psutil.Process(proc.pid)
        before = ps.cpu_times()
        time.sleep(3)
        after = ps.cpu_times()
        used = (after.user + after.system) - (before.user + before.system)
        assert used < 0.05, f"idle daemon used {used:.3f}s CPU in 3 s"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_input_watch_digest(tmp_path: Path) -> None:
    path = tmp_path / "a.cf"
    path.write_text("same")
    watch = InputWatch([str(path)])
    os.utime(path, (1, 1))                    # touched, same content: no reload
    assert watch.changed() == []
    path.write_text("different")
    assert watch.changed() == [str(path)]
    path.unlink()
    assert watch.changed() == [str(path)]


def test_running_pid_ignores_stale_and_foreign(tmp_path: Path) -> None:
    pid_file = tmp_path / "cf-x.pid"
    pid_file.write_text("999999999\n")
    assert running_pid(str(pid_file), "cf-monitord") is None
    # alive but not a monitord: a process of our own, whose command line we know (the
    # test's parent may be a shell whose command line names monitord)
    import subprocess
    other = subprocess.Popen(["sleep", "60"])
    try:
        pid_file.write_text(f"{other.pid}\n")
        assert running_pid(str(pid_file), "cf-monitord") is None
    finally:
        other.kill()
        other.wait()
