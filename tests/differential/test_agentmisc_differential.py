"""Differential test: control variables, def.json, fatal errors, validation verdicts and
the dry run (:mod:`agentmisc`), each case run under cf-agent 3.21 and cf-lite; then the
environment child processes get, and cf-promises' -c verdicts against cf-lite-promises'."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.differential import agentmisc, fnchecks, harness

pytestmark = harness.needs_cf_agent


@pytest.fixture(scope="module")
def sleeper() -> object:
    """A process both agents see (never signalled: the cases run it under -n or warn)."""
    proc = subprocess.Popen(["bash", "-c", "exec -a cflite_dryrun_sleeper sleep 600"])
    yield proc
    proc.send_signal(signal.SIGKILL)
    proc.wait()


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory, sleeper: object) -> dict[str, tuple]:
    return agentmisc.run_observed(tmp_path_factory.mktemp("agentmisc"), agentmisc.CASES)


@pytest.mark.parametrize("name", agentmisc.NAMES)
def test_same_run_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    if name in agentmisc.EXPECTED_DIFFERENCES:
        assert ours != reference, "now agrees: drop it from EXPECTED_DIFFERENCES"
        pytest.xfail(agentmisc.EXPECTED_DIFFERENCES[name])
    assert ours == reference


def test_fatal_error_prints_no_tables(results: dict[str, tuple]) -> None:
    reference, ours = results["fatal_bare_usebundle"]
    assert not any(line.startswith("Variable name") for line in reference[2])
    assert "   error: Fatal CFEngine error: Aborting due to missing bundle 'nosuch'" in ours[3]
    assert not any(line.startswith("Variable name") for line in ours[2])


# -- the environment of child processes ---------------------------------------------------
_ENV_POLICY = """
bundle agent main {
vars:
  "e1" string => execresult("/usr/bin/env", "noshell");
  "e2" string => execresult("env", "useshell");
classes:
  "localized" expression => returnszero("/bin/sh -c 'test -n \\"$LANG$LANGUAGE$LC_MESSAGES$COLUMNS\\"'", "useshell");
commands:
  "/usr/bin/env";
reports:
  "e1: $(e1)";
  "e2: $(e2)";
  "localized" if => "localized";
}
"""
_ENV = {"LANG": "en_US.UTF-8", "LANGUAGE": "en", "LC_MESSAGES": "C", "LC_ALL": "C.UTF-8",
        "LC_CTYPE": "C", "LC_TIME": "C", "COLUMNS": "100", "CFLITE_MARKER": "kept"}
_NAMES = tuple(_ENV)


def _env_lines(output: str) -> list[str]:
    found = []
    for line in output.splitlines():
        for name in _NAMES:
            for token in line.split():
                if token.startswith(f"{name}="):
                    found.append(token)
        if line.startswith("R: localized"):
            found.append("localized")
    return sorted(found)


def test_children_get_cf_agents_environment(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in _ENV.items():
        monkeypatch.setenv(name, value)
    policy = harness.write_policy(tmp_path / "env.cf", _ENV_POLICY)
    ref, lite = harness.run_both(tmp_path, policy)
    assert "CFLITE_MARKER=kept" in _env_lines(ref.stdout)
    assert _env_lines(lite.stdout) == _env_lines(ref.stdout)


# -- cf-promises -c -------------------------------------------------------------------------
CHECKS: dict[str, str] = {
    "no_main": 'bundle agent x { reports: "x"; }\n',
    "empty_seq": 'body common control { bundlesequence => { }; }\nbundle agent main { reports: "x"; }\n',
    "empty_seq_no_main": 'body common control { bundlesequence => { }; }\nbundle agent x { reports: "x"; }\n',
    "seq_undefined": 'body common control { bundlesequence => { "main", "nosuch" }; }\n'
                     'bundle agent main { reports: "a"; }\n',
    "two_common": 'body common control { bundlesequence => { "main" }; }\n'
                  'body common control { bundlesequence => { "main" }; }\nbundle agent main { reports: "x"; }\n',
    "two_agent": 'body agent control { ifelapsed => "1"; }\nbody agent control { ifelapsed => "2"; }\n'
                 'bundle agent main { reports: "x"; }\n',
    "usebundle_quoted": 'bundle agent main { methods: "x" usebundle => "nosuch"; }\n',
    "usebundle_bare": 'bundle agent main { methods: "a" usebundle => nosuch; }\n',
    "usebundle_args": 'bundle agent main { methods: "a" usebundle => nosuch("x"); }\n',
    "edit_line_undefined": 'bundle agent main { files: "/tmp/cflite-x" edit_line => nosuch_el; }\n',
    "body_arity": 'bundle agent main { files: "/tmp/cflite-x" perms => m("1", "2"); }\n'
                  'body perms m(x) { mode => "$(x)"; }\n',
    "bundle_arity": 'bundle agent main { methods: "a" usebundle => b; }\n'
                    'bundle agent b(x) { reports: "$(x)"; }\n',
    "inherit_undefined": 'bundle agent main { files: "/tmp/cflite-x" perms => m; }\n'
                         'body perms m { inherit_from => nosuch; mode => "644"; }\n',
    "depends_missing": 'bundle agent main { reports: "a" depends_on => { "nosuch" }; }\n',
    "depends_cycle": 'bundle agent main { reports: "a" handle => "a", depends_on => { "b" }; '
                     '"b" handle => "b", depends_on => { "a" }; }\n',
    "body_undefined": 'bundle agent main { files: "/tmp/cflite-x" perms => nosuch; }\n',
    "remotescalar": 'bundle agent main { vars: "r" string => remotescalar("id", "127.0.0.1", "no"); }\n',
    "ldap": 'bundle agent main { vars: "l" string => ldapvalue("ldap://127.0.0.1", "dc=x", '
            '"(uid=a)", "cn", "subtree", "none"); "a" slist => ldaplist("ldap://127.0.0.1", '
            '"dc=x", "(uid=a)", "cn", "subtree", "none"); }\n',
    "randomint_literal": 'bundle agent main { vars: "x" int => randomint("a", "5"); }\n',
}


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_full_check_verdict_as_cf_promises(tmp_path: Path, name: str) -> None:
    policy = harness.write_policy(tmp_path / "p.cf", CHECKS[name])
    ref = subprocess.run(["cf-promises", "-c", "-f", str(policy)], capture_output=True,
                         text=True, timeout=60,
                         env=dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(tmp_path / "r")))
    lite = subprocess.run([sys.executable, "-m", "cfpromise.cli.promises", "-c", "-f",
                           str(policy), "-w", str(tmp_path / "l")],
                          capture_output=True, text=True, timeout=60)
    assert lite.returncode == ref.returncode, lite.stdout + lite.stderr
    for line in (ref.stdout + ref.stderr).splitlines():
        if "bundlesequence" in line or "Duplicate definition" in line:
            message = line.split("error: ", 1)[1]
            assert message in lite.stdout + lite.stderr


# -- cf-promises -c on function calls and references (generated: tests.differential.fnchecks)
_VERDICT_LINES = ("Fatal CFEngine error: In function", "Undefined body")


def _check_run(policy: Path, tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], ...]:
    ref = subprocess.run(["cf-promises", "-c", "-f", str(policy)], capture_output=True,
                         text=True, timeout=60,
                         env=dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=str(tmp_path / "r")))
    lite = subprocess.run([sys.executable, "-m", "cfpromise.cli.promises", "-c", "-f",
                           str(policy), "-w", str(tmp_path / "l")],
                          capture_output=True, text=True, timeout=60)
    return ref, lite


@pytest.mark.parametrize("name", sorted(fnchecks.POLICIES))
def test_function_check_verdict_as_cf_promises(tmp_path: Path, name: str) -> None:
    policy = harness.write_policy(tmp_path / "p.cf", fnchecks.POLICIES[name])
    ref, lite = _check_run(policy, tmp_path)
    lite_out = lite.stdout + lite.stderr
    assert "Traceback" not in lite_out, lite_out
    assert lite.returncode == ref.returncode, lite_out
    for line in (ref.stdout + ref.stderr).splitlines():
        if any(marker in line for marker in _VERDICT_LINES):
            assert line.split("error: ", 1)[1] in lite_out, lite_out


# -- cf-promises on vars and classes promisers (mod_common.c's parse-tree checks)
PROMISER_NAMES = ("a.b.c", "123", "0", "this", "promiser", "handle", "promise_filename",
                  "promise_dirname", "promise_linenumber", ".a", "a.", "a.b", "a[b.c.d]",
                  "a.b[c.d]", "a[x][y.z]", "a[x].b.c", "a[[b.c]]", "1.5", "-1", "a..b",
                  "$(v).b.c", "$(v.w)", "$(a.b).$(c.d)", "x_1", "07x", "é.x", "a.b]c.d[")
_NAME_LINE = ("purely numerical name", "using an invalid name")


@pytest.mark.parametrize("ptype", ["vars", "classes"])
@pytest.mark.parametrize("name", PROMISER_NAMES)
def test_promiser_name_verdict_as_cf_promises(tmp_path: Path, ptype: str, name: str) -> None:
    value = 'string => "x"' if ptype == "vars" else 'expression => "any"'
    policy = harness.write_policy(tmp_path / "p.cf", (
        f'bundle agent main\n{{\n  {ptype}:\n    "{name}" {value};\n}}\n'))
    ref, lite = _check_run(policy, tmp_path)
    lite_out = lite.stdout + lite.stderr
    assert "Traceback" not in lite_out, lite_out
    assert lite.returncode == ref.returncode, (ref.stdout + ref.stderr, lite_out)
    said = [line.split(": error: ", 1)[1] for line in (ref.stdout + ref.stderr).splitlines()
            if any(marker in line for marker in _NAME_LINE)]
    ours = [line.split(": error: ", 1)[1] for line in lite_out.splitlines()
            if any(marker in line for marker in _NAME_LINE)]
    assert ours == said, (ref.stdout + ref.stderr, lite_out)


# -- where cf-promises says a function is unknown: just after the call's closing
# parenthesis (its parser reduces the call there), the line and column of that point
UNKNOWN_CALLS = {
    "plain": 'string => nosuchfn("a");',
    "spaces": 'string => nosuchfn("a")  ;',
    "then_attr": 'string => nosuchfn("a"), comment => "x";',
    "in_list": 'slist => { nosuchfn("a") };',
    "lines": 'string => nosuchfn(\n  "a",\n   ")" );',
    "parens_in_args": 'string => nosuchfn("(", canonify("x)"));',
    "list_items": 'slist => { "a", nosuchfn("b"), "c" };',
    "list_lines": 'slist => {\n  "a",\n  nosuchfn("}")\n  };',
    "no_args": 'string => nosuchfn();',
}


@pytest.mark.parametrize("name", sorted(UNKNOWN_CALLS))
def test_unknown_function_where_cf_promises_says(tmp_path: Path, name: str) -> None:
    policy = harness.write_policy(tmp_path / "p.cf", (
        f'bundle agent main\n{{\n  vars:\n    "x" {UNKNOWN_CALLS[name]}\n}}\n'))
    ref, lite = harness.validate_both(policy, tmp_path)
    said = [line for line in (ref.stdout + ref.stderr).splitlines() if "Unknown function" in line]
    ours = [line for line in (lite.stdout + lite.stderr).splitlines() if "Unknown function" in line]
    assert said and ours == said
