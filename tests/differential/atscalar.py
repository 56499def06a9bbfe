"""Generated cases: ``@(name)`` of a scalar in a list (issue #26, found in the EFL
community library: the standard library's ``file_select => by_name("d")`` is
``leaf_name => { @(names) }`` with a string parameter).

cf-agent 3.21 warns "'@(name)' failed - variable is not list but string" and takes the
scalar's value as the list's one item; the list is then what it would be with
``"$(name)"``.  cf-agent says the warning at each evaluation (cf-promises' among them),
cf-lite once per run, as it says function errors (docs/language.md): the lines are
compared with repeats left out.  Files go under each agent's own ``$(sys.workdir)``.
"""
from __future__ import annotations

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []

_VALUES = {"string": ('string', '"S"'), "int": ('int', '"42"'), "real": ('real', '"1.5"'),
           "qualified": ('string', '"Q"')}

_POLICY = """
bundle common g {{ vars: "gs" {type} => {value}; }}
bundle agent main
{{
vars:
  "s" {type} => {value};
  "l" slist => {{ {items} }};
methods:
  "m" usebundle => b("$(s)");
files:
  "$(sys.workdir)/P/." create => "true";
  "$(sys.workdir)/P/S/." create => "true";
  "$(sys.workdir)/P/f" create => "true";
  "$(sys.workdir)/P/42" create => "true";
  "$(sys.workdir)/t" create => "true", classes => cl("$(s)");
  "$(sys.workdir)/P"
    depth_search => rb("0"), file_select => neg("$(s)"), perms => m("600"),
    classes => cl("selected_done");
reports:
  "l=$(l)";
  "cls" if => canonify("cl_$(s)");
  "$(this.bundle): $(s)";
}}
bundle agent b(x)
{{
vars:
  "l" slist => {{ @(x) }};
  "m" slist => {{ "p", @(x), "q" }};
reports:
  "b: l=$(l) m=$(m)";
}}
bundle agent after
{{
vars:
  "modes" slist => {{ "P", "P/S", "P/f", "P/42" }};
  "m[$(modes)]" string => filestat("$(sys.workdir)/$(modes)", "permoct");
reports:
  "$(modes) $(m[$(modes)])";
}}
body depth_search rb(d) {{ depth => "$(d)"; include_basedir => "true"; }}
body file_select neg(names) {{ leaf_name  => {{ @(names) }}; file_result => "!leaf_name"; }}
body perms m(mode) {{ mode => "$(mode)"; }}
body classes cl(x) {{ promise_repaired => {{ @(x), "cl_$(x)" }}; }}
"""
_ITEMS = {
    "alone": "@(s)",
    "first": '@(s), "b"',
    "last": '"a", @(s)',
    "braces": "@{s}",
    "qualified": "@(main.s)",
    "other_bundle": "@(g.gs)",
    "undefined": '"a", @(nosuch)',
}
for vname, (type_, value) in _VALUES.items():
    for iname, items in _ITEMS.items():
        text = ('body common control { bundlesequence => { "main", "after" }; }\n'
                + _POLICY.format(type=type_, value=value, items=items))
        CASES.append((f"{vname}_{iname}", {"promises.cf": text}, ()))

NAMES = [c[0] for c in CASES]


def once(observed: tuple) -> tuple:
    """A run as agentmisc.observe sees it, each line kept at its first appearance."""
    rc, failed, lines, errors = observed
    return rc, failed, list(dict.fromkeys(lines)), sorted(set(errors))
