"""Property tests for the parser and the ``-p cf`` printer (hypothesis).

* Generated ASTs (see :mod:`tests.syntax.strategies`) survive the printer:
  ``parse(format_policy(p)) == p``, and printing is idempotent.
* Whatever text ``parse`` is given (random text, random bytes, token soup,
  mutations of a real policy) it returns a Policy or raises PolicyError with a
  real position: never any other exception.

All runs are derandomized with no example database, so CI sees the same examples.
"""
from __future__ import annotations

from typing import Callable

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cfpromise.syntax import ast
from cfpromise.syntax.errors import PolicyError
from cfpromise.syntax.format import format_policy
from cfpromise.syntax.parser import parse
from tests.syntax import strategies as gen

DETERMINISTIC = dict(derandomize=True, database=None, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --- (a) generated ASTs round-trip through the printer ---------------------------------------------

@settings(max_examples=300, **DETERMINISTIC)
@given(gen.policies)
def test_generated_policies_round_trip(policy: ast.Policy) -> None:
    text = format_policy(policy)
    again = parse(text)
    assert again == policy, text
    assert format_policy(again) == text


@settings(max_examples=300, **DETERMINISTIC)
@given(gen.strings)
def test_any_string_round_trips_as_promiser_and_value(value: str) -> None:
    policy = ast.Policy((ast.Bundle("agent", "m", sections=(ast.PromiseSection("reports", (
        ast.Promise(value, (ast.Constraint("comment", ast.Scalar(value)),), ast.Scalar(value)),)),)),))
    assert parse(format_policy(policy)) == policy


@settings(max_examples=100, **DETERMINISTIC)
@given(gen.data_values)
def test_data_containers_round_trip(value: object) -> None:
    data = ast.Data(value, "", canonical=gen.canonical_json(value))
    policy = ast.Policy((ast.Bundle("agent", "m", sections=(ast.PromiseSection("vars", (
        ast.Promise("d", (ast.Constraint("data", data),)),)),)),))
    assert parse(format_policy(policy)) == policy


# --- (b) parse never fails with anything but a positioned PolicyError ---------------------------------

def parses_or_reports(text: str) -> None:
    try:
        result = parse(text, "fuzz.cf")
    except PolicyError as exc:
        assert exc.diagnostics, "PolicyError without a diagnostic"
        coord = exc.diagnostics[0].coord
        assert coord.line >= 1 and coord.col >= 1, coord
    else:
        assert isinstance(result, ast.Policy)


@settings(max_examples=300, **DETERMINISTIC)
@given(st.text())
@example("")
@example("bundle agent x { vars: \"a\" string => \"b\"; }")
@example("@if minimum_version(3.7)\n")
@example("\"")
@example("f(" * 5000)
@example("bundle agent x { vars: \"v\" slist => {" + "f(" * 3000 + "}; }")
def test_parse_text(text: str) -> None:
    parses_or_reports(text)


@settings(max_examples=300, **DETERMINISTIC)
@given(st.binary())
def test_parse_bytes(raw: bytes) -> None:
    parses_or_reports(raw.decode("utf-8", "surrogateescape"))


TOKENS = ["bundle", "body", "promise", "agent", "common", "edit_line", "file", "control", "x",
          "ns:x", "{", "}", "(", ")", ";", ",", "=>", "->", "::", ":", "vars:", "reports:",
          "linux::", "any::", "!a.b::", '"$(x)"::', '"s"', "'s'", "`s`", '"', "'", "$(x)",
          "@(l)", "${a[b]}", "f(", "data", "namespace", "'{\"a\": 1}'", "'[1, 2]'",
          "'--- [a, b]'", "#c", "@if minimum_version(3.7)", "@if feature(yaml)", "@if bad(1)",
          "@else", "@endif", "\\", "\x00", "\r", "é", "\udc80"]
SEPARATORS = ["", " ", "\n", "\t"]


@settings(max_examples=1000, **DETERMINISTIC)
@given(st.lists(st.tuples(st.sampled_from(TOKENS), st.sampled_from(SEPARATORS)), max_size=40))
def test_parse_token_soup(soup: list[tuple[str, str]]) -> None:
    parses_or_reports("".join(tok + sep for tok, sep in soup))


SAMPLE = """\
body common control
{
  bundlesequence => { "main", default:helper("x") };
  inputs => { "$(sys.libdir)/stdlib.cf" };
}

body file control { namespace => "ns1"; }

bundle agent main(a, b)
{
  vars:
      "list" slist => { "a", 'b', `c`, @(d), concat("x", $(y)) };
      "d" data => '{ "k": [1, 2, { "n": null }] }';
      "y" data => '--- { a: [1, 2] }';
    linux.!windows::
      "s" string => "q\\"uote\\\\slash
newline", comment => "c";
    "$(x)"::
      "p" -> { "owner" } handle => "h", meta => { "m" };

  files:
@if minimum_version(3.7)
      "/tmp/x" create => "true", perms => m("644");
@endif

  reports:
      "hello $(a)" -> "me";
}

body perms m(mode)
{
  mode => "$(mode)";
 linux::
  owners => { "root" };
}

promise agent custom { path => "/bin/true"; interpreter => "/bin/sh"; }
"""
MUTATION_CHARS = list("{}();,\"'=>:-@$`\\#\n ") + ["::", "=>", "->", "@if ", "@endif", "\x00", "é"]


@st.composite
def mutations(draw: Callable[..., object]) -> str:
    text = SAMPLE
    edits = draw(st.lists(st.tuples(st.booleans(), st.integers(0, len(SAMPLE)),
                                    st.integers(1, 4), st.sampled_from(MUTATION_CHARS)),
                          min_size=1, max_size=6))
    for delete, where, length, char in edits:   # type: ignore[misc]
        where = min(where, len(text))
        text = text[:where] + text[where + length:] if delete else text[:where] + char + text[where:]
    return text


def test_sample_policy_parses() -> None:
    assert len(parse(SAMPLE).bundles) == 1


@settings(max_examples=1000, **DETERMINISTIC)
@given(mutations())
def test_parse_mutated_policy(text: str) -> None:
    parses_or_reports(text)


# Inline YAML given to a data attribute: PyYAML builds values JSON cannot hold (dates,
# bytes, sets, int keys next to str keys, cycles) or raises non-YAMLError errors on bad
# tags.  These once escaped the parser as TypeError/ValueError/KeyError.
YAML_CRASHES = ["--- [2001-01-01]", "--- {1: a, b: c}", "--- &a [*a]", "--- [!!int 0x]",
                "--- [!!binary aGk=]", "--- [!!set {a}]", "--- [!!float x]", "--- [!!bool x]"]


@pytest.mark.parametrize("yaml_text", YAML_CRASHES)
def test_inline_yaml_never_crashes(yaml_text: str) -> None:
    parses_or_reports("bundle agent x { vars: \"v\" data => '%s'; }" % yaml_text)
