"""Every module of cfpromise imports on its own, in a fresh interpreter: no import cycle
that only works when some other module happens to be imported first."""
from __future__ import annotations

import pkgutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import cfpromise


def _modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(cfpromise.__path__, "cfpromise.")
                  if not m.name.endswith(".__main__"))


def _import_alone(name: str) -> str | None:
    proc = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True,
                          text=True, timeout=120)
    if proc.returncode == 0:
        return None
    return f"{name}: {(proc.stderr.strip().splitlines() or ['?'])[-1]}"


def test_every_module_imports_on_its_own() -> None:
    names = _modules()
    assert "cfpromise.promises.vars" in names and len(names) > 150
    with ThreadPoolExecutor(max_workers=4) as pool:
        failures = [f for f in pool.map(_import_alone, names) if f is not None]
    assert not failures, "\n".join(failures)
