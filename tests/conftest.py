"""Suite-wide: under CF_LITE_PLAIN=1 (cfpromise.fast) the tests of the speed mechanisms the
switch turns off (marked ``fast_path``) are skipped; everything else runs on the plain path."""
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
