"""Generated cases for class selection from list-valued arguments.

``and``/``or``/``xor`` over written lists holding ``@(list)`` references (defined,
empty, undefined, data, duplicates, expressions, unexpanded ``$(undefined)``),
``expression``/``not``/``if`` iterating over ``$(list)``, ``and()``/``or()`` given
``@(list)``, class promisers iterated over lists (names canonified), ``classmatch``
over list elements, ``select_class`` (a choice fixed by host identity) and ``dist``
(only weightings with one possible outcome), classes bodies on classes promises (cf-agent
sets no outcome classes for them) and list-valued meta tags.  :func:`policy_text` renders one policy
holding every case; each reports ``@@name@@<result>@@``: ``true``/``false`` for a
class, or the sorted classes a pattern matches.
"""
from __future__ import annotations

import itertools
import re

LISTS = {
    "yes": '{ "any", "cfengine" }',
    "no": '{ "nosuch1", "nosuch2" }',
    "mix": '{ "any", "nosuch1" }',
    "exprs": '{ "any.!nosuch1", "nosuch1|cfengine", "(any)" }',
    "empty": "{ }",
    "dup": '{ "any", "any" }',
    "one": '{ "any" }',
    "undef": '{ "any", "$(nosuch)" }',
    "odd": '{ "a.b", "9x", "any", "(any)", "Q_x" }',
    "defd": '{ "lc_defined_a", "lc_defined_b" }',
}
DATA = {"dlist": '\'["any", "nosuch1"]\'', "dempty": "'[]'"}
REFS = tuple(LISTS) + tuple(DATA) + ("nosuchlist",)
OPS = ("and", "or", "xor")


def _cases() -> list[tuple[str, str, str]]:
    """(name, kind, promise body): kind c is a class named k_<name> reported true/false;
    kind m is a pattern (the promise text defines classes it matches); kind r the same
    for a reports promise."""
    cases: list[tuple[str, str, str]] = []
    for op, ref in itertools.product(OPS, REFS):
        cases.append((f"{op}_{ref}", "c", f"{op} => {{ @({ref}) }}"))
        cases.append((f"{op}_any_{ref}", "c", f'{op} => {{ "any", @({ref}) }}'))
        cases.append((f"{op}_no_{ref}", "c", f'{op} => {{ "nosuch9", @({ref}) }}'))
        cases.append((f"{op}_two_{ref}", "c", f"{op} => {{ @({ref}), @(yes) }}"))
    for op, ref in itertools.product(OPS, tuple(LISTS)):
        cases.append((f"{op}_iter_{ref}", "c", f'{op} => {{ "$({ref})" }}'))
        cases.append((f"{op}_iter2_{ref}", "c", f'{op} => {{ "$({ref})", "any" }}'))
    for ref in LISTS:
        cases.append((f"expr_iter_{ref}", "c", f'expression => "$({ref})"'))
        cases.append((f"not_iter_{ref}", "c", f'not => "$({ref})"'))
        cases.append((f"if_iter_{ref}", "c", f'expression => "any", if => "$({ref})"'))
        cases.append((f"unless_iter_{ref}", "c", f'expression => "any", unless => "$({ref})"'))
        if ref != "empty":      # an empty class expression is fatal: see FATAL
            cases.append((f"join_and_{ref}", "c", f'expression => join(".", {ref})'))
            cases.append((f"join_or_{ref}", "c", f'expression => join("|", {ref})'))
            cases.append((f"if_join_{ref}", "c", f'expression => "any", if => join(".", {ref})'))
        cases.append((f"classmatch_{ref}", "c", f'expression => classmatch("$({ref})")'))
        cases.append((f"some_{ref}", "c", f'expression => some("any|cfengine", {ref})'))
        cases.append((f"every_{ref}", "c", f'expression => every("any|cfengine", {ref})'))
        cases.append((f"none_{ref}", "c", f'expression => none("nosuch.*", {ref})'))
        cases.append((f"ifvarclass_{ref}", "c", f'expression => "any", ifvarclass => "$({ref})"'))
    for fn, ref in itertools.product(("and", "or"), REFS):
        cases.append((f"fn_{fn}_{ref}", "c", f"expression => {fn}(@({ref}))"))
        cases.append((f"fn_{fn}_any_{ref}", "c", f'expression => {fn}("any", @({ref}))'))
        cases.append((f"if_fn_{fn}_{ref}", "c", f'expression => "any", if => {fn}(@({ref}))'))
    for ref in ("yes", "empty", "dup", "defd", "odd"):
        # classes set by a promise's outcome, named by a list
        cases.append((f"body_{ref}", "m", f'"bo_{ref}" expression => "any", '
                                          f'classes => lc_outcome("bo_{ref}", @({ref}));'))
        cases.append((f"tags_{ref}", "c", f'expression => "any", meta => {{ @({ref}) }}'))
    for ref in ("yes", "empty", "dup", "odd", "dlist", "nosuchlist"):
        # a body's list parameter: $(param) is the reference as written, @(param) the list
        cases.append((f"bodyparam_{ref}", "r", f'"bp_{ref}" classes => lc_outcome("bp_{ref}", '
                                               f'@({ref}));'))
        cases.append((f"bodylist_{ref}", "r", f'"bl_{ref}" classes => lc_listed("bl_{ref}", '
                                              f'@({ref}));'))
    for ref in LISTS:
        cases.append((f"iter_{ref}", "m", f'"it_{ref}_$({ref})" expression => "$({ref})";'))
        cases.append((f"iterany_{ref}", "m", f'"ia_{ref}_$({ref})" expression => "any";'))
    selections = (
        ("lit", '{ "sc_lit_a", "sc_lit_b", "sc_lit_c", "sc_lit_d", "sc_lit_e" }'),
        ("two", '{ "sc_two_a", "sc_two_b" }'),
        ("one", '{ "sc_one_a" }'),
        ("three", '{ "sc_three_a", "sc_three_b", "sc_three_c" }'),
        ("seven", "{ " + ", ".join(f'"sc_seven_{c}"' for c in "abcdefg") + " }"),
        ("ref", "{ @(sel) }"),
        ("dup", '{ "sc_dup_a", "sc_dup_a", "sc_dup_b" }'),
        ("undef", '{ "sc_undef_a", "$(nosuch)" }'),
        ("ulist", "{ @(nosuchlist) }"), ("uvar", '{ "$(nosuch)" }'),
        ("uat", '{ "@(nosuchlist)" }'),
    )
    # a member still holding a reference, at every position of lists of 2 to 5 (which
    # member the host's hash picks varies by host): cf-agent picks among the members as
    # written and defines nothing when the pick is one of them
    letters = "abcde"
    marks = {"d": '"$(nosuch)"', "b": '"${nosuch}"', "l": "@(nosuchlist)",
             "p": '"sc_@_x$(nosuch)"', "t": '"sc_@_$(lc_late)"'}
    for n in range(2, 6):
        for pos in range(n):
            for mark, member in marks.items():
                if mark != "d" and n != 3:
                    continue
                name = f"u{letters[n - 1]}{letters[pos]}{mark}"
                members = [f'"sc_{name}_{letters[i]}"' for i in range(n)]
                members[pos] = member.replace("@", name) if mark in "pt" else member
                selections += ((name, "{ " + ", ".join(members) + " }"),)
    for name, rval in selections:
        cases.append((f"select_{name}", "m", f'"sc_{name}" select_class => {rval};'))
    dists = (("single", '{ "7" }'), ("zeros", '{ "0", "5", "0" }'), ("allzero", '{ "0", "0" }'),
             ("ref", "{ @(weights) }"), ("real", '{ "0", "2.5" }'))
    for name, rval in dists:
        cases.append((f"dist_{name}", "m", f'"dist_{name}" dist => {rval};'))
    return cases


CASES = _cases()


def _pattern(name: str, body: str) -> str:
    return "|".join(sorted({re.escape(m) + ".*" for m in
                            re.findall(r'"((?:it|ia|sc|dist|bo|bp|bl)_[a-z]+)', body)}))


def policy_text() -> str:
    lists = [f'      "{name}" slist => {value};' for name, value in LISTS.items()]
    lists += [f'      "{name}" data => {value};' for name, value in DATA.items()]
    # reports promises (kind r) run in a bundle of their own, first: their outcome
    # classes (namespace-scoped) are all defined before bundle lc looks
    lines = ["body common control", "{", '  bundlesequence => { "lcr", "lc" };', "}", "",
             "bundle agent lcr", "{", "  vars:", *lists, "  reports:"]
    lines += [f"      {body}" for _name, kind, body in CASES if kind == "r"]
    lines += ["}", "", "bundle agent lc", "{", "  vars:", *lists]
    lines += ['      "sel" slist => { "sc_ref_a", "sc_ref_b", "sc_ref_c", "sc_ref_d" };',
              '      "weights" slist => { "0", "3" };',
              "  classes:",
              '      "lc_defined_a" expression => "any";',
              '      "lc_defined_b" expression => "any";',
              '      "lc_go" expression => "any";']
    for name, kind, body in CASES:
        if kind == "c":
            lines.append(f'      "k_{name}" {body};')
        elif kind == "m":
            lines.append(f"      {body}")
    lines += ["  vars:", '    lc_go::', '      "lc_late" string => "late";', "    any::"]
    for name, kind, body in CASES:
        if kind in ("m", "r"):
            pattern = _pattern(name, body)
            lines.append(f'      "ml_{name}" slist => sort(classesmatching("{pattern}"), "lex");')
            lines.append(f'      "m_{name}" string => join(",", ml_{name});')
    lines.append("  reports:")
    for name, kind, _body in CASES:
        if kind == "c":
            lines.append(f'      "@@{name}@@$(with)@@" '
                         f'with => ifelse("k_{name}", "true", "false");')
        else:
            lines.append(f'      "@@{name}@@$(m_{name})@@";')
    lines += ["}", "", "body classes lc_outcome(prefix, names)", "{",
              '  promise_kept => { "$(prefix)_kept_$(names)" };',
              '  promise_repaired => { "$(prefix)_rep" };', "}", "",
              "body classes lc_listed(prefix, names)", "{",
              '  promise_repaired => { @(names) };', '  promise_kept => { "$(prefix)_k", @(names) };',
              "}", ""]
    return "\n".join(lines)


_LINE = re.compile(r"^R: @@([^@]+)@@(.*?)@@$", re.S | re.M)


def parse_reports(stdout: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in _LINE.finditer(stdout)}


# Cases that stop cf-agent (or nearly do): each is a policy of its own.  An expanded class
# attribute that is empty or out of the class range is fatal at run time.
FATAL = (
    ("expr_join_empty", '"k" expression => join(".", empty);'),
    ("expr_empty_var", '"k" expression => "$(e)";'),
    ("not_empty_var", '"k" not => "$(e)";'),
    ("expr_space_var", '"k" expression => "$(sp)";'),
    ("expr_iter_dash", '"k" expression => "$(dash)";'),
    ("and_dash_list", '"k" and => { @(dash) };'),
    ("or_empty_member", '"k" or => { "any", "$(e)" };'),
    ("xor_dash_member", '"k" xor => { "$(dash)" };'),
    ("select_empty", '"k" select_class => { "$(e)", "x" };'),
    ("if_join_empty", '"k" expression => "any", if => join(".", empty);'),
    ("or_undef_member", '"k" or => { @(undef), "any" };'),
    ("promiser_dash", '"k_$(dash)" expression => "any";'),
    ("and_ok_after_dash", '"k" and => { "any" }, if => "$(dash)";'),
)


def fatal_policy(promise: str) -> str:
    return "\n".join([
        "bundle agent main", "{", "  vars:", '      "empty" slist => { };',
        '      "dash" slist => { "a-b", "any" };', '      "undef" slist => { "any", "$(nosuch)" };',
        '      "e" string => "";', '      "sp" string => "a b";', "  classes:", f"      {promise}",
        "  reports:", '      "done";', '      "defined: $(with)" with => join(",", '
        'sort(classesmatching("k.*"), "lex"));', "}", ""])


_GIVEN = re.compile(r"In attribute '(\w+)', Context string is invalid/out of range\. "
                    r"Given attribute value '(.*)'$", re.M)


def fatal_observe(stdout: str, returncode: int) -> dict[str, object]:
    return {"exit": returncode, "fatal": _GIVEN.findall(stdout),
            "reports": sorted(re.findall(r"^R: (.*)$", stdout, re.M))}
