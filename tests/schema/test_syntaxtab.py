"""The language tables load from the generated _syntaxtab module, which must match
data/syntax.json (see cfpromise.schema), and from the JSON file when it does not."""
from __future__ import annotations

import subprocess
import sys

from cfpromise import schema as schema_module
from cfpromise.schema import _syntaxtab, tables

REGENERATE = "regenerate with `make tables` (python -m cfpromise.schema.tables)"


def test_generated_tables_are_current() -> None:
    source = schema_module.load_source()
    assert _syntaxtab.SYNTAX == source, REGENERATE
    assert list(_syntaxtab.SYNTAX) == list(source)               # the key order too
    for section, table in source.items():
        if isinstance(table, dict):
            assert list(_syntaxtab.SYNTAX[section]) == list(table), REGENERATE
    with open(tables.TARGET, encoding="utf-8") as fh:
        assert fh.read() == tables.render(), REGENERATE


def test_the_tables_come_from_the_generated_module_without_json() -> None:
    script = ("import sys\nfrom cfpromise.schema import schema, _syntaxtab\n"
              "s = schema()\nassert s.raw is _syntaxtab.SYNTAX\n"
              "assert s.promise_attribute('files', 'perms') is not None\n"
              "print('json' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    assert proc.stdout.strip() == "False"


def test_a_stale_generated_module_is_not_used(monkeypatch) -> None:
    monkeypatch.setattr(_syntaxtab, "SOURCE_SIZE", -1)
    raw = schema_module._tables()
    assert raw is not _syntaxtab.SYNTAX
    assert raw == _syntaxtab.SYNTAX              # the JSON file's tables instead
