"""Generated cases: the lines cf-agent 3.21 prints after a promise's error (its
PromiseRef): "Promise belongs to bundle ... near line N", then "Comment is '...'" when
the promise has a comment and "This was a promise to '...'" when it has promisees (a
list written as RlistWrite writes it: ``' {"a","b"}'``; an empty list says nothing).
Found in the EFL library's efl_kill_process test.  Each error is reached through a
different promise type: a process_count body that defines no class, a copy from a
server that cannot be reached; an edit whose select_region finds no start says no
PromiseRef in cf-agent, nor in cf-lite."""
from __future__ import annotations

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []

_PROMISEES = {
    "none": "",
    "scalar": ' -> "alice"',
    "list_one": ' -> { "p1" }',
    "list_two": ' -> { "p1", "p 2" }',
    "list_empty": " -> { }",
    "expanded": ' -> { "$(sys.cf_version_major)", "x" }',
}
_COMMENTS = {
    "none": "",
    "plain": ', comment => "my comment"',
    "empty": ', comment => ""',
    "expanded": ', comment => "version $(sys.cf_version_major)"',
}
_PROMISES = {
    "process_count": ('processes:\n  "no_such_process_cflite_ref"{promisee}\n'
                      '    process_count => pc{comment};'),
    "copy_unreachable": ('files:\n  "$(sys.workdir)/copied"{promisee}\n'
                         '    copy_from => remote("/etc/hostname"){comment};'),
    "select_region": ('files:\n  "$(sys.workdir)/edited"{promisee}\n'
                      '    create => "true", edit_line => el{comment};'),
}
_BODIES = """
body process_count pc { match_range => irange("1", "2"); }
body copy_from remote(f) { source => "$(f)"; servers => { "127.0.0.1" }; portnumber => "1"; }
bundle edit_line el
{
insert_lines:
  "x" select_region => r;
}
body select_region r { select_start => "^nosuch start$"; }
"""
for pname, promise in _PROMISES.items():
    for ename, promisee in _PROMISEES.items():
        for cname, comment in _COMMENTS.items():
            text = ("bundle agent main\n{\n" + promise.format(promisee=promisee, comment=comment)
                    + "\n}\n" + _BODIES)
            CASES.append((f"{pname}_{ename}_{cname}", {"promises.cf": text}, ()))

NAMES = [c[0] for c in CASES]
