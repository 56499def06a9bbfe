"""Differential test: class expressions with blanks evaluated at run time (:mod:`classspaces`),
their value and cf-agent's error, under cf-agent 3.21 and cf-lite."""
from __future__ import annotations

from tests.differential import agentmisc, classspaces, harness

pytestmark = harness.needs_cf_agent


results, test_same_run_as_cf_agent = agentmisc.observed_tests(classspaces)
