"""Differential test: references to groups in regular expressions (:mod:`pcreerrors`),
every pattern given to regcmp() under cf-agent 3.21 and cf-lite: PCRE's error and its
offset, or whether it matches each subject."""
from __future__ import annotations

import re
from typing import Any

import pytest

from tests.differential import harness, pcreerrors

pytestmark = harness.needs_cf_agent

_ERROR = re.compile(r"pcre_compile\(\) '(.*)' in expression '(.*)' \(offset: (\d+)\)")


def _policy() -> str:
    names = pcreerrors.NAMES
    classes = "".join(
        f'  "m_{n}_{s}" expression => regcmp("{pcreerrors.PATTERNS[n]}", "{subject}");\n'
        for n in names for s, subject in enumerate(pcreerrors.SUBJECTS))
    reports = "".join(f'  "m_{n}_{s}" if => "m_{n}_{s}";\n'
                      for n in names for s in range(len(pcreerrors.SUBJECTS)))
    return f"bundle agent main\n{{\nclasses:\n{classes}reports:\n{reports}}}\n"


def _observe(run: Any) -> dict[str, Any]:
    """pattern -> (its error and offset, or None; the subjects it matches)."""
    text = run.stdout + run.stderr
    errors = {m.group(2): (m.group(1), int(m.group(3))) for m in _ERROR.finditer(text)}
    matched = set(re.findall(r"R: m_(\w+)", text))
    return {n: (errors.get(p), sorted(s for s in range(len(pcreerrors.SUBJECTS))
                                      if f"{n}_{s}" in matched))
            for n, p in pcreerrors.PATTERNS.items()}


@pytest.fixture(scope="module")
def results(tmp_path_factory: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    root = tmp_path_factory.mktemp("pcreerrors")
    policy = harness.write_policy(root / "promises.cf", _policy())
    ref, lite = harness.run_both(root, policy)
    return _observe(ref), _observe(lite)


@pytest.mark.parametrize("name", pcreerrors.NAMES)
def test_same_error_or_match_as_cf_agent(results: tuple[dict[str, Any], dict[str, Any]],
                                         name: str) -> None:
    reference, ours = results[0][name], results[1][name]
    assert ours == reference
