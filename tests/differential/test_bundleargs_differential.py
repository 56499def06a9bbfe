"""Differential test: the arguments of bundle references, in every shape
(:mod:`bundleargs`), each case run under cf-agent 3.21 and cf-lite and compared with
the files each run wrote."""
from __future__ import annotations

from tests.differential import bundleargs, harness

pytestmark = harness.needs_cf_agent


results, test_same_run_as_cf_agent = bundleargs.observed_tests(bundleargs)
