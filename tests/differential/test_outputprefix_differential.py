"""Differential test: ``output_prefix`` in front of the info and lower log lines
(:mod:`outputprefix`), under cf-agent 3.21 and cf-lite-agent."""
from __future__ import annotations

import pytest

from tests.differential import agentmisc, harness, outputprefix

pytestmark = harness.needs_cf_agent


results, test_same_run_as_cf_agent = agentmisc.observed_tests(outputprefix)


def test_the_prefix_is_seen(results: dict[str, tuple]) -> None:
    """The family is not empty: cf-agent prefixes its info lines, and only them."""
    reference, ours = results["prefix_literal_actions_inform"]
    lines = reference[2] + reference[3]
    assert any(line.startswith("XX>     info: Executing") for line in lines)
    assert any(line.startswith("  notice: Q:") for line in lines)
    assert "R: one" in lines
    assert lines == ours[2] + ours[3]


@pytest.mark.parametrize("prefix", outputprefix.VERBOSE_PREFIXES)
def test_verbose_lines_prefixed_as_cf_agent(tmp_path, prefix: str) -> None:
    """-v: each line both agents print has the prefix in both or in neither (cf-agent's
    rules, said before and after the policy is read, both ways: left out)."""
    policy = harness.write_policy(tmp_path / "p.cf", outputprefix.policy_text(prefix, "actions"))
    ref, lite = harness.run_both(tmp_path, policy, ["-v"])
    lead = {"literal": "XX>", "guard_false": "NN", "spaces": " a b "}[prefix]
    theirs = outputprefix.verbose_pairs(ref.stdout, lead)
    ours = outputprefix.verbose_pairs(lite.stdout, lead)
    common = sorted(t for t in theirs.keys() & ours.keys() if len(theirs[t]) == 1)
    assert len(common) > 20, "too few lines in common: the case is broken"
    assert [(t, ours[t]) for t in common] == [(t, theirs[t]) for t in common]


@pytest.mark.parametrize("args", [("-l", "-I"), ("-l", "-I", "--color=always"), ("-l",)])
def test_timestamp_after_the_prefix(tmp_path, args: tuple[str, ...]) -> None:
    """-l: the prefix, then the time, then the level (raw lines, in order)."""
    policy = harness.write_policy(tmp_path / "p.cf", outputprefix.policy_text("literal", "actions"))
    ref, lite = harness.run_both(tmp_path, policy, list(args))
    ref_lines = outputprefix.untimed(ref.stdout.replace(str(tmp_path / "ref-workdir"), "W"))
    assert outputprefix.untimed(lite.stdout.replace(str(tmp_path / "lite-workdir"), "W")) \
        == ref_lines
