"""Generated cases for cf-agent 3.21's preliminary convergence (issue #26): before any
bundle of the bundlesequence runs, cf-agent expands every promise of every bundle once
and calls the functions its attributes call (cfpromise/agent/prelim.py says which).

A case puts one call -- a failing ``readfile()`` (its error line) or an ``execresult()``
appending a mark to ``$(sys.workdir)/marks`` (a side effect, and its time) -- in one
attribute of one promise type (:data:`SHAPES`), in one kind of bundle (:data:`PLACES`:
main itself, a bundle main calls, one nobody calls, one with a parameter, an edit_line
bundle, a common bundle), under one class guard (:data:`GUARDS`: none, a hard class, a
class nothing defines, a common bundle's class, a class main defines as it runs).  Main
begins with a report and a failing call of its own, so the order of the lines tells
whether a call came before the bundles ran, or when.  :data:`MIXED` cases hold many
shapes in many bundles at once.  What is compared (:func:`observe`): every line but
info/verbose, distinct, in the order they first appear (cf-lite says a function error
once, cf-agent at each call: test_funcerrors_differential), the exit code, and the marks
in the order written -- every mark, when no vars promise or common bundle holds one (the
cf-promises that cf-agent runs first calls those too: distinct marks only then).
"""
from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# kind -> a call returning a string, one returning a class (CALL: the mark or file name)
CALLS = {
    "error": ('readfile("/nonexistent/prelim-CALL")',
              'strcmp(readfile("/nonexistent/prelim-CALL"), "x")'),
    "exec": ('execresult("echo CALL >> $(sys.workdir)/marks", "useshell")',
             'returnszero("echo CALL >> $(sys.workdir)/marks", "useshell")'),
}

# shape -> (promise type, promise text: S a string call, C a class call, N the case's id),
# with the blocks the shape needs besides (bodies, bundles)
SHAPES: dict[str, tuple[str, str, str]] = {
    "classes_expression": ("classes", '"k_N" expression => C;', ""),
    "classes_with": ("classes", '"k_N" expression => "any", with => S;', ""),
    "classes_defined": ("classes", '"cfengine" expression => C;', ""),
    "classes_defined_with": ("classes", '"cfengine" expression => "any", with => S;', ""),
    "classes_if_false": ("classes", '"k_N" expression => C, if => "nosuch_N";', ""),
    "classes_if_call": ("classes", '"k_N" expression => "any", if => C;', ""),
    "reports_with": ("reports", '"r N $(with)" with => S;', ""),
    "reports_comment": ("reports", '"r N" comment => S;', ""),
    "reports_promisee": ("reports", '"r N" -> { S };', ""),
    "reports_if_call": ("reports", '"r N" if => C;', ""),
    "reports_unless_call": ("reports", '"r N" unless => C;', ""),
    "reports_with_if_false": ("reports", '"r N $(with)" with => S, if => "nosuch_N";', ""),
    "reports_comment_if_false": ("reports", '"r N" comment => S, if => "nosuch_N";', ""),
    "reports_comment_unless_true": ("reports", '"r N" comment => S, unless => "any";', ""),
    "reports_comment_unless_unresolved": ("reports",
                                          '"r N" comment => S, unless => "$(nosuch_N)";', ""),
    "reports_comment_depends": ("reports", '"r N" comment => S, depends_on => { "h_N" };\n'
                                '    "h N" handle => "h_N";', ""),
    "reports_with_iterated": ("reports", '"r N $(l_N) $(with)" with => S_L;', ""),
    "reports_body_arg": ("reports", '"r N" classes => b_N(S);',
                         'body classes b_N(x) { promise_kept => { "$(x)" }; }'),
    "reports_body_attribute": ("reports", '"r N" classes => c_N;',
                               'body classes c_N { promise_kept => { S }; }'),
    "methods_usebundle_arg": ("methods", '"m N" usebundle => u_N(S);',
                              'bundle agent u_N(x) { reports: "u N $(x)"; }'),
    # a bundle argument that is a call giving no scalar: the parameter stays undefined
    "methods_usebundle_list": ("methods", '"m N" usebundle => u_N(splitstring(S, ",", 5));',
                               'bundle agent u_N(x) { reports: "u N $(x)"; }'),
    "methods_usebundle_data": ("methods",
                               '"m N" usebundle => u_N(parsejson(concat("[", S, "]")));',
                               'bundle agent u_N(x) { reports: "u N $(x)"; }'),
    "methods_usebundle_unresolved": ("methods",
                                     '"m N" usebundle => u_N(concat(S, "$(nosuch_N)"));',
                                     'bundle agent u_N(x) { reports: "u N $(x)"; }'),
    "methods_usebundle_second": ("methods", '"m N" usebundle => u_N("a", S);',
                                 'bundle agent u_N(a, x) { reports: "u N $(a) $(x)"; }'),
    "methods_comment": ("methods", '"m N" usebundle => w_N, comment => S;',
                        'bundle agent w_N { reports: "w N"; }'),
    "files_comment": ("files", '"/nonexistent/prelim-dir-N/f" comment => S;', ""),
    "files_edit_line_arg": ("files", '"/nonexistent/prelim-dir-N/f" edit_line => e_N(S);',
                            'bundle edit_line e_N(x) { insert_lines: "$(x)"; }'),
    "commands_args": ("commands", '"/bin/true" args => S;', ""),
    "vars_comment": ("vars", '"v_N" string => "x", comment => S;', ""),
    "vars_value": ("vars", '"v_N" string => S;', ""),
}

# shapes naming a body whose inherit_from chain loops (cf-agent's walk aborts, exit 1)
LOOPS: dict[str, tuple[str, str, str]] = {
    "loop_self": ("reports", '"r N" classes => a_N;',
                  'body classes a_N { inherit_from => a_N; }'),
    "loop_pair": ("reports", '"r N" classes => a_N;',
                  'body classes a_N { inherit_from => b_N; }\n'
                  'body classes b_N { inherit_from => a_N; }'),
    "loop_triple": ("reports", '"r N" classes => a_N;',
                    'body classes a_N { inherit_from => b_N; }\n'
                    'body classes b_N { inherit_from => c_N; }\n'
                    'body classes c_N { inherit_from => a_N; }'),
    "loop_entry": ("reports", '"r N" classes => p_N;',
                   'body classes p_N { inherit_from => a_N; }\n'
                   'body classes a_N { inherit_from => b_N; promise_kept => { "k" }; }\n'
                   'body classes b_N { inherit_from => a_N; }'),
    "loop_entry_self": ("reports", '"r N" classes => p_N;',
                        'body classes p_N { inherit_from => a_N; }\n'
                        'body classes a_N { inherit_from => a_N; }'),
    "loop_args": ("reports", '"r N" classes => a_N("x");',
                  'body classes a_N(v) { inherit_from => b_N("$(v)"); }\n'
                  'body classes b_N(v) { inherit_from => a_N("$(v)"); }'),
    "loop_files": ("files", '"/nonexistent/prelim-dir-N/f" perms => a_N;',
                   'body perms a_N { inherit_from => b_N; mode => "600"; }\n'
                   'body perms b_N { inherit_from => a_N; }'),
}


def _shape(shape: str) -> tuple[str, str, str]:
    return SHAPES[shape] if shape in SHAPES else LOOPS[shape]


# place -> where the shape's promise goes; the types it may hold there
PLACES: dict[str, tuple[str, ...]] = {
    "main": ("classes", "reports", "methods", "vars"),
    "called": ("classes", "reports", "methods", "vars"),
    "uncalled": ("classes", "reports", "methods", "vars", "files", "commands"),
    "param": ("classes", "reports", "vars", "files"),
    "edit_line": ("classes", "reports", "vars"),
    "common": ("classes", "reports", "vars"),
    # bundles cf-agent's parser leaves out (the cf-promises it validates with keeps them)
    "server": ("classes", "reports", "vars"),
    "monitor": ("classes", "reports", "vars"),
    "runagent": ("classes", "reports", "vars"),
}
# places whose bundle main names: its report of the vars promise's variable
LEFT_OUT = ("server", "monitor", "runagent")

# guard -> the class guard written before the shape's promise
GUARDS = {"none": "", "hard": "cfengine::", "false": "nosuch_guard::", "common": "gk::",
          "agent": "ak::"}


def _promise(shape: str, kind: str, ident: str) -> tuple[str, str, str]:
    ptype, text, extra = _shape(shape)
    string, cls = (c.replace("CALL", ident) for c in CALLS[kind])
    iterated = string.replace(ident, f"{ident}-$(l_{ident})")
    text = text.replace("S_L", iterated).replace("S", string).replace("C", cls)
    return ptype, text.replace("N", ident), extra.replace("S", string).replace("N", ident)


def policy(parts: list[tuple[str, str, str, str]]) -> str:
    """A policy holding each (shape, place, guard, kind) of ``parts``, each with its own id."""
    main = {"vars": ['    "l" slist => { "a" };'],
            "classes": ['    "ak" expression => "any";',
                        '    "main_k" expression => strcmp(readfile("/nonexistent/prelim-main"), '
                        '"x");'],
            "reports": ['    "main starts";'], "methods": []}
    called: list[str] = []
    blocks: list[str] = []
    for i, (shape, place, guard, kind) in enumerate(parts):
        ident = f"p{i}"
        ptype, text, extra = _promise(shape, kind, ident)
        lines = [f"  {GUARDS[guard]}" if GUARDS[guard] else "", f"    {text}"]
        lists = [f'    "l_{ident}" slist => {{ "a", "b" }};']
        if extra:
            blocks.append(extra)
        if place == "main":
            main.setdefault(ptype, []).extend(lines)
            main["vars"].extend(lists)
            continue
        name = {"called": f"sub_{ident}", "uncalled": f"nc_{ident}",
                "param": f"par_{ident}(x)", "edit_line": f"el_{ident}(x)",
                "common": f"com_{ident}"}.get(place, f"{place}_{ident}")
        btype = {"edit_line": "edit_line", "common": "common",
                 **{p: p for p in LEFT_OUT}}.get(place, "agent")
        if place in LEFT_OUT and ptype == "vars":
            main["reports"].append(f'    "v {ident} $({name}.v_{ident})";')
        if place == "called":
            called.append(f'    "call {ident}" usebundle => sub_{ident};')
        sections = ["  vars:", *lists]
        if ptype == "vars":
            sections += lines
        else:
            sections += [f"  {ptype}:", *lines]
        blocks.append(f"bundle {btype} {name}\n{{\n" + "\n".join(sections) + "\n}")
    main["methods"] = called + main["methods"]
    body = []
    for ptype in ("vars", "classes", "methods", "reports"):
        if main.get(ptype):
            body += [f"  {ptype}:", "  any::", *main[ptype]]
    text = ["body common control { bundlesequence => { \"main\" }; }",
            "bundle common gclasses\n{\n  classes:\n    \"gk\" expression => \"any\";\n}",
            "bundle agent main\n{\n" + "\n".join(line for line in body) + "\n}", *blocks]
    return "\n".join(text) + "\n"


# shapes cf-agent must not run: a failed call in a body's list makes it stop
# ("rlist.c:89: Programming Error: Rlist value contains type f instead of expected scalar")
NOT_RUN = ("reports_body_attribute",)
RUN = ("main", "called")


def _valid(shape: str, place: str, guard: str) -> bool:
    ptype = _shape(shape)[0]
    if ptype not in PLACES[place] or (shape in NOT_RUN and place in RUN):
        return False
    if guard == "agent" and place not in ("main", "called"):
        return False                    # (ak is main's)
    return True


def _cases() -> list[tuple[str, list[tuple[str, str, str, str]]]]:
    out = []
    for shape in SHAPES:
        for place in PLACES:
            for kind in CALLS:
                if _valid(shape, place, "none"):
                    out.append((f"{shape}-{place}-{kind}", [(shape, place, "none", kind)]))
    # the guards, with a few shapes
    for shape in ("classes_expression", "reports_with", "reports_comment", "files_comment"):
        for place in ("main", "called", "uncalled"):
            for guard in ("hard", "false", "common", "agent"):
                for kind in CALLS:
                    if _valid(shape, place, guard):
                        out.append((f"{shape}-{place}-{guard}-{kind}",
                                    [(shape, place, guard, kind)]))
    # many shapes in many bundles at once: the order of what they print and run
    for name, kind in (("mixed_error", "error"), ("mixed_exec", "exec")):
        parts = [(shape, place, "none", kind) for shape in SHAPES for place in PLACES
                 if _valid(shape, place, "none") and place in ("uncalled", "main", "called",
                                                                 "edit_line", *LEFT_OUT)
                 and place not in RUN_DIFFERS.get(shape, ())]
        out.append((name, parts[::3]))
        out.append((name + "2", parts[1::3]))
    # body inheritance loops, met or not by the walk
    for shape in LOOPS:
        for place in PLACES:
            for guard in ("none", "false", "hard"):
                if _valid(shape, place, guard) and (guard == "none" or place == "uncalled"):
                    out.append((f"{shape}-{place}-{guard}", [(shape, place, guard, "error")]))
    return out


# where the run that follows differs, for reasons outside this family (the preliminary
# convergence's lines, before them, agree): shape -> places, and why
RUN_DIFFERS: dict[str, tuple[str, ...]] = {"methods_usebundle_unresolved": ("main",)}
_WHY: dict[str, str] = {
    "methods_usebundle_unresolved":
        "deliberate, as r_late_methods (test_passes_differential): a bundle argument still "
        "holding a reference ($(nosuch) in a call) waits for its value, or the last pass "
        "(docs/language.md, 'Unresolved variables are not acted on'); cf-agent calls the "
        "bundle in main's first pass, before main's reports, cf-lite in its last, after "
        "them (the same lines, in another order)"}
CASES = [(name, policy(parts)) for name, parts in _cases()]
EXPECTED_DIFFERENCES = {name: _WHY[shape] for name, parts in _cases() if len(parts) == 1
                        for shape, place, _, kind in parts
                        if place in RUN_DIFFERS.get(shape, ())}
NAMES = [name for name, _ in CASES]
# the cases whose marks must agree one by one (see the module)
EXACT = {name for name, parts in _cases()
         if all(_shape(s)[0] != "vars" and p != "common" for s, p, _, _ in parts)}
# the cases cf-agent aborts (a loop its walk meets: exit 1)
ABORTS = {name for name, parts in _cases()
          if any(s in LOOPS and g != "false" and p not in LEFT_OUT for s, p, g, _ in parts)}

_NOISE = re.compile(r"^\s*(?:info|verbose|debug):")


def observe(stdout: str, stderr: str, returncode: int, workdir: str, name: str
            ) -> dict[str, Any]:
    """The distinct lines in the order they first appear (the work directory masked),
    the exit code, and the marks the run wrote (distinct unless ``name`` is EXACT)."""
    import os
    text = (stdout + stderr).replace(workdir, "WORKDIR")
    lines = [line for line in text.splitlines() if not _NOISE.match(line)]
    path = os.path.join(workdir, "marks")
    marks = open(path).read().split() if os.path.exists(path) else []
    if name not in EXACT:
        marks = list(dict.fromkeys(marks))
    return {"lines": list(dict.fromkeys(lines)), "exit": returncode, "marks": marks}
