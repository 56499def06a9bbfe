"""A small LALR driver over PLY's generated tables, calling the grammar's own ``p_*`` rules.

The grammar stays in :mod:`cfpromise.syntax.parser` as PLY ``p_*`` rules, and PLY
still generates the tables (``_parsetab.py``, shipped with the package).  Only the
loop that runs them is ours: profiling a cold parse of masterfiles put nearly
half of its time in PLY's generic ``parseopt_notrack`` loop -- a ``YaccSymbol``
object per symbol, a ``YaccProduction`` whose ``p[i]`` is a Python method call per
access.  This driver stacks plain values (the token tuples of
:class:`cfpromise.syntax.lexer.Token` for terminals, the rules' results for
nonterminals) and hands each rule a :class:`Production`, a list: ``p[i]``,
``p[0] = ...`` and ``len(p)`` are the list's own C operations.

The algorithm is PLY's, step for step, so that rules run in the same order and a
syntax error is met at the same token in the same state (and so names the same
expected tokens): a state whose only action is a reduction reduces without reading
a token (PLY's "defaulted states"); any other state reads the next token first.
The one convention the rules keep for this: a terminal is read as ``p.slice[i]``
(the token, under PLY and here alike), never as ``p[i]`` (PLY would give its
value, this driver the token).
"""
from __future__ import annotations

from types import ModuleType

from cfpromise.fast.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping, Sequence

END = "$end"


class Production(list):  # type: ignore[type-arg]
    """What a ``p_*`` rule receives: ``p[0]`` the result, ``p[1:]`` the right-hand side."""

    __slots__ = ()

    lexer: Any          # a class attribute of each parse's subclass (see parse())

    @property
    def slice(self) -> Production:
        """The right-hand side's symbols as PLY names them: here the values themselves."""
        return self


@record
class Rule:
    name: str                               # the nonterminal it makes
    length: int                             # symbols on its right-hand side
    action: Callable[[Production], None] | None   # the ``p_*`` function; None: see below


def passes_through(rule: Callable[[Any], None]) -> Callable[[Any], None]:
    """Mark a rule whose result is its only symbol's value (``p[0] = p[1]``), or
    ``None`` for an empty one: the driver then keeps the value where it is on the
    stack instead of calling the rule.  (PLY still calls it.)"""
    rule.passes_through = True          # type: ignore[attr-defined]
    return rule


class SyntaxErrorAt(Exception):
    """No action for ``token`` in the parser's state: ``expected`` are the token types
    that state accepts.  The parser turns it into the policy error it reports."""

    def __init__(self, token: Any, expected: Sequence[str]) -> None:
        super().__init__(token)
        self.token = token
        self.expected = expected


class Tables:
    """PLY's action, goto and production tables, indexed for the driver."""

    def __init__(self, tabmodule: ModuleType, rules: Mapping[str, Any]) -> None:
        action: dict[int, dict[str, int]] = tabmodule._lr_action
        goto: dict[int, dict[str, int]] = tabmodule._lr_goto
        size = max(list(action) + list(goto)) + 1
        self.action: list[dict[str, int]] = [action.get(i, {}) for i in range(size)]
        self.goto: list[dict[str, int]] = [goto.get(i, {}) for i in range(size)]
        # PLY's defaulted states: one action, a reduction, taken without reading a token.
        self.default: list[int | None] = [None] * size
        for state, actions in action.items():
            only = list(actions.values())
            if len(only) == 1 and only[0] < 0:
                self.default[state] = only[0]
        # production 0 is PLY's S' -> start; it has no function and is never reduced
        self.rules: list[Rule] = []
        for _, name, length, func, *_ in tabmodule._lr_productions:
            action = rules[func] if func else _no_action
            if getattr(action, "passes_through", False) and length <= 1:
                action = None
            self.rules.append(Rule(name, length, action))


def _no_action(p: Production) -> None:
    raise AssertionError("the start production is never reduced")


_MORE = "$more"       # the type of the sentinel after the last token when an error follows


def parse(tables: Tables, tokens: list[Any], after: Exception | None, lexer: Any,
          end: Any = None) -> Any:
    """Run the grammar over ``tokens``; the result is the start symbol's value.

    ``after`` is raised when a token beyond the last one is needed (the lexer's error
    that ended ``tokens``); otherwise the end of input is ``end`` with type ``$end``.
    ``lexer`` is what the rules see as ``p.lexer``.  A token with no action raises
    :class:`SyntaxErrorAt` (``end`` at the end of input).  ``tokens`` gets a
    sentinel appended (so the loop needs no bounds check)."""
    action = tables.action
    goto = tables.goto
    default = tables.default
    rules = tables.rules
    statestack: list[int] = [0]
    symstack: list[Any] = [None]
    state = 0
    lookahead: Any = None
    ltype = END
    tokens.append((_MORE,) if after is not None else (END,))
    i = 0
    # the rules see `p.lexer`: a class attribute of this parse's own Production class
    production = type("Production", (Production,), {"__slots__": (), "lexer": lexer})
    while True:
        t = default[state]
        if t is None:
            if lookahead is None:
                lookahead = tokens[i]
                ltype = lookahead[0]
                i += 1
            t = action[state].get(ltype)
            if t is None:
                if ltype == _MORE:
                    raise after             # type: ignore[misc]
                if ltype == END:
                    raise SyntaxErrorAt(None, list(action[state]))
                raise SyntaxErrorAt(lookahead, list(action[state]))
        if t > 0:                                   # shift
            statestack.append(t)
            symstack.append(lookahead)
            state = t
            lookahead = None
            continue
        if t == 0:                                  # accept
            return symstack[-1]
        name, length, func = rules[-t]              # reduce
        if length == 1:
            if func is not None:
                p = production((None, symstack[-1]))
                func(p)
                symstack[-1] = p[0]
            state = goto[statestack[-2]][name]
            statestack[-1] = state
        elif length:
            p = production(symstack[-length - 1:])
            p[0] = None
            func(p)                                 # type: ignore[misc]
            del symstack[1 - length:]
            symstack[-1] = p[0]
            del statestack[1 - length:]
            state = goto[statestack[-2]][name]
            statestack[-1] = state
        else:
            if func is None:
                symstack.append(None)
            else:
                p = production((None,))
                func(p)
                symstack.append(p[0])
            state = goto[state][name]
            statestack.append(state)
