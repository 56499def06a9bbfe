"""Run a policy under cf-agent 3.21 and cf-lite-agent at ``-v`` and keep the lines of the
verbose trace (B:, V:, C:, P:, A: and the skip reasons), the work directories
normalised (the policies use no host-specific value).  Used by
test_verbose_differential.py (and by hand: ``python tests/verbose/trace_diff.py
POLICY`` prints a diff)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CF_AGENT = "/usr/bin/cf-agent"
_KEEP = re.compile(r"^ verbose: ([PABVC]:|Skipping promise|Not skipping|Method '.*' "
                   r"(verified|invoked repairs)|Logging total compliance|Outcome of version)")


def trace_lines(output: str, workdir: str) -> list[str]:
    """The trace lines of a run's output, from the first bundle on, normalised."""
    lines: list[str] = []
    started = False
    for raw in output.splitlines():
        if not started:
            started = raw.startswith(" verbose: B: BEGIN bundle")
            if started:
                lines.append("B: *****************************************************************")
            else:
                continue
        if not _KEEP.match(raw):
            continue
        line = raw[len(" verbose: "):].replace(workdir, "WORKDIR")
        lines.append(line)
    return lines


def lite_agent() -> str:
    beside = Path(sys.executable).parent / "cf-lite-agent"
    return str(beside) if beside.exists() else shutil.which("cf-lite-agent") or "cf-lite-agent"


def scratch() -> Path:
    """A fresh directory whose path always has the same length (/tmp/cfvXXXXXXXX): cf-agent
    truncates promisers in ``P: END`` lines to 30 characters, so paths in promisers must
    not vary in length between runs."""
    return Path(tempfile.mkdtemp(prefix="cfv", dir="/tmp"))


def run_both(policy: Path, root: Path, extra: tuple[str, ...] = ()) -> tuple[list[str], list[str]]:
    """(cf-agent's trace lines, cf-lite's) for ``policy``, each in its own work directory
    under ``root`` (made by :func:`scratch`)."""
    out = []
    for name, cmd in (("wref", [CF_AGENT]), ("lite", [lite_agent()])):
        wd = root / name
        (wd / "bin").mkdir(parents=True, exist_ok=True)
        if name == "wref" and not (wd / "bin" / "cf-promises").exists():
            os.symlink("/usr/bin/cf-promises", wd / "bin" / "cf-promises")
        env = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(wd))
        proc = subprocess.run([*cmd, "-K", "-v", *extra, "-f", str(policy)], env=env,
                              capture_output=True, text=True, timeout=120, cwd=root)
        out.append(trace_lines(proc.stdout, str(wd)))
    return out[0], out[1]


def main() -> int:
    import difflib
    for arg in sys.argv[1:]:
        root = scratch()
        try:
            ref, lite = run_both(Path(arg).resolve(), root)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        diff = list(difflib.unified_diff(ref, lite, "cf-agent", "cf-lite", lineterm="", n=2))
        print(f"== {arg}: {'same' if not diff else 'differs'}")
        print("\n".join(diff))
    return 0


if __name__ == "__main__":
    sys.exit(main())
