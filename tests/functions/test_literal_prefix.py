"""pcre.literal_prefix: every full match of a pattern starts with its literal prefix."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from cfpromise.eval.functions import pcre

ALPHABET = "ab:_.*?+|()[]{}^$\\12"


@settings(max_examples=400, deadline=None)
@given(st.text(ALPHABET, max_size=8), st.lists(st.text("ab:_12.", max_size=6), max_size=8))
def test_a_full_match_always_starts_with_the_prefix(pattern: str, names: list[str]) -> None:
    try:
        rx = pcre.compile_regex(pattern)
    except pcre.RegexError:
        return
    prefix = pcre.literal_prefix(pattern)
    for name in names + [pattern, pattern.replace("\\", "")]:
        if pcre.full_match(rx, name):
            assert name.startswith(prefix), (pattern, prefix, name)


def test_prefixes_of_masterfiles_patterns() -> None:
    assert pcre.literal_prefix("default:def.control_server_.*") == "default:def"
    assert pcre.literal_prefix("abc?d") == "ab"
    assert pcre.literal_prefix("x|y") == "" and pcre.literal_prefix("(?i)x") == ""
