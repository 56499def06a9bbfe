"""CFEngine core's documented examples (:mod:`examples`): cf-lite prints what the
documentation says 3.21 prints, and what cf-agent 3.21 prints on this machine.

An example cf-agent itself does not reproduce (its expected output is host-specific)
is compared with cf-agent only.  ``examples-known-differences.txt`` is the ratchet:
the examples cf-lite does not match yet, each with its reason; the test fails when
one of them starts matching (drop it from the list) and when any other does not.
"""
from __future__ import annotations

import difflib
import shutil
from pathlib import Path

import pytest

from tests.differential import examples, harness

KNOWN = examples.read_known(Path(__file__).with_name("examples-known-differences.txt"))
ROOT = examples.directory()
ALL = examples.discover(ROOT) if ROOT is not None else []
SAFE = [e for e in ALL if examples.unsafe(e) is None]

pytestmark = [*harness.needs_cf_agent,
              pytest.mark.skipif(ROOT is None, reason=f"needs CFEngine core 3.21.0's examples/ "
                                 f"(git clone cfengine/core, checkout 3.21.0, "
                                 f"${examples.ENV_VAR}=core/examples)")]


def test_most_examples_are_safe_to_run() -> None:
    assert len(ALL) > 150 and len(SAFE) > 0.9 * len(ALL)


def test_known_differences_name_real_examples() -> None:
    names = {e.name for e in SAFE}
    assert set(KNOWN) <= names, sorted(set(KNOWN) - names)


@pytest.mark.parametrize("example", SAFE, ids=[e.name for e in SAFE])
def test_example_output_as_documented(example: examples.Example, tmp_path: Path) -> None:
    expected = examples.normalize(example.expected)
    reference = examples.normalize(examples.run(example, tmp_path / "ref-wd",
                                                tmp_path / "scratch", "ref"))
    ours = examples.normalize(examples.run(example, tmp_path / "lite-wd",
                                           tmp_path / "scratch", "lite"))
    shutil.rmtree(tmp_path / "scratch", ignore_errors=True)
    target = expected if reference == expected else reference
    agrees = ours == target
    if example.name in KNOWN:
        assert not agrees, f"{example.name} now matches: drop it from the known differences"
        pytest.xfail(KNOWN[example.name])
    assert agrees, "".join(difflib.unified_diff(target.splitlines(True), ours.splitlines(True),
                                                "cf-agent 3.21", "cf-lite"))
