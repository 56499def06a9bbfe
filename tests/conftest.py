"""Suite-wide: under CF_LITE_PLAIN=1 (cfpromise.fast) the tests of the speed mechanisms the
switch turns off (marked ``fast_path``) are skipped; everything else runs on the plain path.
Every test starts in the directory the suite was started in.

``make test`` runs the suite in two lanes side by side (pytest-xdist's ``-n 2``, with
the scheduler below), so that CI's whole run stays under 30 minutes on two cores:

* ``host``: the conformance ratchets (their runner spreads the tests over every core
  itself; masterfiles' unsafe tests replace the package sources and install packages)
  and the other tests that change the host's packages or services outside scratch
  directories, one after the other as before, so that no two of them meet;
* ``scratch``: everything else, one after the other in the usual order (a module's
  fixtures are made once, in one process) -- but for a few long differential modules
  (:data:`BALANCE`) that run in the host lane once its own tests are done, so that the two
  lanes end at about the same time (they change nothing outside their scratch
  directories: any lane would do).

The lanes are xdist's scopes (LoadScopeScheduling keeps a scope on one worker); xdist's
own ``xdist_group`` marks cannot say it on pytest 9.2, whose node ids ignore the group
suffix xdist 3.8 writes.  A plain ``pytest`` (no ``-n``) runs everything in one process."""
from __future__ import annotations

import pytest

from cfpromise import fast

# whole modules, and single tests (node id prefixes) in modules that otherwise do not
# change the host
HOST_LANE = ("tests/conformance/test_ratchet.py::",
             "tests/promises/test_packages_apt.py::",
             "tests/promises/test_packages_legacy_apt.py::",
             "tests/promises/test_services.py::",
             "tests/differential/test_stdlib_differential.py::test_services_sysv_script_")


# long modules of the scratch kind run in the host lane, after the ratchets (measured
# with --durations in a CI rehearsal: some 6 minutes together)
BALANCE = ("tests/differential/test_funcerrors_differential.py::",
           "tests/differential/test_commonattrs_differential.py::",
           "tests/differential/test_streams_differential.py::",
           "tests/differential/test_varstrings_differential.py::",
           "tests/differential/test_agentmisc_differential.py::")


def lane(nodeid: str) -> str:
    """The lane of one test (see the module docstring)."""
    return "host" if nodeid.startswith(HOST_LANE) or nodeid.startswith(BALANCE) else "scratch"


@pytest.hookimpl(optionalhook=True)     # xdist may be absent (a plain pytest)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    from xdist.scheduler import LoadScopeScheduling

    class Lanes(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return lane(nodeid)

    return Lanes(config, log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not fast.PLAIN:
        return
    skip = pytest.mark.skip(reason="CF_LITE_PLAIN=1: tests a speed mechanism the switch turns off")
    for item in items:
        if item.get_closest_marker("fast_path") is not None:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _keep_working_directory() -> object:
    """Files promises change the working directory as cf-agent's do; a test that runs a
    handler in this process must not leave the next test somewhere else."""
    import os
    here = os.getcwd()
    yield
    try:
        now = os.getcwd()
    except FileNotFoundError:      # the test's directory is gone
        now = None
    if now != here:
        os.chdir(here)
