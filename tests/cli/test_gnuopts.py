"""The daemons' and cf-lite-runagent's command lines read as getopt_long reads
cf-serverd's, cf-monitord's and cf-runagent's (cfpromise.cli.gnuopts), and what their
options reach: what needs no reference to check (tests/differential/
test_cliparity_daemons_differential.py holds them to the reference)."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from cfpromise.cli import gnuopts, monitord, runagent, serverd
from cfpromise.daemon import STOPS, DaemonLog, options_from_args


def read(argv: list[str], options=serverd.OPTIONS, stops=STOPS):
    return gnuopts.read(options, argv, stops)


def test_clusters_values_and_operands_mix() -> None:
    args = read(["-Fv", "-Dx,y", "p.cf", "-f", "-q.cf", "-lK"])
    assert (args.no_fork, args.log_level, args.define, args.policy, args.file) == (
        True, "verbose", ["x,y"], "p.cf", "-q.cf")
    assert args.timestamp and args.no_lock
    assert args.given == ["-F", "-v", "-D", "-f", "-l", "-K"]


def test_an_optional_value_is_only_an_attached_one() -> None:
    assert read(["-C", "always"]).color == "auto" and read(["-C", "always"]).policy == "always"
    assert read(["-Calways"]).color == "always"
    assert read(["--color=never"]).color == "never"
    assert read(["-t"]).graceful_detach == 60 and read(["-t7"]).graceful_detach == 7


def test_long_options_shortened_while_unambiguous() -> None:
    assert read(["--ign"]).ignore_preferred_augments
    assert read(["--no-f"]).no_fork
    with pytest.raises(gnuopts.Refused, match="'--no' is ambiguous; possibilities: "
                                              "'--no-fork' '--no-lock'"):
        read(["--no"])


def test_double_dash_ends_the_options() -> None:
    assert read(["--", "-V"]).policy == "-V" and not read(["--", "-V"]).version


@pytest.mark.parametrize("argv, message", [
    (["-Q"], "invalid option -- 'Q'"), (["--nosuch"], "unrecognized option '--nosuch'"),
    (["-f"], "option requires an argument -- 'f'"),
    (["--file"], "option '--file' requires an argument"),
    (["--no-fork=x"], "option '--no-fork' doesn't allow an argument"),
    (["--no-fo=x"], "option '--no-fork' doesn't allow an argument"),
    (["a", "b"], "Too many arguments"),
    (["-tx"], "Conversion error (-81 - No digits) on 'x' (StringToLongExitOnError)")])
def test_refused(argv: list[str], message: str) -> None:
    with pytest.raises(gnuopts.Refused) as refused:
        read(argv)
    assert refused.value.message == message


def test_reading_stops_at_what_is_acted_on_at_once() -> None:
    assert read(["-V", "-Q"]).version                   # -Q never read
    args = read(["-g", "nosuch", "-V"])
    assert args.log_level.endswith("nosuch") and not args.version
    assert read(["-h", "-Q"]).help


def test_monitord_refuses_dry_run_as_cf_monitord(capsys) -> None:
    assert monitord.main(["-n", "-V"]) == 1
    assert "usage:" in capsys.readouterr().out


@pytest.mark.parametrize("argv, foreground", [
    (["-v"], True), (["-d"], True), (["-F"], True), (["-g", "verbose"], False), ([], False),
    (["-v", "-g", "notice"], True)])
def test_verbose_and_debug_keep_a_daemon_in_the_foreground(tmp_path: Path, argv: list[str],
                                                           foreground: bool) -> None:
    args = read([*argv, "-w", str(tmp_path)])
    assert options_from_args(args).foreground is foreground


def test_color_colours_daemon_lines() -> None:
    stream = io.StringIO()
    DaemonLog("cf-serverd", "info", False, stream, color=True).log("error", "x")
    assert stream.getvalue() == "\x1b[31mcf-serverd    error: x\n\x1b[0m"


def _augmented(tmp_path: Path, policy: str) -> Path:
    (tmp_path / "def.json").write_text(json.dumps({"vars": {"p": "6001", "f": "0.5"}}))
    (tmp_path / "def_preferred.json").write_text(json.dumps({"vars": {"p": "6002",
                                                                      "f": "0.7"}}))
    path = tmp_path / "promises.cf"
    path.write_text(policy)
    return path


@pytest.mark.parametrize("ignore, port", [(False, "6002"), (True, "6001")])
def test_ignore_preferred_augments_reaches_the_server_policy(tmp_path: Path, ignore: bool,
                                                             port: str) -> None:
    from cfpromise.server.policy import load_server_policy
    policy = _augmented(tmp_path, 'body server control { port => "$(def.p)"; }\n')
    access = load_server_policy(str(policy), str(tmp_path / "wd"),
                                ignore_preferred_augments=ignore)
    assert str(access.port) == port


@pytest.mark.parametrize("ignore, rate", [(False, 0.7), (True, 0.5)])
def test_ignore_preferred_augments_reaches_the_monitor_policy(tmp_path: Path, ignore: bool,
                                                              rate: float) -> None:
    from cfpromise.agent.output import Output
    from cfpromise.monitor.policy import load_control
    policy = _augmented(tmp_path, 'body monitor control { forgetrate => "$(def.f)"; }\n')
    quiet = Output("critical", stream=io.StringIO())
    control = load_control(str(policy), str(tmp_path / "wd"), quiet,
                           ignore_preferred_augments=ignore)
    assert control.forgetrate == rate


def test_runagent_reads_background_and_its_count() -> None:
    assert read(["-b"], runagent.OPTIONS, runagent.STOPS).background == ""
    assert read(["-b7"], runagent.OPTIONS, runagent.STOPS).background == 7
    args = read(["-b", "7"], runagent.OPTIONS, runagent.STOPS)
    assert args.background == "" and args.policy == "7"


def test_cf_lite_s_own_long_options_are_shortened_after_cfengine_s() -> None:
    # cf-monitord's --i: --inform and --ignore-preferred-augments, not cf-lite's --interval
    with pytest.raises(gnuopts.Refused, match=r"'--i' is ambiguous; possibilities: "
                                              r"'--inform' '--ignore-preferred-augments'$"):
        read(["--i"], monitord.OPTIONS)
    assert read(["--int", "5"], monitord.OPTIONS).interval == 5.0
    assert read(["--on"], monitord.OPTIONS).once


def test_an_empty_long_name_abbreviates_every_option() -> None:
    with pytest.raises(gnuopts.Refused) as refused:
        read(["--=x"])
    head, _, listed = refused.value.message.partition(" possibilities: ")
    assert head == "option '--=x' is ambiguous;"
    longs = {f for flags, _ in serverd.OPTIONS.rows for f in flags if f.startswith("--")}
    assert set(listed.replace("'", "").split()) == longs - {"--workdir", "--port"} | {"--help"}
