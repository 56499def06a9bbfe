"""Differential test: values holding a newline against their attribute's range
(:mod:`rangelines`), each case run under cf-agent 3.21 and cf-lite and compared."""
from __future__ import annotations

from tests.differential import agentmisc, harness, rangelines

pytestmark = harness.needs_cf_agent


results, test_same_run_as_cf_agent = agentmisc.observed_tests(rangelines)
