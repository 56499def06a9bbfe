"""cf-lite's parser against cf-promises 3.21 over masterfiles and the acceptance suite."""
from __future__ import annotations

import pytest

from tests.syntax import differential

pytestmark = [pytest.mark.reference,
              pytest.mark.skipif(not differential.available(), reason="cf-promises not installed")]


@pytest.fixture(scope="module")
def outcomes() -> list[differential.Outcome]:
    files = differential.corpus()
    if not files:
        pytest.skip("no corpus (masterfiles or the acceptance suite) found")
    return differential.run(files)


def _counts(outcomes: list[differential.Outcome]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.kind] = counts.get(o.kind, 0) + 1
    return counts


def test_same_json_for_every_accepted_file(outcomes: list[differential.Outcome]) -> None:
    bad = [f"{o.path}: {o.kind}: {o.detail}" for o in outcomes if o.kind in ("differs", "lite_rejects")]
    print("differential counts:", _counts(outcomes))
    assert not bad, "\n".join(bad[:50])
    assert _counts(outcomes).get("same", 0) > 1000


def test_rejects_every_file_cf_promises_rejects(outcomes: list[differential.Outcome]) -> None:
    bad = [f"{o.path}: {o.detail}" for o in outcomes if o.kind == "lite_accepts"]
    assert not bad, "\n".join(bad[:50])
