"""Generated cases for ``--show-evaluated-vars`` and ``--show-evaluated-classes``.

The point of the two tables is that people diff cf-agent's against cf-lite's, so every
byte must agree: the value column of scalars (quotes, backslashes, control characters,
UTF-8), lists (empty, empty strings, quotes), data containers (nesting, reals, null,
booleans, empty containers), ints and reals, array entries, the meta tags and comment
columns, long names that overflow their column, and class tables with tags and
comments.  The values are built from a table of atoms crossed with the variable types,
so a new atom is tested in every shape at once.  Each case is one variable (or class)
whose table row must match; a few whole-table runs check the header, the ordering and
bad patterns.
"""
from __future__ import annotations

import itertools
import re

# Atoms: text a policy string can hold (written as CFEngine source, inside "...").
ATOMS: tuple[tuple[str, str], ...] = (
    ("plain", "plain"),
    ("space", "a b  c"),
    ("empty", ""),
    ("dquote", 'say \\"hi\\"'),
    ("squote", "it's"),
    ("backslash", "back\\\\slash"),
    ("trailing_bs", "end\\\\"),
    ("tab", "a\tb"),
    ("newline", "l1\nl2"),
    ("utf8", "café"),
    ("dollar", "$(const.dollar)x"),
    ("braces", "{a,b}"),
    ("comma", "a,b"),
    ("json_like", '{\\"k\\": 1}'),
    ("percent", "100%"),
    ("tilde", "~user"),
    ("del", "x\x7fy"),
)

TYPES = ("string", "slist", "slist2", "data_list")

# Whole JSON values for data containers (single-quoted policy strings).
DATA: tuple[tuple[str, str], ...] = (
    ("obj", '{"b": 1, "a": 2}'),
    ("nested", '{"z": {"y": [1, {"x": null}]}, "a": []}'),
    ("reals", '[1.5, 2.0, 0.25, -3.75, 100.125]'),
    ("ints", '[0, -1, 12345678901]'),
    ("bools", '[true, false, null]'),
    ("empty_obj", "{}"),
    ("empty_arr", "[]"),
    ("unicode_escape", '["\\u00e9"]'),
    ("slash", '["a/b"]'),
    ("sorted_keys", '{"B": 1, "a": 2, "_": 3, "1": 4}'),
    ("dup_key", '{"k": 1, "k": 2}'),
    ("str_nl", '["x\\ny"]'),
    ("str_tab", '["x\\ty"]'),
    ("long", '{"' + "k" * 70 + '": "' + "v" * 40 + '"}'),
)

OTHERS: tuple[tuple[str, str], ...] = (
    ("int_plain", '"i" int => "42";'),
    ("int_suffix", '"i" int => "2k";'),
    ("int_neg", '"i" int => "-7";'),
    ("real_plain", '"r" real => "1.5";'),
    ("real_exp", '"r" real => "2.5e-3";'),
    ("real_int", '"r" real => "3";'),
    ("ilist", '"il" ilist => { "1", "22" };'),
    ("rlist", '"rl" rlist => { "1.5", "2" };'),
    ("empty_list", '"el" slist => { };'),
    ("empty_string_list", '"esl" slist => { "" };'),
    ("array", '"arr[key]" string => "v";'),
    ("array_space", '"arr[a key]" string => "v";'),
    ("array_nested", '"arr[a][b]" string => "v";'),
    ("tags", '"t" string => "v", meta => { "z", "a", "k=v" };'),
    ("comment", '"c" string => "v", comment => "a comment";'),
    ("comment_long", '"c" string => "v", comment => "' + "word " * 12 + '";'),
    ("tags_comment", '"tc" string => "v", meta => { "m" }, comment => "both";'),
    ("long_name", '"' + "n" * 45 + '" string => "v";'),
    ("long_value", '"lv" string => "' + "x" * 75 + '";'),
    ("fncall", '"f" string => concat("a", "b");'),
    ("canonify", '"cn" string => canonify("a b-c");'),
    ("mergedata", '"md" data => mergedata(\'{"a": 1}\', \'{"b": [2]}\');'),
    ("parseyaml", '"py" data => parseyaml("k: v");'),
    ("list_from_fn", '"sp" slist => splitstring("a,b,,c", ",", 10);'),
)

CLASSES: tuple[tuple[str, str], ...] = (
    ("cls_plain", '"cls_plain" expression => "any";'),
    ("cls_tags", '"cls_tags" expression => "any", meta => { "z", "a", "k=v" };'),
    ("cls_comment", '"cls_comment" expression => "any", comment => "a class comment";'),
    ("cls_both", '"cls_both" expression => "any", meta => { "m" }, comment => "c";'),
    ("cls_long_name", '"cls_' + "l" * 60 + '" expression => "any";'),
    ("cls_bundle", '"cls_bundle" expression => "any", scope => "bundle";'),
    ("cls_and", '"cls_and" and => { "any", "cfengine" };'),
    ("cls_persist", '"cls_persist" expression => "any", persistence => "5", meta => { "p" };'),
    ("cls_ns_scope", '"cls_ns_scope" expression => "any", scope => "namespace", meta => { "n" };'),
)


def cases() -> list[tuple[str, str]]:
    """(case name, one vars promise line); the variable is named after the case."""
    out = []
    for (atom, text), kind in itertools.product(ATOMS, TYPES):
        name = f"{atom}_{kind}"
        if kind == "string":
            line = f'"{name}" string => "{text}";'
        elif kind == "slist":
            line = f'"{name}" slist => {{ "{text}" }};'
        elif kind == "slist2":
            line = f'"{name}" slist => {{ "{text}", "x", "{text}" }};'
        else:
            line = f'"{name}" data => mergedata(\'[]\', "{name}_src");\n    "{name}_src" slist => {{ "{text}", "z" }};'
        out.append((name, line))
    for name, json_text in DATA:
        out.append((f"data_{name}", f'"data_{name}" data => \'{json_text}\';'))
        out.append((f"pj_{name}", f'"pj_{name}" data => parsejson(\'{json_text}\');'))
    for name, line in OTHERS:
        out.append((f"other_{name}", _rename(line, f"other_{name}")))
    return out


def _rename(line: str, name: str) -> str:
    """Prefix the promiser with the case name (keeping an array's brackets)."""
    promiser = re.match(r'"([^"\[]*)', line)
    assert promiser is not None
    return f'"{name}{line[promiser.end():]}' if promiser.group(1) else line


def policy_text() -> str:
    lines = ["bundle agent main", "{", "  vars:"]
    for _name, line in cases():
        lines.append(f"    {line}")
    lines.append("  classes:")
    for _name, line in CLASSES:
        lines.append(f"    {line}")
    lines += ["  reports:", '    "outcome" classes => persist_outcome;', "}",
              "body classes persist_outcome",
              '{ promise_kept => { "cls_outcome_persist" }; persist_time => "5"; }',
              "body classes plain_outcome { promise_kept => { \"cls_outcome\" }; }", ""]
    return "\n".join(lines)


VAR_PATTERN = r"^default:main\."
CLASS_PATTERN = r"^cls_"


def table_rows(stdout: str, header: str) -> list[str] | None:
    """The rows of the table whose header line starts with ``header`` (None if absent)."""
    lines = stdout.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(header):
            rows = []
            for row in lines[i + 1:]:
                if row.startswith(("Class name", "Variable name")) or \
                        re.match(r"^ *(error|warning|notice|info|verbose):", row):
                    break
                rows.append(row)
            return [line] + rows
    return None


def rows_by_case(rows: list[str]) -> dict[str, list[str]]:
    """The variable rows of each case (a case owns the rows whose name starts with it)."""
    names = sorted((name for name, _line in cases()), key=len, reverse=True)
    out: dict[str, list[str]] = {name: [] for name in names}
    for row in rows[1:]:
        var = row.split(" ", 1)[0]
        short = var[len("default:main."):]
        for name in names:
            if short == name or short.startswith((name + "[", name + "_src")):
                out[name].append(row)
                break
    return out


# Patterns given to both options: good ones select, bad ones must fail the same way.
PATTERNS: tuple[tuple[str, str], ...] = (
    ("anchored", "^default:main\\.other_int"),
    ("alternation", "other_(tags|comment)$"),
    ("class_dot", "default:main\\.plain_.*"),
    ("posix_class", "main\\.[[:digit:]]"),
    ("unmatched_paren", "("),
    ("unmatched_bracket", "main["),
    ("nothing_to_repeat", "*main"),
    ("trailing_backslash", "main\\"),
    ("bad_repeat", "a{3,1}"),
    ("empty", ""),
)
