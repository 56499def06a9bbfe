"""The two lanes of ``make test`` (tests/conftest.py): the tests that change the host's
packages and services run in one lane with the conformance ratchets, one after the other,
never beside each other; a renamed module or test must not slip out of that lane."""
from __future__ import annotations

from pathlib import Path

from tests import conftest

ROOT = Path(__file__).resolve().parent.parent


def test_every_host_lane_entry_names_a_test_that_exists() -> None:
    for prefix in conftest.HOST_LANE:
        path, _, name = prefix.partition("::")
        source = (ROOT / path).read_text(encoding="utf-8")
        assert not name or f"def {name}" in source, prefix


def test_lanes() -> None:
    assert conftest.lane("tests/conformance/test_ratchet.py::test_masterfiles_unsafe_parity") == "host"
    assert conftest.lane("tests/promises/test_packages_apt.py::test_x[1]") == "host"
    assert conftest.lane("tests/differential/test_stdlib_differential.py::"
                         "test_services_sysv_script_as_masterfiles[default]") == "host"
    assert conftest.lane("tests/differential/test_stdlib_differential.py::"
                         "test_ours_as_masterfiles_under_cf_lite[x]") == "scratch"
    assert conftest.lane("tests/promises/test_packages.py::test_x") == "scratch"

