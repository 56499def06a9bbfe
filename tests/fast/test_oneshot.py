"""One-shot programs load their policy without cyclic collection and freeze it (cfpromise.fast.oneshot)."""
from __future__ import annotations

import gc
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
    assert f"from {module} import program\n" in text and "sys.exit(program())" in text
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


# the speed mechanisms themselves: skipped under CF_LITE_PLAIN=1 (tests/conftest.py)
pytestmark = pytest.mark.fast_path
