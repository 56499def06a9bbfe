"""Differential test: packages promises and their package_module bodies (:mod:`pkgmodules`),
each case run under cf-agent 3.21 and cf-lite."""
from __future__ import annotations

from tests.differential import agentmisc, harness, pkgmodules

pytestmark = harness.needs_cf_agent


results, test_same_run_as_cf_agent = agentmisc.observed_tests(pkgmodules)
