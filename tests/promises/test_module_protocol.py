"""The module protocol: lines in, variables, classes and cf-agent's messages out.

Cases come from cf-agent 3.21 runs (``cf-agent -K -v`` on ``module => "true"``
commands) and from the acceptance suite's 08_commands/01_modules inputs.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cfpromise.promises.module_protocol import (
    ModuleSession,
    command_arg0,
    initial_context,
    parse_list,
)
from tests.promises.fakes import FakeAgent

COMMAND = "/usr/local/bin/my-mod --flag"
TAGS = ("source=module", f"derived_from={COMMAND}")


def feed(*lines: str, print_other: bool = True, namespace: str = "default",
         command: str = COMMAND) -> FakeAgent:
    agent = FakeAgent()
    session = ModuleSession(agent, command, namespace, print_other=print_other)
    for line in lines:
        session.feed(line)
    return agent


def values(agent: FakeAgent) -> dict[str, Any]:
    return {ref: value for ref, (_, value, _) in agent.variables.items()}


@pytest.mark.parametrize("command, arg0, context", [
    ("/usr/local/bin/my-mod --flag", "/usr/local/bin/my-mod", "my_mod"),
    ('"/opt/my dir/mod.sh" x', "/opt/my dir/mod.sh", "mod_sh"),
    ("/bin/cat /tmp/x", "/bin/cat", "cat"),
    ("/bin/echo", "/bin/echo", "echo"),
    ("cat file", "cat", "cat"),
    ("/usr/bin/", "/usr/bin/", "bin"),
])
def test_context_from_command(command: str, arg0: str, context: str) -> None:
    assert command_arg0(command) == arg0
    assert initial_context(command) == context


@pytest.mark.parametrize("text, items", [
    ('{"abc", "def", "ghi"}', ["abc", "def", "ghi"]),
    ('{"{{abc}}", "  \' def}", "ghi\'\'\'"} ', ["{{abc}}", "  ' def}", "ghi'''"]),
    ("{'{{a,bc}}', '  \" de,f}', 'gh,,i\"\"\"'}", ["{{a,bc}}", '  " de,f}', 'gh,,i"""']),
    ('{"{{a\'bc\',,}}", \'  ",, d"ef}\', "ghi,},\'\'\'"}', ["{{a'bc',,}}", '  ",, d"ef}',
                                                        "ghi,},'''"]),
    ('{ "x" , \'y\' }  ', ["x", "y"]),
    ('  {"x"}', ["x"]),
    ('{"x"}\t', ["x"]),
    ("{'a\"b', \"c'd\"}", ['a"b', "c'd"]),
    # accepted by the acceptance suite (CFE-2139, CFE-2140), not by Debian's 3.21.0
    ("{ }", []),
    ("{}", []),
    ('{ "list_element_with_trailing_comma", }', ["list_element_with_trailing_comma"]),
])
def test_parse_list(text: str, items: list[str]) -> None:
    assert parse_list(text) == (items, "")


@pytest.mark.parametrize("text, error", [
    ('{"x"} junk', "Parsing error : Malformed string"),
    ('{"x""y"}', "Parsing error : Malformed string"),
    ('{"a\\"b"}', "Parsing error : Malformed string"),
    ("{ , }", "Parsing error : Malformed string"),
    ('{"x",,"y"}', "Parsing error : Malformed string"),
    ("{,}", "Parsing error : Malformed string"),
    ("{a}", "Parsing error : Malformed string"),
    ('"s"', "Parsing error : Malformed string"),
    ('{"x" \'y\'}', "Parsing error : Malformed string"),
    ('{"x"}}', "Parsing error : Malformed string (unexpected end of input)"),
    ("{", "Parsing error : Malformed string (unexpected end of input)"),
    ("", "Parsing error : Malformed string (unexpected end of input)"),
    (' a, b', "Parsing error : Malformed string"),
])
def test_parse_list_errors(text: str, error: str) -> None:
    assert parse_list(text) == (None, error)


@pytest.mark.parametrize("lines, expected", [
    (["=x=1"], {"default:my_mod.x": "1"}),
    (["=answer=42", "=x= spaced = "], {"default:my_mod.answer": "42",
                                       "default:my_mod.x": " spaced = "}),
    (["=novalue"], {"default:my_mod.novalue": ""}),
    (["=empty="], {"default:my_mod.empty": ""}),
    (["=answer[42]=Yes", "=answer[41]=No"], {"default:my_mod.answer[42]": "Yes",
                                             "default:my_mod.answer[41]": "No"}),
    (["=myvar[dot.dash-test]=42"], {"default:my_mod.myvar[dot.dash-test]": "42"}),
    (["=array[/path/key]=v", "=array[key@1]=w"], {"default:my_mod.array[/path/key]": "v",
                                                  "default:my_mod.array[key@1]": "w"}),
    (["=a.b=1", "=ns:x=2", "=ns2:s.y=4"], {"default:a.b": "1", "ns:my_mod.x": "2",
                                           "ns2:s.y": "4"}),
    (["==nameless"], {}),
    (["@l={ \"a\", 'b' }"], {"default:my_mod.l": ["a", "b"]}),
    (["@list_from_module={ }"], {"default:my_mod.list_from_module": []}),
    (['%d={"x":[456,789]}'], {"default:my_mod.d": {"x": [456, 789]}}),
    (['%d=["read", "some", "strings"]  '], {"default:my_mod.d": ["read", "some", "strings"]}),
    (['%bad={"x":"y"', '%prim="long string here"', "%null=null"], {}),
    (["^context=xyz_123___456", "=myvar=hello there"],
     {"default:xyz_123___456.myvar": "hello there"}),
    (["^context=_456", "=v=1", "^context=a__456__", "=v=2"],
     {"default:_456.v": "1", "default:a__456__.v": "2"}),
    (["^context=" + "abcdefghij" * 5 + "XYZ", "=long=1"],
     {"default:" + "abcdefghij" * 5 + ".long": "1"}),
    (["^context=foo bar", "=y=2"], {"default:my_mod.y": "2"}),
    (["^context=", "=y=2"], {"default:my_mod.y": "2"}),
])
def test_variables(lines: list[str], expected: dict[str, Any]) -> None:
    assert values(feed(*lines)) == expected


def test_variable_types_and_tags() -> None:
    agent = feed("=s=1", "@l={\"a\"}", '%d={"a":1}', "^meta=xyz,abc=def,,??what is this??",
                 "=t=2")
    assert agent.variables["default:my_mod.s"] == ("string", "1", TAGS)
    assert agent.variables["default:my_mod.l"] == ("slist", ["a"], TAGS)
    assert agent.variables["default:my_mod.d"] == ("data", {"a": 1}, TAGS)
    assert agent.variables["default:my_mod.t"][2] == (
        "xyz", "abc=def", "??what is this??", *TAGS)


@pytest.mark.parametrize("lines, defined, undefined", [
    (["+CLASSTOBEDEFINED", "-UNDEFINEDCLASS"], ["default:CLASSTOBEDEFINED"],
     [("default", "UNDEFINEDCLASS")]),
    (["+my-class", "+x.y", "+a b"], ["default:my_class", "default:x_y", "default:a_b"], []),
    (["+ns1:cz"], ["ns1:cz"], []),
    (["+cpx", "+cpy", "-cpx,cpy"], [], [("default", "cpx"), ("default", "cpy")]),
    (["+"], [], []),
])
def test_classes(lines: list[str], defined: list[str],
                 undefined: list[tuple[str, str]]) -> None:
    agent = feed(*lines)
    assert sorted(agent.classes) == sorted(defined)
    assert agent.undefined == undefined


def test_classes_go_to_the_promise_namespace() -> None:
    agent = feed("+cc", "-dd", namespace="myns")
    assert list(agent.classes) == ["myns:cc"]
    assert agent.undefined == [("myns", "dd")]


def test_persistence_applies_to_following_classes() -> None:
    agent = feed("+A", "^persistence=20", "+C", "^persistence=0", "+D", "^persistence=",
                 "+B")
    persist = {name: kw["persist_minutes"] for name, kw in agent.classes.items()}
    assert persist == {"default:A": 0, "default:C": 20, "default:D": 0, "default:B": 0}
    assert "Module set persistent class 'C' for 20 minutes" in agent.messages("verbose")
    assert agent.messages("info") == ["Unknown extended module command '^persistence='"]


@pytest.mark.parametrize("lines, level, messages", [
    (["^context=foo bar"], "error",
     ["Module protocol was given an unacceptable ^context directive 'foo bar', skipping"]),
    (["^foo=bar", "^meta="], "info", ["Unknown extended module command '^foo=bar'",
                                      "Unknown extended module command '^meta='"]),
    (["@w="], "error", ["Parsing error : Malformed string (unexpected end of input)",
                        "Module protocol could not parse variable w's data content "]),
    (["@h={a}"], "error", ["Parsing error : Malformed string",
                           "Module protocol could not parse variable h's data content {a}"]),
    (['%p="s"'], "info", ["Module protocol JSON '' should be object or array; wasn't"]),
    (["+" + "1" * 1024], "error",
     ["Module protocol was given an overlong +class line (1025 bytes), skipping"]),
    (["-" + "1" * 1025], "error",
     ["Module protocol was given an overlong -class line (1026 bytes), skipping"]),
    (["=x=" + "1" * 4354], "error",
     ["Module protocol was given an overlong variable =line (4357 bytes), skipping"]),
    (["@z={ " + '"1234567890", ' * 337 + '"1234567890" }'], "error",
     ["Module protocol was given an overlong variable @line (4737 bytes), skipping"]),
    (['@z={"' + "x" * 1025 + '"}'], "error",
     ["Module protocol was given a variable @ line with an oversize entry, skipping"]),
    (["&f=/nonexistent/file.json"], "error",
     ["could not load module file '/nonexistent/file.json'"]),
    (["other line", "  "], "info", [f"M '{COMMAND}': other line", f"M '{COMMAND}':   "]),
])
def test_messages(lines: list[str], level: str, messages: list[str]) -> None:
    assert feed(*lines).messages(level) == messages


def test_json_parse_failure_is_reported_at_info() -> None:
    agent = feed('%bad={"x":"y"')
    assert agent.variables == {}
    assert agent.messages("info")[0].startswith("Failed to parse JSON '' for module protocol: ")


def test_other_lines_are_silent_unless_printing() -> None:
    assert feed("other line", print_other=False).logs == [
        ("verbose", "Module context 'my_mod'")]


def test_illegal_identifier_characters_are_only_reported() -> None:
    agent = feed("=sp ace =v")
    assert values(agent) == {"default:my_mod.sp ace ": "v"}
    assert agent.messages("verbose").count(
        "Module protocol contained an illegal character ' ' in class/variable identifier "
        "'sp ace '.") == 2


def test_verbose_trail() -> None:
    agent = feed("^context=ctx", "=x=1", "+c", "^meta=a,b")
    assert agent.messages("verbose") == [
        "Module context 'my_mod'",
        "Module changed variable context from 'my_mod' to 'ctx'",
        "Defined variable 'x' in context 'ctx' with value '1'",
        "Activating classes from module protocol: 'c'",
        "Module set meta tags to 'a,b'",
    ]


def test_long_lines_are_cut_like_cf_agent() -> None:
    """long-module-lines.cf: values keep 4095 characters, class names 1023."""
    value = "0123456789abcdef" * 256
    agent = feed("=x4095=" + value[:4095], "=x4096=" + value[:4096], "+c" + "1" * 1021)
    assert len(agent.value("default:my_mod.x4095")) == 4095
    assert agent.value("default:my_mod.x4096") == value[:4095]
    assert list(agent.classes) == ["default:c" + "1" * 1021]


@pytest.mark.parametrize("suffix, content, expected", [
    (".json", '{ "hello": "world" }', {"hello": "world"}),
    (".yaml", "a: 1\nb: [x, z]\n", {"a": 1, "b": ["x", "z"]}),
    (".csv", "a,b\n1,\"2,3\"\n", [["a", "b"], ["1", "2,3"]]),
    (".env", "# c\nKEY=value\nQ=\"quoted\"\n", {"KEY": "value", "Q": "quoted"}),
])
def test_data_files(tmp_path: Path, suffix: str, content: str, expected: Any) -> None:
    path = tmp_path / f"data{suffix}"
    path.write_text(content)
    agent = feed(f"&data={path}")
    assert agent.variables["default:my_mod.data"][0] == "data"
    assert json.loads(json.dumps(agent.value("default:my_mod.data"))) == expected


def test_acceptance_004_lists() -> None:
    """08_commands/01_modules/004.cf.txt and what 004.cf expects of it."""
    agent = feed('@mylist={"abc", "def", "ghi"} ',
                 '@myalist={"{{abc}}", "  \' def}", "ghi\'\'\'"} ',
                 "@myblist={'{{a,bc}}', '  \" de,f}', 'gh,,i\"\"\"'} ",
                 '@myclist={"{{a\'bc\',,}}", \'  ",, d"ef}\', "ghi,},\'\'\'"} ',
                 command="/bin/cat /x/004.cf.txt")
    assert values(agent) == {
        "default:cat.mylist": ["abc", "def", "ghi"],
        "default:cat.myalist": ["{{abc}}", "  ' def}", "ghi'''"],
        "default:cat.myblist": ["{{a,bc}}", '  " de,f}', 'gh,,i"""'],
        "default:cat.myclist": ["{{a'bc',,}}", '  ",, d"ef}', "ghi,},'''"],
    }


def test_acceptance_set_context_containers() -> None:
    """set-context.cf: which data containers are defined."""
    agent = feed("^context=xyz_123___456", '%mycontainer1={"x":[456,789]}',
                 '%mycontainer2={"x":"y"', '%mycontainer3="long string here"',
                 "%mycontainer4=null", '%mycontainer5=["read", "some", "strings"]',
                 '%mycontainer6={"mix": ["match"], "ping": "pong", "paddle": true, '
                 '"nothing": null}')
    assert sorted(agent.variables) == ["default:xyz_123___456.mycontainer1",
                                       "default:xyz_123___456.mycontainer5",
                                       "default:xyz_123___456.mycontainer6"]
