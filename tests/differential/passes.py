"""Generated cases for cf-agent's three passes: a promise guarded by a class that a promise
later in the same bundle defines.

cf-agent evaluates a bundle's normal order three times; a promise whose class condition
(a ``class::`` guard, ``if``, ``ifvarclass``, ``unless``) does not hold is skipped *in
that pass only*, so one that a later promise's outcome enables runs in pass 2 (or 3, for
a chain of two).  Each case pairs a guarded promise of one type with a defining promise
of a type evaluated after it (or later in the same section), a guard form, and a chain
length, in an agent bundle or in an edit_line bundle (where the stdlib's
``set_variable_values`` and kin rely on it: ``insert_lines`` guarded by the outcome of a
``replace_patterns`` or ``field_edits``).  What the guarded promise did shows as a class,
a variable or the edited file (:mod:`batch`).
"""
from __future__ import annotations

import itertools

from tests.differential.batch import Case, outcome_classes

# normal order of an agent bundle (the types used here)
AGENT_ORDER = ("vars", "classes", "files", "methods", "commands", "reports")
EDIT_ORDER = ("vars", "classes", "delete_lines", "field_edits", "insert_lines",
              "replace_patterns", "reports")

# guard forms: (attribute line or None, section guard or None), given the class name
GUARDS = {
    "section": lambda c: (None, c),
    "if": lambda c: (f'if => "{c}"', None),
    "ifvarclass": lambda c: (f'ifvarclass => "{c}"', None),
    "unless_not": lambda c: (f'unless => "!{c}"', None),
    "if_negated": lambda c: (f'if => "!{c}"', None),       # holds in pass 1: runs once
}


def _agent_guarded(ptype: str, name: str, cond: str | None) -> str:
    """A promise of ``ptype`` whose effect is ``<name>_G`` (a class) or var ``g``."""
    c = f", {cond}" if cond else ""
    if ptype == "vars":
        return f'"g" string => "set"{c};'
    if ptype == "classes":
        return f'"{name}_G" expression => "any", scope => "namespace"{c};'
    if ptype == "files":
        return f'"$(sys.workdir)/{name}.g" create => "true", classes => mfx_outcome("{name}_G"){c};'
    if ptype == "methods":
        return f'"m" usebundle => mfx_empty, classes => mfx_outcome("{name}_G"){c};'
    if ptype == "commands":
        return f'"/bin/true" classes => mfx_outcome("{name}_G"){c};'
    return f'"@@{name}@@said@@guarded" classes => mfx_outcome("{name}_G"){c};'


def _agent_definer(ptype: str, name: str, label: str, cond: str | None) -> str:
    """A promise of ``ptype`` whose outcome defines ``<label>_kept``/``_repaired``..."""
    c = f", {cond}" if cond else ""
    if ptype == "classes":
        return f'"{label}_kept" expression => "any", scope => "namespace"{c};'
    if ptype == "files":
        return f'"$(sys.workdir)/{name}.{label}" create => "true", classes => mfx_outcome("{label}"){c};'
    if ptype == "methods":
        return f'"d" usebundle => mfx_empty, classes => mfx_outcome("{label}"){c};'
    if ptype == "commands":
        return f'"/bin/true" classes => mfx_outcome("{label}"){c};'
    return f'"@@{name}@@said@@{label}" classes => mfx_outcome("{label}"){c};'


def _outcome_of(ptype: str) -> str:
    """The outcome the definer reaches (the guard names the class it sets)."""
    return {"classes": "kept", "files": "repaired", "methods": "kept", "commands": "repaired",
            "reports": "kept"}[ptype]


def _section(sections: dict[str, list[str]], ptype: str, line: str,
             guard: str | None) -> None:
    text = f"    {guard}::\n      {line}" if guard else f"    {line}"
    sections.setdefault(ptype, []).append(text)


def _bundle_text(order: tuple[str, ...], sections: dict[str, list[str]]) -> str:
    # sections are written in reverse normal order: the written order must not matter
    return "\n".join(f"  {t}:\n" + "\n".join(sections[t]) for t in reversed(order)
                     if t in sections)


def agent_cases() -> list[Case]:
    cases = []
    definers = ("classes", "files", "methods", "commands", "reports")
    for guarded, definer, (gname, guard), depth in itertools.product(
            AGENT_ORDER, definers, GUARDS.items(), (1, 2)):
        gi, di = AGENT_ORDER.index(guarded), AGENT_ORDER.index(definer)
        if di < gi or (guarded == "classes" and definer == "classes"):
            continue
        if depth == 2 and gname not in ("if", "section"):
            continue
        name = f"a_{guarded}_{definer}_{gname}_{depth}"
        sections: dict[str, list[str]] = {}
        target = f"{name}_L1_{_outcome_of(definer)}"
        attr, sguard = GUARDS[gname](target if depth == 1 else f"{name}_L2_{_outcome_of(definer)}")
        # the guarded promise first (in written order too), then the definer(s)
        _section(sections, guarded, _agent_guarded(guarded, name, attr), sguard)
        if depth == 2:
            # an intermediate definer of the same type, guarded by the first one's class,
            # written before it: it runs one pass later still
            _section(sections, definer, _agent_definer(definer, name, f"{name}_L2",
                                                       f'if => "{target}"'), None)
        _section(sections, definer, _agent_definer(definer, name, f"{name}_L1", None), None)
        classes = outcome_classes(f"{name}_G") + (f"{name}_G",) + \
            outcome_classes(f"{name}_L1") + outcome_classes(f"{name}_L2")
        cases.append(Case(name, _bundle_text(AGENT_ORDER, sections),
                          classes=tuple(dict.fromkeys(classes)),
                          variables=(f"case_{name}.g",),
                          note=f"{guarded} guarded ({gname}) by {definer}, chain {depth}"))
    return cases


# edit_line: start file, and what each promise type does
EDIT_START = "alpha=1\nbeta=2\n# gamma=3\ndelta old\n"


def _edit_guarded(ptype: str, name: str, cond: str | None) -> str:
    c = f", {cond}" if cond else ""
    cls = f'classes => mfx_outcome("{name}_G")'
    if ptype == "vars":
        return f'"g" string => "set"{c};'
    if ptype == "classes":
        return f'"{name}_G" expression => "any", scope => "namespace"{c};'
    if ptype == "delete_lines":
        return f'"delta.*" {cls}{c};'
    if ptype == "field_edits":
        return (f'"beta=.*" edit_field => mfx_col("=", "2", "22"), {cls}{c};')
    if ptype == "insert_lines":
        return f'"inserted by {name}" {cls}{c};'
    if ptype == "replace_patterns":
        return f'"^alpha=1$" replace_with => mfx_value("alpha=11"), {cls}{c};'
    return f'"@@{name}@@said@@guarded" {cls}{c};'


# definer type -> {outcome: promise text (format with label)}
EDIT_DEFINERS = {
    "field_edits": {
        "failed": '"nosuchkey=.*" edit_field => mfx_col("=", "2", "x"), classes => mfx_outcome("{label}");',
        "repaired": '"alpha=.*" edit_field => mfx_col("=", "2", "5"), classes => mfx_outcome("{label}");',
        "kept": '"alpha=.*" edit_field => mfx_col("=", "1", "alpha"), classes => mfx_outcome("{label}");',
    },
    "replace_patterns": {
        "kept": '"^nosuchline$" replace_with => mfx_value("x"), classes => mfx_outcome("{label}");',
        "repaired": '"^# gamma=3$" replace_with => mfx_value("gamma=3"), classes => mfx_outcome("{label}");',
    },
    "insert_lines": {
        "kept": '"beta=2" classes => mfx_outcome("{label}");',
        "repaired": '"new line" classes => mfx_outcome("{label}");',
    },
    "delete_lines": {
        "kept": '"nosuchline" classes => mfx_outcome("{label}");',
    },
    "reports": {
        "kept": '"@@{name}@@said@@definer" classes => mfx_outcome("{label}");',
    },
}

EDIT_BODIES = """
body edit_field mfx_col(split, col, val)
{
  field_separator => "$(split)";
  select_field => "$(col)";
  value_separator => ",";
  field_value => "$(val)";
  field_operation => "set";
  extend_fields => "true";
  allow_blank_fields => "true";
}
body replace_with mfx_value(new_value) { replace_value => "$(new_value)"; occurrences => "all"; }
bundle agent mfx_empty { }
"""


def edit_cases() -> list[Case]:
    cases = []
    guarded_types = ("vars", "classes", "delete_lines", "field_edits", "insert_lines",
                     "replace_patterns", "reports")
    for guarded, (definer, outcomes) in itertools.product(guarded_types, EDIT_DEFINERS.items()):
        # a definer earlier in the normal order too: the stdlib's shape (insert_lines
        # guarded by a field_edits outcome) needs the outcome right in pass 1
        for outcome, (gname, guard) in itertools.product(outcomes, GUARDS.items()):
            # guard on the outcome the definer reaches, and (for "if") on one it does not
            for aimed in ((outcome, "not_kept") if gname == "if" else (outcome,)):
                cls_outcome = "failed" if aimed == "not_kept" and outcome != "failed" \
                    else aimed if aimed != "not_kept" else "kept"
                name = f"e_{guarded}_{definer}_{outcome}_{gname}_{cls_outcome}"
                label = f"{name}_L"
                attr, sguard = GUARDS[gname](f"{label}_{cls_outcome}")
                sections: dict[str, list[str]] = {}
                _section(sections, guarded, _edit_guarded(guarded, name, attr), sguard)
                _section(sections, definer,
                         outcomes[outcome].format(label=label, name=name), None)
                edit = (f"bundle edit_line edit_{name}\n{{\n"
                        + _bundle_text(EDIT_ORDER, sections)
                        + "\n  reports:\n" + f'    "@@{name}@@var@@g=$(g)";\n' + "}\n")
                if "reports" in sections:
                    # one reports section: merge the observation into it
                    sections["reports"].append(f'    "@@{name}@@var@@g=$(g)";')
                    edit = (f"bundle edit_line edit_{name}\n{{\n"
                            + _bundle_text(EDIT_ORDER, sections) + "\n}\n")
                bundle = (f'  files:\n    "$(sys.workdir)/{name}.txt" '
                          f'edit_line => edit_{name}, classes => mfx_outcome("{name}_F");')
                classes = outcome_classes(f"{name}_G") + (f"{name}_G",) + \
                    outcome_classes(label) + outcome_classes(f"{name}_F")
                cases.append(Case(name, bundle, extra=edit, files={"txt": EDIT_START},
                                  classes=tuple(dict.fromkeys(classes)),
                                  note=f"edit_line: {guarded} guarded ({gname}, on "
                                       f"{cls_outcome}) by {definer} reaching {outcome}"))
    return cases


# a vars promise whose function gives another value at each call: evaluated in every pass
RANDOM_CASE = Case(
    "r_random_per_pass",
    """  vars:
    "r" int => randomint(0, 1000000000);
    "n" int => length(classesmatching("r_random_per_pass_seen_.*"));
  classes:
    "r_random_per_pass_seen_$(r)" expression => "any", scope => "namespace";
  reports:
    "@@r_random_per_pass@@said@@late $(n)" if => "r_random_per_pass_late_kept";
    "@@r_random_per_pass@@said@@first" classes => mfx_outcome("r_random_per_pass_late");""",
    classes=("r_random_per_pass_late_kept",),
    note="randomint() in vars: a new value in each pass (cf-agent sees 3 distinct classes)")

# promises done in pass 1 whose text is made with $(with), $(this.handle), a list: their
# text is the same in later passes, so they are not actuated again
STABLE_CASE = Case(
    "r_stable_texts",
    """  vars:
    "l" slist => { "a", "b" };
  reports:
    "@@r_stable_texts@@said@@w=$(with)" with => "W1";
    "@@r_stable_texts@@said@@h=$(this.handle)" handle => "r_stable_texts_h";
    "@@r_stable_texts@@said@@late" if => "r_stable_texts_x_kept";
    "@@r_stable_texts@@said@@z $(l)" with => "$(l)x", classes => mfx_outcome("r_stable_texts_x");
    "@@r_stable_texts@@said@@y=$(with) $(this.promiser)" with => "W2";""",
    classes=("r_stable_texts_x_kept",),
    note="reports made of $(with), $(this.handle), a list: once each across the passes")

# an edit_line bundle does not evaluate its vars again right after its classes (an agent
# bundle does): a value guarded by a class of the bundle is there from pass 2 only
EDIT_VARS_AFTER_CLASSES = Case(
    "r_edit_vars_after_classes",
    """  files:
    "$(sys.workdir)/r_edit_vars_after_classes.txt" edit_line => r_edit_vars_after_classes_e;""",
    extra="""bundle edit_line r_edit_vars_after_classes_e
{
  vars:
    "x" string => "val", if => "r_edit_vars_after_classes_c";
    "l" slist => { "l1", "$(x)" }, if => "r_edit_vars_after_classes_c";
  classes:
    "r_edit_vars_after_classes_c" expression => "any";
  insert_lines:
    "line $(x)";
    "item $(l)";
  replace_patterns:
    "^old$" replace_with => mfx_value("new $(x)");
  reports:
    "@@r_edit_vars_after_classes@@said@@x=$(x)";
}
""",
    files={"txt": "old\n"},
    note="edit_line: vars guarded by a class of the bundle, used by edit promises")


# cf-agent's BundleResolve after each pass's classes section: a common bundle's vars,
# classes and vars again, then (any bundle) vars and defaults, before the next section.
# A class of a common bundle that needs a variable another of its classes enables is
# there in pass 1 (its reports see it); a default guarded by a class of the bundle is
# applied before pass 1's reports.  The common bundle is called once a file it tests
# for exists (at load it did not), so the load's evaluation has not settled it before.
def _resolve_common(name: str, order_guard: str) -> Case:
    return Case(
        name,
        f"""  files:
    "$(sys.workdir)/{name}.flag" create => "true";
  methods:
    "g" usebundle => {name}_g;""",
        extra=f"""bundle common {name}_g
{{
  vars:
    {name}_c1::
      "v" string => "set";
  classes:
    "{name}_c1" expression => fileexists("$(sys.workdir)/{name}.flag"), scope => "namespace";
    "{name}_c2" expression => {order_guard}, scope => "namespace";
  reports:
    "@@{name}@@said@@first" if => "{name}_c2", classes => mfx_outcome("{name}_first");
    "@@{name}@@said@@second" unless => "{name}_first_kept";
}}
""",
        classes=(f"{name}_c1", f"{name}_c2", f"{name}_first_kept"),
        note="common bundle: BundleResolve's classes after its vars, in every pass")


RESOLVE_CASES = [
    _resolve_common("r_resolve_common_isvariable", 'isvariable("v")'),
    _resolve_common("r_resolve_common_strcmp", 'strcmp("$(v)", "set")'),
    Case("r_resolve_defaults",
         """  defaults:
    "d" string => "dflt", if => "r_resolve_defaults_c";
    r_resolve_defaults_c::
      "e" string => "efault";
  classes:
    "r_resolve_defaults_c" expression => "any";
  reports:
    "@@r_resolve_defaults@@said@@first d=$(d) e=$(e)"
      classes => mfx_outcome("r_resolve_defaults_first");
    "@@r_resolve_defaults@@said@@second" unless => "r_resolve_defaults_first_kept";""",
         classes=("r_resolve_defaults_first_kept",),
         note="defaults guarded by a class of the bundle: applied before pass 1's reports"),
]


def _late_case(ptype: str) -> Case:
    """A promise of ``ptype`` whose attribute or promiser holds ``$(x)``, a variable defined
    only in pass 2 (guarded by the outcome of a files promise): cf-agent acts in pass 1
    with the reference as written, then again in pass 2 with the value (its promise lock
    is named by the expanded promise, attributes included)."""
    name = f"r_late_{ptype}"
    lines = {
        "files": f'  files:\n    "$(sys.workdir)/{name}.f_$(x)" create => "true";',
        "commands": f'  commands:\n    "/usr/bin/touch" args => "$(sys.workdir)/{name}.c_$(x)";',
        "methods": f'  methods:\n    "m" usebundle => r_late_say("{name}", "$(x)");',
        "edit": f'  files:\n    "$(sys.workdir)/{name}.txt" edit_line => r_late_insert("line $(x)");',
        "reports": f'  reports:\n    "@@{name}@@said@@r $(x)";',
    }[ptype]
    files: dict[str, str | None] = {
        "files": {"f_$(x)": None, "f_late": None},
        "commands": {"c_$(x)": None, "c_late": None},
        "edit": {"txt": "start\n"},
    }.get(ptype, {})
    return Case(name, f"""  vars:
    {name}_def_reached::
      "x" string => "late";
  files:
    "$(sys.workdir)/{name}.def" create => "true", classes => mfx_outcome("{name}_def");
{lines}""", files=files, classes=(f"{name}_def_kept", f"{name}_def_repaired"),
                variables=(f"case_{name}.x",),
                note=f"{ptype}: a value defined in pass 2, unresolved in pass 1")


LATE_CASES = [_late_case(t) for t in ("files", "commands", "methods", "edit", "reports")]

# @(name) given to a bundle parameter, naming no list nor container: the parameter is the
# text as written (cf-agent's ScopeAugment says so as an error), not an empty value
LIST_PARAM_CASE = Case(
    "r_list_param",
    """  vars:
    "s" string => "str";
    "l" slist => { "a", "b" };
    "d" data => '{ "k": "v" }';
  methods:
    "m1" usebundle => r_late_say("r_list_param", @(nosuch));
    "m2" usebundle => r_late_say("r_list_param", @(s));
    "m3" usebundle => r_late_say("r_list_param", @(l));
    "m4" usebundle => r_late_say("r_list_param", @(d));
    "m5" usebundle => r_late_say("r_list_param", @(case_r_list_param.nosuch));
  files:
    "$(sys.workdir)/r_list_param.e1" edit_line => r_late_insert(@(s));
    "$(sys.workdir)/r_list_param.e2" edit_line => r_late_insert(@(nosuch));
    "$(sys.workdir)/r_list_param.e3" edit_line => r_late_insert(@(l));""",
    files={"e1": "x\n", "e2": "x\n", "e3": "x\n"},
    note="methods, edit_line: @(name) of something that is no list or container")
LATE_EXTRA = """
bundle agent r_late_say(n, v) { reports: "@@$(n)@@said@@b $(v)"; }
bundle edit_line r_late_insert(l) { insert_lines: "$(l)"; }
"""

CASES = agent_cases() + edit_cases() + [RANDOM_CASE, STABLE_CASE, EDIT_VARS_AFTER_CLASSES] \
    + RESOLVE_CASES + LATE_CASES + [LIST_PARAM_CASE]

# cf-lite waits with a promise whose variables do not resolve yet and acts once, in the
# pass where they do (or in the last, as written); cf-agent acts in every pass with what
# resolves so far and again whenever the expanded promise changes
EXPECTED_DIFFERENCES = {
    c.name: "deliberate: cf-agent 3.21 acts on a promise (files, commands, methods, an "
            "edit_line call) in pass 1 with $(x) as written -- it creates a file named "
            "'f_$(x)', runs touch on 'c_$(x)' -- and again in pass 2 when x is defined "
            "(AcquireLock's PromiseRuntimeHash covers the expanded attributes); cf-lite "
            "waits for the value and acts once, with it, so that no stray file or command "
            "is made of a name not yet known (docs/language.md, 'Unresolved variables')"
    for c in LATE_CASES if c.name != "r_late_reports"}

PREAMBLE = EDIT_BODIES + LATE_EXTRA
