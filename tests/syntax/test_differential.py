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


@pytest.mark.slow          # cf-promises -p json on ~1,600 files: 2.5 min (make test-all)
def test_same_json_for_every_accepted_file(outcomes: list[differential.Outcome]) -> None:
    bad = [f"{o.path}: {o.kind}: {o.detail}" for o in outcomes if o.kind in ("differs", "lite_rejects")]
    print("differential counts:", _counts(outcomes))
    assert not bad, "\n".join(bad[:50])
    assert _counts(outcomes).get("same", 0) > 1000


@pytest.mark.slow          # the same corpus run
def test_rejects_every_file_cf_promises_rejects(outcomes: list[differential.Outcome]) -> None:
    bad = [f"{o.path}: {o.detail}" for o in outcomes if o.kind == "lite_accepts"]
    assert not bad, "\n".join(bad[:50])


def test_cli_json_of_each_masterfiles_file_equals_cf_promises(tmp_path) -> None:
    """``cf-lite-promises -p json -f F`` (the whole command, which loads F as the agent
    does) against ``cf-promises -p json -f F`` for every masterfiles file on its own:
    same exit code, same JSON.  Plain -f does not report undefined bodies (only -c does)."""
    import contextlib
    import io
    import subprocess

    from cfpromise.cli import promises
    files = sorted(differential.MASTERFILES.rglob("*.cf"))
    if not files:
        pytest.skip("masterfiles (Debian package cfengine3) not installed")
    bad = []
    for path in files:
        ref = subprocess.run(["cf-promises", "-p", "json", "-f", str(path)], capture_output=True,
                             text=True, cwd=path.parent, timeout=60)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = promises.main(["-p", "json", "-f", str(path), "-w", str(tmp_path)])
        if rc != ref.returncode:
            bad.append(f"{path}: exit {rc} != {ref.returncode}: {err.getvalue()[:200]}")
        elif rc == 0:
            mine = differential._strip_source(differential._json_part(out.getvalue()))
            theirs = differential._strip_source(differential._json_part(ref.stdout))
            if mine != theirs:
                bad.append(f"{path}: {differential.first_difference(theirs, mine)}")
    assert not bad, "\n".join(bad[:20])
