"""The README's examples of autoloading, notify edges and partial runs run as documented
(policy/examples/)."""
from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from cfpromise.cli.agent import main as agent_main

EXAMPLES = Path(__file__).resolve().parents[2] / "policy" / "examples"


def run(tmp_path: Path, name: str, *args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = agent_main(["-K", "-w", str(tmp_path / "wd"), "-f", str(EXAMPLES / name), *args])
    return code, out.getvalue()


def test_autoload_example(tmp_path: Path) -> None:
    code, out = run(tmp_path, "autoload/promises.cf", "--report", f"json={tmp_path / 'r.json'}")
    assert code == 0, out
    site = tmp_path / "wd/outputs/examples/web/site.conf"
    assert site.read_text() == "listen 8080\n"
    assert f"R: monitoring: {site} is in place" in out
    loaded = {f["for"] for f in json.loads((tmp_path / "r.json").read_text())["autoloaded"]}
    assert {"bundle agent/common web:main", "bundle agent/common monitoring:check",
            "bundle edit_line default:insert_lines", "body classes default:results"} <= loaded


def test_notify_example(tmp_path: Path) -> None:
    code, out = run(tmp_path, "notify.cf")
    assert code == 0 and "restarting app" in out and "R: app.conf was changed" in out
    assert "too late" not in out
    code, out = run(tmp_path, "notify.cf")
    assert "restarting app" not in out and "R: app.conf unchanged" in out


def test_only_example(tmp_path: Path) -> None:
    code, out = run(tmp_path, "only.cf", "--only", "web")
    assert code == 0, out
    made = sorted(p.name for p in (tmp_path / "wd/outputs/examples").iterdir())
    assert made == ["motd", "web.conf"]
