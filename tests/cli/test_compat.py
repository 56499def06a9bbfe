"""cf-agent's and cf-promises' options read as they read them (cfpromise.cli.compat):
what needs no reference to check."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from cfpromise.cli import compat


@pytest.mark.parametrize("text, kinds", [
    ("all", frozenset()), ("deprecated", frozenset()), ("error", {"deprecated", "removed"}),
    ("error=all", {"deprecated", "removed"}), ("error=removed", {"removed"}),
    ("error=deprecated,removed", {"deprecated", "removed"})])
def test_warning_options(text: str, kinds: set[str]) -> None:
    assert compat.parse_warnings(text) == kinds


@pytest.mark.parametrize("text, lines", [
    ("nosuch", ["Unrecognized warning 'nosuch'", "Error parsing warning option"]),
    ("error=removed,x", ["Unrecognized warning 'x'", "Error parsing warning option"]),
    ("", ["Error parsing warning option"])])
def test_bad_warning_options(text: str, lines: list[str]) -> None:
    assert compat.parse_warnings(text) == lines


def test_a_corrupt_store_is_moved_aside(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "persistent_classes.json").write_text("{ not json")
    (state / "cf_lite_lastseen.json").write_text("{}")
    said: list[tuple[str, str]] = []
    assert compat.check_databases(str(tmp_path), "no", lambda lv, m: said.append((lv, m)))
    assert not (state / "persistent_classes.json").exists()
    assert (state / "persistent_classes.json.broken").exists()
    assert (state / "cf_lite_lastseen.json").exists()
    assert [lv for lv, _m in said] == ["info", "error"]


def test_db_check_values(tmp_path: Path) -> None:
    said: list[tuple[str, str]] = []
    log = lambda lv, m: said.append((lv, m))        # noqa: E731
    assert compat.check_databases(str(tmp_path), None, log)
    assert compat.check_databases(str(tmp_path), "YES", log) and not said
    assert not compat.check_databases(str(tmp_path), "maybe", log)
    assert said == [("error", "Invalid argument for --skip-db-check(yes/no): 'maybe'")]
    said.clear()
    compat.check_databases(str(tmp_path), "no", log)
    assert ("error", f"Could not open {tmp_path}/state") in said


def test_self_diagnostics(tmp_path: Path) -> None:
    (tmp_path / "ppkeys").mkdir()
    (tmp_path / "ppkeys" / "localhost.priv").write_text("k")
    os.chmod(tmp_path / "ppkeys" / "localhost.priv", 0o644)
    (tmp_path / "policy_server.dat").write_text("10.0.0.1\n")
    out: list[str] = []
    compat.self_diagnostics(str(tmp_path), out.append)
    text = "".join(out)
    assert f"self-diagnostics for agent using statedir '{tmp_path}/state'\n" in text
    assert "[ YES ] Check that agent is bootstrapped: 10.0.0.1\n" in text
    assert "[ NO  ] Check private key: Private key found at" in text
    assert "incorrect permissions '100644'" in text
    assert "[ NO  ] Check locks DB: Not created yet at" in text


@pytest.mark.parametrize("text, value", [("5", 5), (" -5", -5), ("+3", 3), ("007", 7),
                                         ("5 ", 5), ("9223372036854775807", 2 ** 63 - 1)])
def test_string_to_long(text: str, value: int) -> None:
    assert compat.string_to_long(text) == value


@pytest.mark.parametrize("text, why", [
    ("x", "-81 - No digits"), ("", "-81 - No digits"), ("5x", "-83 - Not terminated"),
    ("0x10", "-83 - Not terminated"), ("9223372036854775808", "34 - Overflow"),
    ("-99999999999999999999", "34 - Overflow")])
def test_string_to_long_refused(text: str, why: str) -> None:
    with pytest.raises(ValueError) as refused:
        compat.string_to_long(text)
    assert str(refused.value) == f"Conversion error ({why}) on '{text}' (StringToLongExitOnError)"


def _args(**values: object) -> object:
    return type("Args", (), values)()


@pytest.mark.parametrize("args, code, out, err", [
    (_args(log_level=compat.log_level("x")), 1, "", "Invalid log level: 'x'\n"),
    (_args(color=compat.color("bad")), 1, "   error: Unrecognized color mode 'bad'\n", ""),
    (_args(color=compat.color("auto"), log_level="info"), None, "", ""),
    (_args(log_modules=compat.log_modules("vars,nosuch,x")), None,
     " warning: Unknown debug logging module 'nosuch'\n"
     " warning: Unknown debug logging module 'x'\n", ""),
    (_args(log_modules=compat.log_modules("all,help")), 1,
     "\n--log-modules accepts a comma separated list of one or more of the following:\n\n"
     + "".join(f"    {m}\n" for m in compat.LOG_MODULES) + "\n", "")])
def test_refused(capsys, args: object, code: int | None, out: str, err: str) -> None:
    assert compat.refused(args) == code
    assert capsys.readouterr() == (out, err)
