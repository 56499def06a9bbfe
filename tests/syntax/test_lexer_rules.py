"""The lexer's token rules written for SRE's speed read what their plain forms read.

t_QSTRING and t_VARCLASS (cfpromise/syntax/lexer.py) are written so that SRE runs
its fast single-character loops over a string's body (an unrolled escape loop, a
lookahead for the common case without a backslash) and the skip of whitespace and
comments before a token has no repeated group where there is no comment: on
masterfiles the regex work fell from 552 M to 255 M instructions.  PLY reads the
same rules (its lexer is the parser tests' oracle), so the oracle cannot tell a
rewritten rule from the original: here each is held to its plain form, the one
CFEngine's flex lexer states, on generated text of the characters that matter.
"""
from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from cfpromise.syntax import lexer
from cfpromise.syntax.scanner import _SKIP_PREFIX

PLAIN = {
    "QSTRING": r"\"(?:\\(?:.|\n)|[^\"\\])*\"|'(?:\\(?:.|\n)|[^'\\])*'|`[^`]*`",
    "VARCLASS": r"(\"[^\"\x00]*\"|'[^'\x00]*')::",
}
SKIP_PLAIN = r"(?>(?:[ \t\r\n]+|\#[^\n]*)*)"
TEXT = st.text(alphabet="\"'`\\\n\x00:ab #\t\r", max_size=30)


def _rule(name: str) -> str:
    return getattr(lexer, f"t_{name}").__doc__


def _span(pattern: str, text: str) -> tuple[int, int] | None:
    m = re.compile(pattern, re.VERBOSE).match(text)      # as PLY compiles them
    return m.span() if m else None


@settings(max_examples=3000, derandomize=True, database=None, deadline=None)
@given(TEXT)
def test_fast_rules_match_what_the_plain_ones_match(text: str) -> None:
    for name, plain in PLAIN.items():
        assert _span(_rule(name), text) == _span(plain, text), (name, text)
    assert _span(_SKIP_PREFIX, text) == _span(SKIP_PLAIN, text), text
