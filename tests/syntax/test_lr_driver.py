"""The parser (the one-pass scanner + :mod:`cfpromise.syntax.lr`) against PLY itself.

cf-lite has one grammar, PLY's rules in :mod:`cfpromise.syntax.parser` with the
tables PLY generates from them, and one parser, :func:`parse`, which runs those
tables with a driver of its own (faster than PLY's loop).  PLY's own lexer and
parser loop over the same rules and tables (:func:`reference_parse`) are the
oracle: :func:`parse` must give what they give, the same AST with every
coordinate, ``line`` and quote, or the same error with the same diagnostics; on
every policy file at hand (masterfiles, the acceptance suite, the repository's
own policy/ and bundles/), on edge cases and on generated, mutated and random text.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cfpromise.syntax import ast
from cfpromise.syntax.errors import PolicyError
from cfpromise.syntax.format import format_policy
from cfpromise.syntax.parser import parse as _parse
from cfpromise.syntax.reference import reference_parse
from tests.syntax import strategies as gen
from tests.syntax.test_parser_properties import SAMPLE, SEPARATORS, TOKENS, mutations

ROOT = Path(__file__).resolve().parents[2]
MASTERFILES = Path("/usr/share/cfengine3/masterfiles")
SUITE = ROOT.parent / "shared" / "conformance" / "cfengine-acceptance"
CORPORA = [MASTERFILES, SUITE, ROOT / "policy", ROOT / "bundles"]
PATTERNS = ("*.cf", "*.cf.sub", "*.sub")
DETERMINISTIC = dict(derandomize=True, database=None, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def parse(text: str, filename: str = "<string>") -> Any:
    """The driver's parse, without cf-promises' error recovery after it (a layer of its
    own, :mod:`cfpromise.syntax.recovery`, which PLY's loop does not have)."""
    return _parse(text, filename, recover=False)


def everything(node: Any) -> Any:
    """A node with all its fields, coordinates included (AST equality ignores them)."""
    if isinstance(node, ast._Node):
        return (type(node).__name__,) + tuple(everything(getattr(node, f)) for f in node._fields)
    if isinstance(node, (list, tuple)) and not hasattr(node, "_fields"):
        return tuple(everything(item) for item in node)
    return node


def outcome(parser: Any, text: str, filename: str = "f.cf") -> Any:
    try:
        return everything(parser(text, filename))
    except PolicyError as exc:
        return ("error", str(exc), [tuple(d) for d in exc.diagnostics])


def same(text: str, filename: str = "f.cf") -> Any:
    """Assert parse() == reference_parse() on ``text``; the outcome."""
    mine = outcome(parse, text, filename)
    assert mine == outcome(reference_parse, text, filename), filename
    return mine


def corpus_files(root: Path) -> list[Path]:
    return sorted({p for pattern in PATTERNS for p in root.rglob(pattern) if p.is_file()})


@pytest.mark.parametrize("root", CORPORA, ids=lambda p: p.name)
def test_same_result_on_every_policy_file(root: Path) -> None:
    if not root.is_dir():
        pytest.skip(f"{root} is missing")
    files = corpus_files(root)
    if not files:
        pytest.skip(f"no policy files under {root}")
    results = [same(path.read_bytes().decode("utf-8", "surrogateescape"), str(path))
               for path in files]
    # a corpus of mostly well-formed policy: the comparison is not between two errors
    assert sum(r[0] != "error" for r in results) >= 0.8 * len(files)


def test_same_result_on_the_sample_and_its_truncations() -> None:
    # every prefix: a syntax error (or the end of the text) at each token in turn
    for end in range(0, len(SAMPLE), 3):
        same(SAMPLE[:end])


MACROS = """\
bundle agent main
{
@if minimum_version(3.7)
  vars:
      "a" string => "kept";
@else
      "b" string => "skipped
@endif
";
@endif
@if minimum_version(300.1)
  reports:
      "not seen";
@else
  reports:
      "seen" -> { "x" };
@endif
@if feature(nope)
  "x"
@endif
  classes:
      "c" expression => "any";
}
"""


@pytest.mark.parametrize("text", [
    MACROS,
    MACROS.replace("300.1", "3.1"),
    MACROS.replace("@if feature(nope)", "@if feature(xml)"),
    'bundle agent m { vars: "s" string => "line\n@if minimum_version(3.7)\nx"; }\n',
    'bundle agent m { vars: "s" string => "a\\"::", x => "y"; }',
    'bundle agent m { vars: "s" string => \'a\\\'::\'; }',
    'bundle agent m { vars: any:: "s" string => f(a)::; }',
    'bundle agent m { vars: "s" string => f(g(h($(x)), "y", @(z)), k:l); }',
    'body x y { a => "1"; "$(c)":: b => "2"; }',
    'body x y { a => "1"; "$(c)":: linux:: b => "2"; }',
    "bundle agent m(a, b,) { vars: \"x\" slist => { \"a\", b, c:d, $(e), f(), }; }",
    "bundle agent m { vars: \"x\" slist => { , }; }",
    "bundle agent m { vars: \"x\" data => '{\"a\": [1]}', data => \"@(y)\"; }",
    "body file control { namespace => \"ns\"; } bundle agent m { } body file control "
    "{ namespace => \"n2\"; } bundle agent n:x { }",
    "bundle agent m { vars: \"x\" string => " + "f(" * 150 + ")" * 150 + "; }",
    "bundle agent m { a b:: }",
    "bundle agent m { vars: a. b:: \"x\"; }",
    "bundle agent m { vars: \"x\" -> { \"a\" }, handle => \"h\"; }",
    "bundle agent m { vars: \"x\" handle => \"h\",; }",
    "bundle agent m { vars: \"x\" " + "a" * 1024 + " => \"h\"; }",
    "bundle agent m { vars: \"x\" body => \"h\"; }",
    "bundle agent m { vars: \"x\" s => body; }",
    "bundle agent m\n{\nvars:\n  \"x\" s => \"y\";\n}\n@endif\n",
    "@if minimum_version(3.7)\nbundle agent m { }\n",
    "bundle agent m { vars: \"x\" s => \"y\"; } @else\n",
    "bundle agent a\n{\n  classes:\n    \"\n\"::\n      \"\";\n}\n",   # a guard over two lines
    "bundle\tagent m # c\n( a ) # d\n{ # e\n}",
    # heads: the arguments read in one match, or else token by token
    "bundle agent m(a, b,,) { }",
    "bundle agent m(a,,b) { }",
    "bundle agent m(,) { }",
    "bundle agent m( \t) { }",
    "body x y(a b) { }",
    "bundle agent m(bundle) { }",
    "bundle agent m(a)(b) { }",
    "bundle agent m(a:b) { }",
    "bundle agent m(a,\n b) { }",
    "bundle agent m # x::y\n(a) { }",
    "bundle agent m(a) x { }",
    "promise agent p(a) { }",
    "promise agent p() { }",
    "bundle agent m(" + "a" * 1024 + ") { }",
    # constraints: the rval on the lval's line or not, calls and lists in one match or not
    "bundle agent m { vars: \"x\" s =>\n \"y\"; }",
    "bundle agent m { vars: \"x\" s\n=> \"y\", t => # c\n f(a); }",
    "bundle agent m { vars: \"x\" s => f\n(a), t => \"a\"(\"b\"); }",
    "bundle agent m { vars: \"x\" s => f(\"a\"\n), t => g(h(x)\n, { \"z\" }); }",
    "bundle agent m { vars: \"x\" s => { f(x), \"a\"\n, g() }, t => { \"q\" } ; }",
    "bundle agent m { vars: \"x\" -> f(a) s => \"y\"; \"z\" -> { \"a\" }; }",
    "bundle agent m { vars: \"x\" s => \"a\\\\\", t => 'b\\\\', u => \"c\\\"d\"; }",
    "bundle agent m { vars: \"x\" s => \"a\\\"::\", t => \"b\"; }",
    "body x y { a => f(b)::; }",
    "body x y { a => \"b\"; a => \"c\"; any:: a => \"d\"; }",
    "bundle agent m { vars: \"x\" a => \"b\", a => \"c\"; }",
])
def test_same_result_on_edge_cases(text: str) -> None:
    same(text)


@settings(max_examples=300, **DETERMINISTIC)
@given(gen.policies)
def test_same_result_on_generated_policies(policy: ast.Policy) -> None:
    text = format_policy(policy)
    assert same(text)[0] != "error", text       # printed policy is well-formed


@settings(max_examples=1000, **DETERMINISTIC)
@given(st.lists(st.tuples(st.sampled_from(TOKENS), st.sampled_from(SEPARATORS)), max_size=40))
def test_same_result_on_token_soup(soup: list[tuple[str, str]]) -> None:
    same("".join(tok + sep for tok, sep in soup))


@settings(max_examples=1000, **DETERMINISTIC)
@given(mutations())
@example(SAMPLE)
def test_same_result_on_mutated_policy(text: str) -> None:
    same(text)


@settings(max_examples=300, **DETERMINISTIC)
@given(st.text())
def test_same_result_on_any_text(text: str) -> None:
    same(text)


def test_character_classes_are_the_lexers() -> None:
    """The lexer's classes are written with ASCII ranges: they
    hold exactly ``extra``, the identifier characters and every non-ASCII character."""
    import re

    from cfpromise.syntax import lexer

    word = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
    chars = [chr(c) for c in range(0x300)] + ["\u2028", "名", "\U0001f600", "\udc80", "\uffff"]
    for extra in ("", "[].:", ".:", "$(){}.:", ".|&!():", "\t .|&!():"):
        for flags in (0, re.VERBOSE):           # PLY compiles the lexer's rules verbose
            theirs = re.compile(lexer._cls(extra), flags)
            assert [bool(theirs.fullmatch(c)) for c in chars] == \
                [c in word or c in extra or ord(c) >= 128 for c in chars], repr(extra)


def test_builds_list_only_on_list_productions() -> None:
    """The driver does a :func:`lr.builds_list` rule's append, new list or empty list
    itself (PLY runs the rule's body, so the tests above hold the two together); a
    rule so marked whose production is none of those is refused when the tables are
    indexed, not run wrongly."""
    import importlib

    from cfpromise.syntax import lr, parser

    tabmodule = importlib.import_module(parser._TABMODULE)
    rules = dict(vars(parser))

    def constraint(p: Any) -> None:
        parser.p_constraint(p)

    rules["p_constraint"] = lr.builds_list(constraint)     # constraint : IDENTIFIER ASSIGN rval
    with pytest.raises(ValueError, match="constraint -> IDENTIFIER ASSIGN rval"):
        lr.Tables(tabmodule, rules)
    tables = lr.Tables(tabmodule, vars(parser))
    done_by_driver = {lr._APPEND, lr._NEW_LIST, lr._EMPTY_LIST}
    assert sum(func in done_by_driver for func, _, _ in tables.rules) == 12
