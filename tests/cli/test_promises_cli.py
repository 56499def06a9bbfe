"""cf-lite-promises end to end: exit codes, error format, outputs, nothing written to cwd."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import ply.yacc as yacc

import cfpromise.syntax.parser as parser_module
from cfpromise.syntax import _parsetab

GOOD = """body common control
{
  bundlesequence => { "main" };
}
bundle agent main
{
  reports:
    "hello" handle => "h1";
}
"""


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cfpromise.cli.promises", *args],
                          capture_output=True, text=True, cwd=cwd)


def write(tmp_path: Path, text: str, name: str = "p.cf") -> Path:
    path = tmp_path / name
    path.write_text(text)
    path.chmod(0o600)
    return path


def test_good_policy_exits_zero_silently_and_writes_nothing(tmp_path: Path) -> None:
    write(tmp_path, GOOD)
    proc = run("-f", "./p.cf", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "" and proc.stderr == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.cf"]


def test_syntax_error_names_file_line_col_with_caret(tmp_path: Path) -> None:
    write(tmp_path, 'bundle agent main\n{\n  reports:\n    "x" comment => "a" handle => "h";\n}\n')
    proc = run("p.cf", cwd=tmp_path)        # (-f p.cf is WORKDIR/inputs/p.cf)
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    # (as cf-promises: bison's "syntax error", then its rule's words, one past the token)
    assert lines[0] == "p.cf:4:30: error: syntax error"
    assert lines[1] == '    "x" comment => "a" handle => "h";'
    assert lines[2] == " " * 29 + "^"
    assert lines[3] == "p.cf:4:30: error: Check previous line, Expected ',', got 'handle'"
    assert "syntax errors" in proc.stdout       # the verdict: a log line, as cf-promises'


def test_p_json_is_cf_promises_shaped(tmp_path: Path) -> None:
    write(tmp_path, GOOD)
    proc = run("-p", "json", "p.cf", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith('{\n      "bodies": [') and not proc.stdout.endswith("\n")
    doc = json.loads(proc.stdout)
    bundle = doc["bundles"][0]
    assert (bundle["name"], bundle["line"], bundle["sourcePath"]) == ("main", 5, "p.cf")
    promise = bundle["promiseTypes"][0]["contexts"][0]["promises"][0]
    assert promise == {"attributes": [{"line": 8, "lval": "handle",
                                       "rval": {"type": "string", "value": "h1"}}],
                       "line": 8, "promiser": "hello"}


def test_full_check_reports_undefined_bundle_and_body_arity(tmp_path: Path) -> None:
    write(tmp_path, GOOD.replace('"main" }', '"main", "nosuch" }') +
          'bundle agent other { files: "/tmp/x" perms => p; }\nbody perms p(m) { mode => "$(m)"; }\n')
    assert run("-f", "./p.cf", cwd=tmp_path).returncode == 0      # as lenient as cf-promises
    proc = run("--lint", "-f", "./p.cf", cwd=tmp_path)
    assert proc.returncode == 1
    assert "p.cf:3:31: error: Undefined bundle nosuch" in proc.stderr
    assert "Body p of type perms takes 1 argument(s), 0 given" in proc.stderr


def test_undefined_body_is_an_error_once_inputs_are_loaded(tmp_path: Path) -> None:
    write(tmp_path, 'body perms lib_p { mode => "644"; }\n', "lib.cf")
    write(tmp_path, 'body common control { inputs => { "lib.cf" }; }\n'
                    'bundle agent m { files: "/tmp/x" perms => lib_p, classes => nosuch; }\n')
    proc = run("-f", "./p.cf", cwd=tmp_path)
    assert proc.returncode == 1
    assert "Undefined body nosuch with type classes" in proc.stderr
    assert "Undefined body lib_p" not in proc.stderr


def test_a_library_file_alone_may_use_bodies_it_does_not_define(tmp_path: Path) -> None:
    # cf-promises 3.21 checks bodies only for a runnable policy (body common control) or -c
    write(tmp_path, 'bundle agent lib { files: "/tmp/x" perms => elsewhere; }\n', "lib.cf")
    assert run("-f", "./lib.cf", cwd=tmp_path).returncode == 0
    assert run("-p", "json", "-f", "./lib.cf", cwd=tmp_path).returncode == 0
    proc = run("-c", "-f", "./lib.cf", cwd=tmp_path)
    assert proc.returncode == 1 and "Undefined body elsewhere with type perms" in proc.stderr


def test_syntax_description_lists_every_function(tmp_path: Path) -> None:
    proc = run("-s", "json", cwd=tmp_path)
    doc = json.loads(proc.stdout)
    assert len(doc["functions"]) == 186
    assert set(doc) == {"bodyTypes", "bundleTypes", "functions", "promiseTypes"}


def test_committed_parse_tables_match_the_grammar() -> None:
    pinfo = yacc.ParserReflect(vars(parser_module.ply_module()))   # on every interpreter
    pinfo.get_all()
    assert _parsetab._lr_signature == pinfo.signature(), \
        "grammar changed: regenerate with `python -m cfpromise.syntax.parser`"


def test_committed_lexer_table_matches_the_rules() -> None:
    import re

    import ply.lex as lex

    import cfpromise.syntax.lexer as lexer_module
    from cfpromise.syntax import _lextab
    fresh = lex.lex(module=lexer_module, reflags=int(re.VERBOSE), errorlog=lex.NullLogger())
    stored = {state: [pattern for pattern, _names in entries]
              for state, entries in _lextab._lexstatere.items()}
    built = {state: [rx.pattern for rx, _names in entries]
             for state, entries in fresh.lexstatere.items()}
    assert stored == built, "lexer rules changed: regenerate with `python -m cfpromise.syntax.parser`"


def test_show_classes_and_vars_evaluate_common_bundles(tmp_path: Path) -> None:
    write(tmp_path, 'bundle common g { classes: "myc" expression => "linux|!linux"; '
                    'vars: "v" string => "x"; }\nbundle agent a { vars: "no" string => "y"; }\n')
    proc = run("--show-classes=myc", "--show-vars=default:[ga]\\.", "-f", "./p.cf", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("Class name") and lines[1].split() == ["myc", "source=promise"]
    assert lines[2].startswith("Variable name")
    # as cf-promises: agent bundles' vars are evaluated too (without their classes)
    assert [line.split()[:2] for line in lines[3:]] == [["default:a.no", "y"], ["default:g.v", "x"]]


def test_full_check_names_enterprise_functions_as_not_supported(tmp_path: Path) -> None:
    write(tmp_path, 'bundle agent main { vars: "x" string => remotescalar("id", "hub", "no"); }\n')
    assert run("-f", "./p.cf", cwd=tmp_path).returncode == 0
    assert run("-c", "-f", "./p.cf", cwd=tmp_path).returncode == 0      # as cf-promises -c
    proc = run("--lint", "-f", "./p.cf", cwd=tmp_path)
    assert proc.returncode == 1
    assert "p.cf:1:41: error: Function 'remotescalar' needs a CFEngine Enterprise hub: " \
           "not supported by cf-lite" in proc.stderr


def test_policy_file_as_positional_argument(tmp_path: Path) -> None:
    # cf-promises [OPTION]... [FILE]: tests call "$(sys.cf_promises) -p json FILE"
    write(tmp_path, GOOD)
    proc = run("-p", "json", "p.cf", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["bundles"][0]["name"] == "main"
