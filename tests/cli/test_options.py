"""cf-lite-agent's and cf-lite-promises' option tables (cfpromise.cli.options) read as
getopt_long reads cf-agent's and cf-promises' (cfpromise.cli.gnuopts): a plain cron line
means what argparse, which read them before, made of it; what getopt reads otherwise;
and any command line is read or refused, never a traceback.  (The reference itself:
tests/differential/test_cliopts_differential.py.)"""
from __future__ import annotations

import contextlib
import io

import pytest
from hypothesis import given, settings, strategies as st

from cfpromise.cli import agent, gnuopts, promises

PROGRAMS = {"cf-lite-agent": (agent.OPTIONS, agent.STOPS),
            "cf-lite-promises": (promises.OPTIONS, promises.STOPS)}


def argparse_answer(options, argv: list[str]) -> dict | None:
    """argparse's namespace as a dict, or None when it refuses the command line."""
    sink = io.StringIO()
    try:
        with contextlib.redirect_stderr(sink), contextlib.redirect_stdout(sink):
            return vars(options.parser().parse_args(argv))
    except SystemExit:
        return None


def read(name: str, argv: list[str]):
    options, stops = PROGRAMS[name]
    return gnuopts.read(options, argv, stops)


PLAIN = {
    "cf-lite-agent": [
        [],
        ["-K", "-f", "/var/cfengine/inputs/promises.cf"],
        ["-K", "-I", "-f", "p.cf", "-w", "/tmp/wd", "-Dfoo,bar", "--define=baz", "-D", "qux"],
        ["--file=p.cf", "-n", "-v", "-I", "-b", "main", "-b", "other", "-N", "x"],
        ["p.cf", "-w", "/tmp/wd", "--simulate", "diff", "-g", "inf"],
        ["-w", "", "-f", "a b.cf", "--bundle-path", "/a:/b", "--only=h1,h2"],
        ["-f", "promises.cf", "--timestamp", "--report", "json"],      # the systemd unit's
        ["--report", "json=/tmp/r.json", "--summary", "--timing", "--graph=json"],
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
def test_a_plain_command_line_means_what_it_meant(name: str) -> None:
    for argv in PLAIN[name]:
        got = vars(read(name, argv))
        assert not got.pop("help") and got.pop("given") is not None
        assert got == argparse_answer(PROGRAMS[name][0], argv), argv


def test_the_agent_reads_a_cron_line() -> None:
    ns = read("cf-lite-agent", ["-K", "-I", "-f", "p.cf", "-Dx", "-g", "verbose"])
    assert (ns.no_lock, ns.file, ns.define, ns.log_level, ns.negate, ns.color) == (
        True, "p.cf", ["x"], "verbose", [], None)


@pytest.mark.parametrize("argv, expected", [
    (["-KIfp.cf"], dict(no_lock=True, log_level="info", file="p.cf")),
    (["-f", "-x"], dict(file="-x", self_diagnostics=None)),
    (["-C", "always"], dict(color="auto", policy="always")),
    (["--show-evaluated-vars", "p.cf"], dict(show_evaluated_vars=".*", policy="p.cf")),
    (["--show-evaluated-vars=^a"], dict(show_evaluated_vars="^a")),
    (["--sh=x"], dict(show_evaluated_classes="x")),          # alike: the first, as glibc
    (["--bundle", "b"], dict(bundlesequence="b")),           # not --bundle-path (cf-lite's)
    (["--su"], dict(summary=True)),                          # cf-lite's, where none of cf-agent's
    (["-b", "a", "-b", "b"], dict(bundlesequence="b")),      # the last -b, as cf-agent
    (["--simulate=DIFF"], dict(simulate="diff")),
    (["-Tno", "--skip-db-check=NO"], dict(trust_server="no", skip_db_check="no")),
    (["-Tx"], dict(trust_server="no")),
    (["--", "-V"], dict(policy="-V", version=False)),
    (["a", "b", "-V"], dict(version=True)),                  # -V read before the operands count
])
def test_agent_reads_as_cf_agent(argv: list[str], expected: dict) -> None:
    ns = vars(read("cf-lite-agent", argv))
    assert {k: ns[k] for k in expected} == expected


@pytest.mark.parametrize("name, argv, message", [
    ("cf-lite-agent", ["--s"], "option '--s' is ambiguous; possibilities: '--self-diagnostics' "
     "'--show-evaluated-classes' '--show-evaluated-vars' '--skip-bootstrap-policy-run' "
     "'--skip-db-check' '--simulate'"),
    ("cf-lite-agent", ["--t"], "option '--t' is ambiguous; possibilities: '--timing-output' "
     "'--trust-server' '--timestamp'"),
    ("cf-lite-agent", ["--d=1"], "option '--d=1' is ambiguous; possibilities: '--debug' "
     "'--define' '--dry-run'"),
    ("cf-lite-agent", ["--report"], "option '--report' requires an argument"),
    ("cf-lite-agent", ["--simulate", "x"], "Invalid argument for --simulate, 'manifest' or "
     "'diff' required, not 'x'"),
    ("cf-lite-agent", ["--graph=svg"], "Invalid argument for --graph, 'dot' or 'json' "
     "required, not 'svg'"),
    ("cf-lite-agent", ["-p"], "invalid option -- 'p'"),
    ("cf-lite-promises", ["--show"], "option '--show' is ambiguous; possibilities: "
     "'--show-classes' '--show-vars'"),
    ("cf-lite-promises", ["--f"], "option '--f' is ambiguous; possibilities: '--file' "
     "'--full-check'"),
    ("cf-lite-promises", ["-K"], "invalid option -- 'K'"),
    ("cf-lite-promises", ["-W", "x"], "Unrecognized warning 'x'\nError parsing warning option"),
    ("cf-lite-promises", ["-c", "a", "b"], "Too many arguments"),
])
def test_refused_as_cfengine_refuses(name: str, argv: list[str], message: str) -> None:
    with pytest.raises(gnuopts.Refused) as refused:
        read(name, argv)
    assert refused.value.message == message


def test_reading_stops_at_what_is_acted_on_at_once() -> None:
    assert read("cf-lite-promises", ["-s", "json", "-Q", "a", "b"]).syntax_description == "json"
    with pytest.raises(gnuopts.Refused):
        read("cf-lite-promises", ["-s", "none", "-Q"])
    assert read("cf-lite-agent", ["-x", "-Q"]).self_diagnostics == ""
    assert read("cf-lite-agent", ["-M", "--bogus"]).manpage


WORDS = sorted({flag for options, _ in PROGRAMS.values() for flags, _ in options.rows
                for flag in flags if flag.startswith("-")} | {
    "x", "p.cf", "a b", "-x", "", "-", "--", "=", "json", "json=F", "manifest", "dot", "cf",
    "none", "DEB", "bogus", "-1", "-Kn", "--fi", "-Dfoo", "-D=foo", "--define=a", "--s",
    "--file=", "--file=p.cf", "-fp.cf", "-wwd", "-I=x", "-Ix", "-gwarn", "--log-level=inf",
    "--simulate=diff", "--simulate=x", "-psjon", "-pjson", "-sjson", "--report=json=F",
    "-Cnever", "--color=auto", "-Dx y", "--=x", "--sh", "-Bs"})


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_any_command_line_is_read_or_refused(name: str, data: st.DataObject) -> None:
    # (not -B: its host is resolved as it is read)
    words = [w for w in WORDS if w not in ("-B", "--bootstrap", "-Bs")]
    argv = data.draw(st.lists(st.sampled_from(words), max_size=7))
    try:
        read(name, argv)
    except gnuopts.Refused as refused:
        assert refused.message
