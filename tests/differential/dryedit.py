"""Generated cases: what ``-n`` says of a files promise whose edit_line would change the
file (issue #26, found in EFL's efl_sysctl_conf_file under -n).

cf-agent 3.21's edit buffer under ``-n`` holds none of the edits the promises would make
(each says "Should insert line ..." and the like) but does hold
``empty_file_before_editing``'s emptying: when an edit was due and the emptied buffer is
not the file, it also says "Should edit file '...'" and "Warnings encountered when
actuating files promise", even when the edits would have put the file back as it was;
without the emptying it says nothing more.  The file is the case's own (``-n`` changes
nothing), beside the policy.
"""
from __future__ import annotations

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []

_POLICY = """
bundle agent main
{{
files:
  "$(this.promise_dirname)/target.txt"
    {create}edit_line => el{defaults};
}}
body edit_defaults empty {{ empty_file_before_editing => "true"; }}
body edit_defaults empty_backup {{ empty_file_before_editing => "true"; edit_backup => "false"; }}
bundle edit_line el
{{
{body}
}}
"""
_CONTENTS = {
    "different": "old = 1\nother line\n",
    "same_as_result": "a = 1\nb = 2\n",
    "empty_file": "",
    "one_of_two": "a = 1\n",
}
_EDITS = {
    "insert": 'insert_lines: "a = 1"; "b = 2";',
    "insert_one": 'insert_lines: "a = 1";',
    "delete": 'delete_lines: "old.*";',
    "replace": 'replace_patterns: "old = 1" replace_with => v("new = 1");',
    "nothing": "",
    "guarded_off": 'insert_lines:\n  nosuch_class::\n    "a = 1";',
}
_DEFAULTS = {"none": "", "empty": ", edit_defaults => empty",
             "empty_backup": ", edit_defaults => empty_backup"}
_BODIES = 'body replace_with v(x) { replace_value => "$(x)"; }\n'

for cname, contents in _CONTENTS.items():
    for ename, edit in _EDITS.items():
        for dname, defaults in _DEFAULTS.items():
            text = _POLICY.format(create="", body=edit, defaults=defaults) + _BODIES
            CASES.append((f"{cname}_{ename}_{dname}",
                          {"promises.cf": text, "target.txt": contents}, ("-n",)))
# a file that does not exist yet, with create
for ename in ("insert", "nothing"):
    for dname, defaults in _DEFAULTS.items():
        text = _POLICY.format(create='create => "true", ', body=_EDITS[ename],
                              defaults=defaults) + _BODIES
        CASES.append((f"missing_{ename}_{dname}", {"promises.cf": text}, ("-n",)))

NAMES = [c[0] for c in CASES]
