"""Autoloading bundles and bodies by namespace from the bundle path (cfpromise.agent.autoload)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cfpromise.cli.promises import main as promises_main
from tests.edit import cfagent
from tests.ordering.support import agent, write_policy


def put(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o600)
    return path


APACHE_MAIN = """body file control { namespace => "apache"; }
bundle agent main
{
  methods:
      "monitoring" usebundle => nagios:main;
      "local" usebundle => nagios;
  reports:
      "apache:main ran";
}
"""
APACHE_NAGIOS = """body file control { namespace => "apache"; }
bundle agent nagios
{
  reports:
      "apache:nagios ran";
}
"""
NAGIOS_MAIN = """body file control { namespace => "nagios"; }
bundle agent main
{
  reports:
      "nagios:main ran";
}
"""
ENTRY = """body common control { bundlesequence => { "apache:main" }; }
"""


def pup121(tmp_path: Path, with_nagios: bool = True) -> None:
    put(tmp_path, "bundles/apache/main.cf", APACHE_MAIN)
    put(tmp_path, "bundles/apache/nagios.cf", APACHE_NAGIOS)
    if with_nagios:
        put(tmp_path, "bundles/nagios/main.cf", NAGIOS_MAIN)


def report(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "r.json").read_text())


def test_pup121_a_qualified_name_loads_its_own_namespace_file(tmp_path: Path) -> None:
    pup121(tmp_path)
    proc = agent(tmp_path, ENTRY, "--report", f"json={tmp_path / 'r.json'}")
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("R: ")]
    assert lines == ["R: nagios:main ran", "R: apache:nagios ran", "R: apache:main ran"]
    loaded = {f["for"].split()[-1]: f["file"] for f in report(tmp_path)["autoloaded"]}
    assert loaded["nagios:main"] == str(tmp_path / "bundles/nagios/main.cf")
    assert loaded["apache:nagios"] == str(tmp_path / "bundles/apache/nagios.cf")
    assert loaded["apache:main"] == str(tmp_path / "bundles/apache/main.cf")
    entry = next(f for f in report(tmp_path)["autoloaded"] if f["for"].endswith("nagios:main"))
    assert entry["reference"] == f"{tmp_path / 'bundles/apache/main.cf'}:5:20"
    assert entry["when"] == "load"


def test_pup121_never_falls_back_to_the_referring_namespace(tmp_path: Path) -> None:
    pup121(tmp_path, with_nagios=False)
    only_nagios = ENTRY.replace('"apache:main"', '"apache:other"')
    put(tmp_path, "bundles/apache/other.cf", """body file control { namespace => "apache"; }
bundle agent other
{
  methods:
      "monitoring" usebundle => nagios:main;
}
""")
    proc = agent(tmp_path, only_nagios, "--report", f"json={tmp_path / 'r.json'}")
    assert "apache:nagios ran" not in proc.stdout
    assert proc.returncode == 1
    assert "A method attempted to use a bundle 'nagios:main' that was apparently not defined" \
        in proc.stdout + proc.stderr
    files = [f["file"] for f in report(tmp_path)["autoloaded"]]
    assert str(tmp_path / "bundles/apache/nagios.cf") not in files


def test_verbose_lists_the_loaded_files(tmp_path: Path) -> None:
    pup121(tmp_path)
    proc = agent(tmp_path, ENTRY, "-v")
    assert f"Autoloaded '{tmp_path / 'bundles/nagios/main.cf'}' for bundle agent/common " \
           "nagios:main" in proc.stdout


def test_promises_full_check_sees_autoloaded_bundles(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    pup121(tmp_path)
    path = write_policy(tmp_path, ENTRY)
    assert promises_main(["-c", "-f", str(path), "-w", str(tmp_path / "wd")]) == 0
    (tmp_path / "bundles/nagios/main.cf").unlink()
    assert promises_main(["--lint", "-f", str(path), "-w", str(tmp_path / "wd")]) == 1
    assert "Undefined bundle nagios:main" in capsys.readouterr().err


def test_bundle_path_order_and_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    policy = """body common control { bundlesequence => { "which" }; }
"""
    for where in ("first", "second", "env"):
        put(tmp_path, f"{where}/which.cf", f'bundle agent which {{ reports: "from {where}"; }}\n')
    monkeypatch.setenv("CF_LITE_BUNDLE_PATH", str(tmp_path / "env"))
    proc = agent(tmp_path, policy, "--bundle-path", f"{tmp_path / 'first'}:{tmp_path / 'second'}")
    assert "R: from first" in proc.stdout
    proc = agent(tmp_path, policy, "--bundle-path", str(tmp_path / "second"))
    assert "R: from second" in proc.stdout
    proc = agent(tmp_path, policy)
    assert "R: from env" in proc.stdout
    put(tmp_path, "bundles/which.cf", 'bundle agent which { reports: "from beside"; }\n')
    proc = agent(tmp_path, policy, "--bundle-path", str(tmp_path / "first"))
    assert "R: from beside" in proc.stdout


def test_missing_bundle_path_entry_is_a_warning(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CF_LITE_BUNDLE_PATH", str(tmp_path / "nowhere-env"))
    proc = agent(tmp_path, 'bundle agent main { reports: "ran"; }\n',
                 "--bundle-path", str(tmp_path / "nowhere"))
    assert proc.returncode == 0 and "R: ran" in proc.stdout
    assert f"Bundle path entry '{tmp_path / 'nowhere'}' (--bundle-path) is not a directory" \
        in proc.stdout
    assert "(CF_LITE_BUNDLE_PATH) is not a directory" in proc.stdout


def test_file_not_defining_what_it_was_loaded_for(tmp_path: Path) -> None:
    put(tmp_path, "bundles/web/site.cf", """body file control { namespace => "web"; }
bundle agent other { reports: "x"; }
body perms strict { mode => "600"; }
""")
    proc = agent(tmp_path, """bundle agent main
{
  methods:
      "s" usebundle => web:site;
}
""")
    # invalid policy: cf-agent's fallback, the failsafe (exit 6 here: no key pair)
    assert proc.returncode != 0 and "going to failsafe" in proc.stdout
    assert f"p.cf:4:11: error: '{tmp_path / 'bundles/web/site.cf'}' was autoloaded for bundle " \
           "agent/common web:site but does not define it (it defines: bundle agent " \
           "web:other, body perms web:strict)" in proc.stderr


def test_syntax_error_in_an_autoloaded_file(tmp_path: Path) -> None:
    put(tmp_path, "bundles/broken.cf", 'bundle agent broken\n{\n  reports:\n      "x" ;;\n}\n')
    proc = agent(tmp_path, 'bundle agent main { methods: "b" usebundle => broken; }\n')
    assert proc.returncode != 0 and "going to failsafe" in proc.stdout
    assert f"{tmp_path / 'bundles/broken.cf'}:4:" in proc.stderr
    assert "^" in proc.stderr and "syntax errors in policy files" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_bodies_by_namespace_and_from_the_standard_library(tmp_path: Path) -> None:
    target = tmp_path / "f"
    put(tmp_path, "bundles/sec/private.cf", """body file control { namespace => "sec"; }
body perms private { mode => "0600"; }
""")
    policy = f"""bundle agent main
{{
  files:
      "{target}"
        create => "true",
        perms => sec:private,
        classes => if_repaired("made");
  reports:
    made::
      "made it";
}}
"""
    proc = agent(tmp_path, policy, "--report", f"json={tmp_path / 'r.json'}")
    assert proc.returncode == 0, proc.stderr
    assert oct(target.stat().st_mode & 0o777) == "0o600"
    assert "R: made it" in proc.stdout
    wanted = {f["for"] for f in report(tmp_path)["autoloaded"]}
    assert {"body perms sec:private", "body classes default:if_repaired"} <= wanted


def test_the_policy_s_own_definitions_win_over_the_library(tmp_path: Path) -> None:
    policy = """bundle agent main
{
  reports:
      "r" classes => if_repaired("x"), action => immediate;
    mine::
      "my classes body";
}
body classes if_repaired(x) { promise_kept => { "mine" }; }
"""
    proc = agent(tmp_path, policy)
    assert proc.returncode == 0, proc.stderr
    assert "R: my classes body" in proc.stdout


def test_run_time_names_are_loaded_when_they_resolve(tmp_path: Path) -> None:
    put(tmp_path, "bundles/late/job.cf", """body file control { namespace => "late"; }
bundle agent job { reports: "late job ran"; }
""")
    policy = """bundle agent main
{
  vars:
      "b" string => "late:job";
  methods:
      "dyn" usebundle => "$(b)";
}
"""
    proc = agent(tmp_path, policy, "--report", f"json={tmp_path / 'r.json'}")
    assert proc.returncode == 0, proc.stderr
    assert "R: late job ran" in proc.stdout
    (entry,) = report(tmp_path)["autoloaded"]
    assert entry["when"] == "run-time" and entry["file"].endswith("bundles/late/job.cf")


@pytest.mark.skipif(not cfagent.available(), reason="needs cf-agent 3.21 (cfengine3)")
def test_same_under_cf_agent_when_the_files_are_inputs(tmp_path: Path) -> None:
    pup121(tmp_path)
    put(tmp_path, "bundles/notify.cf", """bundle agent notify(who)
{
  files:
      "$(sys.workdir)/notified-$(who)"
        create => "true",
        classes => if_repaired_here("notified");
  reports:
      "notify $(who)";
    notified::
      "notified";
}
body classes if_repaired_here(c) { promise_repaired => { "$(c)" }; }
""")
    apache = APACHE_MAIN.replace('"local" usebundle => nagios;',
                                 '"local" usebundle => nagios;\n'
                                 '      "n" usebundle => default:notify("ops");')
    put(tmp_path, "bundles/apache/main.cf", apache)
    lite = agent(tmp_path, ENTRY)
    assert lite.returncode == 0, lite.stderr
    files = ["bundles/apache/main.cf", "bundles/apache/nagios.cf", "bundles/nagios/main.cf",
             "bundles/notify.cf"]
    inputs = ", ".join(f'"{f}"' for f in files)
    ref = put(tmp_path, "ref.cf", ENTRY.replace(
        "};", f"}}; inputs => {{ {inputs} }};", 1))
    code, out = cfagent.run_cf_agent(tmp_path, ref)
    assert code == 0, out
    reports = [ln for ln in lite.stdout.splitlines() if ln.startswith("R: ")]
    assert reports == [ln for ln in out.splitlines() if ln.startswith("R: ")]
    assert "R: notified" in reports


def test_bundles_named_with_b_load_for_the_run_and_the_graph(tmp_path: Path) -> None:
    pup121(tmp_path)
    unused = 'bundle agent unused { reports: "unused"; }\n'
    proc = agent(tmp_path, unused, "-b", "nagios:main")
    assert proc.returncode == 0 and "R: nagios:main ran" in proc.stdout
    proc = agent(tmp_path, unused, "-b", "nagios:main", "--graph=json")
    assert [b["id"] for b in json.loads(proc.stdout)["bundles"]] == ["bundle:agent:nagios:main"]


@pytest.mark.parametrize("text", [
    "bundle agent a\n{\n}\n  body perms p(x)\n{\n}\n",
    "\n\n   \n\tbundle\n\n agent\n b { }\nbody   classes   c\n",
    "bundle\nbundle agent x\n",                     # a match spanning lines, findall's way
    "xbundle agent no\n# bundle agent no\n bundlex agent no\nbodyx y z\n",
    "bundle agent\n",
    "  \x0b\x0cbundle edit_line e\r\nbody common control\n",
    "",
])
def test_blocks_are_findalls(text: str) -> None:
    from cfpromise.agent import autoload, stdlibindex
    assert stdlibindex.blocks(text, autoload._BLOCK) == autoload._BLOCK.findall(text)


def test_blocks_of_the_standard_library_are_findalls() -> None:
    from cfpromise.agent import autoload, stdlibindex
    from cfpromise.resources import share_dir
    root = share_dir("bundles")
    for entry in sorted(os.listdir(root)):
        if entry.endswith(".cf"):
            with open(os.path.join(root, entry), encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            assert stdlibindex.blocks(text, autoload._BLOCK) == autoload._BLOCK.findall(text), entry
