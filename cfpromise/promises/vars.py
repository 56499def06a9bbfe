"""vars promises: define variables of every type in the bundle's scope.

A value still holding unresolved references is defined as written at once, so
promises later in the same pass see the variable, and is evaluated again in the
next pass, where it may resolve (cf-agent 3.21's behaviour) -- but not a name
still holding a reference, nor an int or real that cannot be read as a number
yet: cf-agent defines nothing for those.  A function that
cannot run yet leaves the variable undefined.  ``policy => "ifdefined"``
leaves out of a list the ``@(name)`` items that do not resolve (cf-agent's
``drop_undefined``); ``meta`` gives the variable its tags.
"""
from __future__ import annotations

from cfpromise.agent.outcome import Outcome
from cfpromise.agent.yyerrors import check_args, check_value, expansions
from cfpromise.fast.memo import lru_cache
from cfpromise.promises.api import SelfReference
from cfpromise.eval.rvals import UNRESOLVED, as_text, refers_to
from cfpromise.promises.evaluators import Step, evaluator, promise_comment, promise_tags
from cfpromise.syntax import ast
from cfpromise.syntax.varstring import references

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

VAR_TYPES = ("string", "int", "real", "slist", "ilist", "rlist", "data")
LIST_TYPES = ("slist", "ilist", "rlist")


def convert(type_: str, value: Any) -> Any:
    """A value in the shape the variable type stores; None when it does not fit."""
    if type_ in LIST_TYPES:
        if isinstance(value, list):
            return [v if isinstance(v, str) else as_text(v) for v in value]
        if isinstance(value, dict):
            return None
        return [as_text(value)]
    if type_ == "data":
        if isinstance(value, (dict, list)):
            return value
        return None
    if isinstance(value, (list, dict)):
        return None
    text = as_text(value)
    if type_ in ("int", "real") and "$(" not in text and "${" not in text:
        return normalize_number(type_, text)
    return text


def normalize_number(type_: str, text: str) -> str | None:
    """cf-agent stores an int as its value in digits (``42k`` -> ``42000``) and a real
    as ``%f`` text; None when the text is not a number of that type."""
    from cfpromise.schema.values import ValueError_, parse_int, parse_real
    try:
        if type_ == "int":
            return str(parse_int(text.strip()))
        return f"{parse_real(text.strip()):f}"
    except ValueError_:
        return None


def define(step: Step, scope: str, allowed: tuple[str, ...] = VAR_TYPES) -> Outcome | None:
    for type_c in step.promise.constraints:     # (a loop: next() on a generator that stops
        if type_c.lval in allowed:               # early costs its GeneratorExit, 3 K
            break                                # instructions, on every vars promise)
    else:
        return Outcome.SKIPPED
    ev = step.ev
    before = ev.unresolved
    policy = step.promise.get("policy")
    if_defined = policy is not None and \
        ev.text(getattr(policy.rval, "value", "")) == "ifdefined"
    ev.unresolved = before
    ev.broken_args.clear()
    if if_defined and isinstance(type_c.rval, ast.List):
        value = ev.items(type_c.rval.items, drop_undefined=True)
    else:
        value = ev.value(type_c.rval, want_list=type_c.lval in LIST_TYPES)
    for message in ev.errors:
        if step.last:
            step.log("verbose", f"{message} (in {step.where()})")
    ev.errors.clear()
    if value is UNRESOLVED or ev.failed_call:
        # a function that cannot run leaves the variable undefined (even inside a list);
        # a call left a call, of a function whose type is not the variable's, stops the
        # run (VerifyVarPromise's check, at any evaluation: waiting for a value too)
        _type_clash(step, type_c)
        return None if not step.last else Outcome.SKIPPED
    waiting = ev.unresolved and not step.last
    ev.unresolved = before
    if isinstance(type_c.rval, (ast.FnCall, ast.List)):
        value = _named_lists(step, scope, type_c.lval, value)
        if value is UNRESOLVED:
            return None if not step.last else Outcome.SKIPPED
    if type_c.lval in LIST_TYPES and isinstance(type_c.rval, ast.FnCall) \
            and not isinstance(value, list):
        # cf-agent says so (each time it evaluates it) and defines nothing; its type check
        # at load then stops the run on it (cfpromise.agent.precheck)
        step.log("error", f"Variable '{step.run.bundle.namespace}:{scope}.{step.promiser}' "
                          f"expected a variable of type '{type_c.lval}', but was given "
                          f"incompatible value '{as_text(value)}'")
        step.log("error", _belongs(step))
        step.agent.scalar_lists.setdefault(id(step.promise), (type_c.lval, as_text(value)))
        return None if not step.last else Outcome.SKIPPED
    # each expansion: IsCf3Scalar of its calls' arguments, then (each check) IsCf3VarString
    # of the value and of the name -- a reference left open, said as the parser says it
    times, checks = expansions(step.agent, (id(step.promise), step.promiser), step.run.pass_no)
    for _ in range(times):
        check_args(step.agent, ev.broken_args)
        for _ in range(checks):
            if type_c.lval != "data":
                check_value(step.agent, value)
            check_value(step.agent, step.promiser)
    ev.broken_args.clear()
    if type_c.lval != "data":
        value = _expanded_again(step, value)
    if references(step.promiser):
        # a name still holding a reference (keys from a list that is not defined):
        # cf-agent makes no variable of it (``$(a/b)``, ``${a $(b)}`` are no reference:
        # names that are not legal)
        return None if not step.last else Outcome.SKIPPED
    if type_c.lval in ("int", "real") and not isinstance(value, (list, dict)) \
            and _unexpanded(as_text(value)):
        # cf-agent cannot read a number from it: no variable (yet)
        return None if not step.last else Outcome.SKIPPED
    target = _target(step, scope)
    if target is None:
        return Outcome.SKIPPED
    scope, name = target
    if "[" in name:
        name = _indexed_name(step, name)
        if "[" in name and _container_clash(step, scope, name, type_c.lval):
            return Outcome.SKIPPED
    converted = convert(type_c.lval, value)
    if converted is None:
        step.log("error", f"Variable '{step.promiser}': '{as_text(value)}' is not a valid "
                          f"{type_c.lval} value (in {step.where()})")
        return Outcome.SKIPPED
    if type_c.lval != "data":
        _epimenides(step, converted)
    run = step.run
    step.ctx.set_var(run.bundle.namespace, scope, name, type_c.lval, converted,
                     promise_tags(step))
    comment = promise_comment(step)
    if comment is not None:
        step.ctx.comments[f"{run.bundle.namespace}:{scope}.{name}"] = comment
        step.log("verbose", f"Added variable '{name}' with comment '{comment}'")
    # still holding unresolved references: defined as written now (promises later in
    # this pass see it, as in cf-agent), and evaluated again in the next pass
    return None if waiting else Outcome.KEPT


_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")
_WITHOUT_NAME_CHARS = dict.fromkeys(map(ord, _NAME_CHARS))     # for str.translate: deleted


@lru_cache(maxsize=4096)       # (names repeat pass after pass: 2,200 asks on masterfiles)
def legal_name(name: str) -> bool:
    """IsLegalVariableName's pattern (verify_vars.c), ``[a-zA-Z0-9_\\200-\\377.]+(\\[.+\\])*``
    matched in full: letters, digits, ``_``, ``.`` or any non-ASCII character, then
    array keys (one or more ``[...]``: from the first ``[`` to a final ``]``, no newline)."""
    bracket = name.find("[")
    head, keys = (name, "") if bracket < 0 else (name[:bracket], name[bracket:])
    if not head:
        return False
    rest = head.translate(_WITHOUT_NAME_CHARS)      # (one C pass, not a test per character)
    if rest and min(rest) < "\x80":
        return False
    return not keys or (len(keys) >= 3 and keys[-1] == "]" and "\n" not in keys)


def _target(step: Step, scope: str) -> tuple[str, str] | None:
    """Where the variable goes, (scope, name): ``b.x`` names scope ``b`` (VarRefParse),
    as long as it is the bundle's own or no bundle of the policy (CFE-1915: another
    bundle's scope is refused once the policy is loaded; written before that, the
    variable goes when that bundle runs).  None: an illegal name, said as cf-agent does."""
    name = step.promiser
    ctx = step.ctx
    run = step.run
    legal = legal_name(name)
    dot = name.find(".")
    bracket = name.find("[")
    if legal and dot >= 0 and (bracket < 0 or dot < bracket):
        prefix = name[:dot]
        if prefix != run.bundle.name:
            step.log("verbose", f"Variable '{name}' may be attempted to be injected into a "
                                "remote bundle")
            if prefix in ctx.bundle_names:
                step.log("error", "Remote bundle variable injection detected!")
                legal = False
            else:
                ctx.injected.setdefault((run.bundle.namespace, prefix), {})[name[dot + 1:]] = None
        if legal:
            return prefix, name[dot + 1:]
    if not legal:
        step.log("error", f"Variable identifier '{name}' is not legal")
        step.log("error", _belongs(step))
        return None
    return scope, name


def _type_clash(step: Step, c: ast.Constraint) -> None:
    """Exits when ``c``'s value is a call of a function declared to return another type
    than the variable's ("variable declared type 'string' but function 'getuid' returns
    type 'int'"): cf-agent checks it whenever the call did not give a value."""
    call = c.rval
    if type(call) is not ast.FnCall:
        return
    sig = step.agent.schema.functions.get(call.name)
    if sig is None or sig.return_type == c.lval:
        return
    from cfpromise.agent.abort import Exits
    raise Exits(f"Fatal CFEngine error: While setting variable '{step.promiser}' in bundle "
                f"'{step.run.bundle.name}', variable declared type '{c.lval}' but function "
                f"'{call.name}' returns type '{sig.return_type}'")


def _belongs(step: Step) -> str:
    """cf-agent's line after a vars promise's error."""
    from cfpromise.promises.api import belongs
    return belongs(step.run.bundle.name, step.promise.coord,
                   getattr(step.agent.options, "start_dir", "") or "")


_WRAP = 1 << 64


def _indexed_name(step: Step, name: str) -> str:
    """The variable an indexed promiser names, read as cf-agent 3.21's VarRefParse
    reads it: brackets that do not balance name the array itself (``x[c]d]`` is ``x``,
    with an error); otherwise each top-level ``[...]`` is an index and any text between
    them joins the next one (``x[a]b[c]`` is ``x[a][bc]``)."""
    at = name.index("[")
    lval, rest = name[:at], name[at:]
    opened = rest.count("[")
    if rest[-1] == "]" and rest.count("]") == opened and rest.count("][") == opened - 1:
        return name         # (indices one after another, none nested: read as written)
    if opened != rest.count("]"):
        step.log("error", "Broken variable expression, index brackets do not balance, "
                          f"in '{step.promiser}'")
        return lval
    indices: list[str] = []
    buf: list[str] = []
    open_count = 1                       # (a size_t in cf-agent: it wraps below zero)
    for ch in rest[1:]:
        if ch == "[":
            was, open_count = open_count, (open_count + 1) % _WRAP
            if was == 0:
                continue
        elif ch == "]":
            was, open_count = open_count, (open_count - 1) % _WRAP
            if was == 1:
                indices.append("".join(buf))
                buf = []
                continue
        buf.append(ch)
    return lval + "".join(f"[{i}]" for i in indices)


def _container_clash(step: Step, scope: str, name: str, type_: str) -> bool:
    """cf-agent 3.21 (verify_vars.c) defines no indexed variable that is a data
    container (``"a[k]" data => ...``), nor one whose name reaches into a data container
    already defined (``"d[k]" string => ...`` when ``d`` is data and holds ``k``): it
    says why, as an error, and the promise does nothing."""
    ns = step.run.bundle.namespace
    qualified = f"{ns}:{scope}.{name}"
    if type_ == "data":
        step.log("error", f"Cannot assign a container to an indexed variable name "
                          f"'{qualified}'. Should be assigned to '{name[:name.index('[')]}' "
                          "instead")
        return True
    existing = step.ctx.vars.get(ns, scope, name)
    if existing is not None and existing.type == "data":
        step.log("error", f"Cannot assign value to indexed variable name '{qualified}', "
                          "because a container is already assigned to the base name "
                          f"'{ns}:{scope}.{name[:name.index('[')]}'")
        return True
    return False


def _named_lists(step: Step, scope: str, type_: str, value: Any) -> Any:
    """A function's result that is exactly ``@(name)`` of a list is that list, as in
    cf-agent: spliced into a list variable, an error for a scalar one (undefined)."""
    ev = step.ev
    if type_ in LIST_TYPES and isinstance(value, list):
        # (every list value comes here: only an item starting with "@" can name a list)
        for item in value:
            if isinstance(item, str) and item[:1] == "@":
                break
        else:
            return value
        out: list[Any] = []
        for item in value:
            found = ev.named_list(item) if isinstance(item, str) and item[:1] == "@" else None
            if found is None:
                out.append(item)
            else:
                out.extend(found)
        return out
    if type_ in LIST_TYPES or type_ == "data" or not isinstance(value, str) \
            or value[:1] != "@":
        return value
    found = ev.named_list(value)
    if found is None:
        return value
    shown = ",".join('"' + as_text(v) + '"' for v in found)
    step.log("error", f"Variable '{step.run.bundle.namespace}:{scope}.{step.promiser}' expected "
                      f"a variable of type '{type_}', but was given incompatible value "
                      f"' {{{shown}}}'")
    return UNRESOLVED


def _epimenides(step: Step, value: Any) -> None:
    """cf-agent's Epimenides: a value naming the variable itself, as it stands or once
    its references are expanded (up to four times), can never converge; cf-agent says
    so and exits 1 (a silent "aaa...a$(x)" growing each pass otherwise)."""
    name = step.promiser
    if isinstance(value, str) and "$" not in value and "@" not in value:
        return              # (most values: nothing to expand, no reference to itself)
    for item in value if isinstance(value, list) else (value,):
        text = item
        if isinstance(text, str) and "$" not in text and "@" not in text:
            continue
        for _ in range(5):
            if refers_to(text, name):
                raise SelfReference(
                    f"Scalar variable '{name}' contains itself (non-convergent) '{text}'",
                    f"Variable '{name}' contains itself indirectly - an unkeepable promise")
            if not _unexpanded(text):
                break
            expanded = step.ev.text(text)
            if expanded == text:
                break
            text = expanded


def _expanded_again(step: Step, value: Any) -> Any:
    """cf-agent expands a vars promise's value twice (the ExpandDeRefPromise copy, then
    VerifyVarPromise's EvaluateFinalRval): references that the first expansion brought
    in -- a data container's or a function-made array's element, a function's result
    (``readfile()``, ``readstringlist()``, ``getvalues()``...) -- are expanded once more,
    in the promise's bundle, before the variable is stored; what does not resolve then
    stays as written.  Data containers are stored as they are."""
    if isinstance(value, str):
        if "$" not in value:
            return value
    elif isinstance(value, list):
        if not any(isinstance(v, str) and "$" in v for v in value):
            return value
    else:
        return value
    ev = step.ev
    before = ev.unresolved
    try:
        if isinstance(value, str):
            return ev.text(value)
        return [ev.text(v) if isinstance(v, str) and "$" in v else v for v in value]
    finally:
        ev.unresolved = before


def _unexpanded(text: str) -> bool:
    """A ``$(``/``${`` is left: no number can be read from the value (IntFromString), and
    cf-agent expands the value once more (also where IsCf3VarString says no reference,
    ``$(a/b) ${}``: its "Empty variable reference close mismatch" shows it)."""
    return "$(" in text or "${" in text


@evaluator("vars")
def evaluate(step: Step) -> Outcome | None:
    return define(step, step.run.bundle.name)
