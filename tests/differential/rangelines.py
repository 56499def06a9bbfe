"""Generated cases: attribute values that hold a newline, checked against the
attribute's range as cf-agent 3.21 checks them -- by cf-promises when the value is
written in the policy, by the agent when it comes from a variable.

Every regex cf-agent compiles is dot-all (CompileRegex), the ranges too, so a dot in a
range matches a newline: ``"/usr/bin/cat f | sed -e '\\n...'"`` is in the absolute-path
range ``"?(/.*)`` (masterfiles' check_update_postproc, a command written over several
lines), a lone newline is in ``.`` (``repchar``) and ``^.$`` (``value_separator``).  A
newline where the range has no dot is out of range.  Each case is one attribute with
one value, written in place (``literal``) or through a variable (``variable``).
"""
from __future__ import annotations

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []

_MAIN = """body common control {{ bundlesequence => {{ "main" }}; }}
{control}
bundle agent main
{{
  vars:
    "v" string => "{value}";
{promises}
  reports:
    "done";
}}
{bodies}
"""
# attribute -> (promises, bodies, body agent control) with {a}: the value's place
ATTRIBUTES = {
    "chdir": ('  commands:\n    "/bin/true" contain => c;\n',
              "body contain c\n{\n  chdir => {a};\n}\n", ""),
    "copy_source": ('  files:\n    "$(sys.workdir)/copied" copy_from => cp;\n',
                    "body copy_from cp\n{\n  source => {a};\n}\n", ""),
    "log_failed": ('  reports:\n    "logged" action => lg;\n',
                   'body action lg\n{\n  log_failed => {a};\n  log_string => "x";\n}\n', ""),
    "value_separator": (
        '  files:\n    "$(sys.workdir)/fields" create => "true", edit_line => fe;\n',
        "bundle edit_line fe\n{\n  field_edits:\n    \"a.*\" edit_field => ef;\n}\n"
        "body edit_field ef\n{\n  field_separator => \":\";\n  select_field => \"1\";\n"
        "  value_separator => {a};\n  field_value => \"z\";\n  field_operation => \"set\";\n}\n",
        ""),
    "environment": ("", "", "body agent control\n{\n  environment => { {a} };\n}\n"),
    "repchar": ("", "", "body agent control\n{\n  repchar => {a};\n}\n"),
    "failed_returncodes": ('  commands:\n    "/bin/true" classes => rc;\n',
                           "body classes rc\n{\n  kept_returncodes => { {a} };\n}\n", ""),
    "groups": ('  files:\n    "$(sys.workdir)/perm" create => "true", perms => pg;\n',
               "body perms pg\n{\n  groups => { {a} };\n}\n", ""),
}
# attribute -> values (a newline where the range has a dot, where it has none, alone)
VALUES = {
    "chdir": {"inside": "/tmp\nx", "end": "/tmp\n", "start": "\n/tmp"},
    "copy_source": {"inside": "/nonexistent\nx", "alone": "\n"},
    "log_failed": {"inside": "/tmp/cflite-rangelines\nx", "stdout_end": "stdout\n"},
    "value_separator": {"alone": "\n", "two": "\n\n", "after": ",\n"},
    "environment": {"value": "A=b\nc", "name": "A\nB=c", "end": "A=\n"},
    "repchar": {"alone": "\n", "two": "\n\n"},
    "failed_returncodes": {"inside": "1\n2"},
    "groups": {"inside": "root\nx"},
}

for attr, (promises, bodies, control) in ATTRIBUTES.items():
    for vname, value in VALUES[attr].items():
        for how, place in (("literal", f'"{value}"'), ("variable", '"$(main.v)"')):
            if attr in ("environment", "repchar") and how == "variable":
                place = '"$(g.v)"'
            text = _MAIN.format(control=control.replace("{a}", place), value=value,
                                promises=promises, bodies=bodies.replace("{a}", place))
            if '"$(g.v)"' in text:
                text += f'bundle common g\n{{\n  vars:\n    "v" string => "{value}";\n}}\n'
                text = text.replace('{ "main" }', '{ "g", "main" }')
            CASES.append((f"{attr}_{vname}_{how}", {"promises.cf": text}, ()))

NAMES = [c[0] for c in CASES]

EXPECTED_DIFFERENCES: dict[str, str] = {}
