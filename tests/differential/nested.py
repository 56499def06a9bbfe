"""Generated cases for references whose name holds another reference (``$(a[$(k)])``,
``$($(name))``), against plain undefined references.

cf-agent 3.21 iterates over such a reference as over a list (a "wheel" of its own): when
the name, expanded with the current values of the lists it depends on, names no variable
(or cannot be expanded), that iteration of the promise is skipped altogether, in every
pass.  A plain undefined reference (``$(nosuch)``, ``$(a[9])``) stays as written.  Each
case is one shape of reference (scalar or list index, defined or not, one or two levels,
brace form, data containers, function arguments) used in three contexts: the promiser of
a reports promise, the value of a vars promise (then reported) and the promiser of an
insert_lines promise (then the file is reported).  :func:`policy_text` renders one
policy; a case reports ``@@name@@<line>@@`` once per line it produced.
"""
from __future__ import annotations

import itertools

# name -> the reference text to place in the promise
REFERENCES = {
    "scalar_idx_defined": "$(a[$(one)])",
    "scalar_idx_undefined": "$(a[$(two)])",
    "inner_undefined": "$(a[$(nosuch)])",
    "list_idx": "$(a[$(idx)])",
    "list_idx_braces": "${a[${idx}]}",
    "two_levels": "$(m[$(idx)][$(one)])",
    "indirect_defined": "$($(vname))",
    "indirect_undefined": "$($(badname))",
    "data_key": "$(d[$(keys)])",
    "data_nested": "$(d[$(one)][$(idx)])",
    "plain_undefined": "$(nosuch)",
    "plain_index_undefined": "$(a[9])",
    "list_and_nested": "$(idx)-$(a[$(idx)])",
    "nested_then_plain": "$(a[$(two)]) and $(nosuch)",
    "qualified": "$(nested_src.a[$(nested_src.idx)])",
    # a list reached through a name built by expansion: cf-agent 3.21 iterates over it
    # only when the scope and namespace are written out (or absent), not when they come
    # from the expansion (a bug fixed later: see test_nested_differential)
    "indirect_list": "$($(lname))",
    "indirect_list_scoped": "$($(qlname))",
    "indirect_list_namespaced": "$($(nlname))",
    "scope_from_inner": "$($(srcname).idx)",
    "namespace_from_inner": "$($(nsname):nested_src.idx)",
    "lval_from_inner": "$(nested_src.$(lname))",
    "indirect_scalar_scoped": "$($(qsname))",
    "indirect_data": "$($(dname))",
    "indirect_data_scoped": "$($(qdname))",
    "index_with_dot": "$(a[$(dotk)])",
    "indirect_array_scoped": "$($(qaname))",
    "indirect_list_self_scoped": "$($(selfname))",
}

CONTEXTS = ("report", "var", "insert")


def _cases() -> list[tuple[str, str, str]]:
    return [(f"{ctx}_{name}", ctx, ref)
            for ctx, (name, ref) in itertools.product(CONTEXTS, REFERENCES.items())]


CASES = _cases()

_VARS = """\
    "one" string => "1";
    "two" string => "2";
    "idx" slist => { "1", "2", "3" };
    "keys" slist => { "x", "y", "z" };
    "vname" string => "one";
    "badname" string => "nosuchvar";
    "a[1]" string => "A1";
    "a[3]" string => "A3";
    "m[1][1]" string => "M11";
    "m[2][1]" string => "M21";
    "d" data => '{ "x": "DX", "y": { "k": 1 }, "1": { "1": "D11", "3": "D13" } }';
    "dl" data => '[ "DL1", "DL2" ]';
    "lname" string => "idx";
    "qlname" string => "nested_src.idx";
    "nlname" string => "default:nested_src.idx";
    "srcname" string => "nested_src";
    "nsname" string => "default";
    "qsname" string => "nested_src.one";
    "dname" string => "dl";
    "qdname" string => "nested_src.dl";
    "dotk" string => "x.y";
    "a[x.y]" slist => { "AXY1", "AXY2" };
    "qaname" string => "nested_src.a[x.y]";
    "selfname" string => "$(this.bundle).idx";
"""


def policy_text(path_prefix: str) -> str:
    """One policy holding every case; insert_lines cases edit ``path_prefix.NAME``.  Every
    bundle that uses the references defines the same variables (unqualified references
    resolve in the bundle that uses them); ``nested_src`` holds them for the qualified case."""
    reports, vars_, files, edits = [], [], [], []
    for name, ctx, ref in CASES:
        if ctx == "report":
            reports.append(f'    "@@{name}@@{ref}@@";')
        elif ctx == "var":
            vars_.append(f'    "v_{name}" string => "{ref}";')
            reports.append(f'    "@@{name}@@$(v_{name})@@" if => isvariable("v_{name}");')
        else:
            path = f"{path_prefix}.{name}"
            files.append(f'    "{path}" create => "true", edit_line => nested_ins_{name};')
            edits.append(f"bundle edit_line nested_ins_{name}\n{{\n  vars:\n{_VARS}"
                         f'  insert_lines:\n    "{ref}";\n}}\n')
            vars_.append(f'    "lines_{name}" slist => readstringlist("{path}", "", "\\n", '
                         f'100, 10000), if => fileexists("{path}");')
            reports.append(f'    "@@{name}@@$(lines_{name})@@";')
    return ("body common control\n{\n  bundlesequence => { \"nested_edit\", "
            "\"nested_report\" };\n}\n"
            f"bundle common nested_src\n{{\n  vars:\n{_VARS}}}\n"
            "bundle agent nested_edit\n{\n  files:\n" + "\n".join(files) + "\n}\n"
            f"bundle agent nested_report\n{{\n  vars:\n{_VARS}" + "\n".join(vars_)
            + "\n  reports:\n" + "\n".join(reports) + "\n}\n" + "".join(edits))


def parse_reports(stdout: str) -> dict[str, list[str]]:
    """name -> the sorted lines it reported."""
    out: dict[str, list[str]] = {name: [] for name, _c, _r in CASES}
    for line in stdout.splitlines():
        if line.startswith("R: @@"):
            _, name, value, *_ = line[3:].split("@@")
            if name in out:
                out[name].append(value)
    return {name: sorted(values) for name, values in out.items()}
