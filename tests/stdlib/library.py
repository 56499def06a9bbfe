"""Helpers for the standard library tests: where the library is, how to load it whole.

``bundles/stdlib.cf`` lists its family files in a common bundle
(``"$(this.promise_dirname)/common.cf"``, ...) and includes them with
``body file control { inputs => { @(stdlib_common.inputs) }; }``, as CFEngine
requires.  A static load cannot evaluate ``@(stdlib_common.inputs)``, so
:func:`expand_inputs` resolves exactly that pattern: a list variable of a
common bundle in the same file whose items are literal strings, with
``$(this.promise_dirname)`` replaced by the file's directory.
"""
from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

from cfpromise.syntax import ast
from cfpromise.syntax.loader import LoadedPolicy, literal_inputs, load
from cfpromise.syntax.parser import parse_file

REPO = Path(__file__).resolve().parents[2]
BUNDLES = REPO / "bundles"
STDLIB = BUNDLES / "stdlib.cf"
MASTERFILES_LIB = Path("/usr/share/cfengine3/masterfiles/lib")

_LIST_REF = re.compile(r"^@[({]([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)[)}]$")


@lru_cache(maxsize=None)
def parsed(path: str) -> ast.Policy:
    return parse_file(path)


def _bundle_list(policy: ast.Policy, bundle: str, var: str) -> list[ast.Rval] | None:
    for b in policy.bundles:
        if b.name != bundle or b.type != "common":
            continue
        section = b.section("vars")
        for promise in section.promises if section else ():
            slist = promise.get("slist")
            if promise.promiser == var and slist is not None and isinstance(slist.rval, ast.List):
                return list(slist.rval.items)
    return None


def expand_inputs(rval: ast.Rval, directory: str, filename: str) -> list[str] | None:
    """An input expander for :func:`cfpromise.syntax.loader.load` that also knows
    ``@(bundle.list)`` naming a literal list in a common bundle of the same file."""
    plain = literal_inputs(rval, directory, filename)
    if plain is not None:
        return plain
    items = rval.items if isinstance(rval, ast.List) else (rval,)
    out: list[str] = []
    for item in items:
        if not isinstance(item, ast.Scalar):
            return None
        match = _LIST_REF.match(item.value)
        if match is None:
            resolved = literal_inputs(item, directory, filename)
            if resolved is None:
                return None
            out += resolved
            continue
        values = _bundle_list(parsed(filename), match.group(1), match.group(2))
        if values is None:
            return None
        resolved = literal_inputs(ast.List(tuple(values)), directory, filename)
        if resolved is None:
            return None
        out += resolved
    return out


def load_library(entry: Path = STDLIB) -> LoadedPolicy:
    return load(str(entry), expand=expand_inputs)


def family_files() -> list[Path]:
    """The files stdlib.cf includes, in its order."""
    loaded = load_library()
    return [Path(f) for f in loaded.files[1:]]


@lru_cache(maxsize=None)
def our_policy() -> ast.Policy:
    return load_library().policy


@lru_cache(maxsize=None)
def masterfiles_policy() -> ast.Policy:
    policy = ast.Policy()
    for path in sorted(MASTERFILES_LIB.glob("*.cf")):
        policy = policy.merged(parsed(str(path)))
    return policy


def have_masterfiles() -> bool:
    return (MASTERFILES_LIB / "stdlib.cf").is_file()


def workdir_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("CFENGINE_TEST_OVERRIDE_WORKDIR", None)
    return env


def cfengine_env(workdir: Path) -> dict[str, str]:
    """Environment for running the reference cf-agent / cf-promises in a private work
    directory: its own keys (cf-key) and cf-promises where cf-agent looks for it."""
    import shutil
    import subprocess
    env = workdir_env()
    env["CFENGINE_TEST_OVERRIDE_WORKDIR"] = str(workdir)
    (workdir / "bin").mkdir(parents=True, exist_ok=True)
    promises = shutil.which("cf-promises")
    link = workdir / "bin" / "cf-promises"
    if promises and not link.exists():
        link.symlink_to(promises)
    if not (workdir / "ppkeys" / "localhost.priv").exists() and shutil.which("cf-key"):
        subprocess.run(["cf-key"], env=env, capture_output=True, timeout=60, check=False)
    return env
