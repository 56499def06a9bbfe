"""Data container built-ins and string_mustache."""
from __future__ import annotations

from typing import Any

import pytest

from cfpromise.eval.functions import mustache
from cfpromise.eval.functions.api import FunctionError, Unresolved
from tests.functions.fakectx import FakeContext


@pytest.fixture
def ctx() -> FakeContext:
    c = FakeContext()
    c.set("l", ["a", "b"], "slist")
    c.set("s", "hello")
    c.set("d", {"k": "v", "n": 2, "r": 2.5, "arr": [1, "two"], "obj": {"p": "q"}})
    return c


CASES: list[tuple[str, tuple[Any, ...], Any]] = [
    ("parsejson", ('{"a": [1, "x"], b: true}',), {"a": [1, "x"], "b": True}),
    ("parsejson", ("[s, l]",), ["hello", ["a", "b"]]),
    ("parseyaml", ("a: 1\nb: [yes, 'no', ~]",), {"a": 1, "b": [True, "no", None]}),
    ("storejson", ("l",), '[\n  "a",\n  "b"\n]'),
    ("storejson", ('{"b": {}, "a": 1.5}',), '{\n  "a": 1.5,\n  "b": {\n  }\n}'),
    ("mergedata", ("d", '{"k": "new", "x": [1]}'),
     {"n": 2, "r": 2.5, "arr": [1, "two"], "obj": {"p": "q"}, "k": "new", "x": [1]}),
    ("mergedata", ("l", '["c"]'), ["a", "b", "c"]),
    ("mergedata", ('[1, 2]', '{"a": 2}'), {"a": 2, "0": 1, "1": 2}),
    ("mergedata", ("l",), ["a", "b"]),
    ("data_expand", ('{"$(s)": ["$(s)!", 1, "$(nosuch)"]}',),
     {"hello": ["hello!", 1, "$(nosuch)"]}),
    ("validjson", ('{"a": 1}',), True),
    ("validjson", ("[1] junk",), True),
    ("validjson", ('"x"', "true"), True),
    ("validjson", ('{"a": }',), False),
    ("validjson", ("",), False),
    ("validdata", ('[1]', "JSON"), True),
    ("type", ("s",), "string"),
    ("type", ("l", "yes"), "policy slist"),
    ("type", ("d", "true"), "data object"),
    ("type", ("d[arr]", "true"), "data array"),
    ("type", ("nosuch",), "none"),
    ("type", ("nosuch", "true"), "policy none"),
    ("string_mustache", ("{{#arr}}<{{.}}>{{/arr}}|{{obj.p}}|{{$obj}}|{{r}}", "d"),
     '<1><two>|q|{"p":"q"}|2.50'),
    ("string_mustache", ("{{%-top-}}", "l"), '[\n  "a",\n  "b"\n]'),
]


@pytest.mark.parametrize("name,args,expected", CASES)
def test_data_functions(ctx: FakeContext, name: str, args: tuple[Any, ...],
                        expected: Any) -> None:
    result = ctx.call(name, *args)
    assert result == expected
    if isinstance(expected, dict):
        assert list(result) == list(expected)


ERRORS = [
    ("parsejson", ("[1,",), "Error parsing JSON"),
    ("parsejson", ('"scalar"',), "Non-container"),
    ("parseyaml", ("}",), "Error parsing YAML"),   # ("a: [1" is {"a": [1]}: libyaml's events)
    ("parseyaml", ("just text",), "Non-container"),
    ("storejson", ("nosuch",), "does not resolve"),
    ("mergedata", ("l", "nosuch"), "does not resolve"),
    ("mergedata", (), "at least one argument"),
    ("data_expand", ("nosuch",), "does not resolve"),
    ("validdata", ("[1]", "YAML"), "not supported"),
    ("string_mustache", ("{{#x}}", '{"x": [1]}'), "Unexpected end to Mustache template"),
    ("string_mustache", ("{{x}}", '{"x": [1]}'), "container"),
    ("string_mustache", ("{{#x}}{{/x}}", '{"x": 3}'), "sections can only take"),
    ("string_mustache", ("{{x", "{}"), "end delimiter"),
    ("string_mustache", ("{{/x}}", "{}"), "Unknown section close"),
    ("string_mustache", ("{{x}}", "nosuch"), "does not resolve"),
]


@pytest.mark.parametrize("name,args,message", ERRORS)
def test_data_errors(ctx: FakeContext, name: str, args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(FunctionError, match=message):
        ctx.call(name, *args)


def test_mapdata_modes(ctx: FakeContext) -> None:
    data = '{"a": 1, "b": "x y"}'
    assert ctx.call("mapdata", "none", "$(this.k):$(this.v)", data) == ["a:1", "b:x y"]
    assert ctx.call("mapdata", "canonify", "$(this.v)", data) == ["1", "x_y"]
    assert ctx.call("mapdata", "json", '{"key": "$(this.k)", "v": "$(this.v)"}',
                    '{"a": "q\\"uote"}') == [{"key": "a", "v": 'q"uote'}]
    assert ctx.call("mapdata", "json", "not json $(this.k)", data) == []
    assert ctx.call("mapdata", "none", "$(this.k)-$(this.k[1])-$(this.v)",
                    '{"a": {"x": 1}, "b": [7]}') == ["a-x-1", "b-$(this.k[1])-7"]
    with pytest.raises(FunctionError, match="unknown conversion"):
        ctx.call("mapdata", "bogus", "x", data)
    with pytest.raises(Unresolved):
        ctx.call("mapdata", "none", "$(nosuch)", data)


def test_mapdata_json_pipe(ctx: FakeContext) -> None:
    result = ctx.call("mapdata", "json_pipe", "/bin/cat", '{"a": 1}')
    assert result == [{"a": 1}]


MUSTACHE = [
    ("{{x}}", {"x": "<&\">"}, "&lt;&amp;&quot;&gt;"),
    ("{{{x}}}{{&x}}", {"x": "<"}, "<<"),
    ("{{#b}}yes{{/b}}{{^b}}no{{/b}}", {"b": False}, "no"),
    ("{{#l}}{{@}}={{.}},{{/l}}", {"l": ["a", "b"]}, "0=a,1=b,"),
    ("{{#-top-}}{{@}};{{/-top-}}", {"a": 1, "b": 2}, "a;b;"),
    ("[{{#o}}{{k}}|{{.}}|{{@}}{{/o}}]", {"o": {"k": "v", "j": "w"}}, "[v|v|kv|w|j]"),
    ("[{{#o}}{{x}}{{/o}}]", {"o": [{"x": 1}, {"x": 2}]}, "[12]"),
    ("{{a.b.c}}", {"a": {"b": {"c": 1}}}, "1"),
    ("{{missing}}|{{n}}|{{t}}|{{f}}", {"n": None, "t": True, "f": 1.5}, "||true|1.50"),
    ("{{#e}}x{{/e}}{{^e}}empty{{/e}}", {"e": []}, "empty"),
    ("{{=<% %>=}}<% x %>{{x}}", {"x": 1}, "1{{x}}"),
    ("a\n  {{#l}}\n[{{.}}]\n  {{/l}}\nb", {"l": [1, 2]}, "a\n[1]\n[2]\nb"),
    ("{{! comment }}x", {}, "x"),
    ("{{}}", {}, "{{}}"),
    ("{{%x}}", {"x": {"b": [1]}}, '{\n  "b": [\n    1\n  ]\n}'),
    ("{{$x}}", {"x": "plain"}, "plain"),
    ("{{#a}}{{/a}}[{{x}}]", {"a": {"x": 1}, "x": 2}, "[2]"),
]


@pytest.mark.parametrize("template,data,expected", MUSTACHE)
def test_mustache(template: str, data: Any, expected: str) -> None:
    assert mustache.render(template, data) == expected


def test_mustache_key_outside_section() -> None:
    with pytest.raises(mustache.MustacheError):
        mustache.render("{{@}}", {})


def test_string_mustache_with_datastate(ctx: FakeContext) -> None:
    ctx.define("linux")
    assert ctx.call("string_mustache", "{{#classes.linux}}L{{/classes.linux}} {{vars.t.s}}") \
        == "L hello"
