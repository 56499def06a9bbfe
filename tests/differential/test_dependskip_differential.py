"""Differential test: promises whose dependency was not kept (:mod:`dependskip`), each
case run under cf-agent 3.21 and cf-lite (agentmisc.run_observed) and compared."""
from __future__ import annotations

from tests.differential import agentmisc, dependskip, harness

pytestmark = harness.needs_cf_agent


results, test_same_run_as_cf_agent = agentmisc.observed_tests(dependskip)
