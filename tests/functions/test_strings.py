"""String and regular-expression built-ins (values checked against cf-agent 3.21)."""
from __future__ import annotations

from typing import Any

import pytest

from cfpromise.eval.functions.api import FunctionError
from tests.functions.fakectx import FakeContext

CASES: list[tuple[str, tuple[Any, ...], Any]] = [
    ("canonify", ("aé-b c",), "a___b_c"),
    ("canonifyuniquely", ("a b",), "a_b_7dbde93504122a707f849f2c12bdd9de71b41929"),
    ("concat", ("a", "b", ["c", "d"]), "abcd"),
    ("concat", (), ""),
    ("escape", ("a.b_c d-é/1",), "a\\.b\\_c\\ d\\-\\\udcc3\\\udca9\\/1"),
    ("string_downcase", ("AbÉ",), "abÉ"),
    ("string_upcase", ("abcé",), "ABCé"),
    ("string_reverse", ("abc",), "cba"),
    ("string_reverse", ("aé",), "\udca9\udcc3a"),
    ("string_length", ("é",), "2"),
    ("string_head", ("abcdef", "3"), "abc"),
    ("string_head", ("abcdef", "-2"), "abcd"),
    ("string_head", ("abc", "-9"), ""),
    ("string_head", ("éa", "1"), "\udcc3"),
    ("string_tail", ("abcdef", "2"), "ef"),
    ("string_tail", ("abcdef", "-2"), "cdef"),
    ("string_tail", ("abc", "9"), "abc"),
    ("string_trim", ("  a b \t\n",), "a b"),
    ("string_replace", ("abcabc", "", "x"), "abcabc"),
    ("string_replace", ("aaa", "aa", "b"), "ba"),
    ("string", ("x",), "x"),
    ("string", (["a", 'b"c'],), '["a","b\\"c"]'),
    ("string", ({"b": 1, "a": [2]},), '{"a":[2],"b":1}'),
    ("lastnode", ("a/b/c", "/"), "c"),
    ("lastnode", ("a/b/", "/"), ""),
    ("lastnode", ("a.b", "\\."), "b"),
    ("string_split", ("a1b2c", "[0-9]", "2"), ["a", "b2c"]),
    ("string_split", ("a,b,c", ",", "9"), ["a", "b", "c"]),
    ("splitstring", ("a1b2c3", "[0-9]", "2"), ["a", "b"]),
    ("splitstring", ("a,,b", ",", "9"), ["a", "", "b"]),
    ("strcmp", ("a", "a"), True),
    ("strcmp", ("a", "A"), False),
    ("isgreaterthan", ("10", "9"), True),
    ("isgreaterthan", ("b", "a"), True),
    ("isgreaterthan", ("1k", "999"), True),
    ("islessthan", ("abc", "abd"), True),
    ("islessthan", ("2", "10"), True),
    ("regcmp", ("[[:digit:]]+", "123"), True),
    ("regcmp", ("a|ab", "ab"), False),
    ("regcmp", ("b", "abc"), False),
    ("regcmp", ("(", "x"), False),          # cf-agent 3.21: an error said, and no match
    ("regex_replace", ("abcabc", "b(c)", "[\\1|$1|$2|$+|$&|$`|$'|$$]", "g"),
     "a[c|c||c|bc|||$$]a[c|c||c|bc|||$$]"),
    ("regex_replace", ("abc", "B", "x", "i"), "axc"),
    ("regex_replace", ("abc", "B", "x", ""), "abc"),
    ("regex_replace", ("aaa", "a", "b", ""), "baa"),
    ("regex_replace", ("abc", "x*", "-", "g"), "-a-b-c-"),
    ("regex_replace", ("a.b", ".", "\\t\\$x", "gT"), "\\t\\$x\\t\\$x\\t\\$x"),
    ("regex_replace", ("a.b", "\\.", "\\t\\$", "g"), "a\t$b"),
    ("regex_replace", ("x\ny", "^y", "Y", "m"), "x\nY"),
    ("regex_replace", ("x\ny", "^y", "Y", ""), "x\ny"),
    ("format", ("%d|%5.1f|%-4s|%#o|%#x|%x|%X|%%", "42abc", "3.14159", "ab", "8", "255",
                "-1", "1"), "42|  3.1|ab  |010|0xff|ffffffffffffffff|(unhandled format)|%"),
    ("format", ("100%",), "100"),
    ("format", ("%5s|%.2s|x", "é", "éa"), "   é|é|x"),
    ("format", ("%d", ""), "0"),
    ("format", ("no conversion",), "no conversion"),
    ("format", ("%s-%s", ["a", "b"]), "a-b"),
]


@pytest.mark.parametrize("name,args,expected", CASES)
def test_string_functions(name: str, args: tuple[Any, ...], expected: Any) -> None:
    assert FakeContext().call(name, *args) == expected


def test_format_structures() -> None:
    ctx = FakeContext()
    ctx.set("l", ["a", 'b"c'], "slist")
    ctx.set("d", {"b": 1, "a": 2.5})
    assert ctx.call("format", "%S|%S", "l", "d") == '{ "a", "b\\"c" }|{"a":2.5000,"b":1}'
    with pytest.raises(FunctionError, match="needs a data container or a list"):
        ctx.call("format", "%S", "nosuch")


ERRORS = [
    ("regex_replace", ("x", "(", "y", "g"), "regex_replace: couldn't use regex '\\('"),
    ("regex_replace", ("x", "x", "y", "U"), "ungreedy"),
    ("string_split", ("abc", "b", "0"), "invalid maxent"),
    ("format", ("%d %d", "1"), "enough parameters"),
    ("format", ("%hd", "1"), "modifier"),
    ("isgreaterthan", ("1abc", "2"), "real number"),
    ("data_regextract", ("x", "abc"), "does not match"),
]


@pytest.mark.parametrize("name,args,message", ERRORS)
def test_string_errors(name: str, args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(FunctionError, match=message):
        FakeContext().call(name, *args)


def test_regextract_defines_the_array() -> None:
    ctx = FakeContext()
    assert ctx.call("regextract", "(?<first>\\d+)-(\\d+)", "a 10-20 b", "m") is True
    assert {k: v.value for k, v in ctx.variables()} == {
        "default:t.m[0]": "10-20", "default:t.m[first]": "10", "default:t.m[2]": "20"}
    assert ctx.vars["default:t.m[0]"].tags == ("source=function", "function=regextract")
    assert ctx.call("regextract", "zz", "abc", "n") is False
    assert ctx.lookup("n[0]") is None


def test_data_regextract() -> None:
    assert FakeContext().call("data_regextract", "(?<x>b)(.)", "abc") == \
        {"0": "bc", "x": "b", "2": "c"}
