"""The -v trace of the masterfiles dry run against cf-agent 3.21's, per promise
(bench/verbose_masterfiles.py): issue #17 asks that the multiset of P:/A:/B: line kinds
match for at least 95% of the promises."""
from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "verbose_masterfiles.py"


def _module():  # noqa: ANN202 (a module loaded from a path)
    spec = importlib.util.spec_from_file_location("verbose_masterfiles", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_promise_split() -> None:
    """The comparison itself: banners, outcomes, nested bundle calls, bannerless types."""
    vm = _module()
    trace = "\n".join(" verbose: " + line for line in [
        "B: BEGIN bundle main",
        "V:     Computing value of 'tags'", "A: Promise was KEPT", "P: END meta promise (tags)",
        "P: BEGIN promise 'h' of type \"methods\" (pass 1)",
        "P:    Promiser/affected object: 'call'", "P:    Stack path: /default/main/methods/'call'[1]",
        "B: BEGIN bundle sub", "P: BEGIN promise 'x' of type \"reports\" (pass 1)",
        "P:    Promiser/affected object: 'r'", "A: Promise was KEPT", "P: END reports promise (r)",
        "A: Bundle Accounting Summary for 'sub' in namespace default", "B: END bundle sub",
        "A: Promise was KEPT", "P: END methods promise (call)",
        "P: BEGIN promise 'f' of type \"files\" (pass 2)", "P:    Promiser/affected object: '/x'",
        "B: END bundle main"])
    found = vm.promises(trace)
    assert found[("main", "methods", "call", "1")]["A: Promise was KEPT"] == 1
    assert found[("sub", "reports", "r", "1")]["P: END"] == 1
    assert found[("main", "meta", "tags", "1")]["A: Promise was KEPT"] == 1
    assert "P: END" not in found[("main", "files", "/x", "1")]
    assert found[("(bundle call)", "", "sub", "1")]["A: Bundle Accounting Summary"] == 1
    assert vm.compare(trace, trace) == (len(found), len(found))
    worse = trace.replace("A: Promise was KEPT\n verbose: P: END reports", "P: END reports")
    assert vm.compare(trace, worse)[0] == len(found) - 1


def test_masterfiles_dry_run(tmp_path: Path) -> None:
    vm = _module()
    if shutil.which("cf-agent") is None or not vm.MASTERFILES.is_dir():
        pytest.skip("needs CFEngine 3.21 (cf-agent and masterfiles; apt-get install cfengine3)")
    same, total = vm.measure()
    assert total > 100
    assert same / total >= 0.95, f"{same}/{total}"
