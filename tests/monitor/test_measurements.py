"""measurements promises give the values their file or command holds; bad streams are
logged once naming the promise, get no value, and do not stop the sample."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.monitor.helpers import daemon, env_data, workdir_with


def test_file_and_command_values(tmp_path: Path) -> None:
    data = tmp_path / "data.txt"
    data.write_text("line one\nvalue: 42\ncount 7\ncount 9\n")
    work = workdir_with(tmp_path, f'''
measurements:
  "{data}" handle => "mynum", stream_type => "file", data_type => "int",
      history_type => "weekly", units => "things", match_value => m("value: .*", "value: (\\d+)");
  "{data}" handle => "mysum", stream_type => "file", data_type => "real",
      history_type => "scalar", match_value => m("count .*", "count (\\d+)");
  "{data}" handle => "mystr", stream_type => "file", data_type => "string",
      history_type => "static", match_value => m("line .*", "line (\\w+)");
  "{data}" handle => "mylist", stream_type => "file", data_type => "slist",
      history_type => "static", match_value => m("count .*", "count (\\d+)");
  "{data}" handle => "mycount", stream_type => "file", data_type => "counter",
      history_type => "static", match_value => m("count .*", "count (\\d+)");
  "{data}" handle => "myline", stream_type => "file", data_type => "string",
      history_type => "static", match_value => n("2");
  "/bin/echo 3.5" handle => "mypipe", stream_type => "pipe", data_type => "real",
      history_type => "static", match_value => m(".*", "([0-9.]+)");
  "{data}" handle => "mylog", stream_type => "file", data_type => "int",
      history_type => "log", match_value => m("value: .*", "value: (\\d+)");
''')
    d, log = daemon(work)
    d.sample()
    env = env_data(work)
    assert env["value_mynum"] == "42.00" and "av_mynum" in env and "dev_mynum" in env
    assert env["value_mysum"] == "8" and env["value_mycount"] == "2"
    assert env["value_mypipe"] == "3.50"
    static = (work / "state" / "static_data").read_text().splitlines()
    assert "mystr:0:one" in static and "mylist:3:7,9" in static and "myline:0:value: 42" in static
    log_line = (work / "state" / "mylog_measure.log").read_text().strip()
    assert log_line.endswith(",42") and log_line.count(",") == 2
    slots = (work / "state" / "ts_key").read_text()
    assert ",mynum,User defined measure,things," in slots
    # the agent sees them as cf-agent does: mon.value_HANDLE and mon.HANDLE
    env_vars = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(work))
    out = subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f",
                          str(work / "inputs" / "promises.cf"), "--show-evaluated-vars=mon\\."],
                         capture_output=True, text=True, env=env_vars, timeout=120).stdout
    for name in ("mon.value_mynum ", "mon.value_mypipe ", "mon.mystr ", "mon.mylist "):
        assert name in out, name
    assert '{"7","9"}' in out


def test_growing_file_reads_only_new_lines(tmp_path: Path) -> None:
    data = tmp_path / "grow.log"
    data.write_text("v=1\nv=2\n")
    work = workdir_with(tmp_path, f'''
measurements:
  "{data}" handle => "grown", stream_type => "file", data_type => "int",
      history_type => "scalar", match_value => growing;
''')
    d, _log = daemon(work)
    d.sample()
    assert env_data(work)["value_grown"] == "3"
    with open(data, "a") as fh:
        fh.write("v=10\n")
    d.sample()
    assert env_data(work)["value_grown"] == "10"


def test_bad_streams_are_logged_once_and_others_still_measured(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("n=5\n")
    garbage = tmp_path / "garbage.sh"
    garbage.write_text("#!/bin/sh\necho 'n=abc'\n")
    garbage.chmod(0o755)
    hang = tmp_path / "hang.sh"
    hang.write_text("#!/bin/sh\nexec sleep 30\n")
    hang.chmod(0o755)
    work = workdir_with(tmp_path, f'''
measurements:
  "{tmp_path}/missing.txt" handle => "missing", stream_type => "file", data_type => "int",
      history_type => "weekly", match_value => m("n=.*", "n=(\\d+)");
  "{hang}" handle => "hangs", stream_type => "pipe", data_type => "int",
      history_type => "scalar", match_value => m("n=.*", "n=(\\d+)");
  "{garbage}" handle => "garbage", stream_type => "pipe", data_type => "int",
      history_type => "scalar", match_value => m("n=.*", "n=(.*)");
  "{good}" handle => "nomatch", stream_type => "file", data_type => "string",
      history_type => "static", match_value => m("zzz.*", "zzz(.*)");
  "{good}" handle => "good", stream_type => "file", data_type => "int",
      history_type => "weekly", match_value => m("n=.*", "n=(\\d+)");
''')
    d, log = daemon(work, pipe_timeout=0.5)
    d.sample()
    d.sample()
    env = env_data(work)
    assert env["value_good"] == "5.00"
    for handle in ("missing", "hangs", "garbage"):
        assert f"value_{handle}" not in env
    assert "nomatch" not in (work / "state" / "static_data").read_text()
    text = log.getvalue()
    for handle, why in (("missing", "unable to find stream"), ("hangs", "timed out"),
                        ("garbage", "unable to extract a number"), ("nomatch", "no matching line")):
        lines = [l for l in text.splitlines() if f"measurement '{handle}'" in l and "error" in l]
        assert len(lines) == 1, (handle, text)          # once, over two samples
        assert why in lines[0]


def test_ifelapsed_reuses_the_last_sample_until_elapsed(tmp_path: Path) -> None:
    data = tmp_path / "n.txt"
    data.write_text("n=1\n")
    work = workdir_with(tmp_path, f'''
measurements:
  "{data}" handle => "slow", stream_type => "file", data_type => "int",
      history_type => "scalar", match_value => m("n=.*", "n=(\\d+)"), action => every(60);
  "{data}" handle => "fast", stream_type => "file", data_type => "int",
      history_type => "scalar", match_value => m("n=.*", "n=(\\d+)");
''', extra="body action every(m) { ifelapsed => \"$(m)\"; }\n")
    d, _log = daemon(work)
    d.sample()
    data.write_text("n=2\n")
    d.sample()
    env = env_data(work)
    assert env["value_fast"] == "2" and env["value_slow"] == "1"
    d2, _log2 = daemon(work)          # a restarted daemon measures at once
    d2.sample()
    assert env_data(work)["value_slow"] == "2"
