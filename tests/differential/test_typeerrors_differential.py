"""Differential test: values of the wrong type for their promise type (:mod:`typeerrors`),
each case run under cf-agent 3.21 and cf-lite."""
from __future__ import annotations

from tests.differential import agentmisc, harness, typeerrors

pytestmark = harness.needs_cf_agent


results, test_same_run_as_cf_agent = agentmisc.observed_tests(typeerrors)
