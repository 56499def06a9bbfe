"""The programs are the scripts in bin/ (setup.cfg's ``scripts``), not console_scripts
entry points: pip's wrapper for an entry point imports re, which no cold check needs
(12 M instructions of about 170 M)."""
from __future__ import annotations

import configparser
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROGRAMS = {"cf-lite-agent": ("cfpromise.cli.agent", "program"),
            "cf-lite-promises": ("cfpromise.cli.promises", "program"),
            "cf-lite-serverd": ("cfpromise.cli.serverd", "main"),
            "cf-lite-monitord": ("cfpromise.cli.monitord", "main"),
            "cf-lite-runagent": ("cfpromise.cli.runagent", "program"),
            "cf-lite-key": ("cfpromise.cli.key", "main"),
            "cf-lite-net": ("cfpromise.cli.net", "main"),
            "cf-lite-secret": ("cfpromise.cli.secret", "main"),
            "cf-lite-hub": ("cfpromise.cli.hub", "main")}


def script_text(name: str) -> str:
    module, function = PROGRAMS[name]
    if function == "program":     # a one-shot program (cfpromise.fast.oneshot)
        start = ("import gc\nimport sys\n\ngc.disable()    # one-shot: no cyclic collection "
                 "while it imports (cfpromise.fast.oneshot)\n"
                 f"from {module} import {function}  # noqa: E402\n\n")
    else:
        start = f"import sys\n\nfrom {module} import {function}\n\n"
    return (f'#!python\n"""{name}: {module}.{function} (see setup.cfg, [options] scripts)."""\n'
            f'{start}if __name__ == "__main__":\n    sys.exit({function}())\n')


def test_setup_installs_every_program_from_bin() -> None:
    cfg = configparser.ConfigParser()
    cfg.read(REPO / "setup.cfg")
    assert cfg["options"]["scripts"].split() == [f"bin/{name}" for name in PROGRAMS]
    assert "options.entry_points" not in cfg
    assert sorted(os.listdir(REPO / "bin")) == sorted(PROGRAMS)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_each_script_only_calls_its_entry_point(name: str) -> None:
    path = REPO / "bin" / name
    assert path.read_text() == script_text(name)
    assert os.stat(path).st_mode & 0o777 == 0o755


@pytest.mark.fast_path          # no re: the precompiled regexes (skipped under CF_LITE_PLAIN=1)
@pytest.mark.parametrize("name", ["cf-lite-agent", "cf-lite-promises"])
def test_the_installed_program_imports_no_regex_module(name: str, tmp_path: Path) -> None:
    """A one-report run and a cold check, as installed beside this interpreter (make
    install), import neither re nor enum."""
    installed = Path(sys.executable).parent / name
    if not installed.exists():
        pytest.skip(f"{name} is not installed beside {sys.executable} (make install)")
    policy = tmp_path / "p.cf"
    policy.write_text('bundle agent main\n{\n  reports:\n    "hello";\n}\n')
    policy.chmod(0o600)
    args = ["-K"] if name == "cf-lite-agent" else []
    probe = tmp_path / "sitecustomize.py"
    # the interpreter runs this at exit of the script (atexit), after the program's start
    probe.write_text("import atexit, sys\n"
                     "atexit.register(lambda: sys.stderr.write('MODULES=' + ' '.join("
                     "sorted(sys.modules)) + '\\n'))\n")
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{REPO}")
    proc = subprocess.run([str(installed), *args, "-w", str(tmp_path / "wd"), "-f", str(policy)],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stderr.splitlines() if x.startswith("MODULES="))
    modules = set(line[len("MODULES="):].split())
    assert PROGRAMS[name][0] in modules
    assert not {"re", "enum"} & modules, sorted({"re", "enum"} & modules)
