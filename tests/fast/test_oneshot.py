"""One-shot programs load their policy without cyclic collection and freeze it (cfpromise.fast.oneshot)."""
from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cfpromise.fast import oneshot
from cfpromise.agent.loading import LoadError, evaluated_agent

POLICY = ('bundle common g { vars: "x" string => "y"; }\n'
          'bundle agent main { reports: "$(g.x)"; }\n')


@pytest.fixture
def one_shot(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(oneshot, "_ONE_SHOT", [True])
    yield
    gc.unfreeze()           # this test process goes on: give the collector its objects back


def _policy(tmp_path: Path, text: str = POLICY) -> str:
    path = tmp_path / "p.cf"
    path.write_text(text)
    path.chmod(0o600)
    return str(path)


def _workdir(tmp_path: Path) -> str:
    wd = tmp_path / "wd"
    wd.mkdir(mode=0o700, exist_ok=True)
    return str(wd)


def test_a_one_shot_load_freezes_what_it_loaded(tmp_path: Path, one_shot: None) -> None:
    before = gc.get_freeze_count()      # 3.12 starts with some objects frozen already
    agent = evaluated_agent(_policy(tmp_path), _workdir(tmp_path), cache=True)
    assert [b.name for b in agent.policy.bundles] == ["g", "main"]
    assert gc.get_freeze_count() > before
    assert gc.isenabled()


def test_the_collector_is_off_only_while_loading(tmp_path: Path, one_shot: None,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from cfpromise.agent import loading
    seen = []
    real = loading._read

    def watch(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)
    monkeypatch.setattr(loading, "_read", watch)
    evaluated_agent(_policy(tmp_path), _workdir(tmp_path))
    assert seen == [False] and gc.isenabled()


def test_the_collector_comes_back_when_loading_fails(tmp_path: Path, one_shot: None) -> None:
    with pytest.raises(LoadError):
        evaluated_agent(_policy(tmp_path, 'body common control { inputs => { "nope.cf" }; }\n'),
                        _workdir(tmp_path))
    assert gc.isenabled()


def test_other_processes_keep_the_normal_collector(tmp_path: Path) -> None:
    # a daemon reloading its policy, or this test suite: nothing frozen
    evaluated_agent(_policy(tmp_path), _workdir(tmp_path), cache=True)
    assert gc.get_freeze_count() == 0 and gc.isenabled()


@pytest.mark.parametrize("script", ["cf-lite-agent", "cf-lite-promises", "cf-lite-runagent"])
def test_the_programs_are_one_shot(script: str) -> None:
    # the installed program is bin/SCRIPT: `from MODULE import program`, then program()
    text = (Path(__file__).resolve().parents[2] / "bin" / script).read_text()
    module = next(line.split()[1] for line in text.splitlines() if line.startswith("from "))
    assert f"from {module} import program" in text and "sys.exit(program())" in text
    assert text.index("gc.disable()") < text.index(f"from {module} import")
    probe = (f"import gc, sys\nfrom {module} import program\n"
             "from cfpromise.fast import oneshot\nsys.argv = ['x', '--version']\nprogram()\n"
             "print(oneshot._ONE_SHOT[0])\n")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert proc.stdout.strip().splitlines()[-1] == "True", proc.stderr


def test_the_collector_is_off_from_the_start_until_the_policy_is_loaded(tmp_path: Path) -> None:
    probe = ("import gc, sys\nfrom cfpromise.fast import oneshot\noneshot.enable()\n"
             "print(gc.isenabled())\n"
             "from cfpromise.agent.loading import evaluated_agent\n"
             "evaluated_agent(sys.argv[1], sys.argv[2])\n"
             "print(gc.isenabled(), gc.get_freeze_count() > 0)\n")
    proc = subprocess.run([sys.executable, "-c", probe, _policy(tmp_path), _workdir(tmp_path)],
                          capture_output=True, text=True)
    assert proc.stdout.split() == ["False", "True", "True"], proc.stderr


def test_the_installed_agent_collects_nothing_before_its_policy_is_loaded(
        tmp_path: Path) -> None:
    """From the script's first statement to the end of loading, no automatic collection,
    even with a threshold of 1 (Python 3.13 made one while the agent's modules were
    imported, before program() turned the collector off)."""
    installed = Path(sys.executable).parent / "cf-lite-agent"
    if not installed.exists():
        pytest.skip(f"cf-lite-agent is not installed beside {sys.executable} (make install)")
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "sitecustomize.py").write_text(
        "import atexit, gc, sys\n"
        "seen = []\n"
        "frozen = gc.get_freeze_count()     # (3.12 starts with some)\n"
        "gc.callbacks.append(lambda phase, info: phase == 'start' and seen.append(\n"
        "    ('cfpromise' in sys.modules, gc.get_freeze_count() > frozen)))\n"
        "gc.set_threshold(1)\n"
        "atexit.register(lambda: sys.stderr.write('SEEN=%r\\n' % sorted(set(seen))))\n")
    repo = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k != "CF_LITE_PLAIN"}
    env["PYTHONPATH"] = f"{probe}{os.pathsep}{repo}"
    proc = subprocess.run([str(installed), "-K", "-f", _policy(tmp_path), "-w",
                           _workdir(tmp_path)], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    seen = next(x for x in proc.stderr.splitlines() if x.startswith("SEEN="))
    collections = eval(seen[len("SEEN="):])
    assert (True, False) not in collections, collections      # during cf-lite's imports
    assert (True, True) in collections                          # after loading, as usual


def test_under_the_plain_switch_the_installed_agent_collects_as_usual(tmp_path: Path) -> None:
    """CF_LITE_PLAIN=1: the script's gc.disable() is undone by oneshot.enable(), nothing
    is frozen, and the collector runs while the policy loads."""
    installed = Path(sys.executable).parent / "cf-lite-agent"
    if not installed.exists():
        pytest.skip(f"cf-lite-agent is not installed beside {sys.executable} (make install)")
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "sitecustomize.py").write_text(
        "import atexit, gc, sys\n"
        "seen = []\n"
        "frozen = gc.get_freeze_count()     # (3.12 starts with some)\n"
        "gc.callbacks.append(lambda phase, info: phase == 'start' and seen.append(\n"
        "    'cfpromise.agent.loading' in sys.modules))\n"
        "atexit.register(lambda: sys.stderr.write('SEEN=%r %r %r\\n' % (\n"
        "    True in seen, gc.isenabled(), gc.get_freeze_count() - frozen)))\n")
    repo = Path(__file__).resolve().parents[2]
    env = dict(os.environ, CF_LITE_PLAIN="1", PYTHONPATH=f"{probe}{os.pathsep}{repo}")
    proc = subprocess.run([str(installed), "-K", "-f", _policy(tmp_path), "-w",
                           _workdir(tmp_path)], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    seen = next(x for x in proc.stderr.splitlines() if x.startswith("SEEN="))
    assert seen == "SEEN=True True 0", seen


# the speed mechanisms themselves: skipped under CF_LITE_PLAIN=1 (tests/conftest.py)
pytestmark = pytest.mark.fast_path
