"""What a cron run of a small policy imports (issue #15, item 4: import nothing a run
does not use).  A one-report run with a warm policy cache must not import attrs (its
import and class generation were a sixth of such a run), the PLY parser (the policy
comes from the cache) or the promise types the policy does not use.  Neither it nor a
cold cf-lite-promises check imports typing (with its runtime constructs, 3% of a cold
check: annotations are never evaluated, so typing is imported under ``if TYPE_CHECKING:``
only), contextlib, or re, json and enum (12 M instructions: the regexes come precompiled,
JSON is written by json's C core, and outcomes are plain objects)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

POLICY = 'bundle agent main\n{\n  reports:\n    "hello from $(sys.host)";\n}\n'

# Runs the agent's entry point in this interpreter, then prints the modules it imported.
PROBE = """
import sys
from cfpromise.cli.agent import main
code = main(sys.argv[1:])
modules = sorted(sys.modules)           # before the probe's own json import
import json
print("MODULES=" + json.dumps(modules))
"""

# (cfpromise.promises.packages.endrun is imported at every run's end: it only asks
# whether common control names a package_inventory, and loads the rest if it does.)
NOT_ON_THE_START_PATH = ("attr", "attrs", "ply.yacc", "cfpromise.syntax.parser",
                         # parse-time checks run on a policy cache miss only (its 21
                         # code objects: 0.5 M instructions on 3.11, 0.75 M on 3.12/3.13)
                         "cfpromise.schema.validate",
                         "cfpromise.promises.files", "cfpromise.promises.commands",
                         "cfpromise.promises.packages.inventory",
                         "cfpromise.promises.packages.handler", "sqlite3",
                         "_hashlib",     # OpenSSL: the policy cache digests with BLAKE2
                         "argparse",     # a plain command line is read from the table
                         "typing", "contextlib",
                         # regexes come precompiled (cfpromise.fast.precompiled), JSON is
                         # written by json's C core (cfpromise.fast.jsondumps), outcomes are
                         # plain objects: re, json and enum are 12 M instructions
                         "re", "json", "enum",
                         # importlib (with warnings) is 2.3 M instructions: modules named
                         # at run time are imported with __import__
                         "importlib", "warnings",
                         # the collections package and operator's Python part (deque,
                         # attrgetter and array come without them: cfpromise.fast.cmodules):
                         # 4.8 M instructions on 3.11, 6.2 M on 3.13
                         "collections", "operator",
                         # libxml2 (edit_xml bundles only: cfpromise.promises.edit.xmldoc)
                         "lxml", "lxml.etree", "cfpromise.promises.edit.xmldoc")


def imported(tmp_path: Path, *args: str) -> set[str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True,
                          text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "R: hello from" in proc.stdout, proc.stdout
    line = next(x for x in proc.stdout.splitlines() if x.startswith("MODULES="))
    return set(json.loads(line[len("MODULES="):]))


def test_a_one_report_run_imports_only_what_it_uses(tmp_path: Path) -> None:
    policy = tmp_path / "trivial.cf"
    policy.write_text(POLICY)
    policy.chmod(0o600)
    args = ("-K", "-f", str(policy), "-w", str(tmp_path / "wd"))
    first = imported(tmp_path, *args)           # fills the policy cache
    assert "cfpromise.syntax.parser" in first   # (the probe does see the parser when used)
    cold_unwanted = {"typing", "contextlib", "re", "json", "enum"}
    assert not cold_unwanted & first, sorted(cold_unwanted & first)
    modules = imported(tmp_path, *args)
    found = sorted(m for m in modules if m in NOT_ON_THE_START_PATH
                   or m.startswith(tuple(n + "." for n in NOT_ON_THE_START_PATH)))
    assert not found, f"a warm one-report run imported {found}"



# What masterfiles' dry run does besides reports: files promises (perms, copy_from),
# a commands promise, a processes promise.
PROMISE_TYPES = """bundle agent main
{
  files:
      "{dir}/made" create => "true", perms => mode("600");
      "{dir}/copied" copy_from => local_copy("{dir}/source"), perms => mode("640");
  commands:
      "/bin/true";
  processes:
      "cf-lite-no-such-process-at-all" restart_class => "would_start";
  reports:
      "hello from $(sys.host)";
}

body perms mode(m)
{
        mode => "$(m)";
}

body copy_from local_copy(from)
{
        source => "$(from)";
}
"""


def test_files_commands_and_processes_promises_do_not_import_attrs(tmp_path: Path) -> None:
    """Their records are @record classes and plain slotted classes: importing attrs and
    generating its classes was about a tenth of a masterfiles dry run."""
    (tmp_path / "source").write_text("copied\n")
    policy = tmp_path / "types.cf"
    policy.write_text(PROMISE_TYPES.replace("{dir}", str(tmp_path)))
    policy.chmod(0o600)
    modules = imported(tmp_path, "-K", "-f", str(policy), "-w", str(tmp_path / "wd"))
    assert (tmp_path / "made").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "copied").read_text() == "copied\n"
    assert (tmp_path / "copied").stat().st_mode & 0o777 == 0o640
    for used in ("cfpromise.promises.files.handler", "cfpromise.promises.files.copy",
                 "cfpromise.promises.commands", "cfpromise.promises.processes.handler"):
        assert used in modules, used
    found = sorted(m for m in modules if m in ("attr", "attrs")
                   or m.startswith(("attr.", "attrs.")))
    assert not found, f"a files/commands/processes run imported {found}"

# What a cron run that edits files does: an edit_line bundle, a mustache template and
# an edit_xml bundle.
EDITS = """bundle agent main
{
  vars:
      "who" string => "world";
  files:
      "{dir}/lines" edit_line => ed;
      "{dir}/rendered" create => "true", edit_template => "{dir}/t.mustache",
        template_method => "mustache";
      "{dir}/doc.xml" edit_xml => ex;
  reports:
      "hello from $(sys.host)";
}

bundle edit_line ed
{
  insert_lines:
      "added";
      "# managed" location => before_keep;
  delete_lines:
      "remove me";
  replace_patterns:
      "colour=red" replace_with => value("colour=blue");
}

body location before_keep
{
        select_line_matching => "keep me";
        before_after => "before";
}

body replace_with value(x)
{
        replace_value => "$(x)";
}

bundle edit_xml ex
{
  set_attribute:
      "y" attribute_value => "2", select_xpath => "/root/a";
}
"""


def test_edit_line_template_and_edit_xml_promises_do_not_import_attrs(tmp_path: Path) -> None:
    """The edit buffers, cursors, regions and locations are plain classes and @record
    classes: a run from cron that edits files pays neither attrs' import nor its code
    generation."""
    (tmp_path / "lines").write_text("keep me\nremove me\ncolour=red\n")
    (tmp_path / "t.mustache").write_text("Hello {{vars.main.who}}\n")
    (tmp_path / "doc.xml").write_text('<root><a x="1"/></root>\n')
    policy = tmp_path / "edits.cf"
    policy.write_text(EDITS.replace("{dir}", str(tmp_path)))
    policy.chmod(0o600)
    modules = imported(tmp_path, "-K", "-f", str(policy), "-w", str(tmp_path / "wd"))
    assert (tmp_path / "lines").read_text() == "# managed\nkeep me\ncolour=blue\nadded\n"
    assert (tmp_path / "rendered").read_text() == "Hello world\n"
    assert (tmp_path / "doc.xml").read_text() == \
        '<?xml version="1.0"?>\n<root><a x="1" y="2"/></root>\n'
    for used in ("cfpromise.promises.edit.insert_lines", "cfpromise.promises.edit.delete_lines",
                 "cfpromise.promises.edit.replace_patterns", "cfpromise.promises.edit.xml",
                 "cfpromise.promises.files.template"):
        assert used in modules, used
    found = sorted(m for m in modules if m in ("attr", "attrs")
                   or m.startswith(("attr.", "attrs.")))
    assert not found, f"an edit_line/template/edit_xml run imported {found}"


# cf-lite-promises on one file parsed cold, as `cf-promises -f lib/files.cf`.
PROMISES_PROBE = """
import sys
from cfpromise.cli.promises import main
code = main(sys.argv[1:])
modules = sorted(sys.modules)           # before the probe's own json import
import json
print("MODULES=" + json.dumps(modules) + " EXIT=" + str(code))
"""

# A kept @if block and a "$(var)":: guard, as masterfiles' lib/files.cf has.
LIBRARY = """@if minimum_version(3.7)
body file control
{
  namespace => "default";
}
@endif

bundle agent tidy(file)
{
  files:
      "$(file)" delete => tidy;
  reports:
    "DEBUG|DEBUG_$(this.bundle)"::
      "DEBUG $(this.bundle): deleting $(file)";
}

body delete tidy
{
        dirlinks => "delete";
        rmdirs   => "true";
}
"""


def test_a_cold_check_of_a_library_file_imports_no_ply_attrs_openssl_or_typing(
        tmp_path: Path) -> None:
    """Parsing comes from the fast scanner and the LR driver over the shipped tables:
    PLY (ply.yacc imports inspect, ast, dis, tokenize) is built only for the reference
    parser and for what the scanner hands over (an @else, a false @if, errors).  The
    language tables come from their generated module, not from JSON, the policy
    cache pickles with pickle's C core, not pickle.py, the command line is read
    without argparse (cfpromise.cli.options), and typing is imported for type
    checkers only (``if TYPE_CHECKING:``)."""
    library = tmp_path / "files.cf"
    library.write_text(LIBRARY)
    library.chmod(0o600)
    proc = subprocess.run([sys.executable, "-c", PROMISES_PROBE, "-w", str(tmp_path / "wd"),
                           "-f", str(library)], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("MODULES="))
    modules_text, _, exit_text = line[len("MODULES="):].rpartition(" EXIT=")
    assert exit_text == "0", proc.stdout + proc.stderr
    modules = set(json.loads(modules_text))
    assert "cfpromise.syntax.parser" in modules            # it did parse
    unwanted = ("ply", "attr", "attrs", "inspect", "_hashlib", "json", "pickle", "argparse",
                "typing", "contextlib", "re", "enum")
    found = sorted(m for m in modules
                   if m in unwanted or m.startswith(tuple(n + "." for n in unwanted)))
    assert not found, f"cf-lite-promises on one library file imported {found}"


# the speed mechanisms themselves: skipped under CF_LITE_PLAIN=1 (tests/conftest.py)
pytestmark = pytest.mark.fast_path
