"""Helpers shared by the built-in function families.

* argument handling: :func:`argv` checks the argument count and turns scalar
  positions into ``str`` (class results given as arguments become ``any`` /
  ``!any`` as in CFEngine); :func:`int_arg` / :func:`int_from_string` and
  :func:`double_from_string` reproduce CFEngine's ``IntFromString`` and
  ``DoubleFromString`` (``k``/``K``/``m``/``M``/``g``/``G`` and ``%`` suffixes,
  ``inf``, ``now``), :func:`boolean` its ``BooleanFromString``;
* bytes: cf-agent works on C strings, so lengths, slicing, case changes and
  regular expressions are byte based.  Text comes in as ``str`` and goes back
  as ``str``; :func:`to_bytes` / :func:`to_text` use UTF-8 with
  ``surrogateescape`` so that a result that is not valid UTF-8 (reversing
  ``"é"``) round-trips unchanged;
* collecting arguments: :func:`collect` is CFEngine's ``VarNameOrInlineToJson``
  -- a list value, a data container, inline JSON (with bare variable
  references), or the name of a variable (``x``, ``b.x``, ``@(x)``), where a
  classic array ``x[k]`` is gathered into a JSON object;
* JSON primitives: :func:`primitives` walks the top-level primitive values of a
  container the way ``JsonIteratorNextValueByType(..., skip_null=true)`` does;
* variable names: :func:`qualify` gives the ``ns:bundle.lval[i]`` form the
  evaluator lists in :meth:`FunctionContext.variables`;
* caching: :func:`cached` memoises a call in ``ctx.cache`` (execresult...).
"""
from __future__ import annotations

import re

from cfpromise.eval.functions import jsondata
from cfpromise.eval.functions.api import (DataArray, FunctionError, Unresolved,
                                         system_functions_cached)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Iterator, Sequence

    from cfpromise.eval.functions.api import FunctionContext, Value

CF_NOINT = -678
CF_INFINITY = 999999999
LONG_MAX = 2**63 - 1
LONG_MIN = -(2**63)

_BOOL_WORDS = ("true", "false", "yes", "no", "on", "off")
_SUFFIX = {"k": 1000, "K": 1024, "m": 1000**2, "M": 1024**2, "g": 1000**3, "G": 1024**3}
_INT_RE = re.compile(r"\s*([+-]?\d+)")
_DOUBLE_RE = re.compile(
    r"\s*([+-]?(?:0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(?:p[+-]?\d+)?"
    r"|(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?|inf(?:inity)?|nan))", re.I)
_VAR_REF = re.compile(r"^[$@][({](.*)[)}]$", re.S)


# ---------------------------------------------------------------------------
# Text as bytes


def to_bytes(text: str) -> bytes:
    """``text`` as the bytes cf-agent would hold (UTF-8, invalid bytes kept)."""
    return text.encode("utf-8", "surrogateescape")


def to_text(data: bytes) -> str:
    """Bytes back to ``str``; bytes that are not UTF-8 survive as surrogates."""
    return data.decode("utf-8", "surrogateescape")


# ---------------------------------------------------------------------------
# Arguments


def scalar(value: Value, fn: str, position: int) -> str:
    """One scalar argument as text; a list or data container is an error."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "any" if value else "!any"
    if isinstance(value, (int, float)):
        return str(value)
    kind = "a list" if isinstance(value, list) else "a data container"
    raise FunctionError(f"Function '{fn}', argument {position + 1} must be a scalar, "
                        f"got {kind}")


def argv(fn: str, args: Sequence[Value], low: int, high: int | None = None,
         raw: Sequence[int] = ()) -> list[Any]:
    """Check the argument count (``low``..``high``, ``high=-1`` for no limit)
    and return the arguments, as text except for the positions in ``raw``."""
    high = low if high is None else high
    if len(args) < low or (high >= 0 and len(args) > high):
        expected = str(low) if high == low else (f"at least {low}" if high < 0
                                                  else f"{low} to {high}")
        raise FunctionError(f"Arguments to function '{fn}' do not tally. "
                            f"Expected {expected} not {len(args)}")
    return [a if i in raw else scalar(a, fn, i) for i, a in enumerate(args)]


def flat_args(fn: str, args: Sequence[Value]) -> list[str]:
    """Arguments of a variadic scalar function; list arguments are spliced in
    (CFEngine expands ``and(@(list))`` into one argument per element)."""
    out: list[str] = []
    for i, a in enumerate(args):
        if isinstance(a, list):
            out.extend(scalar(x, fn, i) for x in a)
        else:
            out.append(scalar(a, fn, i))
    return out


def boolean(text: str) -> bool:
    """CFEngine's BooleanFromString: false only for false/no/off (anything
    that is not one of the six words counts as true)."""
    return _BOOL_WORDS.index(text) % 2 == 0 if text in _BOOL_WORDS else True


def int_from_string(text: str, now: int | None = None) -> int:
    """CFEngine's IntFromString: the leading integer of ``text`` (``CF_NOINT``,
    -678, when there is none); ``inf`` is 999999999, a k/K/m/M/g/G suffix
    scales, ``N%`` is ``-N``; anything after the suffix but blanks makes it no number
    (3.21's conversion.c)."""
    if text == "inf":
        return CF_INFINITY
    if text == "now":
        import time
        return int(time.time()) if now is None else now
    m = _INT_RE.match(text)
    if not m:
        return CF_NOINT
    value = int(m.group(1))
    rest = text[m.end(1):]
    if rest[1:].strip():
        # sscanf("%lld%c %c") read a third item: "123.456", "12 5" are no number
        return CF_NOINT
    if rest:
        suffix = rest[0]
        if suffix in _SUFFIX:
            value *= _SUFFIX[suffix]
        elif suffix == "%":
            if value < 0 or value > 100:
                return CF_NOINT
            value = -value
    return max(LONG_MIN, min(LONG_MAX, value))


def number_ending(text: str, kind: str) -> str | None:
    """The two characters IntFromString (``kind`` int) or DoubleFromString (real) call
    an anomalous ending: ``sscanf(text, "%lld%c %c")`` read all three (a number, the
    character after it, a non-blank after that: "12abc" is 'ab', "1 2" is ' 2'); ""
    when it reads no number at all, None when the number is fine."""
    m = (_INT_RE if kind == "int" else _DOUBLE_RE).match(text)
    if not m:
        return ""
    rest = text[m.end():]
    tail = rest[1:].lstrip()
    return rest[0] + tail[0] if tail else None


def int_arg(text: str) -> int:
    """An int argument: IntFromString, with CF_NOINT for junk (as cf-agent)."""
    return int_from_string(text)


def c_double(text: str) -> float | None:
    """``sscanf(text, "%lf")``: the leading number of ``text``, or None."""
    m = _DOUBLE_RE.match(text)
    if not m:
        return None
    return _to_float(m.group(1))


def _to_float(text: str) -> float:
    if "x" in text or "X" in text:
        sign = -1.0 if text.startswith("-") else 1.0
        body = text.lstrip("+-")
        if "p" not in body.lower():
            body += "p0"
        return sign * float.fromhex(body)
    return float(text)


def double_from_string(text: str) -> float | None:
    """CFEngine's DoubleFromString: None when ``text`` is not a real number."""
    m = _DOUBLE_RE.match(text)
    if not m:
        return None
    value = _to_float(m.group(1))
    rest = text[m.end():]
    if not rest:
        return value
    quant, tail = rest[0], rest[1:]
    if tail.strip():
        return None
    if quant in _SUFFIX:
        return value * _SUFFIX[quant]
    if quant == "%":
        return None if value < 0 or value > 100 else -value
    return value


def fmt_real(value: float) -> str:
    """``printf("%lf")``: six decimals, ``inf``/``-inf``/``nan``/``-nan`` as glibc."""
    import math
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return "%f" % value


# ---------------------------------------------------------------------------
# Variable names


def split_ref(name: str) -> tuple[str | None, str | None, str, list[str]]:
    """``ns:scope.lval[i][j]`` -> (ns, scope, lval, [i, j]); missing parts None."""
    ns = scope = None
    base, indices = name, []
    bracket = name.find("[")
    if bracket >= 0:
        base, rest = name[:bracket], name[bracket:]
        indices = _split_indices(rest)
    if ":" in base:
        ns, base = base.split(":", 1)
    if "." in base:
        scope, base = base.split(".", 1)
    return ns, scope, base, indices


def _split_indices(text: str) -> list[str]:
    if text[:1] == "[" and text[-1:] == "]":
        # the usual indices, "[a][b]", none holding a bracket: split in C (the loop
        # below reads every character; getindices() calls this once per array entry)
        parts = text[1:-1].split("][")
        for part in parts:
            if "[" in part or "]" in part:
                break
        else:
            return parts
    out: list[str] = []
    depth, cur = 0, []
    for ch in text:
        if ch == "[":
            if depth:
                cur.append(ch)
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth:
                cur.append(ch)
            else:
                out.append("".join(cur))
                cur = []
        elif depth:
            cur.append(ch)
    return out


def qualify(ctx: FunctionContext, name: str) -> str:
    """The fully qualified form ``ns:bundle.lval[i]...`` of a variable reference
    made in the calling bundle."""
    ns, scope, lval, indices = split_ref(name)
    if scope is None:
        ns, scope = ns or ctx.namespace, ctx.bundle_name
    elif ns is None:
        ns = "default"
    return f"{ns}:{scope}.{lval}" + "".join(f"[{i}]" for i in indices)


def naked(text: str) -> str:
    """``@(x)`` / ``${x}`` -> ``x``; anything else unchanged."""
    m = _VAR_REF.match(text)
    return m.group(1) if m else text


# ---------------------------------------------------------------------------
# Collecting arguments (VarNameOrInlineToJson)


def var_to_json(ctx: FunctionContext, name: str, allow_scalars: bool) -> Any | None:
    """The JSON form of the variable ``name``: a list becomes an array, a data
    container is copied, a scalar is a JSON string when ``allow_scalars``;
    otherwise the classic array ``name[...]`` is gathered into an object.
    None when nothing is found."""
    var = ctx.lookup(name)
    if var is not None:
        if var.type in ("slist", "ilist", "rlist") or isinstance(var.value, list) \
                and var.type != "data":
            return [scalar(v, "collect", 0) for v in var.value]
        if var.type == "data":
            return jsondata.copy(var.value)
        if allow_scalars:
            return scalar(var.value, "collect", 0)
    return gather_array(ctx, name)


def array_candidates(ctx: FunctionContext, base: str) -> Iterable[tuple[str, Any]]:
    """The variables that may be ``base`` itself or lie under ``base[`` (a qualified
    name), in cf-agent's table order: the context's array index when it has one, else
    every variable."""
    index = getattr(ctx, "array_entries", None)
    found = index(base, True) if index is not None else None
    return ctx.variables() if found is None else found


_LIST_TYPES = ("slist", "ilist", "rlist")


def gather_array(ctx: FunctionContext, name: str) -> dict[str, Any] | None:
    """Entries ``name[k]...`` of a classic array as a (nested) JSON object, built as
    cf-agent 3.21's VarRefValueToJson builds it, walking its variable table in order:

    - a data container stored under an index is left out;
    - a value stored at a key is appended to its object, so a key given again moves
      to the end (libntech's JsonObjectAppendElement removes it first);
    - a scalar under a key that holds a string replaces the string by an object,
      with a warning; a scalar where an object or array is kept is dropped, with one;
    - ``name`` itself, when a scalar, is met in the walk too and stored under the
      key the previous entry used (none when it comes first): cf-agent's ``last_key``
      outlives its loop iteration."""
    base = qualify(ctx, name)
    prefix = base + "["
    result: dict[str, Any] = {}
    last: str | None = None
    for full, var in array_candidates(ctx, base):
        if full == base:
            keys: list[str] = []
        elif full.startswith(prefix):
            keys = _split_indices(full[len(base):])
            if not keys:
                continue
        else:
            continue
        holder: Any = result
        parent: dict[str, Any] | None = None
        parent_key = ""
        if len(keys) == 1:
            last = keys[0]
        elif keys:
            for at, key in enumerate(keys[:-1]):
                if not isinstance(holder, dict):
                    break               # (under a string or a list: undefined in cf-agent)
                local = holder.get(key)
                if local is None:
                    local = holder[key] = {}
                last, parent, parent_key, holder = keys[at + 1], holder, key, local
            if not isinstance(holder, (dict, str)) or parent is not None \
                    and not isinstance(parent, dict):
                continue
        if last is None:
            continue
        if var.type in _LIST_TYPES:
            if isinstance(holder, dict):
                holder.pop(last, None)
                holder[last] = [scalar(v, "collect", 0) for v in var.value]
        elif var.type == "data" or isinstance(var.value, (list, dict)):
            continue
        elif not isinstance(holder, dict):
            ctx.log("warning", f"Replacing a non-container JSON element '{parent_key}' with "
                    f"a new empty container (for the '{last}' subkey)")
            assert parent is not None
            parent.pop(parent_key, None)
            parent[parent_key] = {last: scalar(var.value, "collect", 0)}
        elif isinstance(holder.get(last), (dict, list)):
            ctx.log("warning", f"Not replacing the container '{last}' with a "
                    f"non-container value '{var.value}'")
        else:
            holder.pop(last, None)
            holder[last] = scalar(var.value, "collect", 0)
    return result or None


# The functions that copy the container they are given (libntech's JsonCopy): one
# holding an integer written with an exponent (``getvalues('[1e3]')``) exits there
# (jsondata.ExpInteger); length(), join(), sort(), nth(), format()... read it as it is.
COPYING = frozenset({"getvalues", "filter", "grep", "every", "some", "none", "sum",
                     "product", "mean", "variance", "mapdata", "maparray"})


def copied(fn: str, data: Any) -> Any:
    """``data``, after the copy ``fn`` makes of it when it is one of :data:`COPYING`
    (which can exit); unchanged."""
    if fn in COPYING and isinstance(data, (dict, list)):
        jsondata.json_copy(data)
    return data


def collect(ctx: FunctionContext, value: Value, allow_scalars: bool = False) -> Any | None:
    """A collecting argument as JSON (CFEngine's VarNameOrInlineToJson): a list
    value, a data container, inline JSON or a variable name.  None if it does
    not resolve."""
    if isinstance(value, DataArray):
        return list(value)
    if isinstance(value, list):
        return [scalar(v, "collect", 0) for v in value]
    if isinstance(value, dict):
        return value
    if value is None:
        return None
    text = scalar(value, "collect", 0)
    try:
        parsed = jsondata.loads(text, lookup=lambda ref: var_to_json(ctx, ref, True))
    except jsondata.JsonError:
        parsed = None
    if isinstance(parsed, (dict, list)):
        return parsed
    if text[:1] in ("[", "{"):
        # cf-agent's parser stops where the inline JSON fails and the name looked up is
        # what is left of it, never the text's own brackets (no "index brackets do not
        # balance" for ``[1, 2``); such a rest names no variable
        return None
    name = naked(text)
    if getattr(ctx, "no_caller", False):
        check_qualified(ctx, name, shown=text)      # (ResolveAndQualifyVarName)
    return var_to_json(ctx, name, allow_scalars)


def calling(ctx: FunctionContext) -> str | None:
    """The function called with no calling promise (cf-agent's ``fp->caller`` is NULL: a
    body's argument, a control body), or None: a call made for a promise."""
    name = getattr(ctx, "no_caller", False)
    return name if isinstance(name, str) else None


def check_qualified(ctx: FunctionContext, name: str, key: str = "caller.unqualified",
                    shown: str | None = None) -> None:
    """A variable ``name`` given to a function with no calling promise: an unqualified
    one has no bundle to be qualified with, and the call fails; the evaluator says the
    message ``key`` (cfpromise.eval.functions.messages), naming ``shown``, the argument
    as given."""
    fn = calling(ctx)
    if fn is None or split_ref(name)[1] is not None:
        return
    fields = {"fn": fn, "name": name if shown is None else shown}
    exc = FunctionError(f"Function '{fn}' was not called from a promise: the reference "
                        f"{fields['name']} cannot be qualified")
    exc.said = [(key, fields)]          # type: ignore[attr-defined]
    raise exc


def collect_container(ctx: FunctionContext, fn: str, value: Value) -> Any:
    """:func:`collect` that must give a container; FunctionError otherwise."""
    data = collect(ctx, value)
    if data is None:
        raise FunctionError(f"Function '{fn}': argument '{describe(value)}' "
                            f"does not resolve to a container or a list or a CFEngine array")
    if not isinstance(data, (dict, list)):
        raise FunctionError(f"Function '{fn}', argument '{describe(value)}' "
                            f"was not a data container or list")
    return data


def describe(value: Value) -> str:
    """Short text for an argument in an error message."""
    if isinstance(value, str):
        return value
    import json
    text = json.dumps(value)
    return text if len(text) < 60 else text[:57] + "..."


def children(container: Any) -> list[Any]:
    """The values of a container (object values in order, array items)."""
    if isinstance(container, dict):
        return list(container.values())
    if isinstance(container, list):
        return list(container)
    return []


def primitives(container: Any) -> Iterator[Any]:
    """Top-level primitive values of a container, nulls and containers skipped."""
    for v in children(container):
        if v is not None and not isinstance(v, (dict, list)):
            yield v


def primitive_texts(container: Any) -> list[str]:
    """:func:`primitives` as JsonPrimitiveGetAsString text."""
    return [jsondata.prim_text(v) for v in primitives(container)]


def primitive_strs(container: Any) -> list[str]:
    """:func:`primitives` as JsonPrimitiveToString text (reals as ``%.2f``)."""
    return [jsondata.prim_str(v) for v in primitives(container)]


# ---------------------------------------------------------------------------
# Lazy arguments and caching


def lazy_value(ctx: FunctionContext, arg: Any, extra: dict[str, Value] | None = None) -> Value:
    """Evaluate an argument of a lazy built-in; raise :class:`Unresolved` if it
    does not resolve."""
    if isinstance(arg, str):
        result: Value = ctx.expand(arg, extra)
    elif isinstance(arg, dict):
        result = arg
    elif isinstance(arg, list):
        # a list written in the call: its items, calls among them evaluated
        items: list[Value] = []
        for item in arg:
            value = lazy_value(ctx, item, extra)
            items.extend(value if isinstance(value, list) else [value])
        result = items
    else:
        result = ctx.evaluate(arg, extra)
    if result is None:
        raise Unresolved(f"unresolved argument {arg!r}")
    return result


def cached(ctx: FunctionContext, key: tuple[Any, ...], compute: Callable[[], Value]) -> Value:
    """``compute()`` once per run for ``key`` (CFEngine's function cache), unless
    ``body common control`` says ``cache_system_functions => "false"``."""
    if not system_functions_cached(ctx):
        return compute()
    store = ctx.cache
    frozen = ("fncache",) + tuple(_freeze(k) for k in key)
    if frozen in store and not getattr(ctx, "fresh_calls", False):   # (ifelapsed 0: again)
        return jsondata.copy(store[frozen])
    value = compute()
    store[frozen] = value
    return jsondata.copy(value)


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _freeze(v)) for k, v in value.items())
    return value


def refuse_in_simulation(ctx: FunctionContext, fn: str) -> None:
    """cf-agent's ``--simulate`` does not call unsafe functions (those that run
    commands); ``-n`` does.  A promise tagged ``meta => { "simulate_safe" }`` may call
    them.  Raise the warning cf-agent prints."""
    if getattr(ctx, "simulate", False) and not _simulate_safe(ctx):
        message = f"Not calling unsafe function '{fn}' in simulate mode"
        ctx.log("warning", message)
        raise FunctionError(message)


def _simulate_safe(ctx: FunctionContext) -> bool:
    """Whether the promise calling the function has the ``simulate_safe`` meta tag."""
    promise = getattr(getattr(ctx, "frame", None), "promise", None)
    meta = promise.get("meta") if promise is not None else None
    if meta is None:
        return False
    from cfpromise.syntax import ast
    rval = meta.rval
    items = rval.items if isinstance(rval, ast.List) else [rval]
    return any(isinstance(i, ast.Scalar) and i.value == "simulate_safe" for i in items)
