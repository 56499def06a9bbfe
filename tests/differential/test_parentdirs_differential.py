"""Differential test: making a files promise's missing parent directories, what stands in
their way and what is said of it (:mod:`parentdirs`), under cf-agent 3.21 and cf-lite."""
from __future__ import annotations

from tests.differential import agentmisc, harness, parentdirs

pytestmark = harness.needs_cf_agent


results, test_same_run_as_cf_agent = agentmisc.observed_tests(parentdirs)
