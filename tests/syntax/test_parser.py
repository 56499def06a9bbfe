"""Parser unit tests: CFEngine's quirks, coordinates, conversions, errors."""
from __future__ import annotations

import pytest

from cfpromise.syntax import ast
from cfpromise.syntax.errors import PolicyError
from cfpromise.syntax.lexer import compare_version, deescape
from cfpromise.syntax.parser import parse


def one_promise(text: str) -> ast.Promise:
    policy = parse(text)
    return policy.bundles[0].sections[0].promises[0]


@pytest.mark.parametrize("raw, value", [
    (r"a\\b", "a\\b"), (r"a\"b", 'a"b'), (r"a\'b", "a'b"), (r"a\nb", r"a\nb"),
    ("a\\\nb", "ab"), (r"\$(x)", r"\$(x)"), ("plain", "plain"),
])
def test_deescape(raw: str, value: str) -> None:
    assert deescape(raw) == value


def test_backquoted_strings_have_no_escapes_but_deescape() -> None:
    p = one_promise('bundle agent m { vars: "x" string => `a\\b "c"`; }')
    assert p.constraints[0].rval == ast.Scalar('a\\b "c"')


def test_class_guard_with_spaces_is_one_token_like_flex() -> None:
    with pytest.raises(PolicyError) as exc:
        parse('bundle agent m { vars: linux | foo :: "x" string => "a"; }')
    assert "promise type" in str(exc.value)


def test_guards_and_varclass() -> None:
    policy = parse('bundle agent m {\nreports:\n linux.!foo::\n "a";\n "$(c)"::\n "b";\n}\n')
    a, b = policy.bundles[0].sections[0].promises
    assert (a.classes, a.varclass) == ("linux.!foo", None)
    assert (b.classes, b.varclass) == ("any", "$(c)")


def test_sections_of_same_type_merge() -> None:
    policy = parse('bundle agent m { vars: "a" string => "1"; reports: "r"; vars: "b" string => "2"; }')
    names = [s.name for s in policy.bundles[0].sections]
    assert names == ["vars", "reports"]
    assert [p.promiser for p in policy.bundles[0].sections[0].promises] == ["a", "b"]


def test_repeated_attribute_replaces_in_place() -> None:
    p = one_promise('bundle agent m { reports: "x" comment => "a", handle => "h", comment => "b"; }')
    assert [(c.lval, c.rval.value) for c in p.constraints] == [("comment", "b"), ("handle", "h")]


def test_inline_data_conversions() -> None:
    text = ('bundle agent m { vars: "a" data => \'{"k": [1, 2,],}\'; "b" data => "foo"; '
            '"c" data => @(x); "d" data => \'{"v": "$(x)"}\'; }')
    a, b, c, d = (p.constraints[0].rval for p in parse(text).bundles[0].sections[0].promises)
    assert isinstance(a, ast.Data) and a.value == {"k": [1, 2]}
    assert isinstance(b, ast.FnCall) and b.name == "parsejson"
    assert isinstance(c, ast.FnCall) and c.name == "mergedata" and c.args[0].value == "x"
    assert isinstance(d, ast.FnCall) and d.name == "parsejson"


def test_namespace_switches_following_blocks() -> None:
    policy = parse('bundle agent a {}\nbody file control { namespace => "ns"; }\nbundle agent b {}')
    assert [(b.namespace, b.name) for b in policy.bundles] == [("default", "a"), ("ns", "b")]


def test_coordinates_and_cfengine_line_count_in_ignored_macro() -> None:
    text = ("bundle agent m\n{\n@if minimum_version(99.0)\nreports:\n \"no\";\n@endif\n"
            "reports:\n  \"yes\";\n}\n")
    p = parse(text, "f.cf").bundles[0].sections[0].promises[0]
    assert p.promiser == "yes"
    assert (p.coord.file, p.coord.line, p.coord.col) == ("f.cf", 8, 3)
    assert p.coord.cfline == 5           # CFEngine does not count the ignored lines


@pytest.mark.parametrize("macro, kept", [
    ("minimum_version(3.7)", True), ("minimum_version(3.22)", False), ("maximum_version(3.21)", True),
    ("before_version(4)", True), ("before_version(3)", False), ("at_version(3.21)", True),
    ("after_version(3)", False), ("between_versions(3.15.0, 4.0.0)", True), ("feature(xml)", True),
    ("feature(nosuch)", False),
])
def test_macros(macro: str, kept: bool) -> None:
    text = f'bundle agent m {{\n@if {macro}\nreports: "kept";\n@else\nreports: "else";\n@endif\n}}\n'
    assert one_promise(text).promiser == ("kept" if kept else "else")


@pytest.mark.parametrize("args", ["()", "(a,)", "(a, b)"])
def test_parameter_lists_cf_promises_accepts(args: str) -> None:
    parse(f'bundle agent b{args} {{ reports: "x"; }}', "ok.cf")
    parse('bundle agent ' + 'a' * 1023 + ' { reports: "x"; }', "ok.cf")   # the longest allowed


def test_version_compare_uses_given_components() -> None:
    assert compare_version("3.21.0", "3.21") == 0
    assert compare_version("3.21.0", "3") == 0
    assert compare_version("3.21.0", "3.22") == -1


@pytest.mark.parametrize("text, line, col, fragment", [
    # bison's "syntax error" first, then its error rule's words, where the lexer stands
    ('bundle agent m { vars: "x" string => "a" "b"; }', 1, 45,
     "Check previous line, Expected ';', got '\"b\"'"),
    ('bundle agent m {\n  "x";\n}', 2, 6, "Expected promise type, got '\"x\"'"),
    ('bundle agent m { vars: "x" string => "a", ; }', 1, 44, "Expected attribute, got ';'"),
    # (a quote no string closes is a character the grammar has no place for)
    ('bundle agent m { vars: "x string => "a"; }', 1, 39, "Unknown attribute 'a'"),
    ('bundle agent m { vars: "x" string => "a";', 1, 42, "Expected promiser string, got ''"),
    ('bundle agent m {\n@if minimum_version(3.7)\n', 3, 1, "@endif"),
    ('bundle agent m { vars: "x" int => -1; }', 1, 36, "Invalid r-value type '-'"),
    ('bundle agent b(, a, b) { reports: "x"; }', 1, 17, "wrong input ','"),  # cf-promises rejects both
    ('bundle agent b(a,,b) { reports: "x"; }', 1, 19, "wrong input ','"),
    ('bundle agent ' + 'a' * 1024 + ' { reports: "x"; }', 1, 1038, "identifier too long"),
])
def test_syntax_errors_have_positions(text: str, line: int, col: int, fragment: str) -> None:
    with pytest.raises(PolicyError) as exc:
        parse(text, "bad.cf")
    d = exc.value.diagnostics[0]
    assert (d.coord.file, d.coord.line, d.coord.col) == ("bad.cf", line, col), d.render()
    assert any(fragment in e.message for e in exc.value.diagnostics), d.render()
    assert d.render().startswith(f"bad.cf:{line}:{col}: error: ")
