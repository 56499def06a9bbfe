"""Generated cases: several input files with errors (issue #26).

cf-promises 3.21 reads every input file even after one has errors: it reports each file's
errors, in the order it reads them, skips the inputs a broken file names, then gives its
verdict ("There are syntax errors in policy files") and fails; cf-agent shows what that
cf-promises says and goes to its failsafe.  The shapes: three inputs, each fine or broken
in one of several ways (an unknown attribute, a duplicate handle, a non-number, a
promise type the bundle does not take: after those two cf-promises still parses the
inputs listed, saying only its parser's plain lines such as 'Failed to parse integer
number', and follows no other input), syntax errors (the parser counts a file's errors
afresh: past twelve in one file it says "Too many errors" and the process exits there,
reading no other file), a broken file naming inputs of its own, an entry file with
errors, a missing input beside a broken one; and inputs that do not resolve when their
turn comes (``unresolved_inputs_*``, below).
"""
from __future__ import annotations

import itertools

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []

_KINDS = {
    "ok": 'bundle agent %s { reports: "%s ran"; }\n',
    "attr": 'bundle agent %s { reports: "%s" nosuch_attr => "x"; }\n',
    "dup": 'bundle agent %s { vars: "x" string => "1", handle => "h%s"; "y" string => "2", handle => "h%s"; }\n',
    "int": 'bundle agent %s { vars: "x" int => "q%s"; }\n',
    "ptype": 'bundle edit_line %s { commands: "/bin/%s"; }\n',
    "syn": 'bundle agent %s { vars: "x", string => "%s"; }\n',
    "many": 'bundle agent %s {\n' + ' vars: "x", string => "%s";\n' * 4 + '}\n',
}
_ENTRY = 'body common control { inputs => { %s }; }\nbundle agent main { reports: "main"; }\n'

for kinds in itertools.product(tuple(_KINDS), repeat=2):
    if kinds == ("ok", "ok"):
        continue
    files = {"promises.cf": _ENTRY % '"a.cf", "b.cf", "c.cf"'}
    for name, kind in zip("ab", kinds):
        files[f"{name}.cf"] = _KINDS[kind] % ((name,) * _KINDS[kind].count('%s'))
    files["c.cf"] = _KINDS["attr"] % ("c", "c")
    CASES.append((f"multifile_{'_'.join(kinds)}", files, ()))

for kind in ("attr", "int", "ptype", "syn", "many"):
    CASES.append((f"multifile_nested_{kind}", {
        "promises.cf": _ENTRY % '"a.cf", "b.cf"',
        "a.cf": 'body file control { inputs => { "d.cf" }; }\n' + _KINDS[kind] % (("a",) * _KINDS[kind].count("%s")),
        "b.cf": _KINDS["attr"] % ("b", "b"),
        "d.cf": _KINDS["attr"] % ("d", "d")}, ()))
    CASES.append((f"multifile_entry_{kind}", {
        "promises.cf": _ENTRY % '"a.cf"' + _KINDS[kind] % (("e",) * _KINDS[kind].count("%s")),
        "a.cf": _KINDS["attr"] % ("a", "a")}, ()))
    CASES.append((f"multifile_missing_{kind}", {
        "promises.cf": _ENTRY % '"nosuch.cf", "a.cf"',
        "a.cf": _KINDS[kind] % (("a",) * _KINDS[kind].count("%s"))}, ()))

# Inputs that do not resolve when their turn comes (a variable of a bundle read later, one
# holding an undefined reference, a list not defined, a list with such an item): cf-agent
# says "Unresolved variable 'VALUE' in input list, cannot parse" (the value as it
# expanded; the validating cf-promises says it too) and never reads them, even once a
# later file defines what they need.
_UNRESOLVED = {
    "later": '"$(h.f)"', "own": '"$(g.f)"', "holding": '"$(g.bad)"', "undefined": '"@(g.none)"',
    "partly": "@(g.mixed)", "file": '"lib.cf"',
}
_HOLDERS = ('bundle common g { vars: "f" string => "own.cf"; "bad" string => "$(nosuch)/x.cf"; '
            '"mixed" slist => { "mixed.cf", "$(h.f)" }; }\n'
            'bundle agent main { reports: "own=$(own.v) later=$(later.v) mixed=$(mixed.v)"; }\n')
_READ = {"lib.cf": 'bundle common h { vars: "f" string => "later.cf"; }\n',
         **{f"{n}.cf": f'bundle common {n} {{ vars: "v" string => "read"; }}\n'
            for n in ("own", "later", "mixed")}}
for i, order in enumerate(itertools.islice(itertools.permutations(tuple(_UNRESOLVED)[:5], 3),
                                            0, 60, 5)):
    order = order[:i % 4] + ("file",) + order[i % 4:]
    items = ", ".join(_UNRESOLVED[k] for k in order)
    CASES.append((f"unresolved_inputs_{'_'.join(order)}", {
        "promises.cf": f'body common control {{ inputs => {{ {items} }}; }}\n' + _HOLDERS,
        **_READ}, ()))

NAMES = [c[0] for c in CASES]
EXPECTED_DIFFERENCES: dict[str, str] = {}
