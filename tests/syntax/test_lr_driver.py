"""The parser (one-pass scanner + :mod:`cfpromise.syntax.lr`) against PLY itself.

:func:`parse` must give what :func:`reference_parse` (PLY's lexer and PLY's own
parser loop over the same grammar and tables) gives: the same AST with every
coordinate, or the same error at the same place; on every policy file at hand
and on generated text.
"""
from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cfpromise.syntax import ast
from cfpromise.syntax.errors import PolicyError
from cfpromise.syntax.parser import parse, reference_parse
from tests.syntax.test_parser_properties import SAMPLE, SEPARATORS, TOKENS

ROOT = Path(__file__).resolve().parents[2]
CORPORA = [Path("/usr/share/cfengine3/masterfiles"),
           ROOT.parent / "shared" / "conformance" / "cfengine-acceptance", ROOT / "bundles",
           ROOT / "policy"]
DETERMINISTIC = dict(derandomize=True, database=None, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _everything(node: Any) -> Any:
    """A node with all its fields, coordinates included (AST equality ignores them)."""
    if isinstance(node, ast._Node):
        return (type(node).__name__,) + tuple(_everything(getattr(node, f)) for f in node._fields)
    if isinstance(node, (list, tuple)) and not hasattr(node, "_fields"):
        return tuple(_everything(item) for item in node)
    return node


def _outcome(parser: Any, text: str, filename: str = "f.cf") -> Any:
    try:
        return _everything(parser(text, filename))
    except PolicyError as exc:
        return ("error", str(exc), [tuple(d) for d in exc.diagnostics])


def _same(text: str, filename: str = "f.cf") -> None:
    assert _outcome(parse, text, filename) == _outcome(reference_parse, text, filename)


def test_same_result_on_every_policy_file_at_hand() -> None:
    files: list[str] = []
    for corpus in CORPORA:
        if corpus.is_dir():
            files += sorted(glob.glob(os.path.join(corpus, "**", "*.cf"), recursive=True))
    if len(files) < 20:
        pytest.skip("needs a corpus of policy files (masterfiles or the acceptance suite)")
    for path in files:
        _same(Path(path).read_bytes().decode("utf-8", "surrogateescape"), path)


def test_same_result_on_the_sample_and_its_truncations() -> None:
    # every prefix: a syntax error (or the end of the text) at each token in turn
    for end in range(0, len(SAMPLE), 3):
        _same(SAMPLE[:end])


@settings(max_examples=1000, **DETERMINISTIC)
@given(st.lists(st.tuples(st.sampled_from(TOKENS), st.sampled_from(SEPARATORS)), max_size=40))
def test_same_result_on_token_soup(soup: list[tuple[str, str]]) -> None:
    _same("".join(tok + sep for tok, sep in soup))


@settings(max_examples=300, **DETERMINISTIC)
@given(st.text())
def test_same_result_on_any_text(text: str) -> None:
    _same(text)
