"""Differential test: broken references in each place a value is expanded
(:mod:`brokencalls`), each case run under cf-agent 3.21 and cf-lite and compared."""
from __future__ import annotations

from tests.differential import agentmisc, brokencalls, harness

pytestmark = harness.needs_cf_agent

results, test_same_run_as_cf_agent = agentmisc.observed_tests(brokencalls)
