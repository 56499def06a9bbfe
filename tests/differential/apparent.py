"""Bare words that name nothing (cf-agent's "Apparent bundle ... was undeclared"): cases.

A constraint's unquoted value is looked up, at every expansion of its promise, as a
body of the constraint's type, then a bundle of that type, of type agent, of type
common; cf-agent 3.21 logs an error for a word none of them answers
(:mod:`cfpromise.agent.apparent`).  The cases vary the promise type, the bundle's
type and whether it runs, the class guard (true, false, defined in pass 1), the
attribute (``if``/``ifvarclass`` are not references, ``unless`` is) and what the word
names (nothing, an agent, common or edit_line bundle, a body of the attribute's type
or of another).  How often the line repeats follows each program's evaluations (as
for function errors, docs/language.md): the distinct lines are compared
(:func:`agentmisc.observe`'s ``errors_once_`` cases)."""
from __future__ import annotations

from itertools import product

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []

_PROMISES = {
    # promise type section -> a promise with WORD in an attribute whose value is free
    "vars": '"v" string => "x", comment => WORD;',
    "vars_value": '"v" string => WORD;',
    "classes": '"c" expression => WORD;',
    "classes_comment": '"c" expression => "any", comment => WORD;',
    "reports": '"r" handle => WORD;',
    "reports_unless": '"r" unless => WORD;',
    "reports_if": '"r" if => WORD;',
    "reports_ifvarclass": '"r" ifvarclass => WORD;',
    "files": '"/tmp/cflite-apparent-nosuchdir/f" create => WORD, action => warn_only;',
    "methods": '"m" usebundle => WORD;',
}
_TYPE = {"vars_value": "vars", "classes_comment": "classes", "reports_unless": "reports",
         "reports_if": "reports", "reports_ifvarclass": "reports"}
_WORDS = {
    "nothing": "nothing_named_so",
    "agent_bundle": "other",
    "common_bundle": "g",
    "edit_bundle": "el",
    "action_body": "warn_only",
    "classes_body": "cb",
}
_GUARDS = {"any": "any", "false": "no_such_class", "later": "defined_in_pass_one",
           "hard": "cfengine"}
_TAIL = """
bundle agent other { reports: "in other"; }
bundle common g { vars: "gv" string => "1"; }
bundle edit_line el { insert_lines: "x"; }
body action warn_only { action_policy => "warn"; }
body classes cb { promise_kept => { "k" }; }
"""


def _promise(kind: str, word: str, guard: str) -> str:
    section = _TYPE.get(kind, kind)
    return f"{section}:\n  {guard}::\n    {_PROMISES[kind].replace('WORD', word)}\n"


def _main(body: str, where: str) -> str:
    classes = 'classes: "defined_in_pass_one" expression => "any";\n'
    if where == "main":
        return f"bundle agent main {{\n{classes}{body}reports: \"end\";\n}}\n"
    if where == "called":
        return (f"bundle agent main {{\n{classes}methods: \"c\" usebundle => called;\n"
                f"reports: \"end\";\n}}\nbundle agent called {{\n{body}}}\n")
    if where == "unused":
        return (f"bundle agent main {{\n{classes}reports: \"end\";\n}}\n"
                f"bundle agent unused {{\n{body}}}\n")
    return (f"bundle agent main {{\n{classes}reports: \"end\";\n}}\n"     # common
            f"bundle common extra {{\n{body}}}\n")


def case(name: str, text: str) -> None:
    CASES.append((f"errors_once_apparent_{name}", {"promises.cf": text + _TAIL}, ()))


# every promise type x every word, in main and with a true guard
for kind, (wname, word) in product(_PROMISES, _WORDS.items()):
    if kind == "methods" and wname in ("nothing",):
        continue            # fatal at run time: its own case below
    case(f"{kind}_{wname}", _main(_promise(kind, word, "any"), "main"))
# every guard x where the bundle is, with a word that names nothing
for (gname, guard), where in product(_GUARDS.items(), ("main", "called", "unused", "common")):
    kinds = ("vars", "classes", "reports") if where == "common" else ("vars", "reports", "files")
    body = "".join(_promise(kind, f"w_{kind}_{gname}", guard) for kind in kinds)
    case(f"guard_{gname}_{where}", _main(body, where))
# an edit_line bundle's promises, a missing usebundle target, several words in one promise
case("edit_line", """
bundle agent main { files: "/tmp/cflite-apparent-nosuchdir/f" create => "true",
  edit_line => el2, action => warn_only; reports: "end"; }
bundle edit_line el2 { insert_lines: "a" comment => edit_word; delete_lines: "b" handle => h2; }
""")
case("methods_nothing", """
bundle agent main { methods: "m" usebundle => nothing_named_so; reports: "end"; }
""")
case("several", """
bundle agent main { reports: "r" comment => w1, handle => w2, unless => w3, if => w4; }
""")
case("custom_type", """
promise agent thing { interpreter => "/bin/true"; path => "/nonexistent/thing.py"; }
bundle agent main { thing: "t" attr => bare_value, other => "quoted"; reports: "end"; }
""")
case("namespaced", """
body file control { namespace => "ns"; }
bundle agent main2 { reports: "r" comment => nsword, handle => other2; }
bundle agent other2 { reports: "o"; }
body file control { namespace => "default"; }
bundle agent main { methods: "m" usebundle => ns:main2; }
""")

NAMES = [name for name, _, _ in CASES]
