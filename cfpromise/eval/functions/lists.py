"""List built-ins: set operations, filters, folds over text, sorting, mapping.

Every collecting argument goes through :func:`.common.collect`, so a list, a
data container, inline JSON or a variable name are all accepted.  Values are
the container's top-level primitives (nested containers and nulls skipped);
functions CFEngine implements with ``JsonPrimitiveGetAsString`` (join, sort,
nth, sublist, set operations, ...) show reals as they were read, the filters
(grep, filter, every, some, none, reglist, regarray) use
``JsonPrimitiveToString`` and show them as ``%.2f``.

``sort`` reproduces CFEngine's linked-list merge sort including its order for
equal keys, ``shuffle`` glibc's ``srand``/``rand`` seeded with CFEngine's
string hash, so results match cf-agent element for element.
"""
from __future__ import annotations

import re

from cfpromise.eval.functions import jsondata, messages, pcre
from cfpromise.eval.functions.addresses import ip_key, mac_bytes
from cfpromise.eval.functions.api import FunctionError, Unresolved, builtin
from cfpromise.eval.functions.common import (
    CF_NOINT, argv, array_candidates, boolean, c_double, calling, check_qualified, collect,
    collect_container, copied, int_arg, lazy_value, naked, primitive_strs, primitive_texts,
    qualify, scalar, split_ref, to_bytes)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator, Sequence

    from cfpromise.eval.functions.api import FunctionContext, Value

# ---------------------------------------------------------------------------
# Set operations


def _unique(values: list[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for v in values:
        if v not in seen:
            seen.add(v)
            out.append(v)
    return out


def _setop(fn: str, ctx: FunctionContext, args: Sequence[Value]) -> list[str]:
    if fn == "unique":
        (a,) = argv(fn, args, 1, raw=(0,))
        return _unique(primitive_texts(collect_container(ctx, fn, a)))
    a, b = argv(fn, args, 2, raw=(0, 1))
    left = primitive_texts(collect_container(ctx, fn, a))
    right = set(primitive_texts(collect_container(ctx, fn, b)))
    if fn == "difference":
        return _unique([v for v in left if v not in right])
    return _unique([v for v in left if v in right])


@builtin("difference")
def difference(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _setop("difference", ctx, args)


@builtin("intersection")
def intersection(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _setop("intersection", ctx, args)


@builtin("unique")
def unique(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return _setop("unique", ctx, args)


# ---------------------------------------------------------------------------
# Filters (CFEngine's FilterInternal)


def _filter(ctx: FunctionContext, fn: str, pattern: str, source: Value, regex: bool,
            invert: bool, limit: int) -> tuple[list[str], int, int]:
    rx = pcre.compile_regex(pattern) if regex else None
    data = copied(fn, collect_container(ctx, fn, source))
    found_list: list[str] = []
    matches = total = 0
    for value in primitive_strs(data):
        if matches >= limit:
            break
        found = pcre.full_match(rx, value) if rx is not None else value == pattern
        if found != invert:
            found_list.append(value)
            matches += 1
            if fn in ("some", "regarray"):
                break
        elif fn == "every":
            total += 1
            break
        total += 1
    return found_list, matches, total


@builtin("grep")
def grep(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    regex, source = argv("grep", args, 2, raw=(1,))
    return _filter(ctx, "grep", regex, source, True, False, 2**63)[0]


@builtin("filter")
def filter_(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    pattern, source, is_regex, invert, limit = argv("filter", args, 5, raw=(1,))
    return _filter(ctx, "filter", pattern, source, boolean(is_regex), boolean(invert),
                   int_arg(limit))[0]


# Regex tests over a list: name -> (position of the list argument, verdict from the
# number of matching elements and the list's length)
MATCH_TESTS: dict[str, tuple[int, Callable[[int, int], bool]]] = {
    "every": (1, lambda matches, total: matches == total and total > 0),
    "some": (1, lambda matches, total: matches > 0),
    "none": (1, lambda matches, total: matches == 0),
    "reglist": (0, lambda matches, total: matches > 0),
    "regarray": (0, lambda matches, total: matches > 0),
}


def _match_test(name: str) -> Callable[[FunctionContext, Sequence[Value]], Value]:
    position, verdict = MATCH_TESTS[name]

    def impl(ctx: FunctionContext, args: Sequence[Value]) -> Value:
        values = argv(name, args, 2, raw=(position,))
        source, regex = values[position], values[1 - position]
        _, matches, total = _filter(ctx, name, regex, source, True, False, 2**63)
        return verdict(matches, total)
    impl.__name__ = name
    return impl


for _name in MATCH_TESTS:
    builtin(_name)(_match_test(_name))


# ---------------------------------------------------------------------------
# Picking and reshaping


@builtin("join")
def join(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    glue, source = argv("join", args, 2, raw=(1,))
    return glue.join(primitive_texts(collect_container(ctx, "join", source)))


@builtin("length")
def length(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (source,) = argv("length", args, 1, raw=(0,))
    return str(len(collect_container(ctx, "length", source)))


@builtin("nth")
def nth(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    source, key = argv("nth", args, 2, raw=(0,))
    data = collect_container(ctx, "nth", source)
    element: Any = _MISSING
    if isinstance(data, dict):
        element = data.get(key, _MISSING)
    else:
        index = int_arg(key)
        if index == CF_NOINT:                # IntFromString says why
            messages.say_number(ctx, "int", key)
        if index < 0:
            index += len(data)
        if 0 <= index < len(data):
            element = data[index]
    if element is _MISSING or isinstance(element, (dict, list)):
        raise FunctionError(f"Function 'nth': no primitive element '{key}' in "
                            f"'{scalar(source, 'nth', 0) if isinstance(source, str) else 'data'}'")
    return jsondata.prim_text(element)


_MISSING = object()


@builtin("reverse")
def reverse(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (source,) = argv("reverse", args, 1, raw=(0,))
    return primitive_texts(collect_container(ctx, "reverse", source))[::-1]


@builtin("sublist")
def sublist(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    source, where, count = argv("sublist", args, 3, raw=(0,))
    values = primitive_texts(collect_container(ctx, "sublist", source))
    n = int_arg(count)
    if where == "head":
        return values[:max(n, 0)]
    if n <= 0:
        return []
    return values[max(len(values) - n, 0):]


# ---------------------------------------------------------------------------
# Sorting


def cf_sort(items: list[str], less: Callable[[str, str], bool]) -> list[str]:
    """CFEngine's bottom-up linked-list merge sort (Simon Tatham's): when two
    items are not ``less`` than each other the right-hand one goes first."""
    items = list(items)
    size = 1
    n = len(items)
    while size < n:
        out: list[str] = []
        for start in range(0, n, 2 * size):
            p = items[start:start + size]
            q = items[start + size:start + 2 * size]
            i = j = 0
            while i < len(p) or j < len(q):
                if i >= len(p):
                    out.append(q[j])
                    j += 1
                elif j >= len(q):
                    out.append(p[i])
                    i += 1
                elif less(p[i], q[j]):
                    out.append(p[i])
                    i += 1
                else:
                    out.append(q[j])
                    j += 1
        items = out
        size *= 2
    return items


def _number_less(int_mode: bool) -> Callable[[str, str], bool]:
    def less(a: str, b: str) -> bool:
        x, y = c_double(a), c_double(b)
        if x is not None and y is not None:
            if int_mode:
                return _trunc(x) - _trunc(y) < 0
            return x - y < 0
        if x is not None:
            return False
        if y is not None:
            return True
        return to_bytes(a) < to_bytes(b)
    return less


def _trunc(value: float) -> int:
    import math
    if math.isnan(value) or math.isinf(value):
        return 0
    return int(value)


def _ip_less(a: str, b: str) -> bool:
    x, y = ip_key(a), ip_key(b)
    if x is not None and y is not None:
        return x < y            # (IPv4 first: its version number is the smaller)
    if x is not None:
        return False
    if y is not None:
        return True
    return to_bytes(a) < to_bytes(b)


def _mac_less(a: str, b: str) -> bool:
    x, y = mac_bytes(a), mac_bytes(b)
    if x is not None and y is not None and x != y:
        return x < y
    if x is not None:
        return False
    if y is not None:
        return True
    return to_bytes(a) < to_bytes(b)


def sort_less(mode: str) -> Callable[[str, str], bool]:
    """CFEngine's GenericStringItemLess for a sort mode."""
    if mode == "int":
        return _number_less(True)
    if mode == "real":
        return _number_less(False)
    if mode.lower() == "ip":
        return _ip_less
    if mode.lower() == "mac":
        return _mac_less
    return lambda a, b: to_bytes(a) < to_bytes(b)


@builtin("sort")
def sort(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    values = argv("sort", args, 1, 2, raw=(0,))
    mode = values[1] if len(values) > 1 else "lex"
    items = primitive_texts(collect_container(ctx, "sort", values[0]))
    return cf_sort(items, sort_less(mode))


# ---------------------------------------------------------------------------
# shuffle: glibc rand() seeded with CFEngine's StringHash


def string_hash(text: str, seed: int = 0) -> int:
    """CFEngine's StringHash (Jenkins one-at-a-time over the bytes), 32 bits."""
    h = seed & 0xFFFFFFFF
    for byte in to_bytes(text):
        h = (h + byte) & 0xFFFFFFFF
        h = (h + (h << 10)) & 0xFFFFFFFF
        h ^= h >> 6
    h = (h + (h << 3)) & 0xFFFFFFFF
    h ^= h >> 11
    h = (h + (h << 15)) & 0xFFFFFFFF
    return h


def glibc_rand(seed: int) -> Iterator[int]:
    """The numbers glibc's ``rand()`` gives after ``srand(seed)`` (TYPE_3)."""
    seed &= 0xFFFFFFFF
    if seed == 0:
        seed = 1
    r = [0] * 34
    r[0] = seed - 2**32 if seed >= 2**31 else seed
    for i in range(1, 31):
        hi, lo = divmod(r[i - 1], 127773) if r[i - 1] >= 0 else (
            -((-r[i - 1]) // 127773), -((-r[i - 1]) % 127773))
        word = 16807 * lo - 2836 * hi
        if word < 0:
            word += 2147483647
        r[i] = word
    for i in range(31, 34):
        r[i] = r[i - 31]
    state = [x & 0xFFFFFFFF for x in r]
    k = 34
    while True:
        value = (state[k - 31] + state[k - 3]) & 0xFFFFFFFF
        state.append(value)
        if k >= 344:
            yield value >> 1
        k += 1


@builtin("shuffle")
def shuffle(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    source, seed = argv("shuffle", args, 2, raw=(0,))
    items = primitive_texts(collect_container(ctx, "shuffle", source))
    rand = glibc_rand(string_hash(seed))
    for i in range(len(items) - 1, 0, -1):
        j = next(rand) % (i + 1)
        items[i], items[j] = items[j], items[i]
    return items[::-1]


# ---------------------------------------------------------------------------
# Indices and values


@builtin("getindices")
def getindices(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (source,) = argv("getindices", args, 1, raw=(0,))
    if isinstance(source, (list, dict)):
        return _keys(source)
    name = scalar(source, "getindices", 0)
    var = ctx.lookup(naked(name))
    if var is not None and var.type == "data":
        return _keys(var.value)
    # cf-agent 3.21: a list variable named by its name has no indices (only
    # its classic array entries, if any); a list value passed in has 0..n-1
    try:
        parsed = jsondata.loads(name)
    except jsondata.JsonError:
        parsed = None
    if isinstance(parsed, (dict, list)):
        return _keys(parsed)
    return _classic_indices(ctx, naked(name))


def _keys(data: Any) -> list[str]:
    if isinstance(data, dict):
        return list(data)
    if isinstance(data, list):
        return [str(i) for i in range(len(data))]
    return []


def _classic_indices(ctx: FunctionContext, name: str) -> list[str]:
    base = qualify(ctx, name)
    depth = len(split_ref(name)[3])
    out: list[str] = []
    seen: set[str] = set()
    prefix = base + "["
    for full, _var in array_candidates(ctx, base):
        if full.startswith(prefix):
            indices = split_ref(full)[3]
            if len(indices) > depth and indices[depth] not in seen:
                seen.add(indices[depth])
                out.append(indices[depth])
    return out


def _all_values(data: Any) -> list[str]:
    if isinstance(data, (dict, list)):
        out: list[str] = []
        for v in (data.values() if isinstance(data, dict) else data):
            out.extend(_all_values(v))
        return out
    return [] if data is None else [jsondata.prim_str(data)]


@builtin("getvalues")
def getvalues(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (source,) = argv("getvalues", args, 1, raw=(0,))
    data = copied("getvalues", collect(ctx, source, allow_scalars=True))
    if data is None:
        return []
    return _all_values(data)


# ---------------------------------------------------------------------------
# expandrange


@builtin("expandrange")
def expandrange(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    import re
    template, step_text = argv("expandrange", args, 2)
    step = int_arg(step_text)
    if template.startswith("["):
        m = re.match(r"\[\s*([+-]?\d+)-\s*([+-]?\d+)\]([^\n]*)", template)
        before = ""
    else:
        m = re.match(r"([^[\\]+)\[\s*([+-]?\d+)-\s*([+-]?\d+)\]([^\n]*)", template)
        before = m.group(1) if m else ""
    if not m:
        raise FunctionError("EXPANDRANGE malformed range expression")
    low, high, after = (int(m.group(1)), int(m.group(2)), m.group(3)) if not before \
        else (int(m.group(2)), int(m.group(3)), m.group(4))
    if step < 1 or abs(low - high) < step:
        raise FunctionError("EXPANDRANGE Step size cannot be less than 1 or greater "
                            "than the interval")
    rng = range(low, high - 1, -step) if low > high else range(low, high + 1, step)
    return [f"{before}{i}{after}" for i in rng]


# ---------------------------------------------------------------------------
# maplist / maparray (lazy: the pattern is expanded once per element)


@builtin("maplist", lazy=True)
def maplist(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    if len(args) != 2:
        raise FunctionError(f"Arguments to function 'maplist' do not tally. "
                            f"Expected 2 not {len(args)}")
    if isinstance(args[1], str) and "$" not in args[1] and calling(ctx):
        check_qualified(ctx, naked(args[1]), shown=args[1])   # (no promise to qualify with)
    source = lazy_value(ctx, args[1])
    data = collect_container(ctx, "maplist", source)
    out: list[str] = []
    for value in primitive_texts(data):
        mapped = scalar(lazy_value(ctx, args[0], {"this": value}), "maplist", 0)
        if "$(this)" in mapped or "${this}" in mapped:
            raise Unresolved("maplist: $(this) did not expand")
        out.append(mapped)
    return out


def map_pairs(data: Any) -> Iterator[tuple[dict[str, Value], bool]]:
    """The (this.k, this.v[, this.k[1]]) bindings maparray/mapdata iterate
    over, with a flag telling whether the entry came from a nested container
    (those results are added only once)."""
    if isinstance(data, list):
        data = {str(i): v for i, v in enumerate(data)}
    for key, value in data.items():
        if isinstance(value, (dict, list)):
            inner = value.items() if isinstance(value, dict) else ((None, v) for v in value)
            for key2, value2 in inner:
                if value2 is None or isinstance(value2, (dict, list)):
                    continue
                extra: dict[str, Value] = {"this.k": key, "this.v": jsondata.prim_text(value2),
                                           # cf-agent leaves $(this.k[1]) as written for arrays
                                           "this.k[1]": "$(this.k[1])" if key2 is None else key2}
                yield extra, True
        else:
            yield {"this.k": key, "this.v": jsondata.prim_text(value)}, False


def map_container(ctx: FunctionContext, fn: str, pattern: Any, data: Any,
                  escape_quotes: bool = False) -> list[str]:
    """maparray's loop: ``pattern`` expanded for every entry of ``data``."""
    out: list[str] = []
    for extra, nested in map_pairs(data):
        if escape_quotes:
            extra = {k: str(v).replace('"', '\\"') for k, v in extra.items()}
        mapped = scalar(lazy_value(ctx, pattern, extra), fn, 0)
        if any(tok in mapped for tok in ("$(this.k)", "${this.k}", "$(this.v)", "${this.v}")):
            raise Unresolved(f"{fn}: $(this.k)/$(this.v) did not expand")
        if nested and mapped in out:
            continue
        out.append(mapped)
    return out


_THIS_REFS = frozenset(("this", "this.k", "this.v", "this.k[1]"))
_REF = re.compile(r"\$(?:\(([^()]*)\)|\{([^{}]*)\})")


def _unbound_pattern_ok(ctx: FunctionContext, pattern: Any) -> bool:
    """cf-agent 3.21 expands maparray()'s arguments before binding this.k/this.v (it is
    not a delayed-evaluation function there): a call in the pattern runs once on the
    references as written, and if what it gives holds any other reference
    (string_upcase("$(this.v)") gives "$(THIS.V)") the function does not run."""
    literal = {name: f"$({name})" for name in ("this.k", "this.v", "this.k[1]")}
    try:
        text = lazy_value(ctx, pattern, literal)
    except Unresolved:
        return False
    if not isinstance(text, str):
        return True
    return all((m.group(1) if m.group(1) is not None else m.group(2)) in _THIS_REFS
               for m in _REF.finditer(text))


@builtin("maparray", lazy=True)
def maparray(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    if len(args) != 2:
        raise FunctionError(f"Arguments to function 'maparray' do not tally. "
                            f"Expected 2 not {len(args)}")
    if not isinstance(args[0], str) and not _unbound_pattern_ok(ctx, args[0]):
        raise FunctionError("maparray: its pattern does not resolve before binding this.k")
    source = lazy_value(ctx, args[1])
    data = copied("maparray", collect_container(ctx, "maparray", source))
    return map_container(ctx, "maparray", args[0], data)
