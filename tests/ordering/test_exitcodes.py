"""--detailed-exitcodes, and -n leaving the host untouched byte for byte."""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from cfpromise.agent.runreport import Summary, detailed_exit_code
from cfpromise.promises.api import HANDLER_MODULES
from tests.ordering.support import agent

KEPT = '"/bin/true" classes => zero_is_kept;'
REPAIRED = '"/bin/echo repaired";'
FAILED = '"/bin/false";'
BODY = "body classes zero_is_kept { kept_returncodes => { \"0\" }; }\n"


def commands(*promises: str, extra: str = "") -> str:
    return "bundle agent main\n{\n  commands:\n" + "".join(f"    {p}\n" for p in promises) \
        + "}\n" + BODY + extra


@pytest.mark.parametrize("promises, plain, detailed", [
    ((KEPT,), 0, 0),
    ((KEPT, REPAIRED), 0, 2),
    ((KEPT, FAILED), 0, 4),
    ((REPAIRED, FAILED), 0, 6),
])
def test_detailed_exitcodes(tmp_path: Path, promises: tuple[str, ...], plain: int,
                            detailed: int) -> None:
    policy = commands(*promises)
    assert agent(tmp_path, policy).returncode == plain
    proc = agent(tmp_path, policy, "--detailed-exitcodes")
    assert proc.returncode == detailed, proc.stdout + proc.stderr


def test_fatal_error_keeps_1(tmp_path: Path) -> None:
    policy = commands(REPAIRED).replace("}\nbody", '  methods:\n    "m" usebundle => nosuch;\n'
                                                  "}\nbody", 1)
    proc = agent(tmp_path, policy, "--detailed-exitcodes", "--report", "json")
    assert proc.returncode == 1, proc.stdout
    report = json.loads((tmp_path / "wd" / "outputs" / "report.json").read_text())
    assert report["fatal"] is True and report["exit_code"] == 1


def test_abort_keeps_6(tmp_path: Path) -> None:
    """abortclasses: cf-agent's 6 is kept, even when nothing changed or failed."""
    policy = """
body agent control { abortclasses => { "stop_now" }; }
bundle agent main
{
  classes:
      "stop_now" expression => "any";
  commands:
      "/bin/true" classes => zero_is_kept;
}
""" + BODY
    proc = agent(tmp_path, policy, "--detailed-exitcodes", "--report", "json")
    assert proc.returncode == 6
    report = json.loads((tmp_path / "wd" / "outputs" / "report.json").read_text())
    assert report["aborted"] is True and report["summary"]["actuated"] == 0


def test_dry_run_would_change_is_2_not_4(tmp_path: Path) -> None:
    proc = agent(tmp_path, commands(REPAIRED), "-n", "--detailed-exitcodes")
    assert "Would execute script '/bin/echo repaired'" in proc.stdout
    assert proc.returncode == 2
    assert agent(tmp_path, commands(REPAIRED, FAILED), "-n",
                 "--detailed-exitcodes").returncode == 2


def test_warn_in_a_real_run_is_a_failure() -> None:
    summary = Summary(not_kept=1, warned=1)
    assert detailed_exit_code(summary, 0, dry_run=False) == 4
    assert detailed_exit_code(summary, 0, dry_run=True) == 2
    assert detailed_exit_code(Summary(repaired=3, not_kept=1, warned=1), 0, True) == 2
    assert detailed_exit_code(Summary(repaired=1), 1) == 1


# -- dry run --------------------------------------------------------------------------

def snapshot(root: Path) -> dict[str, tuple[int, int, int, bytes | str | None]]:
    """Every entry under root: mode, owner, mtime and contents (or link target)."""
    out: dict[str, tuple[int, int, int, bytes | str | None]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = path.lstat()
            if stat.S_ISLNK(st.st_mode):
                content: bytes | str | None = os.readlink(path)
            elif stat.S_ISREG(st.st_mode):
                content = path.read_bytes()
            else:
                content = None
            out[str(path.relative_to(root))] = (st.st_mode, st.st_uid, st.st_mtime_ns, content)
    return out


def test_dry_run_leaves_the_host_untouched(tmp_path: Path) -> None:
    host = tmp_path / "host"
    (host / "sub").mkdir(parents=True)
    (host / "a.txt").write_text("original\n")
    (host / "sub" / "b.bin").write_bytes(bytes(range(256)))
    (host / "sub" / "b.bin").chmod(0o640)
    (host / "link").symlink_to("a.txt")
    cmds = [f'"/bin/rm -f {host}/a.txt";', f'"/bin/touch {host}/new";',
            f'"/bin/chmod 777 {host}/sub/b.bin";',
            f'"/bin/sh -c \'echo x > {host}/sub/b.bin\'" contain => shell;']
    policy = commands(*cmds, extra="body contain shell { useshell => \"true\"; }\n")
    if "files" in HANDLER_MODULES:             # files promises, once the type is registered
        policy += f"""
bundle agent files_too
{{
  files:
      "{host}/created" create => "true";
      "{host}/a.txt" perms => mode("777"), edit_line => add_line;
      "{host}/sub/b.bin" delete => tidy;
}}
body perms mode(m) {{ mode => "$(m)"; }}
body delete tidy {{ dirlinks => "delete"; rmdirs => "true"; }}
bundle edit_line add_line {{ insert_lines: "added"; }}
body common control {{ bundlesequence => {{ "main", "files_too" }}; }}
"""
    before = snapshot(host)
    proc = agent(tmp_path, policy, "-n")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert snapshot(host) == before
    assert proc.stdout.count("Would execute script") == len(cmds)
    assert "does not support 'files'" not in proc.stdout or "files" not in HANDLER_MODULES
