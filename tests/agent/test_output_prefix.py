"""Output.set_prefix (body common control output_prefix): the levels cf-agent 3.21 puts
it in front of -- info, verbose and debug, whose debug lines cf-lite rarely prints, so the
differential family (tests/differential/outputprefix.py) cannot see them all."""
from __future__ import annotations

import io

from cfpromise.agent.output import PREFIX, Output


def _lines(prefix: str, timestamps: bool = False) -> list[str]:
    out = Output("debug", timestamps, stream=io.StringIO())
    out.set_prefix(prefix)
    for level in ("debug", "verbose", "info", "notice", "warning", "error", "critical"):
        out.log(level, f"{level} said\nmore")
    out.report("r")
    return out.stream.getvalue().splitlines()


def test_info_and_lower_only() -> None:
    assert _lines("XX>") == [
        "XX>    debug: debug said", "more", "XX>  verbose: verbose said", "more",
        "XX>     info: info said", "more", "  notice: notice said", "more",
        " warning: warning said", "more", "   error: error said", "more",
        "CRITICAL: critical said", "more", "R: r"]


def test_empty_prefix_is_none() -> None:
    out = Output("debug", stream=io.StringIO())
    out.set_prefix("")
    assert out.labels == PREFIX
    assert _lines("")[4] == "    info: info said"


def test_before_the_timestamp() -> None:
    lines = _lines(" a ", timestamps=True)
    assert lines[4].startswith(" a  2") and lines[4].endswith("     info: info said")
    assert lines[5] == "more"               # (a continuation line: no time, no prefix)
    assert lines[6][:1].isdigit()           # notice: the time first
