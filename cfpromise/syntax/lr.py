"""A small LALR driver over PLY's generated tables, calling the grammar's own ``p_*`` rules.

The grammar stays in :mod:`cfpromise.syntax.parser` as PLY ``p_*`` rules, and PLY
still generates the tables (``_parsetab.py``, shipped with the package).  Only the
loop that runs them is ours: PLY's generic ``parseopt_notrack`` loop makes a
``YaccSymbol`` object per symbol and hands each rule a ``YaccProduction`` whose
``p[i]`` is a Python method call per access.  This driver stacks plain values (the
:class:`~cfpromise.syntax.scanner.Token` tuples for terminals, the rules' results
for nonterminals) and hands each rule a plain list, the top of its value stack:
``p[i]``, ``p[0] = ...`` and ``len(p)`` are the list's own C operations.

The rules' one convention for this: ``p[i]`` of a terminal is its Token (under PLY
too: the reference parse gives PLY tokens whose value is that Token, see
:func:`cfpromise.syntax.reference.reference_parse`), and per-parse state is not
``p.lexer`` but the parser's own (``parser._STATE``).

The algorithm is PLY's, step for step, so that rules run in the same order and a
syntax error is met at the same token in the same state (and so names the same
expected tokens): a state whose only action is a reduction takes it whatever the
next token (PLY's "defaulted states", which PLY reduces in without reading one);
any other state looks the next token up first.
A rule marked :func:`passes_through` (its value is its one symbol's) or
:func:`builds_list` (a list rule's append, new list or empty list) is not called:
the driver does what it says.
"""
from __future__ import annotations

from types import ModuleType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping, Sequence

END = "$end"


def passes_through(rule: Callable[[Any], None]) -> Callable[[Any], None]:
    """Mark a rule whose result is its only symbol's value (``p[0] = p[1]``), or
    ``None`` for an empty one: the driver then keeps the value where it is on the
    stack instead of calling the rule.  (PLY still calls it.)"""
    rule.passes_through = True          # type: ignore[attr-defined]
    return rule


def builds_list(rule: Callable[[Any], None]) -> Callable[[Any], None]:
    """Mark a rule that builds a list: its productions are ``X : X ... item`` (the
    list ``p[1]`` with its last symbol's value appended, in place), ``X : item`` (a
    new list of that one value) and ``X : empty`` (a new empty list).  The driver
    does that itself instead of calling the rule (PLY still calls it, so the oracle
    tests hold the rule's body to it)."""
    rule.builds_list = True             # type: ignore[attr-defined]
    return rule


class SyntaxErrorAt(Exception):
    """No action for ``token`` in the parser's state: ``expected`` are the token types
    that state accepts.  The parser turns it into the policy error it reports."""

    def __init__(self, token: Any, expected: Sequence[str]) -> None:
        super().__init__(token)
        self.token = token
        self.expected = expected


class _Defaulted(dict):  # type: ignore[type-arg]
    """A defaulted state's actions: its one reduction whatever the token (PLY takes it
    without reading one; the tokens here are read already, so only ``$more`` -- the
    lexer's error -- could tell, and it is reduced over as PLY would)."""

    __slots__ = ("default",)

    def __missing__(self, key: str) -> int:
        return self.default


class Tables:
    """PLY's action, goto and production tables, indexed for the driver.

    ``action[state]`` maps a token type to PLY's action (``> 0`` shift to that state,
    ``< 0`` reduce by that production, ``0`` accept; a defaulted state's reduction
    for any type); ``rules[-n]`` is production ``n`` as ``(function or None, length,
    goto)`` where ``goto[state]`` is the state after its nonterminal is pushed over
    ``state`` (indexed by the action itself: ``rules[action]``)."""

    def __init__(self, tabmodule: ModuleType, rules: Mapping[str, Any]) -> None:
        action: dict[int, dict[str, int]] = tabmodule._lr_action
        goto: dict[int, dict[str, int]] = tabmodule._lr_goto
        size = max(list(action) + list(goto)) + 1
        self.action: list[dict[str, int]] = [action.get(i, {}) for i in range(size)]
        # PLY's defaulted states: one action, a reduction, taken without reading a token.
        terminals = {name for actions in action.values() for name in actions} | {_MORE}
        for state, actions in action.items():
            only = list(actions.values())
            if len(only) == 1 and only[0] < 0:
                defaulted = _Defaulted(dict.fromkeys(terminals, only[0]))
                defaulted.default = only[0]
                self.action[state] = defaulted
        # the goto table by nonterminal: over which state it lands where
        by_name: dict[str, list[int]] = {}
        for state, gotos in goto.items():
            for name, target in gotos.items():
                by_name.setdefault(name, [-1] * size)[state] = target
        # production 0 is PLY's S' -> start; it has no function and is never reduced
        productions: list[tuple[Callable[[list[Any]], None] | None, int, list[int]]] = []
        for text, name, length, func, *_ in tabmodule._lr_productions:
            action_ = rules[func] if func else _no_action
            if getattr(action_, "passes_through", False) and length <= 1:
                action_ = None
            elif getattr(action_, "builds_list", False):
                first = text.split()[2:3]           # "X -> first ..."
                action_ = (_APPEND if length > 1 and first == [name] else
                           _NEW_LIST if length == 1 and first != ["empty"] else
                           _EMPTY_LIST if length <= 1 else _no_action)
                if action_ is _no_action:
                    raise ValueError(f"{text}: not a list-building production")
            productions.append((action_, length, by_name.get(name, [])))
        # production n at -n; at 0 (PLY's accept) an entry of no production: see parse
        self.rules = [(None, _ACCEPT, [])] + productions[:0:-1]


def _no_action(p: list[Any]) -> None:
    raise AssertionError("the start production is never reduced")


# What a production of a :func:`builds_list` rule does, done by the driver.
def _APPEND(p: list[Any]) -> None:
    p[1].append(p[-1])
    p[0] = p[1]


def _NEW_LIST(p: list[Any]) -> None:
    p[0] = [p[1]]


def _EMPTY_LIST(p: list[Any]) -> None:
    p[0] = []


_MORE = "$more"       # the type of the sentinel after the last token when an error follows
_ACCEPT = -1          # the length of the accept action's entry in Tables.rules


def parse(tables: Tables, tokens: list[Any], after: Exception | None, end: Any = None) -> Any:
    """Run the grammar over ``tokens``; the result is the start symbol's value.

    ``after`` is raised when a token beyond the last one is needed (the lexer's error
    that ended ``tokens``); otherwise the end of input has type ``$end``.  A token
    with no action raises :class:`SyntaxErrorAt` (``end`` at the end of input).
    ``tokens`` gets a sentinel appended (so the loop needs no bounds check)."""
    action = tables.action
    rules = tables.rules
    statestack: list[int] = [0]
    symstack: list[Any] = [None]
    state = 0
    tokens.append((_MORE,) if after is not None else (END,))
    # (list.append written out, not bound once: CPython 3.11 runs ``x.append(v)`` as a
    # specialised in-line append, a bound method as a call)
    for lookahead in tokens:
        ltype = lookahead[0]
        while True:             # reduce until the lookahead is shifted
            try:
                t = action[state][ltype]
            except KeyError:
                if ltype == _MORE:
                    raise after from None   # type: ignore[misc]
                raise SyntaxErrorAt(end if ltype == END else lookahead,
                                    list(action[state])) from None
            if t > 0:                               # shift
                statestack.append(t)
                symstack.append(lookahead)
                state = t
                break
            func, length, goto = rules[t]           # reduce (or accept: t == 0)
            if length == 1:
                if func is None:
                    pass
                elif func is _NEW_LIST:
                    symstack[-1] = [symstack[-1]]
                else:
                    p = [None, symstack[-1]]
                    func(p)
                    symstack[-1] = p[0]
                state = statestack[-1] = goto[statestack[-2]]
            elif length == 2:
                if func is _APPEND:
                    item = symstack.pop()
                    symstack[-1].append(item)
                else:
                    p = symstack[-3:]
                    func(p)                         # type: ignore[misc]
                    symstack.pop()
                    symstack[-1] = p[0]
                statestack.pop()
                state = statestack[-1] = goto[statestack[-2]]
            elif length > 2:
                if func is _APPEND:
                    item = symstack.pop()
                    del symstack[2 - length:]
                    symstack[-1].append(item)
                else:
                    p = symstack[-length - 1:]
                    func(p)                         # type: ignore[misc]
                    del symstack[1 - length:]
                    symstack[-1] = p[0]
                del statestack[1 - length:]
                state = statestack[-1] = goto[statestack[-2]]
            elif length == 0:
                if func is None:
                    symstack.append(None)
                elif func is _EMPTY_LIST:
                    symstack.append([])
                else:
                    p = [None]
                    func(p)
                    symstack.append(p[0])
                state = goto[state]
                statestack.append(state)
            else:                                   # accept
                return symstack[-1]
    raise AssertionError("the sentinel after the tokens is never shifted")
