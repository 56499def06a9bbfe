"""The PCRE emulation: translation to Python ``re`` and CFEngine's matching
rules (byte subjects, first-match "full match", multiline and dotall)."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cfpromise.eval.functions import pcre

TRANSLATIONS = [
    ("abc", "abc"),
    ("a(?i)b|c", "a(?i:b)|(?i:c)"),
    ("(x(?i)y|z)w", "(x(?i:y)|(?i:z))w"),
    ("(?i)x", "(?i:x)"),
    ("(?-i)x", "(?-i:x)"),
    ("[[:alpha:]]+", "[a-zA-Z]+"),
    ("[^[:space:][:digit:]]", "[^\\t\\n\\x0b\\f\\r 0-9]"),
    ("[[:^digit:]]", "[\\x00-\\x2f\\x3a-\\xff]"),
    ("x\\Z", "x(?=\\n?\\Z)"),
    ("x\\z", "x\\Z"),
    ("(?<n>a)\\k<n>", "(?P<n>a)(?P=n)"),
    ("(?'n'a)\\k{n}", "(?P<n>a)(?P=n)"),
    ("(a)\\g{-1}\\g1", "(a)(?:\\1)(?:\\1)"),
    ("a{,3}b{2}c{1,}", "a\\{,3\\}b{2}c{1,}"),
    ("a\\Q.*\\Eb", "a\\.\\*b"),
    ("[a[&~|]", "[a\\[\\&\\~\\|]"),
    ("\\h+\\x{41}\\e", "[ \\t]+\\x41\\x1b"),
    ("a++(?>b)", "a++(?>b)"),
    ("(?<=a)(?<!b)(?=c)(?!d)", "(?<=a)(?<!b)(?=c)(?!d)"),
    ("(?#comment)x", "x"),
]


@pytest.mark.parametrize("pattern,expected", TRANSLATIONS)
def test_translate(pattern: str, expected: str) -> None:
    assert pcre.translate(pattern) == expected


FULL = [
    ("a|ab", "ab", False),          # the first match must cover the string
    ("ab|a", "ab", True),
    ("^.$", "é", False),            # bytes: é is two bytes
    ("^..$", "é", True),
    ("a(?i)b", "aB", True),
    ("[[:alpha:]]+", "abc", True),
    ("\\d+", "12a", False),
    ("b", "ab", False),
    ("a.c", "a\nc", True),          # DOTALL
    ("x$", "x\n", False),
    ("\\w+", "héllo", False),       # \w is ASCII
    ("(?i)é", "É", False),          # caseless only for ASCII
    ("", "", True),
]


@pytest.mark.parametrize("regex,text,result", FULL)
def test_full_match(regex: str, text: str, result: bool) -> None:
    assert pcre.full_match(regex, text) is result


def test_multiline_anchors() -> None:
    assert pcre.search("^b$", "a\nb\nc") == (2, 3)
    assert pcre.search("c\\Z", "a\nc\n") == (2, 3)
    assert pcre.search("c\\z", "a\nc\n") is None


def test_captures_with_names_and_unset_groups() -> None:
    assert pcre.captures("(?<x>b)(.)(z)?", "abc") == [
        ("0", "bc"), ("x", "b"), ("2", "c"), ("3", "")]
    assert pcre.captures("q", "abc") is None


# subroutine calls as PCRE 8 runs them (cf-agent 3.21 agrees on each: the differential
# test_pcreerrors_differential.py)
CALLS = [
    ("(a|ab)(?1)c", "aabc", False),     # a call is atomic: no way back into it
    ("(a|ab)(?1)c", "aac", True),
    ("(?i)(a)(?-i)(?1)", "AA", True),   # the options where the group is written
    ("(a)(?i)(?1)", "aA", False),
    ("(?i:(a))(?1)", "aA", True),
    ("(?<n>a|b)(?&n)(?P>n)", "aba", True),
    ("x(?1)(y)", "xyy", True),          # a call of a later group
    ("(?(DEFINE)(?<d>[0-9]+))(?&d)-(?&d)", "12-345", True),
    ("(?(DEFINE)(?<d>a))b", "b", True),
]


@pytest.mark.parametrize("regex,text,result", CALLS)
def test_subroutine_calls(regex: str, text: str, result: bool) -> None:
    assert pcre.full_match(regex, text) is result


def test_a_call_captures_nothing() -> None:
    assert pcre.captures("(a|b)(?1)\\1", "abb") is None     # group 1 is still "a"
    assert pcre.captures("(a|b)(?1)\\1", "aba") == [("0", "aba"), ("1", "a")]


@pytest.mark.parametrize("regex", ["(a(?1)?b)", "a(?R)?b", "((a)\\2)(?1)",
                                   "(?1)" * 200 + "(" + "a" * 400 + ")"])
def test_what_a_copy_cannot_do_is_refused(regex: str) -> None:
    # recursion, a reference to what the call itself captures, copies past the bound
    with pytest.raises(pcre.RegexError, match="recursion, subroutine calls"):
        pcre.compile_regex(regex)


@pytest.mark.parametrize("regex", ["(", "[a", "a{2,1}", "(?R)", "\\p{L}", "(?U)x", "a\\G",
                                   "[[:nosuch:]]", "\\"])
def test_bad_or_unsupported_regex(regex: str) -> None:
    with pytest.raises(pcre.RegexError, match="Regular expression error"):
        pcre.compile_regex(regex)


@pytest.mark.parametrize("regex, what, offset", [
    ("(?(", "assertion expected after (?( or (?(?C)", 3),
    ("a(?(1", "malformed number or name after (?(", 5),
    ("}(?(", "assertion expected after (?( or (?(?C)", 4),
    ("(?(a", "malformed number or name after (?(", 4)])
def test_an_unclosed_condition_is_refused_in_pcre_words(regex: str, what: str,
                                                         offset: int) -> None:
    # (it sent the translation back to the pattern's start, forever: 24 GB, then the OOM
    # killer, from an 8-character pattern; cf-agent 3.21 says these words, at that offset)
    with pytest.raises(pcre.RegexError) as caught:
        pcre.compile_regex(regex)
    assert str(caught.value) == (f"Regular expression error: pcre_compile() '{what}' in "
                                 f"expression '{regex}' (offset: {offset})")


def test_split_like_cfengine() -> None:
    assert pcre.split("a,b,,c", ",", 99, True) == ["a", "b", "", "c"]
    assert pcre.split("a,b,,c", ",", 99, False) == ["a", "b", "c"]
    assert pcre.split("a,b,c", ",", 2, True) == ["a", "b"]
    assert pcre.split(",a,", ",", 99, True) == ["", "a", ""]
    assert pcre.split("", ",", 99, True) == []
    assert pcre.split("abc", "x*", 99, True) == ["abc"]      # an empty match stops


def test_split_no_overflow() -> None:
    assert pcre.split_no_overflow("a1b2c3", "[0-9]", 2) == ["a", "b2c3"]
    assert pcre.split_no_overflow("a,b", ",", 5) == ["a", "b"]
    assert pcre.split_no_overflow("abc", "", 3) == ["", "", "abc"]


@given(st.text(alphabet="ab|()*+?.", max_size=8), st.text(alphabet="ab", max_size=6))
def test_translation_agrees_with_python_when_nothing_needs_translating(regex: str,
                                                                      text: str) -> None:
    import re
    try:
        expected = re.compile(regex.encode(), re.M | re.S)
    except re.error:
        return
    m = expected.search(text.encode())
    full = m is not None and m.span() == (0, len(text.encode()))
    assert pcre.full_match(regex, text) is full
