"""Every file of the library parses and passes the full check (cf-lite-promises -c).

``bundles/stdlib.cf`` includes its family files through ``@(stdlib_common.inputs)``
(and files.cf includes common.cf through ``@(files_common.inputs)``), the form
CFEngine needs.  cf-lite-promises cannot evaluate such an inputs list, and then
checks syntax and attributes but skips references; so the references (undefined
bodies and bundles, arity) of the whole library are checked here through the
loader with an expander that understands the pattern (see ``library.py``) and
:func:`lint_diagnostics`, the checks behind ``-c``.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cfpromise.cli.promises import main as promises_main
from cfpromise.schema.check import lint_diagnostics
from tests.stdlib.library import BUNDLES, STDLIB, family_files, cfengine_env, load_library


def _entry(tmp_path: Path, inputs: list[Path]) -> Path:
    names = ",\n                ".join(f'"{p}"' for p in inputs)
    path = tmp_path / "entry.cf"
    path.write_text("body common control\n{\n"
                    '  bundlesequence => { "main" };\n'
                    f"  inputs => {{ {names} }};\n}}\n"
                    'bundle agent main\n{\n  reports:\n    "ok";\n}\n')
    path.chmod(0o600)
    return path


def test_stdlib_entry_passes_full_check() -> None:
    assert promises_main(["--lint", "-f", str(STDLIB)]) == 0   # a library alone: no main


@pytest.mark.parametrize("name", sorted(p.name for p in BUNDLES.glob("*.cf")))
def test_each_file_passes_full_check_alone(name: str) -> None:
    assert promises_main(["--lint", "-f", str(BUNDLES / name)]) == 0


def test_stdlib_lists_every_family_file() -> None:
    listed = {p.name for p in family_files()}
    present = {p.name for p in BUNDLES.glob("*.cf")} - {"stdlib.cf"}
    assert listed == present
    assert all(p.parent == BUNDLES for p in family_files())


def test_whole_library_has_no_undefined_names_or_bad_arity() -> None:
    loaded = load_library()
    assert not loaded.unresolved, "an inputs list the static loader cannot follow"
    assert not loaded.errors
    problems = [d.render() for d in lint_diagnostics(loaded.policy)]
    assert not problems, "\n".join(problems)


def _full_check(entry: Path) -> list[str]:
    loaded = load_library(entry)
    assert not loaded.unresolved
    return [d.render() for d in list(loaded.errors) + lint_diagnostics(loaded.policy)]


def test_whole_library_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entry = _entry(tmp_path, family_files())
    assert promises_main(["-c", "-f", str(entry)]) == 0
    assert promises_main(["--lint", "-f", str(entry)]) == 0
    assert "error" not in capsys.readouterr().err
    assert _full_check(entry) == []


@pytest.mark.parametrize("use, expected", [
    ('perms => mog("644", "root")', "Body mog of type perms takes 3 argument(s), 2 given"),
    ('classes => if_repaired("a", "b")', "Body if_repaired of type classes takes 1 argument(s)"),
    ('edit_line => insert_lines', "Bundle insert_lines takes 1 argument(s), 0 given"),
    ('copy_from => local_copy("/a")', "Undefined body local_copy with type copy_from"),
])
def test_user_policy_mistakes_are_caught(tmp_path: Path, use: str, expected: str) -> None:
    """The check sees our bodies and bundles, with their arity."""
    entry = _entry(tmp_path, [STDLIB])
    text = entry.read_text().replace('reports:\n    "ok";',
                                     f'files:\n    "/tmp/x"\n      {use};')
    entry.write_text(text)
    problems = _full_check(entry)
    assert len(problems) == 1 and expected in problems[0], problems


def test_user_policy_using_the_library_is_clean(tmp_path: Path) -> None:
    entry = _entry(tmp_path, [STDLIB])
    text = entry.read_text().replace('reports:\n    "ok";', """files:
    "/tmp/x"
      create => "true",
      perms => mog("644", "root", "root"),
      edit_line => insert_lines("hello"),
      edit_defaults => empty,
      classes => results("bundle", "x"),
      action => warn_only;
    "/tmp/d"
      delete => tidy,
      file_select => days_old("3"),
      depth_search => recurse_with_base("inf");
  methods:
    "m" usebundle => file_make("/tmp/y", "text");
  commands:
    "/bin/true"
      contain => in_shell,
      classes => kept_successful_command;""")
    entry.write_text(text)
    assert _full_check(entry) == []


@pytest.mark.reference
@pytest.mark.skipif(shutil.which("cf-promises") is None, reason="CFEngine 3.21 not installed")
def test_cfengine_accepts_the_library(tmp_path: Path) -> None:
    """cf-promises 3.21 itself validates a policy that includes bundles/stdlib.cf."""
    entry = _entry(tmp_path, [STDLIB])
    env = cfengine_env(tmp_path / "work")
    proc = subprocess.run(["cf-promises", "-c", "-f", str(entry)], capture_output=True,
                          text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_every_block_has_a_brief() -> None:
    """``# @brief`` right after each body or bundle header, in our own words."""
    header = re.compile(r"^(body|bundle)\s+\S+\s+\S+")
    missing = []
    for path in sorted(BUNDLES.glob("*.cf")):
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            if header.match(line) and not line.startswith("body file control"):
                follow = lines[i + 1] if i + 1 < len(lines) else ""
                if not follow.startswith("# @brief "):
                    missing.append(f"{path.name}:{i + 1}: {line}")
    assert not missing
