"""Differential harness: cf-lite's parser against ``cf-promises -p json`` (CFEngine 3.21).

For every policy file of the corpus (masterfiles and the acceptance suite):

* cf-promises prints JSON -> cf-lite must print the same JSON (sourcePath aside);
* cf-promises rejects it with an error in that very file -> cf-lite must reject it;
* cf-promises rejects it for another reason (a missing input, an error in an
  included file) -> not comparable, counted apart.

Run as a script for a report: ``python tests/syntax/differential.py [FILES...]``.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Iterable

import attrs

from cfpromise.syntax import jsonout
from cfpromise.syntax.errors import PolicyError
from cfpromise.syntax.parser import parse_file
from cfpromise.schema.validate import validate

MASTERFILES = Path("/usr/share/cfengine3/masterfiles")
SUITE = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "cfengine-acceptance"


def corpus() -> list[Path]:
    files: list[Path] = []
    for root in (MASTERFILES, SUITE):
        if root.is_dir():
            files += sorted(p for p in root.rglob("*.cf") if p.is_file())
            files += sorted(p for p in root.rglob("*.cf.sub") if p.is_file())
    return files


@attrs.frozen
class Outcome:
    path: str
    kind: str        # same | differs | both_reject | lite_rejects | lite_accepts | not_comparable
    detail: str = ""


def _strip_source(doc: Any) -> Any:
    for block in doc.get("bodies", []) + doc.get("bundles", []):
        block.pop("sourcePath", None)
    return doc


def reference(path: Path) -> tuple[int, str, str]:
    cache_dir = os.environ.get("CF_LITE_DIFF_CACHE")
    if cache_dir:
        key = Path(cache_dir) / (str(path).replace("/", "_") + f".{path.stat().st_mtime_ns}.json")
        if key.exists():
            return tuple(json.loads(key.read_text()))  # type: ignore[return-value]
        result = _run_reference(path)
        key.parent.mkdir(parents=True, exist_ok=True)
        key.write_text(json.dumps(result))
        return result
    return _run_reference(path)


def _run_reference(path: Path) -> tuple[int, str, str]:
    # A scratch work directory: cf-promises evaluates execresult() in vars, and some
    # acceptance tests run `cf-agent -Kf` on a broken policy there, whose failsafe (from
    # the default work directory's inputs) would start cf-serverd and leave it running.
    with tempfile.TemporaryDirectory(prefix="cf-promises-wd-") as workdir:
        proc = subprocess.run(["cf-promises", "-p", "json", "-f", str(path)],
                              capture_output=True, text=True, errors="surrogateescape",
                              timeout=60, cwd=str(path.parent),
                              env=dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=workdir))
    return proc.returncode, proc.stdout, proc.stderr


def lite(path: Path) -> tuple[Any, PolicyError | None]:
    try:
        policy = parse_file(str(path))
        validate(policy, entry=True)
    except PolicyError as exc:
        return None, exc
    return json.loads(jsonout.dumps(policy)), None


def _json_part(stdout: str) -> Any:
    start = stdout.find("\n{")
    text = stdout if stdout.startswith("{") else stdout[start + 1:] if start >= 0 else ""
    return json.loads(text) if text else None


def compare(path: Path) -> Outcome:
    rc, out, err = reference(path)
    mine, exc = lite(path)
    name = str(path)
    own_error = re.search(re.escape(name) + r":\d+:\d+: error", err) is not None
    if rc == 0:
        ref = _json_part(out)
        if exc is not None:
            return Outcome(name, "lite_rejects", exc.diagnostics[0].render().split("\n")[0])
        if ref is None:
            return Outcome(name, "not_comparable", "no JSON from cf-promises")
        if _strip_source(ref) == _strip_source(mine):
            return Outcome(name, "same")
        return Outcome(name, "differs", first_difference(ref, mine))
    if own_error:
        if exc is not None:
            return Outcome(name, "both_reject")
        first = next((l for l in err.splitlines() if name in l), "")
        return Outcome(name, "lite_accepts", first)
    return Outcome(name, "not_comparable", (err.strip().splitlines() or [""])[0])


def first_difference(a: Any, b: Any, path: str = "") -> str:
    if type(a) is not type(b):
        return f"{path}: {json.dumps(a)[:200]} != {json.dumps(b)[:200]}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}/{k}: missing on {'cf-lite' if k in a else 'cf-promises'} side"
            if a[k] != b[k]:
                return first_difference(a[k], b[k], f"{path}/{k}")
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return first_difference(x, y, f"{path}[{i}]")
    return f"{path}: {json.dumps(a)[:200]} != {json.dumps(b)[:200]}"


def run(files: Iterable[Path], jobs: int | None = None) -> list[Outcome]:
    with ThreadPoolExecutor(max_workers=jobs or (os.cpu_count() or 2)) as pool:
        return list(pool.map(compare, files))


def available() -> bool:
    return shutil.which("cf-promises") is not None


def main(argv: list[str]) -> int:
    files = [Path(a).resolve() for a in argv] or corpus()
    results = run(files)
    counts: dict[str, int] = {}
    for r in results:
        counts[r.kind] = counts.get(r.kind, 0) + 1
        if r.kind in ("differs", "lite_rejects", "lite_accepts"):
            print(f"{r.kind}: {r.path}: {r.detail}")
    print(json.dumps(counts, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
