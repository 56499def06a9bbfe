"""Numeric built-ins: eval, int, folds (sum, product, mean, variance, min,
max), ranges and random numbers.

``eval`` is a port of cf-agent's PEG grammar (libpromises/math.peg)::

    Expr    <- SPACE Sum                      (text after it is ignored)
    Sum     <- Product (("+" / "-" / "==" / "<=" / "<" / ">=" / ">") Product)*
    Product <- Value (("^" / "**" / "*" / "/" / "%") Value)*
    Value   <- NUMBER SI_UNIT / NUMBER / Constant / Fname "(" Value ")" / "(" Sum ")"
    NUMBER  <- "-"? [0-9]+ "."? [0-9]* / "-"? "." [0-9]+
    SI_UNIT <- [kK] / [mM] / [gG] / [tT] / [pP]   (10^3 ... 10^15)

All operators of a level are left associative (``2^3^2`` is 64), ``%``
truncates both sides to integers, ``==`` is "closer than 1e-17", there is no
unary minus outside numbers (``-(3)`` does not parse).  A failure gives the
empty string (``math``) or false (``class``); results print as ``%lf``.
"""
from __future__ import annotations

import math
import random

from cfpromise.eval.functions.api import FunctionError, builtin
from cfpromise.eval.functions.common import (
    CF_NOINT, argv, c_double, collect, copied, double_from_string, fmt_real, int_arg,
    primitive_strs)
from cfpromise.eval.functions.lists import sort_less

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Sequence

    from cfpromise.eval.functions.api import FunctionContext, Value

_CONSTANTS = (
    ("e", math.e), ("log2e", 1.4426950408889634074), ("log10e", 0.43429448190325182765),
    ("ln2", 0.69314718055994530942), ("ln10", 2.30258509299404568402), ("pi", math.pi),
    ("pi_2", math.pi / 2), ("pi_4", math.pi / 4), ("1_pi", 1 / math.pi),
    ("2_pi", 2 / math.pi), ("2_sqrtpi", 1.12837916709551257390), ("sqrt2", math.sqrt(2)),
    ("sqrt1_2", 0.70710678118654752440),
)
_FUNCTIONS = ("ceil", "floor", "log10", "log2", "log", "sqrt", "sin", "cos", "tan", "asin",
              "acos", "atan", "abs", "step")
_UNITS = {"k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9,
          "t": 1e12, "T": 1e12, "p": 1e15, "P": 1e15}
_CLOSE = 0.00000000000000001
_NAN = float("-nan")            # the x86 "default NaN" C code produces prints as -nan


def _c_math(name: str, x: float) -> float:
    """The C library function: domain errors give NaN, poles give -inf."""
    try:
        if name == "step":
            return 0.0 if x < 0 else 1.0
        if name == "abs":
            return abs(x)
        if name in ("ceil", "floor"):
            return float(getattr(math, name)(x)) if math.isfinite(x) else x
        return float(getattr(math, name)(x))
    except ValueError:
        if name.startswith("log") and x == 0:
            return -math.inf
        return _NAN
    except OverflowError:
        return math.inf


class _MathParser:
    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0

    def space(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in " \t":
            self.i += 1

    def lit(self, token: str) -> bool:
        if self.s.startswith(token, self.i):
            self.i += len(token)
            self.space()
            return True
        return False

    def parse(self) -> float:
        self.space()
        value = self.sum()
        if value is None:
            raise ValueError("expression could not be parsed")
        return value

    def sum(self) -> float | None:
        left = self.product()
        if left is None:
            return None
        ops: tuple[tuple[str, Callable[[float, float], float]], ...] = (
            ("+", lambda a, b: a + b), ("-", lambda a, b: a - b),
            ("==", lambda a, b: float(abs(a - b) < _CLOSE)),
            ("<=", lambda a, b: float(a < b or abs(a - b) < _CLOSE)),
            ("<", lambda a, b: float(a < b)),
            (">=", lambda a, b: float(a > b or abs(a - b) < _CLOSE)),
            (">", lambda a, b: float(a > b)))
        while True:
            start = self.i
            for token, fn in ops:
                if self.lit(token):
                    right = self.product()
                    if right is None:
                        self.i = start
                        return left
                    left = fn(left, right)
                    break
            else:
                return left

    def product(self) -> float | None:
        left = self.value()
        if left is None:
            return None
        while True:
            start = self.i
            for token in ("^", "**", "*", "/", "%"):
                if self.lit(token):
                    right = self.value()
                    if right is None:
                        self.i = start
                        return left
                    left = self.apply(token, left, right)
                    break
            else:
                return left

    @staticmethod
    def apply(token: str, a: float, b: float) -> float:
        if token in ("^", "**"):
            try:
                return math.pow(a, b)
            except OverflowError:
                return math.inf
            except ValueError:
                return _NAN
        if token == "*":
            return a * b
        if token == "/":
            if b == 0:
                return _NAN if a == 0 or math.isnan(a) else math.copysign(math.inf, a) \
                    * math.copysign(1.0, b)
            return a / b
        ia, ib = int(a) if math.isfinite(a) else 0, int(b) if math.isfinite(b) else 0
        if ib == 0:
            raise ValueError("division by zero in '%'")
        return float(math.fmod(ia, ib))

    def number(self) -> float | None:
        s, i = self.s, self.i
        j = i
        if j < len(s) and s[j] == "-":
            j += 1
        k = j
        while k < len(s) and s[k].isdigit() and s[k].isascii():
            k += 1
        if k > j:
            if k < len(s) and s[k] == ".":
                k += 1
                while k < len(s) and s[k].isdigit() and s[k].isascii():
                    k += 1
        elif k < len(s) and s[k] == ".":
            m = k + 1
            while m < len(s) and s[m].isdigit() and s[m].isascii():
                m += 1
            if m == k + 1:
                return None
            k = m
        else:
            return None
        self.i = k
        value = float(s[i:k]) if s[i:k] not in ("-", "-.") else 0.0
        self.space()
        return value

    def value(self) -> float | None:
        start = self.i
        number = self.number()
        if number is not None:
            if self.i < len(self.s) and self.s[self.i] in _UNITS:
                unit = _UNITS[self.s[self.i]]
                self.i += 1
                self.space()
                return number * unit
            return number
        self.i = start
        for name, value in _CONSTANTS:
            if self.s.startswith(name, self.i):
                self.i += len(name)
                return value
        for name in _FUNCTIONS:
            if self.s.startswith(name, self.i):
                self.i += len(name)
                if self.lit("("):
                    arg = self.value()
                    if arg is not None and self.lit(")"):
                        return _c_math(name, arg)
                self.i = start
                break
        if self.lit("("):
            inner = self.sum()
            if inner is not None and self.lit(")"):
                return inner
        self.i = start
        return None


def evaluate_math(text: str) -> float:
    """Evaluate an infix expression the way cf-agent's eval() does; ValueError
    if it does not parse."""
    return _MathParser(text).parse()


@builtin("eval")
def eval_(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    values = argv("eval", args, 1, 3)
    mode = values[1] if len(values) > 1 else "math"
    if values[0].strip() == "":
        result = 0.0                      # cf-agent: an empty expression is 0
        return False if mode == "class" else fmt_real(result)
    try:
        result = evaluate_math(values[0])
    except ValueError as exc:
        if mode == "class":
            return False
        ctx.log("info", f"eval error: {exc} (input '{values[0]}')")
        return ""
    if mode == "class":
        return not (-_CLOSE < result < _CLOSE)
    return fmt_real(result)


@builtin("int")
def int_(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (text,) = argv("int", args, 1)
    value = double_from_string(text)
    if value is None:
        from cfpromise.eval.functions import messages
        messages.say_number(ctx, "real", text)
    if value is None or not math.isfinite(value):
        raise FunctionError(f"Function 'int': failed to parse real number: {text}")
    return str(int(value))


# ---------------------------------------------------------------------------
# Folds


def _fold_values(ctx: FunctionContext, fn: str, source: Value) -> list[str]:
    data = copied(fn, collect(ctx, source))
    if data is None:
        raise FunctionError(f"Function '{fn}': argument does not resolve to a container "
                            f"or a list or a CFEngine array")
    if not isinstance(data, (dict, list)):
        return []
    return primitive_strs(data)


def _numbers(values: list[str]) -> list[float]:
    return [c_double(v) or 0.0 for v in values]


@builtin("sum")
def sum_(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (source,) = argv("sum", args, 1, raw=(0,))
    return fmt_real(math.fsum(_numbers(_fold_values(ctx, "sum", source))))


@builtin("product")
def product(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (source,) = argv("product", args, 1, raw=(0,))
    result = 1.0
    for x in _numbers(_fold_values(ctx, "product", source)):
        result *= x
    return fmt_real(result)


def _welford(values: list[float]) -> tuple[float, float]:
    mean = m2 = 0.0
    for count, x in enumerate(values, 1):
        delta = x - mean
        mean += delta / count
        m2 += delta * (x - mean)
    return mean, m2


@builtin("mean")
def mean(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (source,) = argv("mean", args, 1, raw=(0,))
    values = _numbers(_fold_values(ctx, "mean", source))
    if not values:
        raise FunctionError("Function 'mean': empty list")
    return fmt_real(_welford(values)[0])


@builtin("variance")
def variance(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (source,) = argv("variance", args, 1, raw=(0,))
    values = _numbers(_fold_values(ctx, "variance", source))
    if not values:
        raise FunctionError("Function 'variance': empty list")
    m2 = _welford(values)[1]
    return fmt_real(m2 / (len(values) - 1) if len(values) > 1 else 0.0)


def _extreme(fn: str, ctx: FunctionContext, args: Sequence[Value]) -> str:
    source, mode = argv(fn, args, 2, raw=(0,))
    less = sort_less(mode)
    best: str | None = None
    for value in _fold_values(ctx, fn, source):
        if fn == "min" and (best is None or not less(best, value)):
            best = value
        elif fn == "max" and (best is None or less(best, value)):
            best = value
    if best is None:
        raise FunctionError(f"Function '{fn}': empty list")
    return best


@builtin("max")
def max_(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _extreme("max", ctx, args)


@builtin("min")
def min_(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _extreme("min", ctx, args)


# ---------------------------------------------------------------------------
# Ranges and random numbers


@builtin("randomint")
def randomint(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    low, high = (int_arg(a) for a in argv("randomint", args, 2))
    if low == CF_NOINT or high == CF_NOINT:
        raise FunctionError("Function 'randomint': arguments are not integers")
    if low > high:
        low, high = high, low
    if low == high:
        return str(low)
    return str(low + int(random.random() * (high - low)))


@builtin("irange")
def irange(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    low, high = (int_arg(a) for a in argv("irange", args, 2))
    if low == CF_NOINT or high == CF_NOINT:
        raise FunctionError("Function 'irange': arguments are not integers")
    if low > high:
        low, high = high, low
    return f"{low},{high}"


@builtin("rrange")
def rrange(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """cf-agent 3.21 reads *both* ends from the first argument (a known bug)."""
    first, _second = argv("rrange", args, 2)
    low = double_from_string(first)
    if low is None:
        raise FunctionError(f"Function rrange, error reading assumed real value '{first}'")
    return f"{fmt_real(low)},{fmt_real(low)}"
