"""Generated cases for the outcome of each edit_line promise type, above all when it finds
nothing to do.

cf-agent 3.21's verdicts, which the standard library's bundles build on: ``field_edits``
whose line pattern matches no line *fails* ("No matched line to edit fields of ...", so
``set_variable_values`` then inserts the line); ``insert_lines`` with its line present,
``delete_lines`` and ``replace_patterns`` matching nothing are kept; a region that cannot
be selected interrupts the promise; under ``action_policy => "warn"`` a needed change is
a warning.  Each case is one promise (with a classes body for every outcome) on a small
file; what is compared is the file, the outcome classes of the promise and of its files
promise, and the error and warning lines (:mod:`batch`).
"""
from __future__ import annotations

import itertools

from tests.differential.batch import Case, outcome_classes

START = "[main]\nalpha=1\nbeta=2,3\n# gamma=4\n[other]\nalpha=9\n"

# promise type -> situation -> promiser and attributes (before the classes body)
SITUATIONS: dict[str, dict[str, str]] = {
    "insert_lines": {
        "present": '"beta=2,3"',
        "absent": '"delta=5"',
        "region_present": '"alpha=1" select_region => mfx_section("main")',
        "region_absent": '"delta=5" select_region => mfx_section("main")',
        "region_missing": '"delta=5" select_region => mfx_section("nosuch")',
        "anchor_missing": '"delta=5" location => mfx_after("^nosuch$")',
        "anchor_found": '"delta=5" location => mfx_after("^alpha=1$")',
        "block_present": '"alpha=1$(const.n)beta=2,3" insert_type => "preserve_block"',
        # a block holding the line next to the locator: only the preserving types insert
        # it again (InsertLineAtLocation's preserve_block covers all three, ENT-8788)
        **{f"neighbour_{where}_{kind}":
           f'"x$(const.n)alpha=1$(const.n)beta=2,3$(const.n)y" insert_type => "{kind}", '
           f'location => mfx_{where}("^{anchor}$")'
           for where, anchor in (("before", "beta=2,3"), ("after", "alpha=1"))
           for kind in ("literal", "preserve_block", "preserve_all_lines")},
    },
    "delete_lines": {
        "no_match": '"nosuch.*"',
        "match": '"alpha=.*"',
        "region_no_match": '"gamma.*" select_region => mfx_section("other")',
        "region_match": '"alpha=.*" select_region => mfx_section("other")',
        "region_missing": '"alpha=.*" select_region => mfx_section("nosuch")',
        "not_matching": '"alpha=1" not_matching => "true", select_region => mfx_section("main")',
    },
    "replace_patterns": {
        "no_match": '"^nosuch$" replace_with => mfx_value("x")',
        "match": '"^# (gamma=4)$" replace_with => mfx_value("$(match.1)")',
        "already": '"^alpha=9$" replace_with => mfx_value("alpha=9")',
        "region_no_match": '"^beta.*" replace_with => mfx_value("b"), select_region => mfx_section("other")',
        "region_missing": '"^alpha.*" replace_with => mfx_value("a"), select_region => mfx_section("nosuch")',
        "not_convergent": '"alpha" replace_with => mfx_value("alpha alpha")',
    },
    "field_edits": {
        "no_line": '"nosuch=.*" edit_field => mfx_col("=", "2", "7", "set")',
        "set": '"alpha=1" edit_field => mfx_col("=", "2", "7", "set")',
        "already": '"alpha=1" edit_field => mfx_col("=", "2", "1", "set")',
        "append": '"beta=.*" edit_field => mfx_col("=", "2", "4", "append")',
        "append_present": '"beta=.*" edit_field => mfx_col("=", "2", "3", "append")',
        "delete_absent": '"beta=.*" edit_field => mfx_col("=", "2", "9", "delete")',
        "region_no_line": '"beta=.*" edit_field => mfx_col("=", "2", "7", "set"), select_region => mfx_section("other")',
        "region_missing": '"alpha=.*" edit_field => mfx_col("=", "2", "7", "set"), select_region => mfx_section("nosuch")',
        "no_extend": '"alpha=1" edit_field => mfx_col_noextend("=", "5", "7")',
    },
}

ACTIONS = ("fix", "warn")

BODIES = """
body select_region mfx_section(x)
{
  select_start => "\\[$(x)\\]";
  select_end => "\\[.*\\]";
}
body location mfx_after(x) { before_after => "after"; select_line_matching => "$(x)"; }
body location mfx_before(x) { before_after => "before"; select_line_matching => "$(x)"; }
body replace_with mfx_value(new_value) { replace_value => "$(new_value)"; occurrences => "all"; }
body edit_field mfx_col(split, col, val, op)
{
  field_separator => "$(split)";
  select_field => "$(col)";
  value_separator => ",";
  field_value => "$(val)";
  field_operation => "$(op)";
  extend_fields => "true";
  allow_blank_fields => "true";
}
body edit_field mfx_col_noextend(split, col, val)
{
  field_separator => "$(split)";
  select_field => "$(col)";
  field_value => "$(val)";
  field_operation => "set";
}
body action mfx_warn { action_policy => "warn"; }
body select_region mfx_section_incl(x)
{
  select_start => "\\[$(x)\\]";
  select_end => "\\[.*\\]";
  include_start_delimiter => "true";
  include_end_delimiter => "true";
}
body select_region mfx_start_only(x) { select_start => "\\[$(x)\\]"; }
body select_region mfx_start_eof(x)
{
  select_start => "\\[$(x)\\]";
  select_end => "^nosuch$";
  select_end_match_eof => "true";
}
body location mfx_first_before(x) { before_after => "before"; first_last => "first"; select_line_matching => "$(x)"; }
body location mfx_first_after(x) { before_after => "after"; first_last => "first"; select_line_matching => "$(x)"; }
body location mfx_last_after(x) { before_after => "after"; first_last => "last"; select_line_matching => "$(x)"; }
body replace_with mfx_first(v) { replace_value => "$(v)"; occurrences => "first"; }
body edit_field mfx_col_noblank(split, col, val)
{
  field_separator => "$(split)"; select_field => "$(col)"; field_value => "$(val)";
  field_operation => "set"; extend_fields => "true"; allow_blank_fields => "false";
}
body edit_field mfx_col_zero(split, col, val)
{
  field_separator => "$(split)"; select_field => "$(col)"; field_value => "$(val)";
  field_operation => "set"; start_fields_from_zero => "true";
}
"""


# neighbours of the situations above (run with the "fix" action only, to keep the number
# of runs down): regions holding their delimiters, regions without an end, locations at
# the first or last match, multi-line promisers, replacements that still match, fields
# past the end of the line; "again" ones, also with "warn": a region the promise's own
# edit took away in pass 1 (cf-agent interrupts the promise in pass 2, so it is both
# repaired and failed)
NEIGHBOURS: dict[str, dict[str, str]] = {
    "insert_lines": {
        "region_incl_start": '"[main]" select_region => mfx_section_incl("main")',
        "region_incl_new": '"delta=5" select_region => mfx_section_incl("main")',
        "first_before": '"delta=5" location => mfx_first_before(".*")',
        "last_after": '"delta=5" location => mfx_last_after("alpha.*")',
        "first_after": '"delta=5" location => mfx_first_after("alpha.*")',
        "region_no_end": '"delta=5" select_region => mfx_start_only("other")',
        "region_no_end_eof": '"delta=5" select_region => mfx_start_eof("other")',
        "empty_line": '""',
        "multi_literal": '"alpha=1$(const.n)beta=2,3"',
        "multi_absent": '"p=1$(const.n)q=2"',
    },
    "delete_lines": {
        "not_matching_all": '"alpha=1" not_matching => "true"',
        "again_region_incl": '"\\\\[main\\\\]" select_region => mfx_section_incl("main")',
        "partial": '"alpha"',
        "multi_block": '"alpha=1$(const.n)beta=2,3"',
        "again_region_no_end": '"alpha=.*" select_region => mfx_start_only("other")',
    },
    "replace_patterns": {
        "first_only": '"alpha" replace_with => mfx_first("ALPHA")',
        "empty_replace": '"^# .*$" replace_with => mfx_value("")',
        "group_missing": '"^(alpha)=(9)$" replace_with => mfx_value("$(match.3)")',
        "again_region_incl": '"^\\\\[main\\\\]$" replace_with => mfx_value("[MAIN]"), '
                             'select_region => mfx_section_incl("main")',
        "to_multiline": '"^alpha=1$" replace_with => mfx_value("x$(const.n)y")',
    },
    "field_edits": {
        "extend_far": '"alpha=1" edit_field => mfx_col("=", "5", "7", "set")',
        "prepend": '"beta=.*" edit_field => mfx_col("=", "2", "0", "prepend")',
        "alphanum": '"beta=.*" edit_field => mfx_col("=", "2", "1", "alphanum")',
        "delete_present": '"beta=.*" edit_field => mfx_col("=", "2", "3", "delete")',
        "no_blank": '"alpha=1" edit_field => mfx_col_noblank("=", "4", "7")',
        "zero_based": '"alpha=1" edit_field => mfx_col_zero("=", "1", "7")',
        "sep_regex": '"beta=.*" edit_field => mfx_col("[=,]", "3", "9", "set")',
    },
}


def _cases() -> list[Case]:
    cases = []
    for ptype, situations in NEIGHBOURS.items():
        for situation, text in situations.items():
            for action in ACTIONS if situation.startswith("again_") else ACTIONS[:1]:
                cases.append(_case(ptype, situation, text, action))
    for (ptype, situations), action in itertools.product(SITUATIONS.items(), ACTIONS):
        for situation, text in situations.items():
            cases.append(_case(ptype, situation, text, action))
    return cases


def _case(ptype: str, situation: str, text: str, action: str) -> Case:
    name = f"o_{ptype}_{situation}_{action}"
    end = text.index('"', 1) + 1
    attrs = [a for a in (text[end:].strip(),) if a]
    if action == "warn":
        attrs.append("action => mfx_warn")
    attrs.append(f'classes => mfx_outcome("{name}_P")')
    edit = (f"bundle edit_line edit_{name}\n{{\n  {ptype}:\n    {text[:end]} "
            + ", ".join(attrs) + ";\n}\n")
    bundle = (f'  files:\n    "$(sys.workdir)/{name}.txt" edit_line => edit_{name}, '
              f'classes => mfx_outcome("{name}_F");')
    return Case(name, bundle, extra=edit, files={"txt": START},
                classes=outcome_classes(f"{name}_P") + outcome_classes(f"{name}_F"),
                note=f"{ptype} {situation} ({action})")


CASES = _cases()


def _edit_vars_case(name: str, attrs: str, bundle_type: str = "edit_line") -> Case:
    """What ``edit.*`` holds in an edit bundle (``edit.filename``, and for edit_line
    ``edit.empty_before_use``), and that it is gone once the bundle returns."""
    path = f"$(sys.workdir)/{name}.txt"
    body = (f'  classes:\n    "{name}_fn" expression => strcmp("$(edit.filename)", "{path}"), '
            f'scope => "namespace";\n'
            f'    "{name}_ebu" expression => isvariable("edit.empty_before_use"), '
            f'scope => "namespace";\n'
            f'  reports:\n    "@@{name}@@said@@ebu=$(edit.empty_before_use)";\n')
    if bundle_type == "edit_line":
        body += '  insert_lines:\n    "line";\n'
    edit = f"bundle {bundle_type} edit_{name}\n{{\n{body}}}\n"
    attr = "edit_xml" if bundle_type == "edit_xml" else "edit_line"
    bundle = (f'  files:\n    "{path}" create => "true", {attr} => edit_{name}{attrs};\n'
              f'  classes:\n    "{name}_after" expression => isvariable("edit.filename"), '
              f'scope => "namespace";\n')
    start = "<a/>\n" if bundle_type == "edit_xml" else "x\n"
    return Case(name, bundle, extra=edit, files={"txt": start},
                classes=(f"{name}_fn", f"{name}_ebu", f"{name}_after"),
                note=f"edit.* in {bundle_type} {attrs}")


EDIT_VARS_CASES = [
    _edit_vars_case("v_plain", ""),
    _edit_vars_case("v_empty", ", edit_defaults => mfx_empty_first"),
    _edit_vars_case("v_not_empty", ", edit_defaults => mfx_keep"),
    _edit_vars_case("v_template", ', edit_template_string => "t", '
                                  'template_method => "inline_mustache"'),
    _edit_vars_case("v_xml", "", "edit_xml"),
]

BODIES += """
body edit_defaults mfx_empty_first { empty_file_before_editing => "true"; }
body edit_defaults mfx_keep { empty_file_before_editing => "false"; edit_backup => "false"; }
"""

CASES = CASES + EDIT_VARS_CASES
