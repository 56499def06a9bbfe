"""The language tables load from the generated _syntaxtab module, which must match
data/syntax.json (see cfpromise.schema), and from the JSON file when it does not."""
from __future__ import annotations

import marshal
import subprocess
import sys

import pytest

from cfpromise import schema as schema_module
from cfpromise.fast import _syntaxtab, syntaxtab as tables

REGENERATE = "regenerate with `make tables` (python -m cfpromise.fast.syntaxtab)"


def test_generated_tables_are_current() -> None:
    source = schema_module.load_source()
    raw, data_lvals = schema_module._tables()
    assert schema_module.Schema(raw).to_json() == source, REGENERATE
    assert list(raw) == list(source)                             # the key order too
    for section, table in source.items():
        if isinstance(table, dict):
            assert list(raw[section]) == list(table), REGENERATE
            assert dict(raw[section].items()) == table
    assert data_lvals == schema_module.data_lvals_of(source) == {"data", "template_data"}
    with open(tables.TARGET, encoding="utf-8") as fh:
        assert fh.read() == tables.render(), REGENERATE


def test_entries_are_unmarshalled_when_first_used() -> None:
    raw, _ = schema_module._tables()
    functions = raw["functions"]
    assert isinstance(_syntaxtab.SYNTAX["functions"]["concat"], bytes)
    assert not dict.__contains__(functions, "concat")            # not yet unmarshalled
    entry = functions["concat"]
    assert entry == marshal.loads(_syntaxtab.SYNTAX["functions"]["concat"])
    assert dict.__contains__(functions, "concat") and functions["concat"] is entry
    assert "concat" in functions and functions.get("nosuch") is None


def test_to_json_gives_plain_tables() -> None:
    tables_json = schema_module.schema().to_json()
    assert tables_json == schema_module.load_source()
    assert all(type(t) is dict for t in tables_json.values())


def test_the_tables_come_from_the_generated_module_without_json() -> None:
    script = ("import sys\nfrom cfpromise.schema import schema\nfrom cfpromise.fast import _syntaxtab\n"
              "s = schema()\nassert s.raw['bundleTypes'] is _syntaxtab.SYNTAX['bundleTypes']\n"
              "assert s.promise_attribute('files', 'perms') is not None\n"
              "print('json' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    assert proc.stdout.strip() == "False"


@pytest.mark.parametrize("stale", ["SOURCE_SIZE", "MARSHAL"])
def test_a_stale_generated_module_is_not_used(monkeypatch, stale: str) -> None:
    monkeypatch.setattr(_syntaxtab, stale, -1)
    raw, data_lvals = schema_module._tables()
    assert data_lvals is None and type(raw["functions"]) is dict
    assert raw == schema_module.load_source()    # the JSON file's tables instead
    assert schema_module.Schema(raw).data_lvals() == _syntaxtab.DATA_LVALS
