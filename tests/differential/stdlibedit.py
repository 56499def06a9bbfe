"""Generated cases for the standard library's key/value editing bundles on config files.

``set_variable_values``, ``set_config_values``, ``set_line_based``, ``set_quoted_values``,
``maintain_key_values``, ``set_variable_values_ini`` and ``manage_variable_values_ini``
(masterfiles 3.21's ``lib/files.cf``, and cf-lite's ``bundles/`` of the same names) are
what most policy uses to say "this file has ``Key value``".  They build on the three
passes and on the edit promises' outcomes (a ``field_edits`` that matches no line fails,
then ``insert_lines`` adds the line).  Each case is one bundle on one generated file: the
key missing, present with another value or the same one, commented out once or twice,
duplicated, in another INI section, the section missing, an empty file, a file without a
final newline; what is compared is the file and the files promise's outcome classes.
"""
from __future__ import annotations

import itertools

from tests.differential.batch import Case, outcome_classes

KEY = "Key1"

# file shapes for a "KEY<sep>value" file; {s} is the separator as the file writes it
FLAT_SHAPES = {
    "missing": "Other{s}1\n",
    "other_value": "Other{s}1\n" + KEY + "{s}yes\nLast{s}2\n",
    "same_value": KEY + "{s}{v}\n",
    "spaced": KEY + " {s} yes\n",
    "commented": "Other{s}1\n#" + KEY + "{s}yes\n",
    "commented_space": "# " + KEY + "{s}yes\nOther{s}1\n",
    "commented_twice": "#" + KEY + "{s}yes\n# " + KEY + "{s}maybe\nOther{s}1\n",
    "duplicated": KEY + "{s}yes\nOther{s}1\n" + KEY + "{s}maybe\n",
    "prefix_key": KEY + "0{s}yes\n",
    "empty": "",
    "no_final_newline": "Other{s}1\n" + KEY + "{s}yes",
    "indented": "  " + KEY + "{s}yes\n",
}

# bundle -> (call with {arr} the array's name, separator written in files, values tried)
FLAT_BUNDLES = {
    "set_variable_values": ('set_variable_values("{arr}")', "=", ("no", "")),
    "set_config_values": ('set_config_values("{arr}")', " ", ("no", ".*x")),
    "set_line_based_eq": ('set_line_based("{arr}", "=", "\\s*=\\s*", ".*", "\\s*#\\s*")',
                          "=", ("no", "")),
    "set_line_based_space": ('set_line_based("{arr}", " ", "\\s+", ".*", "\\s*#\\s*")',
                             " ", ("no",)),
    "set_quoted_values": ('set_quoted_values("{arr}")', "=", ("no",)),
    "maintain_key_values": ('maintain_key_values("{arr}", "=")', "=", ("no",)),
}

INI_SHAPES = {
    "key_missing": "[main]\nOther=1\n[next]\nx=1\n",
    "other_value": "[main]\n" + KEY + "=yes\n[next]\nx=1\n",
    "same_value": "[main]\n" + KEY + "={v}\n",
    "spaced": "[main]\n" + KEY + " = yes\n",
    "in_other_section": "[next]\n" + KEY + "=yes\n[main]\nOther=1\n",
    "section_missing": "[next]\nx=1\n",
    "commented": "[main]\n#" + KEY + "=yes\nOther=1\n",
    "last_section": "[next]\nx=1\n[main]\n",
    "empty": "",
}

INI_BUNDLES = {
    "set_variable_values_ini": 'set_variable_values_ini("{arr}", "main")',
    "manage_variable_values_ini": 'manage_variable_values_ini("{arr}", "main")',
}


def _case(name: str, call: str, arr_line: str, start: str, note: str) -> Case:
    bundle = (f"  vars:\n    {arr_line}\n  files:\n"
              f'    "$(sys.workdir)/{name}.conf" edit_line => {call}, '
              f'classes => mfx_outcome("{name}_F");')
    return Case(name, bundle, files={"conf": start}, classes=outcome_classes(f"{name}_F"),
                note=note)


def _cases() -> list[Case]:
    cases = []
    for (bname, (call, sep, values)), (shape, text) in itertools.product(
            FLAT_BUNDLES.items(), FLAT_SHAPES.items()):
        for vi, value in enumerate(values):
            name = f"s_{bname}_{shape}_{vi}"
            arr = f"case_{name}.c"
            cases.append(_case(name, call.format(arr=arr), f'"c[{KEY}]" string => "{value}";',
                               text.format(s=sep, v=value),
                               f"{bname} on a file with the key {shape}, value '{value}'"))
    for (bname, call), (shape, text) in itertools.product(INI_BUNDLES.items(),
                                                           INI_SHAPES.items()):
        name = f"s_{bname}_{shape}"
        arr = f"case_{name}.c"
        cases.append(_case(name, call.format(arr=arr), f'"c[main][{KEY}]" string => "no";',
                           text.format(v="no"), f"{bname} on an INI file: {shape}"))
    return cases


CASES = _cases()
