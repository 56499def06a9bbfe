"""Evaluate rvals: strings expanded, lists spliced, functions called.

:class:`RvalEvaluator` evaluates with one set of iteration bindings and records
whether anything stayed unresolved (``.unresolved``) — the caller decides
whether to wait for a later pass.  Rules:

* a scalar is expanded; written whole as ``@(name)`` it stands for the list (or
  data container) itself where a list may go (list items, function arguments,
  bundle arguments); a data array comes as a :class:`DataArray`;
* list items are spliced: ``{ "a", @(l), splitstring(...) }`` flattens;
* a function is called with its arguments evaluated (lazy functions get them
  as written); if an argument is unresolved the function is not called
  (unless it accepts unresolved arguments); results of cached functions are
  kept for the run;
* a function error is logged once per call site and the value is unresolved.
"""
from __future__ import annotations

from cfpromise.eval.argcheck import check_args
from cfpromise.eval.expand import naked_reference
from cfpromise.eval.functions.messages import NEEDS_PROMISE, QUIET_REGEX, emit, fail
from cfpromise.eval.functions.api import (REGISTRY, DataArray, FatalFunctionError, FunctionError,
                                         Variable, system_functions_cached)
from cfpromise.syntax import ast
from cfpromise.syntax.varstring import broken_scalar, scalar_references

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

UNRESOLVED = object()



class Unbound(str):
    """A bundle argument that leaves its parameter undefined: a function call that failed,
    could not be made or returned a list or container (cf-agent 3.21: "Only functions
    returning scalars can be used as arguments"; ``$(x)`` in the bundle stays as written)."""


def parameter_value(value: Any) -> tuple[str, Any]:
    """(variable type, value) of a bundle or body parameter bound to ``value``."""
    if isinstance(value, DataArray):
        return "data", list(value)
    if isinstance(value, list):
        return "slist", value
    if isinstance(value, dict):
        return "data", value
    return "string", value if isinstance(value, str) else as_text(value)


def refers_to(text: str, name: str) -> bool:
    """cf-agent's StringContainsVar: ``text`` holds ``$(name)``, ``${name}``,
    ``@(name)`` or ``@{name}`` (cf-agent refuses to store a variable whose value
    refers to itself so)."""
    if name not in text or ("$" not in text and "@" not in text):
        return False
    return any(f"{sigil}{o}{name}{c}" in text for sigil in "$@" for o, c in ("()", "{}"))


def self_reference(qualified: str, name: str, value: Any) -> str | None:
    """cf-agent's IsVariableSelfReferential: the error it logs when it refuses to store
    ``value`` in the variable ``name`` (``qualified``: ns:scope.name) because the value
    refers to the variable itself; None when it does not."""
    if isinstance(value, str):
        if refers_to(value, name):
            return f"The value of variable '{qualified}' contains a reference to itself, '{value}'"
    elif isinstance(value, list) and any(isinstance(v, str) and refers_to(v, name)
                                         for v in value):
        return f"An item in list variable '{qualified}' contains a reference to itself"
    return None


def as_text(value: Any) -> str:
    """A function result where a string is wanted (class results become any/!any)."""
    if isinstance(value, bool):
        return "any" if value else "!any"
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return str(value)
    import json         # (containers only: json is not imported by every run)
    return json.dumps(value, separators=(",", ":"))


class RvalEvaluator:
    __slots__ = ("ctx", "bindings", "unresolved", "failed_call", "errors", "broken_args",
                 "_expander", "broken")

    def __init__(self, ctx: Any, bindings: dict[str, str] | None = None) -> None:
        self.ctx = ctx
        self.bindings = bindings or {}
        self.unresolved = False
        self.failed_call = False          # a function in a list could not run
        self.errors: list[str] = []
        # the expanded arguments IsCf3Scalar says are left open, call by call (cf-agent's
        # parser error for each, counted where the promise is: cfpromise.agent.yyerrors)
        self.broken_args: list[str] = []
        self._expander: Any = None        # text()'s, made on first use
        self.broken = False     # text() met a broken reference (written as an empty one)

    # -- strings ---------------------------------------------------------------
    def text(self, value: str) -> str:
        if "$" not in value:
            return value
        # One expander serves every text of this evaluator (its resolver and bindings
        # do not change), set back to a fresh one's state before each use.
        exp = self._expander
        if exp is None:
            exp = self._expander = self.ctx.expander(self.bindings)
        else:
            exp.unresolved = exp.broken = False
            exp.active.clear()
        out = exp.expand(value)
        if exp.unresolved:
            self.unresolved = True
        if exp.broken:
            self.broken = True
        return out

    def whole_list(self, value: str) -> Variable | None:
        """``@(name)`` -> the variable, when ``value`` is exactly such a reference."""
        inner = naked_reference(value)
        if inner is None:
            return None
        name = self.text(inner)
        found = self.ctx.resolve_ref(name)
        if found is None:
            self.unresolved = True
            return None
        return found[1]

    def named_list(self, value: Any) -> list[Any] | None:
        """The list a function's result names when it is exactly ``@(name)`` of a list
        variable (cf-agent reads such a result as that list: concat("@(l)")), else None."""
        if not isinstance(value, str) or value[:1] != "@" or naked_reference(value) is None:
            return None
        before = self.unresolved
        var = self.whole_list(value)
        self.unresolved = before
        return var.value if var is not None and isinstance(var.value, list) else None

    # -- rvals -----------------------------------------------------------------
    def value(self, rval: ast.Rval, want_list: bool = False) -> Any:
        if isinstance(rval, ast.Scalar):
            if want_list and rval.value.startswith("@"):
                var = self.whole_list(rval.value)
                if var is not None:
                    if var.type == "data" and isinstance(var.value, list):
                        return DataArray(var.value)
                    return var.value
                if naked_reference(rval.value) is not None:
                    return UNRESOLVED
            return self.text(rval.value)
        if isinstance(rval, ast.List):
            return self.items(rval.items)
        if isinstance(rval, ast.FnCall):
            return self.call(rval)
        if isinstance(rval, ast.Data):
            return rval.value
        raise TypeError(rval)

    def items(self, items: tuple[ast.Rval, ...], drop_undefined: bool = False) -> list[Any]:
        """A list's items, spliced.  ``drop_undefined`` (vars ``policy => "ifdefined"``)
        leaves out an ``@(name)`` item that does not resolve instead of keeping it as
        written (and waiting for it)."""
        out: list[Any] = []
        for item in items:
            if isinstance(item, ast.Scalar) and item.value.startswith("@"):
                before = self.unresolved
                var = self.whole_list(item.value)
                if var is not None:
                    if isinstance(var.value, list):
                        out.extend(v if isinstance(v, str) else as_text(v) for v in var.value)
                        continue
                    if isinstance(var.value, dict):
                        out.extend(as_text(v) for v in var.value.values())
                        continue
                    if isinstance(var.value, (str, int, float)) and var.type != "data":
                        # a scalar: cf-agent warns and takes its value as the one item
                        # (stdlib's by_name("d") gives leaf_name => { @(names) } "d");
                        # a name holding a reference (``@(a[$(k)])``) is not flattened
                        # but expanded, silently (RlistFlatten: IsExpandable)
                        if not getattr(self.ctx, "in_body", False) and \
                                "$" not in item.value[2:]:      # (bodies: silent)
                            self._warn(f"'{item.value}' failed - variable is not list but "
                                       f"{var.type}")
                        out.append(as_text(var.value))
                        continue
                elif naked_reference(item.value) is not None:
                    if drop_undefined:
                        self.unresolved = before
                        continue
                    out.append(item.value)
                    continue
            value = self.call(self.expanded_call(item), True) if type(item) is ast.FnCall \
                else self.value(item)
            if value is UNRESOLVED:
                self.unresolved = True
                self.failed_call = True
                continue
            if isinstance(value, list):
                out.extend(v if isinstance(v, str) else as_text(v) for v in value)
            else:
                out.append(as_text(value))
        return out

    def expanded_call(self, call: ast.FnCall) -> ast.FnCall:
        """A call among a list's items as cf-agent copies it before calling it
        (ExpandFnCall: its texts expanded, ``@(name)`` kept, inner calls alike), so that
        its arguments are expanded twice: ``$(x`` is ``$()`` the first time and said again
        ("Empty variable reference close mismatch '$()'"), a ``$`` and ``(`` brought
        together (``x$(const.dollar)(a``) are a broken reference the second time."""
        if not any(type(a) is ast.FnCall or type(a) is ast.Scalar and "$" in a.value
                   for a in call.args):
            return call
        before = self.unresolved
        args = tuple(self.expanded_call(a) if type(a) is ast.FnCall else
                     ast.Scalar(self.text(a.value), a.kind, a.coord, a.quote)
                     if type(a) is ast.Scalar and "$" in a.value and not _list_ref(a) else a
                     for a in call.args)
        self.unresolved = before
        return ast.FnCall(call.name, args, call.coord)

    def _warn(self, message: str) -> None:
        """A warning said once per run, in the order cf-agent first says it (the run's
        function-message sink, which cf-promises' lines come first in)."""
        sink = getattr(self.ctx, "fn_messages", None)
        if sink is not None:
            sink.say("warning", message, message)
        elif hasattr(self.ctx, "log"):
            self.ctx.log("warning", message)

    def call(self, call: ast.FnCall, inner: bool = False) -> Any:
        """``call`` evaluated (``inner``: an argument of another call, or a list's item)."""
        name = self.text(call.name) if "$" in call.name else call.name
        fn = REGISTRY.get(name)
        if fn is None:
            if inner and name not in _known():     # (a value's own call: silently none)
                self._no_such_call(name)
            self.errors.append(f"Unknown function '{name}'" if name not in _known() else
                               f"Function '{name}' is not implemented in cf-lite yet")
            self.unresolved = True
            return UNRESOLVED
        no_caller = getattr(self.ctx, "no_caller", False)
        if not no_caller:
            self._meta_first()
        wanted = _ARITY.get(name, -2)
        if wanted == -2:
            wanted = _ARITY[name] = _arity(name)
        if no_caller and name in NEEDS_PROMISE and name in _DELAYED \
                and len(call.args) <= wanted:
            return self._failed(name, fail(NEEDS_PROMISE[name], fn=name))   # before counting
        if wanted >= 0 and len(call.args) != wanted:
            self._arity_exit(name, wanted, call.args)
        before = self.unresolved
        self.unresolved = False
        if fn.lazy:
            args = [self._raw(a) for a in call.args]
        else:
            collecting = _collecting(name)
            # an @(name) argument of a function that does not collect stays as written
            # (its $() expanded): cf-agent's NewExpArgs expands scalars only, so
            # concat("[", @(l), "]") is "[@(l)]" and selectservers() gets the name
            args = [None if name in _LIST_REFS_KEPT and _list_ref(a) else
                    (self.collected_ref(name, a.value) if collecting  # type: ignore[union-attr]
                     else self.text(a.value))  # type: ignore[union-attr]
                    if _list_ref(a) else
                    self.nested(a) if type(a) is ast.FnCall else
                    self._argument(a) for a in call.args]
            for value in args:
                if type(value) is str and broken_scalar(value):
                    self.broken_args.append(value)
            if fn.unresolved_ok and _nested_call_failed(name, call.args, args):
                # a call among the arguments could not run: cf-agent's argument list
                # still holds that call, so it is unresolved and this one fails too
                # (ifelse(isvariable("x"), "$(x)", "default") excepted)
                self.unresolved = True
                return UNRESOLVED
            if not collecting and any(type(a) is ast.FnCall and isinstance(v, (dict, DataArray))
                                      for a, v in zip(call.args, args)):
                # a data container a nested call returns is no argument of a function
                # that does not collect: cf-agent's RlistAppendAllTypes drops it
                # (format("%S", mergedata(...)) has no parameter for its %S)
                args = [v for a, v in zip(call.args, args)
                        if not (type(a) is ast.FnCall and isinstance(v, (dict, DataArray)))]
            if any(isinstance(a, list) for a in args) and not collecting:
                # a list given to a function that does not collect is spread into its
                # arguments: not(splitstring("x", ",", 9)) is not("x"), as in cf-agent
                spread: list[Any] = []
                for value in args:
                    spread.extend(value if isinstance(value, list) else [value])
                args = spread
        unresolved_args = self.unresolved or any(a is UNRESOLVED for a in args)
        self.unresolved = before or unresolved_args   # the result waits like its arguments
        if unresolved_args and not fn.unresolved_ok:
            return UNRESOLVED
        args = [None if a is UNRESOLVED else a for a in args]
        if not fn.lazy:
            check_args(name, call.args, self.ctx.log)
        key = None
        if fn.cached and system_functions_cached(self.ctx):
            import json
            key = (name, json.dumps(args, sort_keys=True, default=str))
            if key in self.ctx.cache and not self.ctx.fresh_calls:
                return self.ctx.cache[key]
        if no_caller and name in NEEDS_PROMISE:
            return self._failed(name, fail(NEEDS_PROMISE[name], fn=name))
        saved = self.ctx.current_bindings
        self.ctx.current_bindings = self.bindings
        if no_caller:
            self.ctx.no_caller = name             # (common.calling)
        try:
            result = fn.impl(self.ctx, args)
        except FunctionError as exc:
            return self._failed(name, exc)
        finally:
            self.ctx.current_bindings = saved
            if no_caller:
                self.ctx.no_caller = no_caller
        if key is not None:
            self.ctx.cache[key] = result
        if name == "ifelse" and unresolved_args:
            # (called although its arguments wait, FnCallEvaluate's one exception: what
            # it returns waits only if a reference is left in it -- "any" does not)
            self.unresolved = before or type(result) is str and scalar_references(result)
        return result

    def _argument(self, rval: ast.Rval) -> Any:
        """An argument that is no call nor ``@(name)``, evaluated.  Whether a text waits is
        cf-agent's verdict on the text it expanded to (RlistIsUnresolved: IsCf3Scalar), not
        whether each reference resolved: a broken one written as ``${}`` (``$(a ${b)`` is
        ``$(a ${})``), a value holding ``$(a/b)``, are no reference to it, so the call is
        made with them as they are; nor is a text holding one of the references maplist()
        and the like bind (``$(this.k)``: see :data:`_MAPPED`)."""
        if type(rval) is not ast.Scalar or "$" not in rval.value:
            return self.value(rval, want_list=True)
        before = self.unresolved
        self.unresolved = False
        value = self.value(rval, want_list=True)
        if self.unresolved and type(value) is str and (
                not scalar_references(value) or any(ref in value for ref in _MAPPED)):
            self.unresolved = False
        self.unresolved = self.unresolved or before
        return value

    def _meta_first(self) -> None:
        """cf-agent's FnCallEvaluate reads the calling promise's ``meta`` as a list before
        it calls any known function: one that is no list as written stops the process
        (:func:`cfpromise.agent.commoneval.mismatch`)."""
        try:
            frame = self.ctx.frame
        except (AttributeError, IndexError):
            return
        promise = frame.promise
        if promise is None or "promise_filename" not in frame.this:
            return
        meta = promise.get("meta")
        if meta is not None and type(meta.rval) is not ast.List:
            from cfpromise.agent.abort import mismatch
            mismatch("meta", self._promise_ref()[0])

    def _failed(self, name: str, exc: FunctionError) -> Any:
        """A call that failed: what the function says is said (messages.py), and the
        call stays unresolved."""
        if type(exc).__name__ == "Unresolved":    # "not yet": wait for a later pass
            self.unresolved = True
            return UNRESOLVED
        said = getattr(exc, "said", None)
        if said is None and name not in QUIET_REGEX and type(exc).__name__ == "RegexError":
            said = [("regex.compile", {"message": str(exc)})]
        for key, fields in said or ():
            emit(self.ctx, key, fields)       # cf-agent's own log line (messages.py)
        self.errors.append(str(exc) or f"Function '{name}' failed")
        self.unresolved = True
        return UNRESOLVED

    def _arity_exit(self, name: str, wanted: int, written: tuple[ast.Rval, ...]) -> None:
        """cf-agent's NewExpArgs: another number of arguments than the function takes is
        said, with where the promise is (PromiseRef), and the process exits 1; a
        delayed-evaluation built-in given more (CallFunction) says "Bad arguments"."""
        from cfpromise.agent.abort import Exits
        if name in _DELAYED and len(written) > wanted:
            shown = [_as_written(a) for a in written]
            from cfpromise.schema import schema
            ranges = [p[1] for p in schema().functions[name].params]
            listed = ",".join(f'"{a}"' for a in shown)
            raise Exits(f"Argument template mismatch handling function {name}( {{{listed}}})",
                        *(f"  arg[{i}] range {r}\t {shown[0]} " for i, r in enumerate(ranges)),
                        "Fatal CFEngine error: Bad arguments")
        raise Exits(f"Arguments to function '{name}' do not tally. Expected {wanted} not "
                    f"{len(written)}", *self._promise_ref())

    def _caller(self) -> tuple[Any, str] | None:
        """The promise this call is made for and its file as given (cf-agent's
        ``fp->caller``); None outside a promise (a control body, a body's arguments)."""
        if getattr(self.ctx, "no_caller", False):
            return None
        try:
            frame = self.ctx.frame
        except (AttributeError, IndexError):
            return None
        filename = frame.this.get("promise_filename")
        if filename is None or frame.promise is None:
            return None
        import os
        from cfpromise.promises.api import shown_path     # (the error path only)
        # (no program changes directory)
        return frame, shown_path(str(getattr(filename, "value", filename)), os.getcwd())

    def _promise_ref(self) -> list[str]:
        """PromiseRef of the promise at hand (none outside a promise)."""
        caller = self._caller()
        if caller is None:
            return []
        frame, shown = caller
        promise = frame.promise
        from cfpromise.promises.api import belongs, referred
        lines = [belongs(frame.bundle, promise.coord, "", shown)]
        # the promise as written: no comment yet (an expanded copy gets it), the
        # promisees unexpanded
        promisee = promise.promisee
        written = [_as_written(i) for i in promisee.items] \
            if isinstance(promisee, ast.List) else \
            None if promisee is None else _as_written(promisee)
        return lines + referred(None, written, isinstance(promisee, ast.List))

    def _no_such_call(self, name: str) -> None:
        """cf-agent's error for a call of no function: where the promise at hand is (its
        file as given, its line); outside a promise cf-lite says nothing (cf-agent's
        "context info unavailable": a control body, where 3.21 crashes on it)."""
        caller = self._caller()
        if caller is not None:
            frame, shown = caller
            emit(self.ctx, "call.unknown", {"name": name, "file": shown,
                                            "line": frame.promise.coord.line})

    def collected_ref(self, fn: str, text: str) -> Any:
        """``@(name)`` given to a collecting function (cf-agent's VarNameOrInlineToJson):
        the variable's value; for a name that is no variable, its classic array
        ``name[...]`` gathered into an object, else the reference as written, for the
        function to look up (getvalues() gives nothing, length() fails).  getindices()
        of ``@(name)`` has the keys of a data container only (cf-agent 3.21 gives
        nothing for a list, a classic array or an undefined name)."""
        before = self.unresolved
        if getattr(self.ctx, "no_caller", False) and _unqualified(text):
            return text             # no promise to qualify it with: the function says so
        var = self.whole_list(text)
        if var is not None:
            if fn == "getindices" and var.type != "data":
                return []
            if var.type == "data" and isinstance(var.value, list):
                return DataArray(var.value)
            return var.value
        self.unresolved = False
        inner = naked_reference(text)
        name = self.text(inner) if inner is not None else text
        if self.unresolved:          # @($(x)) with x not yet known: wait
            self.unresolved = True
            return UNRESOLVED
        self.unresolved = before
        if fn == "getindices":
            return []
        from cfpromise.eval.functions.common import gather_array
        found = gather_array(self.ctx, name)
        return text if found is None else found

    def nested(self, call: ast.FnCall) -> Any:
        """A call given as an argument: a data container it returns stays one, an array
        too (a :class:`DataArray`, not a list of strings), copied: cf-agent hands the
        caller a JsonCopy of its container (``storejson(mergedata('[[1]]'))``; a real
        read from JSON text is written anew, 2.5 as 2.5000)."""
        value = self.call(call, True)
        if isinstance(value, (dict, list)) and _returns_data(call.name):
            from cfpromise.eval.functions.jsondata import copy
            value = copy(value)
            return DataArray(value) if type(value) is list else value
        return value

    def _raw(self, rval: ast.Rval) -> Any:
        """A lazy function's argument as written; a function call stays a call, which
        the function evaluates with its own bindings (``maplist(canonify("$(this)"),
        @(l))`` calls canonify() once per element, as cf-agent does)."""
        if isinstance(rval, ast.Scalar):
            return rval.value
        if isinstance(rval, ast.List):
            return [self._raw(i) for i in rval.items]
        if isinstance(rval, ast.FnCall):
            return rval
        return self.value(rval, want_list=True)


def _nested_call_failed(name: str, written: tuple[ast.Rval, ...], args: list[Any]) -> bool:
    """Whether a function call written among ``written`` gave no value (``args`` are
    their values), outside cf-agent 3.21's one exception (FnCallEvaluate): an ifelse()
    of three arguments whose first is not such a call."""
    failed = [isinstance(w, ast.FnCall) and a is UNRESOLVED for w, a in zip(written, args)]
    if not any(failed):
        return False
    return not (name == "ifelse" and len(args) == 3 and not failed[0])


# the references RlistIsUnresolved lets an argument hold (maplist(), maparray() bind them)
_MAPPED = tuple(f"${o}this{name}{c}" for name in ("", ".k", ".k[1]", ".v")
                for o, c in (("(", ")"), ("{", "}")))

# functions cf-agent 3.21 gives an ``@(list)`` argument unexpanded (for and()/or(), a
# class that is not defined): they get None in its place
_LIST_REFS_KEPT = frozenset(("and", "or"))


def _list_ref(rval: ast.Rval) -> bool:
    if not isinstance(rval, ast.Scalar):
        return False
    text = rval.value
    return len(text) > 3 and text[0] == "@" and (text[1], text[-1]) in (("(", ")"), ("{", "}"))


NO_WITH = object()      # a list or a data container: cf-agent defines no $(with) for it


def with_value(ev: RvalEvaluator, rval: ast.Rval) -> Any:
    """The value of a promise's ``with`` as cf-agent 3.21 gives it while running a
    bundle: its text, UNRESOLVED, or NO_WITH for a list or a data container
    (``with => @(l)``, ``with => parsejson('[1]')``: $(with) stays as written); a
    container named by ``@(d)`` is the reference as written, ``@(d)``.
    (cf-agent also refuses a list in ``with`` while it loads the policy, before any
    bundle runs, for promises whose guard holds then: cfpromise.agent.precheck.)"""
    if isinstance(rval, ast.Scalar) and _list_ref(rval):
        var = ev.whole_list(rval.value)
        if var is not None and var.type == "data":
            return ev.text(rval.value)
        if ev.named_list(ev.text(rval.value)) is not None:
            return NO_WITH
    value = ev.value(rval)
    if value is UNRESOLVED:
        return value
    if isinstance(rval, ast.FnCall) and isinstance(value, (list, dict)):
        return NO_WITH
    return as_text(value)


# function name -> whether it collects (takes @(name) arguments as values): asked on every
# call of a function (2,100 in a masterfiles run), answered by the schema once per name
_COLLECTING: dict[str, bool] = {}


def _unqualified(text: str) -> bool:
    """Whether ``@(name)`` names no bundle (cf-agent's VarRefIsQualified)."""
    from cfpromise.eval.functions.common import split_ref
    inner = naked_reference(text)
    return inner is not None and "$" not in inner and split_ref(inner)[1] is None


def _collecting(name: str) -> bool:
    found = _COLLECTING.get(name)
    if found is None:
        from cfpromise.schema import schema
        sig = schema().functions.get(name)
        found = _COLLECTING[name] = bool(sig is not None and sig.collecting)
    return found


_RETURNS_DATA: dict[str, bool] = {}


def _returns_data(name: str) -> bool:
    found = _RETURNS_DATA.get(name)
    if found is None:
        from cfpromise.schema import schema
        sig = schema().functions.get(name)
        found = _RETURNS_DATA[name] = bool(sig is not None and sig.return_type == "data")
    return found


# the built-ins whose arguments NewExpArgs leaves to them (FNCALL_OPTION_DELAYED_EVALUATION)
_DELAYED = frozenset({"maplist", "mapdata"})
# name -> the number of arguments it takes (-1: any number, or no signature)
_ARITY: dict[str, int] = {}


def _arity(name: str) -> int:
    from cfpromise.schema import schema
    sig = schema().functions.get(name)
    return -1 if sig is None or sig.variadic else len(sig.params)


def _as_written(rval: ast.Rval) -> str:
    """An argument as RlistWrite shows it (a call: its name and arguments)."""
    if isinstance(rval, ast.FnCall):
        return f"{rval.name}({','.join(_as_written(a) for a in rval.args)})"
    return getattr(rval, "value", str(rval))


def _known() -> frozenset[str]:
    from cfpromise.schema import schema
    return frozenset(schema().functions)
