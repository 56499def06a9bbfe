"""Differential test: files promises with no action (:mod:`noaction`), whole runs
compared with cf-agent 3.21's."""
from __future__ import annotations

from tests.differential import agentmisc, harness, noaction

pytestmark = harness.needs_cf_agent

results, test_same_run_as_cf_agent = agentmisc.observed_tests(noaction)
