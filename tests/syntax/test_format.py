"""The ``-p cf`` canonical layout: exact text on small inputs, string quoting,
namespaces, idempotence, and the round trip over every policy of the corpus."""
from __future__ import annotations

from pathlib import Path

import pytest

from cfpromise.syntax import ast
from cfpromise.syntax.errors import PolicyError
from cfpromise.syntax.format import data_text, format_policy, quote_string
from cfpromise.syntax.lexer import deescape
from cfpromise.syntax.parser import canonical_json, parse, parse_file

CORPORA = (Path("/usr/share/cfengine3/masterfiles"),
           Path(__file__).resolve().parents[3] / "shared" / "conformance" / "cfengine-acceptance",
           Path("/work/shared/conformance/cfengine-acceptance"))


def fmt(text: str) -> str:
    return format_policy(parse(text))


def assert_round_trip(policy: ast.Policy) -> str:
    text = format_policy(policy)
    again = parse(text)
    assert again == policy, text
    assert format_policy(again) == text
    return text


# --- layout ----------------------------------------------------------------------------

def test_bundle_layout() -> None:
    src = """
bundle agent main(a,b) {
vars: "x" string => "one";
"y" slist => {"a","b"}, comment => "two";
linux.!foo:: "z";
"$(c)":: "w" -> { "me", "you" } handle => "h";
reports: "hello" -> "x";
}"""
    assert fmt(src) == """\
bundle agent main(a, b)
{
  vars:
      "x" string => "one";
      "y"
        slist   => { "a", "b" },
        comment => "two";

    linux.!foo::
      "z";

    "$(c)"::
      "w" -> { "me", "you" } handle => "h";

  reports:
      "hello" -> "x";
}
"""


def test_blocks_are_separated_by_one_blank_line_and_args_dropped_when_empty() -> None:
    assert fmt("bundle agent a() { } body x y { } promise agent p { path => \"/x\"; }") == """\
bundle agent a
{
}

body x y
{
}

promise agent p
{
  path => "/x";
}
"""


def test_body_with_guards() -> None:
    src = """body classes c(x) { promise_repaired => { "$(x)" }; scope => "namespace";
linux:: promise_kept => { "a" }; any:: cancel_kept => { "b" }; }"""
    assert fmt(src) == """\
body classes c(x)
{
    promise_repaired => { "$(x)" };
    scope            => "namespace";

  linux::
    promise_kept => { "a" };

  any::
    cancel_kept => { "b" };
}
"""


def test_body_starting_with_a_guard() -> None:
    assert fmt("body perms p { linux:: mode => \"644\"; }") == """\
body perms p
{
  linux::
    mode => "644";
}
"""


def test_rval_kinds_print_as_written() -> None:
    src = ('bundle agent m { methods: "x" usebundle => ns:b(bare, $(v), @(l), "s", f(g("x"))),'
           ' classes => if_ok; }')
    assert fmt(src) == """\
bundle agent m
{
  methods:
      "x"
        usebundle => ns:b(bare, $(v), @(l), "s", f(g("x"))),
        classes   => if_ok;
}
"""


def test_long_list_is_one_item_per_line() -> None:
    items = ", ".join(f'"item_number_{i}"' for i in range(8))
    assert fmt(f"bundle agent m {{ vars: \"l\" slist => {{ {items} }}; }}") == """\
bundle agent m
{
  vars:
      "l"
        slist => {
          "item_number_0",
          "item_number_1",
          "item_number_2",
          "item_number_3",
          "item_number_4",
          "item_number_5",
          "item_number_6",
          "item_number_7"
        };
}
"""


def test_list_with_a_multiline_string_is_one_item_per_line() -> None:
    text = fmt('bundle agent m { vars: "l" slist => { "a\nb", "c" }, comment => "x"; }')
    assert '        slist   => {\n          "a\nb",\n          "c"\n        },\n' in text


def test_data_prints_its_original_text_single_quoted() -> None:
    text = fmt("""bundle agent m { vars: "d" data => '{ "a": [1, 2],\n "b": "c" }'; }""")
    assert """      "d"\n        data => '{ "a": [1, 2],\n "b": "c" }';\n""" in text
    assert_round_trip(parse(text))


def test_data_without_text_prints_as_json_or_yaml() -> None:
    for value in ({"a": [1, 2.5, None, True], "é": "x\ny"}, ["$(x)", {"k": "${y}"}], [1e300]):
        data = ast.Data(value, "", canonical=canonical_json(value))
        text = data_text(data)
        assert ("$(" not in text) and ("${" not in text)
        policy = ast.Policy((ast.Bundle("agent", "m", sections=(ast.PromiseSection("vars", (
            ast.Promise("d", (ast.Constraint("data", data),)),)),)),))
        assert_round_trip(policy)


# --- strings ------------------------------------------------------------------------------

@pytest.mark.parametrize("value, printed", [
    ("plain", '"plain"'),
    (r"^\s+\.$", r'"^\s+\.$"'),             # a backslash before an ordinary character stays
    ("a\\", '"a\\\\"'),                     # ... but not at the end
    ("a\\\\b", '"a\\\\\\b"'),               # \\ -> \\\ (the first must be doubled, not the second)
    ("x\\nb", '"x\\nb"'),
    ('say "hi"', "'say \"hi\"'"),           # single quotes need no escapes here
    ("it's", '"it\'s"'),
    ('it\'s "x"', '`it\'s "x"`'),
    ('a"b\'c`d', '"a\\"b\'c`d"'),
    ("line\nbreak", '"line\nbreak"'),
    ('"::', "'\"::'"),                      # "\"::" would lex as a "..":: class guard
    ('"::\'::`', '"\\"\\\n::\'::`"'),       # no style left: a continuation hides the ::
    ("\\\n", '"\\\\\n"'),
    ("é\x00\udc80", '"é\x00\udc80"'),
])
def test_quote_string(value: str, printed: str) -> None:
    assert quote_string(value) == printed
    assert deescape(printed[1:-1]) == value


@pytest.mark.parametrize("value", [
    "", "\\", "\\\\", "\\'", "\\\"", "\\\n", "'\"`", "\"::", "'::", "x\"::y'::`", "\\\"::",
    "$(x)::", "a\\\nb", "\r\n", "\\\r\n", "`", "``\\`",
])
def test_awkward_promisers_round_trip(value: str) -> None:
    policy = ast.Policy((ast.Bundle("agent", "m", sections=(
        ast.PromiseSection("reports", (ast.Promise(value, (ast.Constraint("comment", ast.Scalar(value)),)),)),)),))
    assert_round_trip(policy)


# --- namespaces ------------------------------------------------------------------------------

def test_namespace_switches_are_kept_in_order() -> None:
    src = """bundle agent a { }
body file control { namespace => "ns1"; }
bundle agent b { }
body common control { bundlesequence => { "b" }; }
bundle agent default:c { }
body file control { namespace => "ns2"; }
bundle agent ns1:d { }
"""
    policy = parse(src)
    assert [b.namespace for b in policy.bundles] == ["default", "ns1", "default", "ns1"]
    text = assert_round_trip(policy)
    assert "bundle agent b\n" in text and "bundle agent default:c\n" in text
    assert "bundle agent ns1:d\n" in text
    assert text.count("namespace =>") == 2            # no body file control is ever added


def test_blocks_of_another_namespace_get_a_qualified_name() -> None:
    policy = ast.Policy((ast.Bundle("agent", "x", namespace="other"),),
                        (ast.Body("perms", "p", namespace="third"),))
    assert format_policy(policy) == "bundle agent other:x\n{\n}\n\nbody perms third:p\n{\n}\n"
    assert_round_trip(policy)


def test_unwritable_ast_is_a_value_error() -> None:
    bad = ast.Policy((ast.Bundle("agent", "m", sections=(ast.PromiseSection("vars", (
        ast.Promise("x", (ast.Constraint("string", ast.Scalar("not an id", ast.BARE)),)),)),)),))
    with pytest.raises(ValueError):
        format_policy(bad)


def test_empty_policy() -> None:
    assert format_policy(parse("")) == ""


# --- idempotence and the corpus ------------------------------------------------------------------

def test_idempotent_on_a_messy_policy() -> None:
    src = """# comment
body common control{bundlesequence=>{main};}
bundle agent main{vars:
any:: "x" string=>"a" ; linux|!windows::"y"slist=>{},comment=>'c';
methods: "m" usebundle=>other("$(x)") ;}"""
    once = fmt(src)
    assert fmt(once) == once
    assert parse(once) == parse(src)


def _corpus() -> list[Path]:
    seen: set[Path] = set()
    files: list[Path] = []
    for root in CORPORA:
        if root.is_dir() and root.resolve() not in seen:
            seen.add(root.resolve())
            files += sorted(p for p in root.rglob("*.cf") if p.is_file())
    return files


def test_round_trip_over_the_corpus() -> None:
    files = _corpus()
    if not files:
        pytest.skip("no masterfiles or acceptance suite here")
    checked, failures = 0, []
    for path in files:
        try:
            policy = parse_file(str(path))
        except PolicyError:
            continue
        try:
            text = format_policy(policy)
            again = parse(text, str(path))
            ok = again == policy and format_policy(again) == text
        except (PolicyError, ValueError) as exc:
            ok, text = False, str(exc)
        checked += 1
        if not ok:
            failures.append(str(path))
    assert checked > 0
    assert not failures, f"{len(failures)} of {checked} files do not round-trip: {failures[:10]}"
