"""Numeric, time, hash and version built-ins (values from cf-agent 3.21)."""
from __future__ import annotations

import time
from typing import Any

import pytest

from cfpromise.eval.functions.api import FunctionError
from cfpromise.eval.functions.common import double_from_string, int_from_string
from cfpromise.eval.functions.maths import evaluate_math
from tests.functions.fakectx import FakeContext

EVAL = [
    ("1 + 2", "3.000000"), ("3 + 4 * 2", "11.000000"), ("2 ^ 3 ^ 2", "64.000000"),
    ("2**10", "1024.000000"), ("10 / 4", "2.500000"), ("7 % 3", "1.000000"),
    ("-7 % 3", "-1.000000"), ("1 == 1", "1.000000"), ("1 < 2", "1.000000"),
    ("1 <= 1", "1.000000"), ("5 >= 6", "0.000000"), ("2 < 3 < 1", "0.000000"),
    ("2k", "2000.000000"), ("1.5m", "1500000.000000"), ("(1+2)*3", "9.000000"),
    ("e", "2.718282"), ("pi", "3.141593"), ("pi_2", "3.141593"), ("log2e", "1.442695"),
    ("1_pi", "1.000000"), ("sqrt(16)", "4.000000"), ("ceil(1.2)", "2.000000"),
    ("step(-1)", "0.000000"), ("abs(-2)", "2.000000"), ("1 2", "1.000000"),
    ("3 != 2", "3.000000"), ("1e3", "1.000000"), ("log(e)", "1.000000"),
    ("-2 - -3", "1.000000"), ("1--1", "2.000000"), (".5", "0.500000"), ("5.", "5.000000"),
    ("  4 ", "4.000000"), ("100%", "100.000000"), ("1 + ", "1.000000"),
    ("1/0", "inf"), ("-1/0", "-inf"), ("1/0 - 1/0", "-nan"), ("log(0)", "-inf"),
    ("sqrt(-1)", "-nan"), ("0/0", "-nan"), ("0x10", "0.000000"), ("-(3)", ""), ("abc", ""), ("", "0.000000"),  # cf-agent 3.21: empty is 0
    ("sqrt(1+3)", ""),
]


@pytest.mark.parametrize("expr,expected", EVAL)
def test_eval_math(expr: str, expected: str) -> None:
    assert FakeContext().call("eval", expr, "math", "infix") == expected


@pytest.mark.parametrize("expr,expected", [("1 + 2", True), ("step(-1)", False),
                                           ("abc", False), ("0", False), ("sin(0)", False)])
def test_eval_class(expr: str, expected: bool) -> None:
    assert FakeContext().call("eval", expr, "class", "infix") is expected


def test_eval_default_mode() -> None:
    assert FakeContext().call("eval", "2*3") == "6.000000"
    with pytest.raises(ValueError):
        evaluate_math("1 % 0")


CASES: list[tuple[str, tuple[Any, ...], Any]] = [
    ("int", ("3.9",), "3"),
    ("int", ("-3.9",), "-3"),
    ("int", ("2k",), "2000"),
    ("sum", ('["1", "2.5", "-3", "x"]',), "0.500000"),
    ("sum", ("[]",), "0.000000"),
    ("product", ('[2, 3.5]',), "7.000000"),
    ("mean", ('["1", "2.5", "-3", "x"]',), "0.125000"),
    ("variance", ('[1, 2, 3, 4]',), "1.666667"),
    ("variance", ('[5]',), "0.000000"),
    ("max", ('["b", "a", "10", "9"]', "int"), "10"),
    ("max", ('["b", "a", "10", "9"]', "lex"), "b"),
    ("min", ('["b", "a", "10", "9"]', "lex"), "10"),
    ("min", ('["b", "a", "10", "9"]', "int"), "a"),
    ("max", ('["10.1.2.3", "192.168.0.1", "nope"]', "ip"), "192.168.0.1"),
    ("irange", ("5", "1"), "1,5"),
    ("rrange", ("1.5", "9"), "1.500000,1.500000"),
    ("randomint", ("4", "4"), "4"),
    ("hash", ("abc", "md5"), "900150983cd24fb0d6963f7d28e17f72"),
    ("hash", ("abc", "sha1"), "a9993e364706816aba3e25717850c26c9cd0d89d"),
    ("hash", ("abc", "sha256"),
     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    ("hash_to_int", ("0", "100", "abc"), "74"),
    ("hash_to_int", ("-5", "5", "hello"), "-3"),
    ("hash_to_int", ("7", "7", "x"), "7"),
    ("accumulated", ("1", "1", "1", "1", "1", "1"), "34218061"),
    ("strftime", ("gmtime", "%Y-%m-%d %H:%M:%S %j", "1000000000"), "2001-09-09 01:46:40 252"),
    ("cf_version_at", ("3",), True),
    ("cf_version_at", ("3.21",), True),
    ("cf_version_at", ("3.21.1",), False),
    ("cf_version_after", ("3.20.99",), True),
    ("cf_version_after", ("3.21",), False),
    ("cf_version_before", ("4",), True),
    ("cf_version_maximum", ("3.21.0",), True),
    ("cf_version_minimum", ("3.22",), False),
    ("cf_version_between", ("3.20", "3.22"), True),
    ("cf_version_between", ("3.22", "3.23"), False),
]


@pytest.mark.parametrize("name,args,expected", CASES)
def test_numeric_functions(name: str, args: tuple[Any, ...], expected: Any) -> None:
    assert FakeContext().call(name, *args) == expected


ERRORS = [
    ("int", ("abc",), "failed to parse"),
    ("mean", ("[]",), "empty"),
    ("variance", ("[]",), "empty"),
    ("max", ("[]", "lex"), "empty"),
    ("sum", ("nosuch",), "does not resolve"),
    ("irange", ("x", "1"), "not integers"),
    ("rrange", ("x", "1"), "real value"),
    ("randomint", ("x", "1"), "not integers"),
    ("hash", ("x", "crc"), "unknown hash"),
    ("hash_to_int", ("x", "1", "a"), "not integers"),
    ("cf_version_at", ("3.x",), "incorrect"),
    ("strftime", ("gmtime", "", "0"), "empty"),
]


@pytest.mark.parametrize("name,args,message", ERRORS)
def test_numeric_errors(name: str, args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(FunctionError, match=message):
        FakeContext().call(name, *args)


def test_randomint_range() -> None:
    values = {int(FakeContext().call("randomint", "0", "3")) for _ in range(50)}
    assert values <= {0, 1, 2}


def test_dates() -> None:
    ctx = FakeContext()
    assert ctx.call("on", "2000", "0", "0", "0", "0", "0") == \
        str(int(time.mktime((2000, 1, 1, 0, 0, 0, 0, 1, -1))))
    assert ctx.call("on", "2000", "12", "0", "0", "0", "0") == \
        str(int(time.mktime((2001, 1, 1, 0, 0, 0, 0, 1, -1))))
    assert ctx.call("laterthan", "2000", "1", "1", "0", "0", "0") is True
    assert ctx.call("laterthan", "2999", "1", "1", "0", "0", "0") is False
    now = int(time.time())
    ago = int(ctx.call("ago", "0", "0", "1", "0", "0", "0"))
    assert abs((now - ago) - 86400) <= 3600 + 2
    assert ctx.call("ago", "1000", "0", "0", "0", "0", "0") == "0"


def test_now_is_the_start_time() -> None:
    ctx = FakeContext()
    first = ctx.call("now")
    assert ctx.call("now") == first
    ctx.set("sys.systime", "1234")
    assert ctx.call("now") == "1234"


@pytest.mark.parametrize("text,value", [("12", 12), ("  -3", -3), ("2k", 2000), ("2K", 2048),
                                        ("1M", 1048576), ("5%", -5), ("inf", 999999999),
                                        ("12a", 12), ("7 ", 7), ("abc", -678), ("", -678),
                                        ("150%", -678),
                                        # anything but blanks after the suffix: no number
                                        # (cf-promises 3.21: "Anomalous ending 'ab'")
                                        ("12abc", -678), ("3 x", -678), ("123.456", -678),
                                        ("2k b", -678)])
def test_int_from_string(text: str, value: int) -> None:
    assert int_from_string(text) == value


@pytest.mark.parametrize("text,value", [("1.5", 1.5), ("2k", 2000.0), ("1.5 x", None),
                                        ("x", None), ("0x10", 16.0), ("3q", 3.0)])
def test_double_from_string(text: str, value: float | None) -> None:
    assert double_from_string(text) == value
