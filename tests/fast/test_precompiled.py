"""The start path's regexes come from the generated SRE table (cfpromise.fast.precompiled)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from cfpromise.fast import _sretab, precompiled

REGENERATE = "regenerate with `make tables` (python -m cfpromise.fast.sregen)"


def test_table_holds_the_start_path_patterns_as_re_compiles_them() -> None:
    # in a fresh interpreter: the patterns the start path asks for, and their SRE code now
    script = ("import json, sys\nfrom cfpromise.fast import sregen\n"
              "rows = [[p, f, sregen.sre_entry(p, f)] for p, f in "
              "sregen.requested_on_start()]\n"
              "json.dump(rows, sys.stdout)\n")
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", script], capture_output=True,
                          text=True, check=True)
    wanted = {(p, f): entry for p, f, entry in json.loads(proc.stdout)}
    assert len(wanted) > 40
    assert set(_sretab.PATTERNS) == set(wanted), REGENERATE
    for key, (flags, code, groups, groupindex, indexgroup) in wanted.items():
        t_flags, t_code, *rest = _sretab.PATTERNS[key]
        assert (t_flags, memoryview(t_code).cast("I").tolist(), *rest) == \
            (flags, code, groups, groupindex, tuple(indexgroup)), f"{key[0]!r}: {REGENERATE}"


def test_the_start_path_compiles_none_of_its_patterns_at_run_time() -> None:
    # a fresh interpreter, re's compiler watched: the parser's and the scanner's patterns
    # (and every other one in the table) come ready-made
    script = ("import json, sys\nfrom re import _compiler\nseen = []\nreal = _compiler.compile\n"
              "def watch(p, flags=0):\n    seen.append(p)\n    return real(p, flags)\n"
              "_compiler.compile = watch\n"
              "from cfpromise.fast import precompiled, sregen\nsregen.requested_on_start()\n"
              "json.dump([len(precompiled._TABLE), seen], sys.stdout)\n")
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", script], capture_output=True,
                          text=True, check=True)
    table_size, compiled = json.loads(proc.stdout)
    assert table_size == len(_sretab.PATTERNS)
    assert set(compiled) & {pattern for pattern, _flags in _sretab.PATTERNS} == set()


@pytest.mark.filterwarnings("ignore::FutureWarning")     # a schema range re warns about
@pytest.mark.parametrize("text", ['  "x" string => "y";', ' # c\n  y => "z" ;', "x", ""])
def test_a_pattern_from_the_table_matches_as_re_compile(text: str) -> None:
    for pattern, flags in _sretab.PATTERNS:
        mine, theirs = precompiled.compile(pattern, flags), re.compile(pattern, flags)
        assert mine is not theirs
        a, b = mine.match(text), theirs.match(text)
        assert (a and (a.span(), a.groups())) == (b and (b.span(), b.groups())), pattern


def test_code_the_engine_rejects_falls_back_to_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    pattern = r"ab+c"
    broken = (32, b"".join(n.to_bytes(4, sys.byteorder) for n in (1, 2, 3)), 0, {},
              (None,))                              # words, but not valid SRE code
    monkeypatch.setitem(precompiled._TABLE, (pattern, 0), broken)
    assert precompiled.compile(pattern).fullmatch("abbbc")


def test_this_interpreter_takes_the_fast_path() -> None:
    # the table is keyed by the SRE engine, not the Python version: 3.11, 3.12 and 3.13
    # (three engines, the same code for these patterns) all use it
    import _sre
    assert _sre.MAGIC in _sretab.MAGICS and _sretab.CODE == (_sre.CODESIZE, sys.byteorder)
    assert precompiled._TABLE is _sretab.PATTERNS
    if sys.version_info[:2] in ((3, 11), (3, 12), (3, 13)):
        assert len(_sretab.MAGICS) >= 3, "make tables with 3.11, 3.12 and 3.13 at hand"


@pytest.mark.parametrize("change", ["MAGICS = (_sre.MAGIC + 1,)", "CODE = (4, 'big')",
                                    "CODE = (8, sys.byteorder)"])
def test_a_table_for_another_engine_is_not_used_and_says_so(change: str) -> None:
    script = (f"import _sre, sys\nfrom cfpromise.fast import _sretab\n_sretab.{change}\n"
              "from cfpromise import fast\nfrom cfpromise.fast import precompiled\n"
              "print(len(precompiled._TABLE))\nprint(fast.FALLBACKS)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    size, fallbacks = proc.stdout.splitlines()
    assert size == "0" and "Precompiled regexes not used" in fallbacks


def test_the_plain_switch_compiles_with_re() -> None:
    script = ("import sys\nfrom cfpromise.fast import precompiled\n"
              "precompiled.compile(r'a+b')\nprint(len(precompiled._TABLE), 're' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, env={**os.environ, "CF_LITE_PLAIN": "1"})
    assert proc.stdout.split() == ["0", "True"]


def test_flags_and_error_are_re_s() -> None:
    for name in ("IGNORECASE", "MULTILINE", "DOTALL", "S", "VERBOSE"):
        assert getattr(precompiled, name) == getattr(re, name), name
    assert precompiled.error is re.error
    with pytest.raises(precompiled.error):
        precompiled.compile("(unclosed")


# the speed mechanisms themselves: skipped under CF_LITE_PLAIN=1 (tests/conftest.py)
pytestmark = pytest.mark.fast_path
