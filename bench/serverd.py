"""Benchmark: cf-lite-serverd against cf-serverd 3.21 under many agents at once.

N agents (cf-agent 3.21, the same client for both servers) run at the same time,
each copying the same F files (sizes spread log-uniformly from 1 KiB to 1 MiB)
with ``compare => "digest"`` from a server on loopback into its own directory.
Each server serves the same tree with the same policy; both are started in the
foreground and stopped after.  Prints each server's wall time for the whole
wave, the ratio (goal: at most 1.5x) and each server's peak memory (VmHWM).
Usage: python bench/serverd.py [--agents 50] [--files 200] [--seed 1]
"""
from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SERVER = """body common control {{ bundlesequence => {{ "x" }}; }}
body server control {{ allowconnects => {{ "127.0.0.1", "::1" }};
  allowallconnects => {{ "127.0.0.1", "::1" }}; trustkeysfrom => {{ "127.0.0.1" }};
  maxconnections => "{maxconn}"; port => "{port}"; }}
bundle server x {{ access: "{src}/" admit_ips => {{ "127.0.0.1" }}; }}
"""

AGENT = """body common control {{ bundlesequence => {{ "main" }}; }}
bundle agent main {{
 vars: "names" slist => {{ {names} }};
 files: "{dest}/$(names)" copy_from => rc("{src}/$(names)");
}}
body copy_from rc(f) {{ source => "$(f)"; servers => {{ "127.0.0.1" }}; portnumber => "{port}";
  compare => "digest"; trustkey => "true"; }}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o600)
    return path


def peak_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def wait_port(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            if proc.poll() is not None:
                raise SystemExit("server exited at start")
            time.sleep(0.05)
    raise SystemExit("server did not start")


def run_wave(server_cmd: list[str], server_wd: Path, tmp: Path, label: str, src: Path,
             agents: int, names: list[str], key_wd: Path) -> tuple[float, int]:
    port = free_port()
    policy = write(tmp / f"{label}-server.cf",
                   SERVER.format(src=src, port=port, maxconn=agents * 2 + 10))
    env = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(server_wd))
    log = open(tmp / f"{label}-server.log", "wb")
    server = subprocess.Popen(server_cmd + ["-F", "-f", str(policy)], env=env, stdout=log,
                              stderr=subprocess.STDOUT)
    try:
        wait_port(port, server)
        procs = []
        dests = []
        for i in range(agents):
            wd = tmp / f"{label}-agent{i}"
            shutil.copytree(key_wd, wd)
            dest = tmp / f"{label}-dest{i}"
            dests.append(dest)
            apol = write(tmp / f"{label}-agent{i}.cf", AGENT.format(
                names=", ".join(f'"{n}"' for n in names), dest=dest, src=src, port=port))
            procs.append((apol, dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(wd))))
        start = time.perf_counter()
        running = [subprocess.Popen(["cf-agent", "-K", "-f", str(p)], env=e,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                   for p, e in procs]
        outputs = [p.communicate()[0] for p in running]
        wall = time.perf_counter() - start
        for dest, out in zip(dests, outputs):
            for n in names:
                if (dest / n).stat().st_size != (src / n).stat().st_size:
                    raise SystemExit(f"{label}: {dest / n} incomplete\n{out.decode()[-2000:]}")
        return wall, peak_kib(server.pid)
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--agents", type=int, default=50)
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    for program in ("cf-agent", "cf-serverd", "cf-key"):
        if shutil.which(program) is None:
            print(f"{program} (CFEngine 3.21) not installed: nothing to compare")
            return 0
    lite = Path(sys.executable).parent / "cf-lite-serverd"
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="bench-serverd-") as name:
        tmp = Path(name)
        tmp.chmod(0o755)
        src = tmp / "src"
        src.mkdir()
        names = []
        total = 0
        for i in range(args.files):
            size = int(math.exp(rng.uniform(math.log(1024), math.log(1024 * 1024))))
            (src / f"f{i:03d}").write_bytes(rng.randbytes(size))
            names.append(f"f{i:03d}")
            total += size
        key_wd = tmp / "keys"
        key_wd.mkdir(mode=0o700)
        subprocess.run(["cf-key"], env=dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(key_wd)),
                       check=True, capture_output=True)
        (key_wd / "bin").mkdir(exist_ok=True)
        os.symlink(shutil.which("cf-promises") or "/usr/bin/cf-promises",
                   key_wd / "bin" / "cf-promises")
        print(f"{args.agents} agents x {args.files} files ({total / 1e6:.1f} MB each, "
              f"{args.agents * total / 1e9:.2f} GB in all), compare => digest, loopback")
        results = {}
        for label, cmd in (("cf-lite-serverd", [str(lite)]),
                           ("cf-serverd", [shutil.which("cf-serverd") or "cf-serverd"])):
            server_wd = tmp / f"{label}-wd"
            shutil.copytree(key_wd, server_wd)
            wall, peak = run_wave(cmd, server_wd, tmp, label, src, args.agents, names, key_wd)
            results[label] = wall
            print(f"{label:16s} wall {wall:7.2f} s   peak RSS {peak / 1024:7.1f} MiB")
        ratio = results["cf-lite-serverd"] / results["cf-serverd"]
        print(f"ratio cf-lite-serverd / cf-serverd: {ratio:.2f}x (goal <= 1.5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
