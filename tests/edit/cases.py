"""edit_line promise cases: file before, edit_line bundle, file after, cf-agent's messages.

Every ``after`` and every message here was read off cf-agent 3.21 running the
same policy (``tests/edit/test_differential.py`` replays the table against
cf-agent when it is installed).  A case is run by :func:`policy_for`, a files
promise on one file with the bundle as its ``edit_line``.
"""
from __future__ import annotations

import attrs

EDIT_FIELD = """
body edit_field col(split, col, newval, method)
{
  field_separator => "$(split)";
  select_field => "$(col)";
  value_separator => ",";
  field_value => "$(newval)";
  field_operation => "$(method)";
  extend_fields => "true";
  allow_blank_fields => "true";
}
body edit_field whole(split, col, newval)
{
  field_separator => "$(split)";
  select_field => "$(col)";
  field_value => "$(newval)";
  extend_fields => "true";
}
"""

BODIES = """
body select_region between(start, end)
{
  select_start => "$(start)";
  select_end => "$(end)";
}
body select_region between_incl(start, end)
{
  select_start => "$(start)";
  select_end => "$(end)";
  include_start_delimiter => "true";
  include_end_delimiter => "true";
}
body select_region from(start)
{
  select_start => "$(start)";
}
body location before(x)
{
  before_after => "before";
  select_line_matching => "$(x)";
  first_last => "first";
}
body location after_first(x)
{
  before_after => "after";
  select_line_matching => "$(x)";
  first_last => "first";
}
body location after_last(x)
{
  select_line_matching => "$(x)";
}
body location start
{
  before_after => "before";
}
body replace_with value(x)
{
  replace_value => "$(x)";
}
body replace_with first(x)
{
  replace_value => "$(x)";
  occurrences => "first";
}
body delete_select starting(x)
{
  delete_if_startwith_from_list => { "$(x)" };
}
body delete_select not_containing(x)
{
  delete_if_not_contains_from_list => { "$(x)" };
}
body insert_select only_matching(x)
{
  insert_if_match_from_list => { "$(x)" };
}
body edit_defaults empty
{
  empty_file_before_editing => "true";
}
body edit_defaults join
{
  recognize_join => "true";
}
body edit_defaults small
{
  max_file_size => "10";
}
body select_region to_eof(start, end)
{
  select_start => "$(start)";
  select_end => "$(end)";
  select_end_match_eof => "true";
}
""" + EDIT_FIELD


@attrs.frozen
class EditCase:
    id: str
    before: str | None
    bundle: str                    # the body of ``bundle edit_line e``
    after: str
    messages: tuple[str, ...] = ()   # info lines expected (in order, a subsequence)
    defaults: str = ""             # e.g. 'edit_defaults => empty'
    converges: bool = True         # False: cf-agent changes the file again on every run
    source: str | None = None      # content of {source}, a second file the bundle may read


def policy_for(case: EditCase, path: str) -> str:
    """The policy of ``case`` editing ``path`` (``{source}`` is written beside it)."""
    import os
    source = os.path.join(os.path.dirname(path), "source.txt")
    if case.source is not None:
        with open(source, "w") as fh:
            fh.write(case.source)
    extra = f", {case.defaults}" if case.defaults else ""
    bundle = case.bundle.replace("{source}", source)
    return f"""
body common control {{ bundlesequence => {{ "main" }}; }}
bundle agent main
{{
  files:
    "{path}" create => "true", edit_line => e{extra};
}}
bundle edit_line e
{{
{bundle}
}}
{BODIES}
"""


CASES: list[EditCase] = [
    # --- insert_lines -------------------------------------------------------------------
    EditCase("insert-empty-file", "", 'insert_lines: "hello";', "hello\n",
             ("Inserted the promised line 'hello' into '{path}' after locator",
              "insert_lines promise 'hello' repaired", "Edited file '{path}'")),
    EditCase("insert-present", "a\nhello\nb\n", 'insert_lines: "hello";', "a\nhello\nb\n"),
    EditCase("insert-appends", "a\nb\n", 'insert_lines: "c";', "a\nb\nc\n"),
    EditCase("insert-no-final-newline", "a\nb", 'insert_lines: "c";', "a\nb\nc\n"),
    EditCase("insert-block", "a\n", 'insert_lines: "x\ny\nz";', "a\nx\ny\nz\n"),
    EditCase("insert-block-partly-present", "a\ny\n", 'insert_lines: "x\ny\nz";',
             "a\ny\nx\nz\n"),
    EditCase("insert-preserve-block", "a\ny\n",
             'insert_lines: "x\ny\nz" insert_type => "preserve_block";', "a\ny\nx\ny\nz\n"),
    EditCase("insert-start", "a\nb\n", 'insert_lines: "first" location => start;',
             "first\na\nb\n",
             ("Prepended the promised line 'first' to {path}",)),
    EditCase("insert-before-locator", "a\nb\nc\n",
             'insert_lines: "new" location => before("b");', "a\nnew\nb\nc\n",
             ("Inserted the promised line 'new' into '{path}' before locator",)),
    EditCase("insert-after-first-locator", "k\nb\nk\n",
             'insert_lines: "new" location => after_first("k");', "k\nnew\nb\nk\n"),
    EditCase("insert-after-last-locator", "k\nb\nk\nz\n",
             'insert_lines: "new" location => after_last("k");', "k\nb\nk\nnew\nz\n"),
    EditCase("insert-neighbour-present", "a\nnew\nb\n",
             'insert_lines: "new" location => before("b");', "a\nnew\nb\n"),
    EditCase("insert-region-end", "x\n[s]\nk=1\n[t]\nk=2\n",
             'insert_lines: "k=3" select_region => between("\\[s\\]", "\\[t\\]");',
             "x\n[s]\nk=1\nk=3\n[t]\nk=2\n"),
    EditCase("insert-region-present", "x\n[s]\nk=3\n[t]\n",
             'insert_lines: "k=3" select_region => between("\\[s\\]", "\\[t\\]");',
             "x\n[s]\nk=3\n[t]\n"),
    EditCase("insert-region-to-eof", "x\n[s]\nk=1\n",
             'insert_lines: "k=3" select_region => from("\\[s\\]");', "x\n[s]\nk=1\nk=3\n"),
    EditCase("insert-whitespace-policy", "a\n  hello   world \n",
             'insert_lines: "hello world" whitespace_policy => { "ignore_leading", '
             '"ignore_trailing", "ignore_embedded" };', "a\n  hello   world \n"),
    EditCase("insert-exact-despite-spaces", "a\n  hello world\n",
             'insert_lines: "hello world";', "a\n  hello world\nhello world\n"),
    EditCase("insert-select", "a\n",
             'insert_lines: "keep-1\ndrop\nkeep-2" insert_select => only_matching("keep.*");',
             "a\nkeep-1\nkeep-2\n"),
    EditCase("insert-two-promises-order", "", 'insert_lines: "one"; "two"; "three";',
             "one\ntwo\nthree\n"),
    # --- delete_lines -------------------------------------------------------------------
    EditCase("delete-line", "a\nb\nc\n", 'delete_lines: "b";', "a\nc\n",
             ("Deleted the promised line 1 'b' from {path}",
              "delete_lines promise 'b' repaired", "Edited file '{path}'")),
    EditCase("delete-regex", "a1\nb\na22\n", 'delete_lines: "a[0-9]+";', "b\n"),
    EditCase("delete-whole-line-only", "xab\nab\n", 'delete_lines: "ab";', "xab\n"),
    EditCase("delete-absent", "a\n", 'delete_lines: "zz";', "a\n"),
    EditCase("delete-block", "a\nb\nc\nb\n", 'delete_lines: "b\nc";', "a\nb\n"),
    EditCase("delete-not-matching", "keep1\ndrop\nkeep2\n",
             'delete_lines: "keep.*" not_matching => "true";', "keep1\nkeep2\n"),
    EditCase("delete-in-region", "x\nBEGIN\nx\nEND\nx\n",
             'delete_lines: "x" select_region => between("BEGIN", "END");',
             "x\nBEGIN\nEND\nx\n"),
    EditCase("delete-region-with-markers", "x\nBEGIN\ny\nEND\nx\n",
             'delete_lines: ".*" select_region => between_incl("BEGIN", "END");', "x\nx\n"),
    # an edit that takes its own region away: cf-agent selects the region again in the
    # edit bundle's passes 2 and 3 (before the lock), so its error comes twice more
    EditCase("delete-region-start-marker", "x\nBEGIN\ny\nEND\nx\n",
             'delete_lines: "BEGIN" select_region => between_incl("BEGIN", "END");',
             "x\ny\nEND\nx\n"),
    EditCase("delete-region-end-marker", "x\nBEGIN\ny\nEND\nx\n",
             'delete_lines: "END" select_region => between_incl("BEGIN", "END");',
             "x\nBEGIN\ny\nx\n"),
    EditCase("replace-region-marker", "x\nBEGIN\ny\nEND\n",
             'replace_patterns: "BEGIN" replace_with => value("DONE"), '
             'select_region => between_incl("BEGIN", "END");', "x\nDONE\ny\nEND\n"),
    EditCase("field-region-marker", "x\nBEGIN:a\ny:b\nEND\n",
             'field_edits: "BEGIN.*" edit_field => whole(":", "1", "DONE"), '
             'select_region => between_incl("BEGIN.*", "END");', "x\nDONE:a\ny:b\nEND\n"),
    EditCase("insert-region-end-renamed", "x\nBEGIN\nEND\n",
             'insert_lines: "new" select_region => between("BEGIN", "END"); '
             'replace_patterns: "^END$" replace_with => value("FIN");',
             "x\nBEGIN\nnew\nFIN\n"),
    EditCase("delete-select-startwith", "#c\nx #c\n#d\n",
             'delete_lines: ".*" delete_select => starting("#");', "x #c\n"),
    EditCase("delete-select-not-contains", "ab\ncd\nxbx\n",
             'delete_lines: ".*" delete_select => not_containing("b");', "ab\nxbx\n"),
    EditCase("delete-empty-lines", "a\n\n\nb\n", 'delete_lines: "";', "a\nb\n"),
    # --- replace_patterns ---------------------------------------------------------------
    EditCase("replace-simple", "hello world\n",
             'replace_patterns: "hello" replace_with => value("hallo");', "hallo world\n",
             ("Replaced pattern 'hello' in '{path}'",
              "replace_patterns promise 'hello' repaired")),
    EditCase("replace-all-occurrences", "a-a-a\n",
             'replace_patterns: "a" replace_with => value("b");', "b-b-b\n"),
    EditCase("replace-first", "a-a\n",
             'replace_patterns: "a" replace_with => first("b");', "a-a\n"),
    EditCase("replace-backreference", "port = 80\n",
             'replace_patterns: "^port = (80)$" replace_with => value("port = 80$(match.1)");',
             "port = 8080\n"),
    EditCase("replace-anchored-still-matching", "port = 80\n",
             'replace_patterns: "^port = (\\d+)$" replace_with => value("port = 8$(match.1)");',
             "port = 8888888888888888888880\n", converges=False),
    EditCase("replace-not-convergent", "a\n",
             'replace_patterns: "a" replace_with => value("aa");', "a\n"),
    EditCase("replace-in-region", "x=1\n[s]\nx=1\n[t]\nx=1\n",
             'replace_patterns: "x=1" replace_with => value("x=2"), '
             'select_region => between("\\[s\\]", "\\[t\\]");',
             "x=1\n[s]\nx=2\n[t]\nx=1\n"),
    EditCase("replace-nothing", "abc\n",
             'replace_patterns: "zzz" replace_with => value("y");', "abc\n"),
    # --- field_edits --------------------------------------------------------------------
    EditCase("field-append", "a:x,y:z\n",
             'field_edits: "a:.*" edit_field => col(":", "2", "v", "append");', "a:x,y,v:z\n",
             ("Appended field sub-value 'v' in '{path}'",
              "fields_edit promise 'a:.*' repaired")),
    EditCase("field-prepend", "a:x,y:z\n",
             'field_edits: "a:.*" edit_field => col(":", "2", "v", "prepend");',
             "a:v,x,y:z\n"),
    EditCase("field-delete", "a:x,v,y:z\n",
             'field_edits: "a:.*" edit_field => col(":", "2", "v", "delete");', "a:x,y:z\n"),
    EditCase("field-set", "a:x,y:z\n",
             'field_edits: "a:.*" edit_field => col(":", "2", "v", "set");', "a:v:z\n"),
    EditCase("field-alphanum", "a:x,b:z\n",
             'field_edits: "a:.*" edit_field => col(":", "2", "c", "alphanum");',
             "a:b,c,x:z\n"),
    EditCase("field-extend", "a:x\n",
             'field_edits: "a:.*" edit_field => col(":", "4", "v", "append");', "a:x::v\n"),
    EditCase("field-whole-set", "root:x:0\n",
             'field_edits: "root:.*" edit_field => whole(":", "2", "*");', "root:*:0\n"),
    EditCase("field-already", "a:x,v:z\n",
             'field_edits: "a:.*" edit_field => col(":", "2", "v", "append");', "a:x,v:z\n"),
    # --- several types, normal order ----------------------------------------------------
    EditCase("normal-order", "old\nkeep\n",
             'insert_lines: "new";\ndelete_lines: "old";\n'
             'replace_patterns: "keep" replace_with => value("kept");', "kept\nnew\n"),
    EditCase("empty-before-editing", "junk\nmore\n", 'insert_lines: "only";', "only\n",
             defaults="edit_defaults => empty"),
    # --- more insert types and defaults ---------------------------------------------------
    EditCase("insert-file", "a\n", 'insert_lines: "{source}" insert_type => "file";',
             "a\nx\ny\n", source="x\na\ny\n"),
    EditCase("insert-file-preserve-block", "a\n",
             'insert_lines: "{source}" insert_type => "file_preserve_block";',
             "a\nx\na\ny\n", source="x\na\ny\n", converges=False),
    EditCase("insert-preserve-block-before", "a\nb\n",
             'insert_lines: "x\ny" insert_type => "preserve_block", location => before("b");',
             "a\nx\ny\nb\n", converges=False),     # cf-agent inserts the block every run
    EditCase("insert-region-end-not-found", "x\n[s]\nk=1\n",
             'insert_lines: "k=3" select_region => between("\\[s\\]", "\\[t\\]");',
             "x\n[s]\nk=1\n"),
    EditCase("insert-region-end-match-eof", "x\n[s]\nk=1\n",
             'insert_lines: "k=3" select_region => to_eof("\\[s\\]", "\\[t\\]");',
             "x\n[s]\nk=1\nk=3\n"),
    EditCase("recognize-join", "a \\\nb\nc\n", 'delete_lines: "c";', "b\n",
             defaults="edit_defaults => join"),
    EditCase("max-file-size", "0123456789abcdef\n", 'insert_lines: "x";',
             "0123456789abcdef\n", defaults="edit_defaults => small"),
    EditCase("delete-multiline-not-all", "a\nb\nx\na\n", 'delete_lines: "a\nb";', "x\na\n"),
    EditCase("insert-crlf-file", "a\r\nb\r\n", 'insert_lines: "c";', "a\r\nb\r\nc\n"),
]
