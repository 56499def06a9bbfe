"""cf-lite's tests (a package, so tests import one another as ``tests.…``)."""
