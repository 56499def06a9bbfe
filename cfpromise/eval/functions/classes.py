"""Built-ins about classes, variables, bundles and the call stack.

Class arguments of ``and``/``or``/``not``/``ifelse`` are class *expressions*
(CFEngine's IsDefinedClass); a nested class-returning call arrives as
``any``/``!any``.  Regular expressions match CFEngine style (first match must
cover the whole name, see :mod:`.pcre`); class names are matched as CFEngine
prints them (``name``, or ``ns:name`` outside the default namespace), variable
names fully qualified (``default:bundle.var[index]``), bundle names as
``ns:bundle``.  Tag regexes select entries having at least one matching tag.

``ifelse`` is registered ``unresolved_ok``: like cf-agent 3.21 it is evaluated
with unresolved arguments, a condition holding an unexpanded reference being read
as a class expression still (``$(x)`` a class that is not defined, ``$()`` none) and
the chosen value returned as written.
"""
from __future__ import annotations

from cfpromise.eval.canon import canonify
from cfpromise.eval.cmap import string_set_order
from cfpromise.eval.functions import jsondata, pcre
from cfpromise.eval.functions.api import FatalFunctionError, FunctionError, builtin
from cfpromise.eval.functions.common import (
    argv, flat_args, scalar, split_ref, var_to_json)
from cfpromise.eval.functions.lists import string_hash
from cfpromise.syntax.varstring import scalar_references

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterable, Sequence

    from cfpromise.eval.functions.api import FunctionContext, Value


def _defined(ctx: FunctionContext, expr: str) -> bool:
    """CFEngine's IsDefinedClass: a class expression in the current context."""
    if expr in ("any", "!any"):
        return expr == "any"
    return bool(ctx.eval_class_expr(expr))


def _truths(ctx: FunctionContext, fn: str, args: Sequence[Value]) -> list[bool]:
    """and()/or() arguments as truths.  cf-agent 3.21 does not splice ``@(list)`` into
    them: the reference stays one argument, a class that is not defined (whatever the
    list holds, or if it does not exist); so does an unexpanded ``$(ref)`` (cf-agent does
    not call them: IsCf3Scalar), not a broken one (``$(a ${})``: read as an expression)."""
    out: list[bool] = []
    for i, a in enumerate(args):
        if a is None or isinstance(a, (list, dict)):
            out.append(False)
        else:
            text = scalar(a, fn, i)
            out.append(not scalar_references(text) and _defined(ctx, text))
    return out


@builtin("and", unresolved_ok=True)
def and_(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return all(_truths(ctx, "and", args))


@builtin("or", unresolved_ok=True)
def or_(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return any(_truths(ctx, "or", args))


@builtin("not")
def not_(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (expr,) = argv("not", args, 1)
    return not _defined(ctx, expr)


@builtin("classify")
def classify(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (text,) = argv("classify", args, 1)
    return _defined(ctx, canonify(text))


@builtin("ifelse", unresolved_ok=True)
def ifelse(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    # an argument the evaluator could not resolve at all may come as None
    values = flat_args("ifelse", ["$(unresolved)" if a is None else a for a in args])
    if len(values) % 2 == 0:           # fatal in cf-agent 3.21 (and in cf-promises' check)
        raise FatalFunctionError("in built-in FnCall ifelse: even number of arguments")
    # As cf-agent: a condition still holding an unexpanded reference is read as a class
    # expression all the same -- ``$(x)`` is a name no class has, a broken one written
    # ``$()`` no expression ("Unable to parse class expression") -- and the chosen value
    # is returned as it is, references and all (vars are evaluated again in later
    # passes, so both converge once the references resolve).
    for i in range(0, len(values) - 1, 2):
        if _defined(ctx, values[i]):
            return values[i + 1]
    return values[-1]


@builtin("isvariable")      # an unresolved name: cf-agent does not call it
def isvariable(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (name,) = argv("isvariable", args, 1)
    return ctx.lookup(name) is not None


# ---------------------------------------------------------------------------
# Matching classes, variables, bundles


def _tags_match(tags: Sequence[str], tag_regexes: Sequence[str]) -> bool:
    if not tag_regexes:
        return True
    if not tags:
        return False
    compiled = [pcre.compile_regex(t) for t in tag_regexes]
    return any(pcre.full_match(rx, tag) for tag in tags for rx in compiled)


class _TagsMatcher:
    """:func:`_tags_match` against fixed tag regexes, remembered per tags tuple: a scan
    meets the same few tag tuples on thousands of variables (masterfiles'
    ``variablesmatching_as_data(".*", "inventory")`` over every variable).  The regexes
    are compiled at the first tagged name, where _tags_match compiles them, so an
    invalid one fails at the same point."""

    __slots__ = ("regexes", "compiled", "seen")

    def __init__(self, tag_regexes: Sequence[str]) -> None:
        self.regexes = tag_regexes
        self.compiled: list[Any] | None = None
        self.seen: dict[tuple[str, ...], bool] = {}

    def __call__(self, tags: Sequence[str]) -> bool:
        if not self.regexes:
            return True
        if not tags:
            return False
        found = self.seen.get(tags) if isinstance(tags, tuple) else None   # type: ignore[call-overload]
        if found is None:
            if self.compiled is None:
                self.compiled = [pcre.compile_regex(t) for t in self.regexes]
            found = any(pcre.full_match(rx, tag) for tag in tags for rx in self.compiled)
            if isinstance(tags, tuple):
                self.seen[tags] = found
        return found


def _class_display(name: str) -> str:
    return name[len("default:"):] if name.startswith("default:") else name


def _pattern(ctx: FunctionContext, text: str) -> Any:
    """The compiled pattern; None once CompileRegex's error is said (nothing matches a
    pattern that does not compile, as in cf-agent 3.21)."""
    try:
        return pcre.compile_regex(text)
    except pcre.RegexError as exc:
        from cfpromise.eval.functions import messages
        messages.say(ctx, "regex.compile", message=str(exc))
        return None


def matching_classes(ctx: FunctionContext, fn: str, args: Sequence[Value]) -> list[str]:
    """Names of the defined classes matching ``args[0]`` and tag regexes."""
    values = flat_args(fn, args)
    if not values:
        raise FunctionError(f"Function '{fn}' requires at least one argument")
    rx = _pattern(ctx, values[0])
    if rx is None:
        return []
    prefix = pcre.literal_prefix(values[0])
    tags_match = _TagsMatcher(values[1:])

    def select(items: Iterable[tuple[str, tuple[str, ...]]]) -> list[str]:
        out: list[str] = []
        for name, tags in items:
            shown = _class_display(name)
            if (shown == values[0] or shown.startswith(prefix) and pcre.full_match(rx, shown)) \
                    and tags_match(tags):
                out.append(shown)
        return out
    by_table = getattr(ctx, "classes_by_table", None)
    if by_table is None:
        return select(ctx.classes())
    # cf-agent 3.21: the global matches, then the bundle's, each gathered in its class
    # table's order into a string set, and each set's members prepended to the result
    local, global_ = by_table()
    return string_set_order(select(local))[::-1] + string_set_order(select(global_))[::-1]


@builtin("classesmatching")
def classesmatching(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return matching_classes(ctx, "classesmatching", args)


@builtin("classmatch")
def classmatch(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return bool(matching_classes(ctx, "classmatch", args))


@builtin("countclassesmatching")
def countclassesmatching(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    return str(len(matching_classes(ctx, "countclassesmatching", args)))


def _matching_variables(ctx: FunctionContext, fn: str, args: Sequence[Value]) -> list[str]:
    values = flat_args(fn, args)
    if not values:
        raise FunctionError(f"Function '{fn}' requires at least one argument")
    rx = _pattern(ctx, values[0])
    if rx is None:
        return []
    prefix = pcre.literal_prefix(values[0])
    out: list[str] = []
    tags_match = _TagsMatcher(values[1:])
    for name, var in ctx.variables():
        # the tags first: most variables have none, which settles it without a match
        if name.startswith(prefix) and tags_match(var.tags) \
                and pcre.full_match(rx, name):
            out.append(name)
    return out


@builtin("variablesmatching")
def variablesmatching(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    # cf-agent 3.21 prepends each match found walking its variable table
    return _matching_variables(ctx, "variablesmatching", args)[::-1]


@builtin("variablesmatching_as_data")
def variablesmatching_as_data(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    out: dict[str, Any] = {}
    for name in _matching_variables(ctx, "variablesmatching_as_data", args):
        value = var_to_json(ctx, name, True)
        out[name] = "" if value is None else value
    return out


@builtin("bundlesmatching")
def bundlesmatching(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    values = flat_args("bundlesmatching", args)
    if not values:
        raise FunctionError("Function 'bundlesmatching' requires at least one argument")
    rx = pcre.compile_regex(values[0])
    out: list[str] = []
    for ns, name, _type, tags in ctx.bundles():
        qualified = f"{ns}:{name}"
        if not pcre.full_match(rx, qualified):
            continue
        if len(values) > 1:
            # cf-agent 3.21's RlistMatchesRegexRlist checks the first tag regex
            # once per tag regex given, so only the first one counts
            split_tags = [t for tag in tags for t in tag.split(",")]
            if not split_tags or not _tags_match(split_tags, values[1:2]):
                continue
        out.append(qualified)
    out.reverse()              # cf-agent prepends each match: the last bundle comes first
    return out


def _keyed(tags: Sequence[str], key: str | None) -> list[str]:
    if key is None:
        return list(tags)
    prefix = key + "="
    return [t[len(prefix):] for t in tags if t.startswith(prefix)]


@builtin("getclassmetatags")
def getclassmetatags(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    values = argv("getclassmetatags", args, 1, 2)
    wanted = values[0] if ":" in values[0] else f"default:{values[0]}"
    for name, tags in ctx.classes():
        if name == values[0] or name == wanted:
            return _keyed(tags, values[1] if len(values) > 1 else None)
    raise FunctionError(f"getclassmetatags found class {values[0]} without a tagset")


@builtin("getvariablemetatags")
def getvariablemetatags(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    values = argv("getvariablemetatags", args, 1, 2)
    var = ctx.lookup(values[0])
    if var is None:
        raise FunctionError(f"getvariablemetatags found variable {values[0]} without a tagset")
    return _keyed(var.tags, values[1] if len(values) > 1 else None)


@builtin("splayclass")
def splayclass(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """True when the current 5-minute slot is the one ``text`` hashes to."""
    text, policy = argv("splayclass", args, 2)
    slot_hash = string_hash(text, 0) & 8191
    if policy == "hourly":
        slot = slot_hash * 12 // 8192
        name = f"Min{slot * 5:02d}_{(slot + 1) * 5 % 60:02d}"
    else:
        dayslot = slot_hash * 12 * 24 // 8192
        hour, slot = divmod(dayslot, 12)
        name = f"Min{slot * 5:02d}_{(slot + 1) * 5 % 60:02d}.Hr{hour:02d}"
    return _defined(ctx, name)


# ---------------------------------------------------------------------------
# State snapshots and the call stack


def _scope_key(full_name: str) -> tuple[str, str]:
    """``ns:bundle.lval[i]`` -> (``bundle`` or ``ns:bundle``, ``lval[i]``)."""
    ns, scope, lval, indices = split_ref(full_name)
    key = scope or ""
    if ns and ns != "default":
        key = f"{ns}:{key}"
    return key, lval + "".join(f"[{i}]" for i in indices)


def template_data(ctx: FunctionContext, bundle: str | None) -> dict[str, Any]:
    """CFEngine's DefaultTemplateData: ``{"classes": {...}, "vars": {...}}`` or,
    for one bundle, just that bundle's variables."""
    result: dict[str, Any] = {}
    vars_out: dict[str, Any] = {}
    if bundle is None:
        # (in cf-agent 3.21's container the classes come sorted, the bundle's among the
        # global ones: getindices("state[classes]") gives them so)
        result["classes"] = dict.fromkeys(sorted(_class_display(name)
                                                 for name, _tags in ctx.classes()), True)
        result["vars"] = vars_out
    for name, var in ctx.variables():
        scope, lval = _scope_key(name)
        if bundle is None:
            target = vars_out.setdefault(scope, {})
        elif scope == bundle:
            target = result
        else:
            continue
        if var.type == "data":
            target[lval] = jsondata.copy(var.value)
        elif isinstance(var.value, list):
            target[lval] = [str(v) for v in var.value]
        else:
            target[lval] = str(var.value)
    return result


@builtin("datastate")
def datastate(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    argv("datastate", args, 0)
    return template_data(ctx, None)


@builtin("bundlestate")
def bundlestate(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    (bundle,) = argv("bundlestate", args, 1)
    state = template_data(ctx, bundle)
    if not state:
        raise FunctionError(f"Function 'bundlestate': no variables in bundle '{bundle}'")
    return state


@builtin("callstack_callers")
def callstack_callers(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """The call stack as data, innermost last (frames as the engine gives them)."""
    argv("callstack_callers", args, 0)
    return jsondata.copy(list(ctx.callstack()))


@builtin("callstack_promisers")
def callstack_promisers(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """Promisers of the ``methods`` promises on the call stack, outermost first.

    cf-agent's frames are ``bundle``, ``promise_type``, ``promise`` (with
    ``promise_type`` and ``promiser``) and ``iteration`` frames.  A simpler
    stack of bundle frames, each naming the promise being evaluated in it
    (``promiser``), is understood too: every bundle but the innermost is then
    being evaluated by the methods promise that called the next one."""
    argv("callstack_promisers", args, 0)
    frames = ctx.callstack()
    if any("promise_type" in f for f in frames):
        return [str(f.get("promiser", "")) for f in frames
                if f.get("type") == "promise" and f.get("promise_type") == "methods"]
    bundles = [f for f in frames if f.get("type") == "bundle"]
    return [str(f.get("promiser", "")) for f in bundles[:-1]]
