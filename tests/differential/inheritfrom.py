"""Generated cases: how ``inherit_from`` names a body's parent, as cf-agent 3.21 reads it.

cf-promises accepts the parent's name quoted or not (its parser checks no body's
inherit_from); cf-agent takes the name as written -- a variable or a parameter in it is
never expanded, so ``"$(g.p)"`` names no body -- and a name no body of the same type
answers (undefined, or a body of another type) is no parent, silently; every
``inherit_from`` is one, whatever its class guard, the first written first.  The parent's
arguments are expanded; their count must be the parent's ("Fatal CFEngine error:
Argument count mismatch for body ...", exit 1).  Each parent reference x the child's
place in a chain, observed through a printfile body (what a report prints)."""
from __future__ import annotations

_PARENTS = {
    "bare": "cat", "quoted": '"cat"', "args": 'catn("2")', "quoted_no_args": '"catn"',
    "bare_no_args": "catn", "quoted_var": '"$(g.p)"', "bare_var": "$(g.p)",
    "undefined": "nosuch", "quoted_undefined": '"nosuch"', "undefined_args": 'nosuch("1")',
    "other_type": "pm", "quoted_other_type": '"pm"', "qualified": "default:cat",
    "quoted_qualified": '"default:cat"', "empty": '""', "quoted_call": '"cat(\\"x\\")"',
    "args_to_none": 'cat("x")', "var_args": 'catn("$(g.n)")',
}
_LIBRARY = (
    'body printfile cat { file_to_print => "/etc/hostname"; number_of_lines => "5"; }\n'
    'body printfile catn(n) { file_to_print => "/etc/hostname"; number_of_lines => "$(n)"; }\n'
    'body perms pm { mode => "600"; }\n'
    'bundle common g { vars: "p" string => "cat"; "n" string => "1"; }\n')
_SHAPES = {
    # the child (and maybe a middle body), as the report names it
    "child": ('body printfile child { inherit_from => PARENT; number_of_lines => "3"; }\n',
              "child"),
    "middle": ('body printfile mid { inherit_from => PARENT; }\n'
               'body printfile child { inherit_from => mid; number_of_lines => "4"; }\n', "child"),
    "param": ('body printfile child(p) { inherit_from => PARENT; }\n', 'child("cat")'),
    "guarded": ('body printfile child { nosuch_class:: inherit_from => cat; '
                'any:: inherit_from => PARENT; }\n', "child"),
}

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []
for _pname, _parent in _PARENTS.items():
    for _sname, (_body, _use) in _SHAPES.items():
        if _sname != "child" and _pname not in ("quoted", "quoted_var", "undefined", "args",
                                                 "bare_var"):
            continue
        _text = (_LIBRARY + _body.replace("PARENT", _parent) +
                 f'bundle agent main {{ reports: "s" printfile => {_use}; "end"; }}\n')
        CASES.append((f"{_sname}_{_pname}", {"promises.cf": _text}, ()))
CASES.append(("param_as_name", {"promises.cf": _LIBRARY + 'body printfile child(p) { '
              'inherit_from => $(p); number_of_lines => "3"; }\nbundle agent main { reports: '
              '"s" printfile => child("cat"); "end"; }\n'}, ()))
CASES.append(("param_quoted_as_name", {"promises.cf": _LIBRARY + 'body printfile child(p) { '
              'inherit_from => "$(p)"; }\nbundle agent main { reports: "s" printfile => '
              'child("cat"); "end"; }\n'}, ()))

# several inherit_from: every one a parent, guard or not, the first one's attributes first;
# one repeated under the same guard replaces the earlier
_TWO = ('body printfile pa { file_to_print => "/etc/passwd"; }\n'
        'body printfile pb { number_of_lines => "1"; }\n')
for _name, _child in {
        "two_parents": "inherit_from => pa; inherit_from => pb;",
        "two_parents_guarded": "nosuch_class:: inherit_from => pa; any:: inherit_from => pb;",
        "two_parents_guarded_last": "any:: inherit_from => pb; nosuch_class:: inherit_from => pa;",
        "two_parents_both_guarded": "linux:: inherit_from => pa; nosuch_class:: inherit_from => pb;",
        "first_undefined": "any:: inherit_from => nosuch; linux:: inherit_from => pa;",
        "first_wins": "nosuch_class:: inherit_from => cat; any:: inherit_from => catn(\"1\");",
        "three": "a_class:: inherit_from => pb; b_class:: inherit_from => cat; "
                 "c_class:: inherit_from => pa;",
}.items():
    CASES.append((_name, {"promises.cf": _LIBRARY + _TWO + f"body printfile child {{ {_child} }}\n"
                          'bundle agent main { reports: "s" printfile => child; "end"; }\n'}, ()))

NAMES = [c[0] for c in CASES]
