"""The fast lexer gives PLY's lexer's tokens, errors and all (see scanner.FastLexer)."""
from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from cfpromise.syntax.errors import PolicyError
from cfpromise.syntax.lexer import Lexer
from cfpromise.syntax.scanner import FastLexer

ROOT = Path(__file__).resolve().parents[2]
CORPORA = [Path("/usr/share/cfengine3/masterfiles"),
           ROOT.parent / "shared" / "conformance" / "cfengine-acceptance", ROOT / "bundles",
           ROOT / "policy"]


def _stream(text: str, fast: bool) -> list[Any]:
    owner = Lexer("f.cf")
    owner.input(text)
    source = FastLexer(owner) if fast else owner.lexer
    out: list[Any] = []
    try:
        while True:
            tok = source.token()
            if tok is None:
                owner.check_end()
                break
            out.append((tok.type, tok.value, tok.lexpos, tok.coord, getattr(tok, "quote", None)))
            if len(out) > 100_000:
                break
    except PolicyError as exc:
        out.append(("error", str(exc)))
    return out


def _files() -> list[str]:
    found: list[str] = []
    for corpus in CORPORA:
        if corpus.is_dir():
            found += sorted(glob.glob(os.path.join(corpus, "**", "*.cf"), recursive=True))
    return found


def test_same_tokens_on_every_policy_file_at_hand() -> None:
    files = _files()
    if len(files) < 20:
        pytest.skip("needs a corpus of policy files (masterfiles or the acceptance suite)")
    for path in files:
        text = Path(path).read_bytes().decode("utf-8", "surrogateescape")
        assert _stream(text, True) == _stream(text, False), path


_PIECES = st.sampled_from([
    "bundle", " ", "\n", "\r\n", "\t", "agent", "x", "ns:x", "vars:", "any::", "linux.!a::",
    "a b::", '"s"', "'q'", "`b`", '"multi\nline"', '"esc\\"q"', "=>", "->", "{", "}", "(", ")",
    ",", ";", "$(v)", "@(l)", "${v}", "# c\n", "@if minimum_version(3.7)\n", "@else\n",
    "@endif\n", "@if feature(nope)\n", '"$(x)"::', "'v'::", "~", "\x00", '"unterminated', "=",
    "-", "@", "x" * 1030, "é", "\\",
])


@given(st.lists(_PIECES, max_size=40))
@settings(max_examples=400, deadline=None)
def test_same_tokens_on_generated_text(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert _stream(text, True) == _stream(text, False)


def test_kept_macros_and_variable_classes_need_no_ply_lexer() -> None:
    """A kept @if block and a "$(var)":: guard are scanned by the fast path alone, so a
    file like masterfiles' lib/files.cf never builds PLY's lexer (its import and its
    master regex are a tenth of a cold cf-lite-promises run); the tokens are PLY's."""
    text = ('@if minimum_version(3.7)\nbundle agent a\n{\n reports:\n   "$(x)|y"::\n'
            '     "r";\n}\n@endif\n')
    owner = Lexer("f.cf")
    owner.input(text)
    tokens, error = FastLexer(owner).scan()
    assert error is None and owner.if_depth == 0
    assert owner._ply is None
    assert [(t[0], t[1]) for t in tokens][4:6] == [("PROMISE_TYPE", "reports"),
                                                         ("VARCLASS", "$(x)|y")]
    assert _stream(text, fast=True) == _stream(text, fast=False)


@pytest.mark.parametrize("text", [
    "@if minimum_version(99.1)\nbundle agent a {}\n@endif\n",      # false: PLY skips
    "@if minimum_version(3.7)\nbundle agent a {}\n@else\nx\n@endif\n",
    " @if minimum_version(3.7)\n@endif\n",                            # not at line start
    "@endif\n",
    "@if minimum_version(3.7)\n@if minimum_version(3.7)\n@endif\n@endif\n",
    "@if minimum_version(3.7)\nbundle agent a {}\n",                  # never closed
    "@if bogus(1)\n@endif\n",
])
def test_macros_the_fast_path_hands_over(text: str) -> None:
    assert _stream(text, fast=True) == _stream(text, fast=False)


@pytest.mark.parametrize("end", ["# last\n", "#", "#\n\n", "  # a\n# b"])
def test_a_comment_ending_the_text_needs_no_ply_lexer(end: str) -> None:
    """The one-pass regex needs a token after its separators, so a comment ending the
    text (masterfiles' lib/testing.cf ends in one) comes to the scanner alone: it is
    skipped there, as PLY skips it, without building PLY's lexer."""
    text = "bundle agent a\n{\n}\n" + end
    owner = Lexer("f.cf")
    owner.input(text)
    tokens, error = FastLexer(owner).scan()
    assert error is None and owner._ply is None
    assert [t[0] for t in tokens] == ["BUNDLE", "IDENTIFIER", "IDENTIFIER", "{", "}"]
    assert _stream(text, fast=True) == _stream(text, fast=False)


@pytest.mark.parametrize("text", [
    'x => "a\\"b";', 'x => "abc"  }', 'x => "abc"  ;', 'x =>"s"  ,', "x=>'q';",
    'x => "multi\nline";\n y => "z",', 'x => "v"::', 'x => "v"::;', "f(x) ;", "f (x),",
    "{ a, b }  ;", "a => b;", "bundle => \"x\";", "promise(", "x" * 1030 + ' => "v";',
    "x" * 1030 + "(", 'x => "a" ,\n', 'x =>\n"a";', "x => \"a\"\t;", "a(b)::", "a (b) x::",
    '"s"::', '"s" ::', 'x => "é"; y => "$(v)";', "x => 'it''s';",
])
def test_compound_items_give_plys_tokens(text: str) -> None:
    """The one-pass regex reads a word with its `=>` or `(`, and a string, `}` or `)`
    with its `;` or `,`, as one item: the tokens are still PLY's, in every
    neighbourhood that could make them something else."""
    for around in (text, f"bundle agent a {{ vars: {text} }}\n", f"  {text}\n"):
        assert _stream(around, fast=True) == _stream(around, fast=False)
