"""The quick command-line reader (cfpromise.cli.options) against argparse built from the
same rows: where the quick reader answers, argparse gives the same namespace; plain
cron command lines are answered without argparse."""
from __future__ import annotations

import contextlib
import io

import pytest
from hypothesis import given, settings, strategies as st

from cfpromise.cli import agent, promises

PROGRAMS = {"cf-lite-agent": agent.OPTIONS, "cf-lite-promises": promises.OPTIONS}


def argparse_answer(options, argv: list[str]) -> dict | None:
    """argparse's namespace as a dict, or None when it refuses the command line."""
    sink = io.StringIO()
    try:
        with contextlib.redirect_stderr(sink), contextlib.redirect_stdout(sink):
            return vars(options.parser().parse_args(argv))
    except SystemExit:
        return None


def check(options, argv: list[str]) -> bool:
    """True when the quick reader answered (and agreed with argparse)."""
    quick = options.read(argv)
    if quick is None:
        return False
    assert vars(quick) == argparse_answer(options, argv), argv
    return True


PLAIN = {
    "cf-lite-agent": [
        [],
        ["-K", "-f", "/var/cfengine/inputs/promises.cf"],
        ["-K", "-I", "-f", "p.cf", "-w", "/tmp/wd", "-Dfoo,bar", "--define=baz", "-D", "qux"],
        ["--file=p.cf", "-n", "-v", "-I", "-b", "main", "-b", "other", "-N", "x"],
        ["p.cf", "-w", "/tmp/wd", "--simulate", "diff", "-g", "inf"],
        ["-w", "", "-f", "a b.cf", "--bundle-path", "/a:/b", "--only=h1,h2"],
    ],
    "cf-lite-promises": [
        [],
        ["-f", "/var/cfengine/masterfiles/promises.cf"],
        ["-c", "-f", "p.cf", "-w", "/tmp/wd", "-Dfoo,bar", "--define=baz"],
        ["p.cf", "-p", "json", "-I", "-v"],
        ["--file=p.cf", "-T", "/tmp/masterfiles", "--bundle-path=/c", "-s", "json"],
    ],
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_plain_command_lines_are_read_without_argparse(name: str) -> None:
    options = PROGRAMS[name]
    for argv in PLAIN[name]:
        assert argparse_answer(options, argv) is not None, argv
        assert check(options, argv), f"{argv} went to argparse"


def test_the_agent_reads_a_cron_line_quickly() -> None:
    ns = agent.OPTIONS.read(["-K", "-I", "-f", "p.cf", "-Dx", "-g", "verbose"])
    assert ns is not None
    assert (ns.no_lock, ns.file, ns.define, ns.log_level, ns.negate, ns.color) == (
        True, "p.cf", ["x"], "verbose", [], None)


@pytest.mark.parametrize("argv", [
    ["-h"], ["--fi", "x"], ["-Kn"], ["--show-evaluated-vars"], ["-C"], ["-f", "-x"],
    ["-f"], ["--simulate", "nope"], ["-D=x"], ["-Dx y"], ["a", "b"], ["-"], ["-1"],
    ["--", "p.cf"], ["--graph=dot"], ["-I=x"], ["--no-lock=yes"],
])
def test_anything_unusual_goes_to_argparse(argv: list[str]) -> None:
    assert agent.OPTIONS.read(argv) is None


WORDS = sorted({flag for options in PROGRAMS.values() for flags, _ in options.rows
                for flag in flags if flag.startswith("-")} | {
    "x", "p.cf", "a b", "-x", "", "-", "--", "=", "json", "json=F", "manifest", "dot", "cf",
    "none", "DEB", "bogus", "-1", "-Kn", "--fi", "-Dfoo", "-D=foo", "--define=a",
    "--file=", "--file=p.cf", "-fp.cf", "-wwd", "-I=x", "-Ix", "-gwarn", "--log-level=inf",
    "--simulate=diff", "--simulate=x", "-psjon", "-pjson", "-sjson", "--report=json=F",
    "-Cnever", "--color=auto", "-Dx y"})


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_the_quick_reader_agrees_with_argparse(name: str, data: st.DataObject) -> None:
    argv = data.draw(st.lists(st.sampled_from(WORDS), max_size=7))
    check(PROGRAMS[name], argv)
