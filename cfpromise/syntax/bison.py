"""cf-promises' syntax errors: its grammar's error productions, run as bison runs them.

cf-lite's own grammar (:mod:`cfpromise.syntax.parser`) has no error productions: it
only finds the first token the language does not take.  What cf-promises 3.21 says
about a bad policy is its bison parser's error recovery, so this module describes
that parser as data -- :data:`GRAMMAR`, the productions of 3.21's grammar (a mid-rule
action is its own empty nonterminal, ``@name``), each ``error`` production with the
words its action says -- and runs it over cf-lite's tokens the way bison's skeleton
does, only on the error path (the tables are built on first use, by PLY's LALR
generator):

* a state's default reduction is its most frequent one, taken for any token without
  an action of its own -- except in a state that shifts ``error``;  a state whose only
  action is that reduction takes it without reading a token (so an error rule's words
  name the token read last, ``yytext``);
* no action: "syntax error" (unless still recovering), then states are popped to one
  that shifts ``error``; while recovering (``yyerrstatus``, three tokens) a token
  without an action is dropped instead, and the end of the file ends the parse;
* an error rule's action prints its words where the lexer stands (one past the last
  token read) and may drop the look-ahead (``yyclearin``) or stop (``YYABORT``);
* past twelve errors, "Too many errors" ends the process.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

# cf-lite's token types as cf-promises' lexer names them
TOKEN_OF = {
    "QSTRING": "QUOTED_STRING", "SYMBOL": "IDENTIFIER", "CLASS": "CLASS_GUARD",
    "VARCLASS": "CLASS_GUARD", "PROMISE_TYPE": "PROMISE_GUARD", "ASSIGN": "FAT_ARROW",
    "ARROW": "THIN_ARROW",
}
TERMINALS = ["IDENTIFIER", "QUOTED_STRING", "CLASS_GUARD", "PROMISE_GUARD", "BUNDLE",
             "BODY", "PROMISE", "FAT_ARROW", "THIN_ARROW", "NAKEDVAR"]


def _by_token(cases: dict[str, str], other: str) -> Callable[[str], str]:
    return lambda token: cases.get(token, other)


_CLOSE = {"BUNDLE": "Expected '}}', got '{}'", "BODY": "Expected '}}', got '{}'"}

# (nonterminal, symbols, words of its action or None, drops the look-ahead, aborts);
# the words: a format of yytext, or a function of the look-ahead's type giving one
GRAMMAR: list[tuple[str, str, Any, bool, bool]] = [
    ("specification", "", None, False, False),
    ("specification", "blocks", None, False, False),
    ("blocks", "block", None, False, False),
    ("blocks", "blocks block", None, False, False),
    ("block", "bundle", None, False, False),
    ("block", "body", None, False, False),
    ("block", "promise", None, False, False),
    ("block", "error", "Expected 'bundle' or 'body' keyword, wrong input '{}'", False, True),
    ("bundle", "BUNDLE bundletype bundleid arglist bundlebody", None, False, False),
    ("body", "BODY bodytype bodyid arglist bodybody", None, False, False),
    ("promise", "PROMISE promisecomponent promiseid arglist bodybody", None, False, False),
    ("bundletype", "bundletype_values", None, False, False),
    ("bundletype_values", "typeid", None, False, False),
    ("bundletype_values", "error", "Expected bundle type, wrong input '{}'", True, False),
    ("bundleid", "bundleid_values", None, False, False),
    ("bundleid_values", "symbol", None, False, False),
    ("bundleid_values", "error", "Expected bundle identifier, wrong input '{}'", True, False),
    ("bodytype", "bodytype_values", None, False, False),
    ("bodytype_values", "typeid", None, False, False),
    ("bodytype_values", "error", "Expected body type, wrong input '{}'", True, False),
    ("bodyid", "bodyid_values", None, False, False),
    ("bodyid_values", "symbol", None, False, False),
    ("bodyid_values", "error", "Expected body identifier, wrong input '{}'", True, False),
    ("promisecomponent", "promisecomponent_values", None, False, False),
    ("promisecomponent_values", "typeid", None, False, False),
    ("promisecomponent_values", "error", "Expected 'agent', got '{}'", True, False),
    ("promiseid", "promiseid_values", None, False, False),
    ("promiseid_values", "symbol", None, False, False),
    ("promiseid_values", "error", "Expected promise type identifier, wrong input '{}'",
     True, False),
    ("typeid", "IDENTIFIER", None, False, False),
    ("symbol", "IDENTIFIER", None, False, False),
    ("arglist", "", None, False, False),
    ("arglist", "arglist_begin aitems arglist_end", None, False, False),
    ("arglist", "arglist_begin arglist_end", None, False, False),
    ("arglist", "arglist_begin error",
     "Error in bundle parameter list, expected ')', wrong input '{}'", True, False),
    ("arglist_begin", "'('", None, False, False),
    ("arglist_end", "')'", None, False, False),
    ("aitems", "aitem", None, False, False),
    ("aitems", "aitem ','", None, False, False),
    ("aitems", "aitem ',' aitems", None, False, False),
    ("aitem", "IDENTIFIER", None, False, False),
    ("aitem", "error", "Expected identifier, wrong input '{}'", True, False),
    ("@bundlebody", "", None, False, False),
    ("bundlebody", "body_begin @bundlebody bundle_decl '}'", None, False, False),
    ("body_begin", "'{'", None, False, False),
    ("body_begin", "error", "Expected body open '{{', wrong input '{}'", False, False),
    ("bundle_decl", "", None, False, False),
    ("bundle_decl", "bundle_statements", None, False, False),
    ("bundle_statements", "bundle_statement", None, False, False),
    ("bundle_statements", "bundle_statements bundle_statement", None, False, False),
    ("bundle_statements", "error", "Expected promise type, got '{}'", True, False),
    ("bundle_statement", "promise_guard classpromises_decl", None, False, False),
    ("promise_guard", "PROMISE_GUARD", None, False, False),
    ("classpromises_decl", "", None, False, False),
    ("classpromises_decl", "classpromises", None, False, False),
    ("classpromises", "classpromise", None, False, False),
    ("classpromises", "classpromises classpromise", None, False, False),
    ("classpromise", "class", None, False, False),
    ("classpromise", "promise_decl", None, False, False),
    ("promise_decl", "promise_line ';'", None, False, False),
    ("promise_decl", "promiser error", _by_token({
        "-": "Expected '->', got '{}'", ">": "Expected '->', got '{}'",
        "IDENTIFIER": "Expected attribute, got '{}'",
        ",": "Expected attribute, got '{}' (comma after promiser is not allowed since 3.5.0)",
    }, "Expected ';', got '{}'"), True, False),
    ("promise_line", "promise_with_promisee", None, False, False),
    ("promise_line", "promise_without_promisee", None, False, False),
    ("@promisee", "", None, False, False),
    ("promise_with_promisee", "promiser promisee_arrow rval @promisee promise_decl_constraints",
     None, False, False),
    ("@nopromisee", "", None, False, False),
    ("promise_without_promisee", "promiser @nopromisee promise_decl_constraints",
     None, False, False),
    ("promiser", "QUOTED_STRING", None, False, False),
    ("promiser", "error", _by_token(_CLOSE, "Expected promiser string, got '{}'"), True, False),
    ("promise_decl_constraints", "", None, False, False),
    ("promise_decl_constraints", "constraints_decl", None, False, False),
    ("promise_decl_constraints", "constraints_decl error", _by_token(
        {"IDENTIFIER": "Check previous line, Expected ',', got '{}'"},
        "Check previous line, Expected ';', got '{}'"), True, False),
    ("constraints_decl", "constraints", None, False, False),
    ("constraints", "constraint", None, False, False),
    ("constraints", "constraints ',' constraint", None, False, False),
    ("constraint", "constraint_id assign_arrow rval", None, False, False),
    ("constraint_id", "IDENTIFIER", None, False, False),
    ("constraint_id", "error", "Expected attribute, got '{}'\n", False, False),
    ("@bodybody", "", None, False, False),
    ("bodybody", "body_begin @bodybody bodybody_inner '}'", None, False, False),
    ("bodybody_inner", "", None, False, False),
    ("bodybody_inner", "bodyattribs", None, False, False),
    ("bodyattribs", "bodyattrib", None, False, False),
    ("bodyattribs", "bodyattribs bodyattrib", None, False, False),
    ("bodyattrib", "class", None, False, False),
    ("bodyattrib", "selection_line", None, False, False),
    ("selection_line", "selection ';'", None, False, False),
    ("selection_line", "selection error",
     "Expected ';' check previous statement, got '{}'", False, False),
    ("selection", "selection_id assign_arrow rval", None, False, False),
    ("selection_id", "IDENTIFIER", None, False, False),
    ("selection_id", "error", _by_token(_CLOSE, "Expected attribute, got '{}'"), True, False),
    ("assign_arrow", "FAT_ARROW", None, False, False),
    ("assign_arrow", "error", "Expected '=>', got '{}'", True, False),
    ("promisee_arrow", "THIN_ARROW", None, False, False),
    ("class", "CLASS_GUARD", None, False, False),
    ("rval", "IDENTIFIER", None, False, False),
    ("rval", "QUOTED_STRING", None, False, False),
    ("rval", "NAKEDVAR", None, False, False),
    ("rval", "list", None, False, False),
    ("rval", "usefunction", None, False, False),
    ("rval", "error", "Invalid r-value type '{}'", True, False),
    ("list", "'{' '}'", None, False, False),
    ("list", "'{' litems '}'", None, False, False),
    ("list", "'{' litems ',' '}'", None, False, False),
    ("litems", "litem", None, False, False),
    ("litems", "litems ',' litem", None, False, False),
    ("litems", "litem error", _by_token({
        ";": "Expected '}}', wrong input '{}'",
        "FAT_ARROW": "Check list statement previous line, Expected '}}', wrong input '{}'",
    }, "Expected ',', wrong input '{}'"), True, False),
    ("litem", "IDENTIFIER", None, False, False),
    ("litem", "QUOTED_STRING", None, False, False),
    ("litem", "NAKEDVAR", None, False, False),
    ("litem", "usefunction", None, False, False),
    ("litem", "error", "Invalid input for a list item, got '{}'", True, False),
    ("functionid", "IDENTIFIER", None, False, False),
    ("functionid", "NAKEDVAR", None, False, False),
    ("usefunction", "functionid givearglist", None, False, False),
    ("@givearglist", "", None, False, False),
    ("givearglist", "'(' @givearglist gaitems ')'", None, False, False),
    ("gaitems", "", None, False, False),
    ("gaitems", "gaitem", None, False, False),
    ("gaitems", "gaitems ',' gaitem", None, False, False),
    ("gaitems", "gaitem error", "Expected ',', wrong input '{}'", True, False),
    ("gaitem", "IDENTIFIER", None, False, False),
    ("gaitem", "QUOTED_STRING", None, False, False),
    ("gaitem", "NAKEDVAR", None, False, False),
    ("gaitem", "usefunction", None, False, False),
    ("gaitem", "error", _by_token({
        ";": "Expected ')', wrong input '{}'",
        "FAT_ARROW": "Check function statement  previous line, Expected ')', wrong input '{}'",
    }, "Invalid function argument, wrong input '{}'"), True, False),
]

MAX_ERRORS = 12        # past this many, "Too many errors"
_QUIET = 3             # yyerrstatus: tokens to shift before a new "syntax error"


class Warned(tuple):
    """A warning said between the errors: (position, message); counted as no error."""


class _Tables:
    """The LALR(1) automaton of :data:`GRAMMAR` with bison's default reductions:
    ``action[state]`` maps a token type to > 0 (shift), < 0 (reduce that production),
    0 (accept); ``default[state]`` the reduction for any other token (or None);
    ``consistent[state]`` whether that reduction is taken without a look-ahead."""

    def __init__(self) -> None:
        import ply.yacc as yacc
        grammar = yacc.Grammar(TERMINALS)
        rules: list[tuple[str, Any, bool, bool]] = [("", None, False, False)]
        self.symbols = [""] + [symbols for _, symbols, *_ in GRAMMAR]
        for name, symbols, words, clear, abort in GRAMMAR:
            grammar.add_production(_name(name), [_name(s) for s in symbols.split()])
            rules.append((name, words, clear, abort))
        grammar.set_start("specification")
        grammar.build_lritems()
        grammar.compute_first()
        grammar.compute_follow()
        table = yacc.LRGeneratedTable(grammar, "LALR", yacc.NullLogger())
        self.rules = rules
        self.length = [len(p) for p in grammar.Productions]
        self.lhs = [p.name for p in grammar.Productions]
        self.goto = table.lr_goto
        self.action: dict[int, dict[str, int]] = {}
        self.default: dict[int, int | None] = {}
        self.consistent: dict[int, bool] = {}
        for state, actions in table.lr_action.items():
            reductions = [a for a in actions.values() if a < 0]
            default = None
            if actions.get("error", -1) <= 0 and reductions:
                # the most frequent reduction; of equals, the first rule
                default = max(sorted(set(reductions), reverse=True), key=reductions.count)
            self.default[state] = default
            own = {t: a for t, a in actions.items() if a != default}
            self.action[state] = own
            self.consistent[state] = default is not None and not own


def _name(symbol: str) -> str:
    return symbol.replace("@", "mid_")


_TABLES: list[_Tables] = []


def tables() -> _Tables:
    if not _TABLES:
        _TABLES.append(_Tables())
    return _TABLES[0]


def errors(tokens: list[Any], where: Callable[[int], tuple[str, Any]],
           at_end: list[tuple[Any, str]] = (), checks: Callable[..., Any] | None = None,
           lexed: dict[int, list[tuple[Any, Any]]] = {},
           ) -> tuple[list[tuple[Any, str]], bool]:
    """cf-promises' errors for ``tokens`` (cf-lite's, without a sentinel): a list of
    (position, message), and whether the parse stopped ("Too many errors" not said:
    the caller sees more than :data:`MAX_ERRORS`).  ``where(i)`` is token ``i`` as
    written (yytext) and the position one past it (``i == len(tokens)``: the end);
    ``at_end``: the lexer's errors each time it is asked for a token at the end;
    ``lexed``: its errors of a token (by the token's offset), when it is read;
    ``checks(say, log)``: an object whose ``reduce(name, symbols, values, lookahead)``
    is told each reduction and gives the rule's value, ``read(token)`` each token read
    (:class:`cfpromise.syntax.bisoncheck.Checks`); ``log(d)`` puts a plain log line
    (position None) between the errors, counted as none."""
    t = tables()
    kinds = [tok[1] if tok[0] == "BADCHAR" else TOKEN_OF.get(tok[0], tok[0])
             for tok in tokens] + ["$end"]
    out: list[tuple[Any, str]] = []
    plain = [0]            # the plain log lines in ``out`` (no error of the count)
    states = [0]
    values: list[Any] = [None]
    read = -1              # index of the last token the lexer gave (yytext, position)
    look: int | None = None  # index of the look-ahead (None: yychar is empty)
    status = 0

    def say(message: str, of_text: bool = False, offset: int = 0,
            warning: bool = False) -> None:
        """Say ``message`` where the lexer stands (``of_text``: a format of yytext;
        ``offset``: columns from there; ``warning``: a warning, counted as no error,
        given as a (position, message) pair)."""
        text, coord = where(read) if read >= 0 else ("", None)
        if offset and coord is not None:
            coord = coord._replace(col=coord.col + offset)
        if warning:
            out.append((None, Warned((coord, message))))
            plain[0] += 1
            return
        out.append((coord, message.format(text) if of_text else message))

    def log(line: Any) -> None:
        """A plain log line (a Diagnostic of line 0) between the errors."""
        out.append((None, line))
        plain[0] += 1

    def too_many() -> bool:
        return len(out) - plain[0] > MAX_ERRORS

    hooks = checks(say, log) if checks is not None else None

    while True:
        state = states[-1]
        if t.consistent[state]:
            act = t.default[state]
        else:
            if look is None:
                read = look = min(read + 1, len(tokens))
                if look < len(tokens):
                    if hooks is not None:
                        hooks.read(tokens[look])
                    if lexed and tokens[look][2] in lexed:
                        out.extend(lexed[tokens[look][2]])
                        if too_many():
                            return out, True
                else:
                    where(look)         # (the end, or the lexer's error there: raised)
                    out.extend(at_end)
                    if too_many():
                        return out, True
            kind = kinds[look]
            act = t.action[state].get(kind, t.default[state])
        if act is None:                     # no action: a syntax error
            if status == 0:
                say("syntax error")
            elif status == _QUIET:
                if kinds[look] == "$end":
                    return out, True
                look = None
            status = _QUIET
            while "error" not in t.action[states[-1]] or t.action[states[-1]]["error"] <= 0:
                if len(states) == 1:
                    return out, True
                states.pop()
            states.append(t.action[states[-1]]["error"])
            del values[len(states) - 1:]
            values.append(None)
            if too_many():
                return out, True
            continue
        if act > 0:                         # shift
            states.append(act)
            values.append(tokens[look] if look < len(tokens) else None)
            look = None
            if status:
                status -= 1
            continue
        if act == 0:
            return out, False
        name, words, clear, abort = t.rules[-act]
        if words is not None:
            if not isinstance(words, str):
                words = words(kinds[look] if look is not None else "")
            say(words, of_text=True)
            if too_many():
                return out, True
            if abort:
                return out, True
            if clear:
                look = None
        length = t.length[-act]
        value = None
        if hooks is not None:
            value = hooks.reduce(name, t.symbols[-act], values[len(values) - length:],
                                 tokens[look] if look is not None and look < len(tokens)
                                 else None)
            if too_many():
                return out, True
        if length:
            del states[-length:]
            del values[-length:]
        states.append(t.goto[states[-1]][_name(name)])
        values.append(value)
