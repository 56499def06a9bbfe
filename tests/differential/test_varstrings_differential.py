"""Differential test: IsCf3VarString's verdicts in each place cf-lite asks them
(:mod:`varstrings`), each case run under cf-agent 3.21 and cf-lite and compared."""
from __future__ import annotations

from tests.differential import agentmisc, harness, varstrings

pytestmark = harness.needs_cf_agent

results, test_same_run_as_cf_agent = agentmisc.observed_tests(varstrings)
