"""The names CFEngine users reach for are in the library, and only standard names are.

* the most used standard library names (counted over masterfiles and CFEngine's
  acceptance suite, see ../shared/reference/cfengine-3.21-behaviour.md) and the
  rest of the families users know are defined, with their arity;
* names that are sometimes asked for but are not part of CFEngine 3.21's
  library are deliberately absent (CFEngine rejects a second definition of a
  name, so a non-standard name would break policy that defines it itself);
* every standard-library name the acceptance suite uses without defining it
  (in the test itself or in its plucked.sub.cf / dcs.sub.cf) is provided.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from cfpromise.schema import schema
from cfpromise.schema.check import references
from cfpromise.syntax import ast
from cfpromise.syntax.errors import PolicyError
from tests.stdlib.library import have_masterfiles, masterfiles_policy, our_policy, parsed

ACCEPTANCE = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "cfengine-acceptance"

# (kind or body type, name, number of parameters)
EXPECTED: list[tuple[str, str, int]] = [
    # contain
    ("contain", "in_shell", 0), ("contain", "in_shell_bg", 0), ("contain", "in_shell_and_silent", 0),
    ("contain", "in_dir", 1), ("contain", "in_dir_shell", 1), ("contain", "silent", 0),
    ("contain", "setuid", 1), ("contain", "setuid_sh", 1),
    # action
    ("action", "if_elapsed", 1), ("action", "if_elapsed_day", 0), ("action", "ifwin_bg", 0),
    ("action", "immediate", 0), ("action", "warn_only", 0), ("action", "bg", 2),
    # classes
    ("classes", "classes_generic", 1), ("classes", "scoped_classes_generic", 2),
    ("classes", "results", 2), ("classes", "if_repaired", 1), ("classes", "if_else", 2),
    ("classes", "if_ok", 1), ("classes", "if_notkept", 1), ("classes", "if_ok_cancel", 1),
    ("classes", "cmd_repair", 2), ("classes", "kept_successful_command", 0),
    ("classes", "always", 1), ("classes", "state_repaired", 1), ("classes", "enumerate", 1),
    # files
    ("perms", "m", 1), ("perms", "mo", 2), ("perms", "mog", 3), ("perms", "og", 2),
    ("perms", "owner", 1), ("perms", "system_owned", 1),
    ("copy_from", "local_cp", 1), ("copy_from", "local_dcp", 1), ("copy_from", "secure_cp", 2),
    ("copy_from", "remote_cp", 2), ("copy_from", "no_backup_cp", 1), ("copy_from", "sync_cp", 2),
    ("depth_search", "recurse", 1), ("depth_search", "recurse_with_base", 1),
    ("depth_search", "recurse_ignore", 2), ("depth_search", "include_base", 0),
    ("delete", "tidy", 0),
    ("file_select", "dirs", 0), ("file_select", "plain", 0), ("file_select", "all", 0),
    ("file_select", "by_name", 1), ("file_select", "days_old", 1), ("file_select", "exclude", 1),
    ("link_from", "ln_s", 1), ("link_from", "linkchildren", 1),
    ("location", "start", 0), ("location", "before", 1), ("location", "after", 1),
    ("edit_defaults", "empty", 0), ("edit_defaults", "no_backup", 0),
    ("edit_defaults", "std_defs", 0),
    ("replace_with", "value", 1), ("replace_with", "comment", 1),
    ("edit_field", "col", 4), ("edit_field", "line", 4),
    ("select_region", "INI_section", 1),
    ("rename", "disable", 0), ("rename", "rotate", 1), ("rename", "to", 1),
    ("changes", "detect_all_change", 0), ("changes", "detect_content", 0),
    ("edit_line", "insert_lines", 1), ("edit_line", "insert_file", 1),
    ("edit_line", "comment_lines_matching", 2), ("edit_line", "uncomment_lines_matching", 2),
    ("edit_line", "delete_lines_matching", 1), ("edit_line", "replace_line_end", 2),
    ("edit_line", "append_if_no_line", 1), ("edit_line", "set_variable_values", 1),
    ("edit_line", "set_line_based", 5), ("edit_line", "expand_template", 1),
    ("agent", "file_make", 2), ("agent", "file_empty", 1), ("agent", "file_copy", 2),
    ("agent", "file_link", 2), ("agent", "file_hardlink", 2), ("agent", "file_tidy", 1),
    ("agent", "dir_sync", 2), ("agent", "rm_rf", 1), ("agent", "prunedir", 2),
    ("agent", "logrotate", 3),
    # processes, services, reports, users
    ("process_count", "any_count", 1), ("process_count", "check_range", 3),
    ("process_select", "by_owner", 1), ("process_select", "exclude_procs", 1),
    ("service_method", "bootstart", 0), ("printfile", "cat", 1),
    ("password", "plaintext_password", 1),
]

# Not in CFEngine 3.21's lib/, so deliberately not defined here.
NOT_PROVIDED: dict[tuple[str, str], str] = {
    ("location", "end"): "no such body in the 3.21 library (insert_lines appends by default); "
                         "users often define their own `end`",
    ("agent", "file_remove"): "no such bundle in the 3.21 library: file_tidy(file) removes a file",
    ("process_select", "by_name"): "no such body in the 3.21 library (by_name is a file_select "
                                   "body); select processes by the promiser regex instead",
    ("report_data_select", "default_data_select_host"): "Enterprise reporting, defined in "
                                                         "masterfiles controls/, not lib/",
    ("report_data_select", "default_data_select_policy_hub"): "as default_data_select_host",
}


def _index(policy: ast.Policy) -> dict[tuple[str, str], int]:
    out = {(b.type, b.name): len(b.args) for b in policy.bodies}
    out.update({(b.type, b.name): len(b.args) for b in policy.bundles})
    return out


@pytest.fixture(scope="module")
def defined() -> dict[tuple[str, str], int]:
    return _index(our_policy())


@pytest.mark.parametrize("kind, name, nargs", EXPECTED, ids=lambda v: str(v))
def test_name_is_defined_with_its_arity(kind: str, name: str, nargs: int,
                                        defined: dict[tuple[str, str], int]) -> None:
    assert defined.get((kind, name)) == nargs


@pytest.mark.parametrize("key", sorted(NOT_PROVIDED), ids=lambda k: f"{k[0]}:{k[1]}")
def test_non_standard_name_is_absent(key: tuple[str, str],
                                     defined: dict[tuple[str, str], int]) -> None:
    assert key not in defined
    if have_masterfiles() and key[0] != "report_data_select":
        assert key not in _index(masterfiles_policy())


def _suite_files() -> list[Path]:
    return sorted(p for p in ACCEPTANCE.rglob("*")
                  if p.is_file() and (p.name.endswith(".cf") or p.name.endswith(".sub")))


def _definitions(policy: ast.Policy) -> set[tuple[str, str]]:
    return {(b.type, b.name) for b in policy.bodies} | \
        {("bundle", b.name) for b in policy.bundles}


@pytest.mark.skipif(not ACCEPTANCE.is_dir() or not have_masterfiles(),
                    reason="acceptance corpus or masterfiles not available")
def test_standard_names_used_by_the_acceptance_suite_are_provided(
        defined: dict[tuple[str, str], int]) -> None:
    sch = schema()
    shared: set[tuple[str, str]] = set()
    for name in ("plucked.sub.cf", "dcs.sub.cf", "default.sub.cf"):
        shared |= _definitions(parsed(str(ACCEPTANCE / name)))
    standard = set(_index(masterfiles_policy()))
    standard_bundles = {name for (t, name) in standard
                        if t in ("agent", "common", "edit_line", "edit_xml")}
    ours_bundles = {name for (t, name) in defined if t in ("agent", "common", "edit_line")}
    # Parsing all ~1800 files is slow: only files that name, after a `=>`, a standard
    # name the shared files do not define can hold a reference that matters.
    candidates = {name for (_, name) in standard} - {name for (_, name) in shared}
    named = re.compile(r"=>\s*(?:default:)?([A-Za-z_][A-Za-z0-9_]*)")
    missing = set()
    for path in _suite_files():
        text = path.read_text(errors="replace")
        if not candidates.intersection(named.findall(text)):
            continue
        try:
            policy = parsed(str(path))
        except PolicyError:
            continue          # the suite's deliberately broken files
        local = _definitions(policy) | shared
        for ref in references(policy, sch):
            name = ref.name.rpartition(":")[2]
            if ref.kind == "body":
                key = (ref.types[0], name)
                if key not in local and key in standard and key not in defined:
                    missing.add(key)
            elif ("bundle", name) not in local and name in standard_bundles \
                    and name not in ours_bundles:
                missing.add(("bundle", name))
    assert not missing
