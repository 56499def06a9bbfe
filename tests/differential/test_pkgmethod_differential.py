"""Differential test: legacy package_method promises under -n and not (:mod:`pkgmethod`),
each case run under cf-agent 3.21 and cf-lite and compared (cf-lite's errors without the
promise they name: :func:`pkgmethod.bare`)."""
from __future__ import annotations

from typing import Any

import pytest

from tests.differential import agentmisc, harness, pkgmethod

pytestmark = harness.needs_cf_agent


@pytest.fixture(scope="module")
def results(tmp_path_factory: Any) -> dict[str, tuple]:
    return agentmisc.run_observed(tmp_path_factory.mktemp("pkgmethod"), pkgmethod.CASES)


@pytest.mark.parametrize("name", pkgmethod.NAMES)
def test_same_run_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    reference, (rc, failed, lines, errors) = results[name]
    ours = (rc, failed, lines, sorted(pkgmethod.bare(e) for e in errors))
    if name in pkgmethod.EXPECTED_DIFFERENCES:
        assert ours != reference, "now agrees: drop it from EXPECTED_DIFFERENCES"
        pytest.xfail(pkgmethod.EXPECTED_DIFFERENCES[name])
    assert ours == reference
