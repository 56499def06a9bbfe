"""What cf-promises and cf-agent 3.21 say of a promise's common attributes when they
evaluate it.

cf-promises' parser checks none of the attributes every promise has (``if``, ``unless``,
``ifvarclass``, ``comment``, ``handle``, ``depends_on``, ``meta``, ``with``: see
:mod:`cfpromise.schema.validate`); their values are judged when the promise is evaluated.
cf-promises evaluates the vars promises of every agent and common bundle and a common
bundle's classes promises, so a policy it validates may hold anything elsewhere; cf-agent
evaluates every promise in its preliminary walk (:mod:`cfpromise.agent.prelim`).  What
they say then, found by running both over each attribute and kind of bad value
(tests/differential/commonattrs.py):

* ``meta`` is read as a list as soon as the promise is evaluated (a vars promise) or a
  function is called for it: a value that is not a list as written (a string, a call,
  even one returning a list) is "Type mismatch on rhs - expected type for list
  constraint 'meta'", the promise's place, "Fatal CFEngine error: Aborted" (exit 1);
* a call given the wrong number of arguments, anywhere in a common attribute, is
  "Arguments to function 'F' do not tally. Expected N not M" and the promise's place,
  then the process exits 1 (NewExpArgs);
* a call of an unknown function inside another call or a list is "No such FnCall 'F' in
  promise 'FILE' near line N" (the top-level call stays a call, silently: ``if =>
  nosuchfn()`` does not hold);
* ``depends_on`` is read as a list once expanded: a string, a call that did not run, a
  data container is the type mismatch above, fatal;
* a ``comment`` that is a data container or a list is "Comments can only be scalar
  objects, not 'data' in 'PROMISER'" (or 'list'; a failed call: 'call', said where the
  promise's attributes are called, :func:`cfpromise.agent.prelim.call_attribute`).

Where cf-promises 3.21 crashes -- a call in a ``meta`` list ("rlist.c:89: Programming
Error: Rlist value contains type f instead of expected scalar", exit 255) -- cf-lite says
which promise and fails instead.
"""
from __future__ import annotations

from cfpromise.agent.abort import Exits, mismatch
from cfpromise.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterator

# the common attributes whose calls are evaluated, in the order cf-agent reads them
_CALLED = ("if", "ifvarclass", "unless", "depends_on", "comment", "handle", "with")
_LIST_TYPES = frozenset({"slist", "ilist", "rlist", "clist", "olist"})
_DATA = "data"
# (bundle type, promise type) pairs cf-promises evaluates besides every bundle's vars
VALIDATED = frozenset({("common", "classes")})


class CommonError(Exits):
    """Said as the evaluating process says it, then exit 1 (with the messages' own
    "Fatal CFEngine error" line where cf-agent has one)."""


def loaded(agent: Any) -> None:
    """What cf-promises says once the policy is loaded: its check of handles (made of each
    file and of the whole policy: a broken one said twice), then its evaluation."""
    from cfpromise.agent.yyerrors import say as parser_error
    from cfpromise.schema.partial import broken_handles
    from cfpromise.syntax.varstring import BROKEN
    for handle in broken_handles(agent.policy, agent.schema.promise_types) * 2:
        parser_error(agent, BROKEN.format(handle), replayed=False)
    check_policy(agent, validated_only=True)


def check_policy(agent: Any, validated_only: bool) -> None:
    """Each promise of the policy cf-promises evaluates (``validated_only``) or every
    promise of an agent, common or edit bundle (cf-agent's walk), whose class guard
    holds now."""
    from cfpromise.agent.promiseinfo import guard_info
    from cfpromise.eval.context import Frame
    ctx = agent.ctx
    builtin = agent.schema.promise_types
    for bundle in agent.policy.bundles:
        if bundle.type not in _BUNDLE_TYPES:
            continue
        ctx.push(Frame(bundle.namespace, bundle.name, bundle))
        try:
            for section in bundle.sections:
                if section.name not in builtin or validated_only and not (
                        section.name == "vars" or (bundle.type, section.name) in VALIDATED):
                    continue
                for promise in section.promises:
                    if not _worth(promise):
                        continue
                    facts = guard_info(agent.infos, promise)
                    if facts.guarded and not ctx.class_tree_holds(facts.guard):
                        continue
                    check_promise(agent, bundle, section.name, promise)
        finally:
            ctx.pop()


def _worth(promise: ast.Promise) -> bool:
    """Whether :func:`check_promise` could say anything of ``promise``: a meta, a common
    attribute holding a call or a list, a depends_on written as no list (scalar
    conditions, comments, handles and withs need no look: most promises)."""
    for c in promise.constraints:
        lval = c.lval
        if lval == "meta" or lval == "depends_on" and type(c.rval) is not ast.List or \
                lval in _CALLED and type(c.rval) is not ast.Scalar:
            return True
    return False


_BUNDLE_TYPES = ("agent", "common", "edit_line", "edit_xml")
# evaluated before the promise's conditions are known (the conditions themselves, ``with``)
_FIRST = ("if", "ifvarclass", "unless", "with")


def check_promise(agent: Any, bundle: ast.Bundle, ptype: str, promise: ast.Promise) -> None:
    """Raise :class:`CommonError` where the evaluation stops; log what it only says."""
    functions = agent.schema.functions
    from cfpromise.agent.promiseinfo import info
    from cfpromise.eval.expand import empty_wheel
    if empty_wheel(info(agent.infos, promise).texts):
        return          # the iteration engine skips it before anything is evaluated
    place = _belongs(agent, bundle, promise)
    calls = [c for c in promise.constraints if c.lval in _CALLED and not
             isinstance(c.rval, ast.Scalar)]
    _calls(agent, promise, [c for c in calls if c.lval in _FIRST], place)
    if any(c.lval in ("if", "ifvarclass", "unless") for c in promise.constraints):
        from cfpromise.eval.rvals import RvalEvaluator
        if agent.conditions(promise, RvalEvaluator(agent.ctx, {}), False) is not True:
            return                  # (nothing more of it is looked at)
    meta = promise.get("meta")
    # (a vars promise, a common bundle's classes promise reads it; any other when it calls a
    # function -- in any of its attributes but a body's or bundle's reference)
    table = agent.schema.promise_types.get(ptype, {})
    reads = ptype == "vars" or (bundle.type, ptype) in VALIDATED    # (evaluated at load)
    evaluated = reads or any(
        functions.get(call.name) is not None for c in promise.constraints
        if getattr(table.get(c.lval), "type", "") not in ("body", "bundle")
        for call, _ in _walk(c.rval, False))
    if meta is not None:
        if not isinstance(meta.rval, ast.List):
            if evaluated:
                mismatch("meta", place)
        else:
            inner = [call for call, _ in _walk(meta.rval, False)]
            if inner and not reads:
                # (left as calls: cf-agent's check of the promise says "Unknown function",
                # cfpromise.agent.precheck)
                _no_such(agent, promise, inner)
            elif inner:
                _no_such(agent, promise, inner)
                raise CommonError(
                    f"{_shown(agent, promise)}:{meta.coord.line}: a function call in "
                    f"a 'meta' list ({inner[0].name}()) is not supported: cf-promises 3.21 "
                    "crashes on it")
    _calls(agent, promise, [c for c in calls if c.lval not in _FIRST], place)
    depends = promise.get("depends_on")
    if depends is not None and not _list_valued(agent, depends.rval):
        if isinstance(depends.rval, ast.Scalar) and "$" in depends.rval.value:
            from cfpromise.eval.expand import prepare_iteration
            from cfpromise.eval.rvals import RvalEvaluator
            prepare_iteration((depends.rval.value,), agent.ctx.log)  # (what expanding says)
            RvalEvaluator(agent.ctx, {}).value(depends.rval)
        mismatch("depends_on", place)
    comment = promise.get("comment")
    if comment is not None and isinstance(comment.rval, ast.FnCall):
        sig = functions.get(comment.rval.name)
        kind = None if sig is None or not _runs(agent, comment.rval) else \
            _DATA if sig.return_type == _DATA else "list" if sig.return_type in _LIST_TYPES \
            else None
        if kind is not None:
            _say(agent, f"Comments can only be scalar objects, not '{kind}' in "
                        f"'{promise.promiser}'")


def _calls(agent: Any, promise: ast.Promise, constraints: list[ast.Constraint],
           place: str) -> None:
    """What evaluating the calls of ``constraints`` says, outer call first: a known
    function reads the promise's ``meta`` first (FnCallEvaluate: not a list is fatal),
    then counts its arguments (NewExpArgs: exit); an unknown one inside another call or
    a list is "No such FnCall"."""
    functions = agent.schema.functions
    for c in constraints:
        for call, nested in _walk(c.rval, False):
            if functions.get(call.name) is None:
                if nested:
                    _no_such(agent, promise, [call])
                continue
            meta = promise.get("meta")
            if meta is not None and not isinstance(meta.rval, ast.List):
                mismatch("meta", place)
            wrong = arity_error(functions, call, nested=False)
            if wrong is not None:
                raise CommonError(wrong, place)


def _no_such(agent: Any, promise: ast.Promise, calls: list[ast.FnCall]) -> None:
    for call in calls:
        if agent.schema.functions.get(call.name) is None:
            _say(agent, f"No such FnCall '{call.name}' in promise "
                        f"'{_shown(agent, promise)}' near line {promise.coord.line}")


def unknown_items(agent: Any, c: ast.Constraint) -> list[str]:
    """A ``depends_on`` list's calls of unknown functions: each stays a call, a handle
    no promise has (the promise never runs)."""
    return [f"{i.name}()" for i in getattr(c.rval, "items", ()) if type(i) is ast.FnCall
            and agent.schema.functions.get(i.name) is None]


def arity_error(functions: Any, rval: ast.Rval, nested: bool = True) -> str | None:
    """What NewExpArgs says of the first call in ``rval`` (``nested``: or inside it) given
    the wrong number of arguments; None: none is."""
    for call, _ in _walk(rval, False) if nested else ((rval, False),):
        sig = functions.get(call.name)
        if sig is not None and not sig.variadic and len(call.args) != len(sig.params):
            return (f"Arguments to function '{call.name}' do not tally. "
                    f"Expected {len(sig.params)} not {len(call.args)}")
    return None


def _list_valued(agent: Any, rval: ast.Rval) -> bool:
    """Whether ``rval`` is a list once expanded: written as one, or a call that runs and
    returns one."""
    if isinstance(rval, ast.List):
        return True
    if isinstance(rval, ast.FnCall):
        sig = agent.schema.functions.get(rval.name)
        return sig is not None and sig.return_type in _LIST_TYPES and _runs(agent, rval)
    return False


def _runs(agent: Any, call: ast.FnCall) -> bool:
    """No unknown function among the arguments (that call fails, so this one does)."""
    return all(agent.schema.functions.get(inner.name) is not None
               for inner, _ in _walk(call, False))


def _walk(rval: ast.Rval, nested: bool) -> Iterator[tuple[ast.FnCall, bool]]:
    """Each call in ``rval``, outer first, with whether it is inside a call or a list."""
    if isinstance(rval, ast.FnCall):
        yield rval, nested
        for arg in rval.args:
            yield from _walk(arg, True)
    elif isinstance(rval, ast.List):
        for item in rval.items:
            yield from _walk(item, True)


def _shown(agent: Any, promise: ast.Promise) -> str:
    from cfpromise.promises.api import shown_path
    return shown_path(promise.coord.file, getattr(agent.options, "start_dir", "") or "")


def _belongs(agent: Any, bundle: ast.Bundle, promise: ast.Promise) -> str:
    from cfpromise.promises.api import belongs
    return belongs(bundle.name, promise.coord, "", _shown(agent, promise))


def _say(agent: Any, line: str) -> None:
    """Said once, as function errors are (:mod:`cfpromise.eval.functions.messages`)."""
    sink = getattr(agent.ctx, "fn_messages", None)
    if sink is not None:
        sink.say("error", line, line)
    else:
        agent.out.log("error", line)
