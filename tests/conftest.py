"""Suite-wide: under CF_LITE_PLAIN=1 (cfpromise.fast) the tests of the speed mechanisms the
switch turns off (marked ``fast_path``) are skipped; everything else runs on the plain path.
Every test starts in the directory the suite was started in."""
from __future__ import annotations

import pytest

from cfpromise import fast


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
