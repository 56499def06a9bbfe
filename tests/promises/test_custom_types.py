"""Custom promise types end to end: cf-lite-agent talking to promise modules.

The module of our own (:data:`MODULE`) promises a file's content, speaks either
protocol (its first argument), announces ``action_policy`` and logs what it does
(``MODULE_LOG``: its starts, every request) so the tests can see what the agent
sent and that one process served the run.  Bad modules (missing, not executable,
crashing, sending garbage, hanging) must each give one clear error and a not-kept
outcome.  The last test runs a real module of cfengine/modules when a checkout
is at hand.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cfpromise.promises.custom.protocol import (ProtocolError, Request, encode, parse_header,
                                                parse_response)

MODULE = r'''#!{python}
import json, os, sys
LOG = os.environ["MODULE_LOG"]
JSON = "--json" in sys.argv

def log(entry):
    with open(LOG, "a") as f:
        f.write(json.dumps(entry) + "\n")

def read_message():
    lines = []
    for line in sys.stdin:
        line = line.rstrip("\n")
        if line == "":
            return lines
        lines.append(line)
    sys.exit(0)

def send(fields, logs=()):
    for level, message in logs:
        print(f"log_{level}={message}")
    if JSON:
        print(json.dumps(fields))
    else:
        for key, value in fields.items():
            if isinstance(value, list):
                value = ",".join(value)
            print(f"{key}={value}")
    print("", flush=True)

log({"start": read_message()})
print("filemod 1.0 v1 " + ("json_based" if JSON else "line_based") + " action_policy")
print("", flush=True)
while True:
    lines = read_message()
    if JSON:
        request = json.loads(lines[0])
    else:
        request = dict(line.split("=", 1) for line in lines)
        request["attributes"] = {k[10:]: v for k, v in request.items() if k.startswith("attribute_")}
    log(request)
    op = request["operation"]
    if op == "terminate":
        send({"operation": op, "result": "success"})
        sys.exit(0)
    attributes = request.get("attributes", {})
    if op == "validate_promise":
        if "content" not in attributes:
            send({"operation": op, "result": "invalid"}, [("error", "'content' is missing")])
        else:
            send({"operation": op, "result": "valid"})
        continue
    path, content = request["promiser"], attributes["content"]
    try:
        current = open(path).read()
    except OSError:
        current = None
    if current == content:
        send({"operation": op, "result": "kept", "result_classes": ["filemod_kept"]})
    elif attributes.get("action_policy") == "warn":
        send({"operation": op, "result": "not_kept"},
             [("warning", f"Should write '{path}', but only warning promised")])
    else:
        with open(path, "w") as f:
            f.write(content)
        send({"operation": op, "result": "repaired",
              "result_classes": ["filemod_wrote", "filemod_changed"]},
             [("info", f"Wrote '{path}'")])
'''

POLICY = """
promise agent filemod
{
  interpreter => "%(python)s";
  path => "%(module)s";
}
promise agent filemod_too
{
  interpreter => "%(python)s";
  path => "%(module)s";
}
bundle agent main
{
  filemod:
    "%(target)s"
      content => "hello",
      comment => "why",
      classes => outcome("one");
  filemod_too:
    "%(target)s2"
      content => "bye",
      meta => { "tag" },
      if => "any",
      classes => outcome("two");
  reports:
    one_repaired.two_repaired::   "both repaired";
    one_kept.two_kept::           "both kept";
    one_failed::                  "one failed";
    filemod_wrote::               "result class seen";
}
body classes outcome(p)
{
  promise_repaired => { "$(p)_repaired" };
  promise_kept => { "$(p)_kept" };
  repair_failed => { "$(p)_failed" };
}
"""


def write_module(tmp_path: Path, protocol: str) -> Path:
    path = tmp_path / "filemod.py"
    path.write_text(MODULE.replace("{python}", sys.executable))
    path.chmod(0o755)
    wrapper = tmp_path / "filemod"
    flag = " --json" if protocol == "json" else ""
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} {path}{flag}\n")
    wrapper.chmod(0o755)
    return wrapper


def agent(tmp_path: Path, policy: str, *args: str, timeout: float | None = None
          ) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "p.cf"
    path.write_text(policy)
    env = dict(os.environ, MODULE_LOG=str(tmp_path / "module.log"))
    if timeout is not None:
        env["CF_LITE_PROMISE_MODULE_TIMEOUT"] = str(timeout)
    return subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f", str(path),
                           "-w", str(tmp_path / "wd"), *args], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=60)


def reports(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line[3:] for line in proc.stdout.splitlines() if line.startswith("R: ")]


def module_log(tmp_path: Path) -> list[dict[str, object]]:
    path = tmp_path / "module.log"
    entries = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    path.unlink(missing_ok=True)
    return entries


def file_policy(tmp_path: Path, module: Path) -> str:
    return POLICY % {"python": "/bin/sh", "module": module, "target": tmp_path / "target"}


@pytest.mark.parametrize("protocol", ["line", "json"])
def test_repairs_then_keeps_with_one_process(tmp_path: Path, protocol: str) -> None:
    module = write_module(tmp_path, protocol)
    policy = file_policy(tmp_path, module)
    first = agent(tmp_path, policy, "-I")
    assert first.returncode == 0, first.stdout + first.stderr
    assert (tmp_path / "target").read_text() == "hello"
    assert (tmp_path / "target2").read_text() == "bye"
    assert f"    info: Wrote '{tmp_path / 'target'}'" in first.stdout.splitlines()
    assert "both repaired" in reports(first) and "result class seen" in reports(first)
    assert "CRITICAL" not in first.stdout and "error" not in first.stdout
    entries = module_log(tmp_path)
    # One process for both promise types (same path), header first, terminate last.
    assert [e for e in entries if "start" in e] == [{"start": ["cf-agent 3.21.0 v1"]}]
    operations = [e["operation"] for e in entries if "operation" in e]
    assert operations == ["validate_promise", "evaluate_promise"] * 2 + ["terminate"]
    request = entries[1]
    assert request["promise_type"] == "filemod" and request["promiser"] == str(tmp_path / "target")
    assert request["attributes"] == {"content": "hello", "comment": "why"}  # no classes/meta/if
    assert str(request["line_number"]) == "15" and str(request["filename"]).endswith("p.cf")
    assert request["log_level"] == "info"
    second = agent(tmp_path, policy)
    assert reports(second) == ["both kept"], second.stdout
    assert "Wrote" not in second.stdout


def test_dry_run_and_warn_change_nothing_and_say_so(tmp_path: Path) -> None:
    module = write_module(tmp_path, "json")
    proc = agent(tmp_path, file_policy(tmp_path, module), "-n", "-I")
    assert not (tmp_path / "target").exists()
    assert f" warning: Should write '{tmp_path / 'target'}', but only warning promised" \
        in proc.stdout.splitlines()
    assert "CRITICAL" not in proc.stdout
    sent = [e for e in module_log(tmp_path) if e.get("operation") == "evaluate_promise"]
    assert all(e["attributes"]["action_policy"] == "warn" for e in sent)
    warn = POLICY.replace('comment => "why",', 'action => warn_only,') + \
        'body action warn_only { action_policy => "warn"; }\n'
    proc = agent(tmp_path, warn % {"python": "/bin/sh", "module": module,
                                   "target": tmp_path / "target"})
    assert not (tmp_path / "target").exists() and (tmp_path / "target2").exists()
    assert "one failed" in reports(proc) and "Should write" in proc.stdout


def test_module_without_action_policy_refuses_dry_run(tmp_path: Path) -> None:
    module = write_module(tmp_path, "line")
    source = (tmp_path / "filemod.py").read_text().replace(' + " action_policy"', "")
    (tmp_path / "filemod.py").write_text(source)
    proc = agent(tmp_path, file_policy(tmp_path, module), "-n")
    assert f"   error: Not making changes to the system, but the custom promise module " \
        f"'{module}' doesn't support action_policy" in proc.stdout.splitlines()
    assert not (tmp_path / "target").exists()


def test_simulate_gives_modules_action_policy_warn(tmp_path: Path) -> None:
    """--simulate is a dry run for custom promise types (3.21 passes action_policy warn)."""
    module = write_module(tmp_path, "json")
    proc = agent(tmp_path, file_policy(tmp_path, module), "--simulate=manifest")
    assert not (tmp_path / "target").exists()
    assert any(line.startswith(" warning: Should write") for line in proc.stdout.splitlines())
    sent = [e for e in module_log(tmp_path) if e.get("operation") == "evaluate_promise"]
    assert sent and all(e["attributes"]["action_policy"] == "warn" for e in sent)
    source = (tmp_path / "filemod.py").read_text().replace(' + " action_policy"', "")
    (tmp_path / "filemod.py").write_text(source)
    proc = agent(tmp_path, file_policy(tmp_path, module), "--simulate=diff")
    assert any("error: Not making changes to the system, but the custom promise module" in line
               for line in proc.stdout.splitlines())
    assert not (tmp_path / "target").exists()


def test_report_json_records_the_repair(tmp_path: Path) -> None:
    module = write_module(tmp_path, "json")
    report = tmp_path / "r.json"
    agent(tmp_path, file_policy(tmp_path, module), "--report", f"json={report}")
    text = report.read_text()
    assert "filemod" in text and "repaired" in text and "Wrote" in text


def test_validation_failure_is_not_kept(tmp_path: Path) -> None:
    module = write_module(tmp_path, "line")
    policy = file_policy(tmp_path, module).replace('content => "hello",', "")
    proc = agent(tmp_path, policy)
    assert "   error: 'content' is missing" in proc.stdout.splitlines()
    assert "one failed" in reports(proc)
    assert not (tmp_path / "target").exists()


BAD_POLICY = """
promise agent bad
{
  %(interpreter)s
  path => "%(path)s";
}
bundle agent main
{
  bad:
    "first" classes => outcome;
    "second" classes => outcome;
  reports:
    bad_failed:: "not kept";
}
body classes outcome { repair_failed => { "bad_failed" }; }
"""

BAD_MODULES = {
    "crash": ("#!/bin/sh\nread a; read b\necho 'crash 1 v1 line_based'; echo\nread x\n"
              "echo 'Segmentation fault' >&2\nkill -SEGV $$\n",
              "exited before sending its answer to validate_promise (killed by signal 11); "
              "its stderr ends: Segmentation fault"),
    "garbage": ("#!/bin/sh\nread a; read b\necho 'Hello, world!'\necho\nsleep 5\n",
                "sent an invalid header (expected 'NAME VERSION v1 FLAGS'): 'Hello, world!'"),
    "garbage_answer": ("#!/bin/sh\nread a; read b\necho 'g 1 v1 json_based'; echo\nread x; read y\n"
                       "echo '{not json'; echo\nsleep 5\n",
                       "sent invalid JSON: '{not json' (in its answer to validate_promise)"),
    "hang": ("#!/bin/sh\nread a; read b\necho 'h 1 v1 line_based'; echo\nsleep 30\n",
             "did not send its answer to validate_promise within 1 s (killed)"),
    "no_header": ("#!/bin/sh\necho 'ImportError: no module named foo' >&2\nexit 1\n",
                  None),
}


@pytest.mark.parametrize("kind", sorted(BAD_MODULES))
def test_bad_module_gives_one_clear_error(tmp_path: Path, kind: str) -> None:
    script, expected = BAD_MODULES[kind]
    path = tmp_path / f"{kind}.sh"
    path.write_text(script)
    path.chmod(0o755)
    proc = agent(tmp_path, BAD_POLICY % {"interpreter": "", "path": path}, timeout=1)
    errors = [line for line in proc.stdout.splitlines() if "error:" in line]
    assert len(errors) == 1, proc.stdout
    if expected is None:
        expected = (f"Did not receive header from promise module '{path}' (exit code 1); "
                    "its stderr ends: ImportError: no module named foo")
        assert errors[0] == f"   error: {expected}"
    else:
        assert errors[0].startswith(f"   error: Promise module '{path}' {expected}"), errors[0]
    assert reports(proc) == ["not kept"]
    assert proc.returncode == 0 and "Traceback" not in proc.stdout + proc.stderr


@pytest.mark.parametrize("kind, interpreter, message", [
    ("missing", "", "Promise module path '{path}' is not an executable file"),
    ("missing_with_interpreter", 'interpreter => "/bin/sh";',
     "Promise module '{path}' does not exist"),
    ("bad_interpreter", 'interpreter => "/nonexistent/python";',
     "Promise module interpreter '/nonexistent/python' is not an executable file"),
])
def test_module_that_cannot_start(tmp_path: Path, kind: str, interpreter: str, message: str
                                  ) -> None:
    path = tmp_path / "nowhere.sh"
    if kind == "bad_interpreter":
        path.write_text("#!/bin/sh\n")
    proc = agent(tmp_path, BAD_POLICY % {"interpreter": interpreter, "path": path})
    errors = [line for line in proc.stdout.splitlines() if "error:" in line]
    assert errors == ["   error: " + message.format(path=path)]
    assert reports(proc) == ["not kept"]


def test_unknown_promise_type_is_an_error(tmp_path: Path) -> None:
    proc = agent(tmp_path, 'bundle agent main\n{\n  unknown:\n    "x";\n}\n')
    assert "   error: Undefined promise type 'unknown'" in proc.stdout.splitlines()
    assert proc.returncode == 0


def test_custom_promises_run_after_reports_in_each_pass(tmp_path: Path) -> None:
    module = write_module(tmp_path, "line")
    policy = """
promise agent filemod { path => "%s"; }
bundle agent main
{
  filemod:
    "%s" content => "x";
  reports:
    "report in pass 1";
    filemod_wrote:: "seen in pass 2";
}
""" % (module, tmp_path / "target")
    proc = agent(tmp_path, policy, "-I")
    lines = [line for line in proc.stdout.splitlines() if "R:" in line or "Wrote" in line]
    assert lines == ["R: report in pass 1", f"    info: Wrote '{tmp_path / 'target'}'",
                     "R: seen in pass 2"]


# --- the protocol as messages --------------------------------------------------------

def test_header_flags() -> None:
    header = parse_header("git 0.1 v1 json_based action_policy")
    assert header.json and header.action_policy and header.protocol_specified
    assert not parse_header("x 1 v1").protocol_specified
    assert parse_header("x 1 v1 json_based line_based").ambiguous
    for bad in ("", "x 1", "x 1 v2 json_based", "Traceback (most recent call last):"):
        with pytest.raises(ProtocolError):
            parse_header(bad)


def test_requests_in_both_protocols() -> None:
    request = Request((("operation", "validate_promise"), ("promiser", "p"), ("line_number", 3)),
                      (("b", "2"), ("a", "1")))
    assert encode(request, False) == (b"operation=validate_promise\npromiser=p\nline_number=3\n"
                                      b"attribute_b=2\nattribute_a=1\n\n")
    assert encode(request, True) == (b'{"attributes":{"a":"1","b":"2"},"line_number":3,'
                                     b'"operation":"validate_promise","promiser":"p"}\n\n')
    with pytest.raises(ValueError):
        encode(Request((("operation", "x"),), (("l", ["a"]),)), False)
    with pytest.raises(ValueError):
        encode(Request((("promiser", "a\nb"),)), False)


def test_responses() -> None:
    line = parse_response(["log_info=did it", "operation=evaluate_promise", "result=repaired",
                           "result_classes=a,b"], False)
    assert (line.result, line.result_classes, line.log) == ("repaired", ["a", "b"],
                                                            [("info", "did it")])
    js = parse_response(['log_warning=early', '{"result": "kept", "result_classes": ["c"], '
                         '"log": [{"level": "error", "message": "late"}]}'], True)
    assert (js.result, js.result_classes) == ("kept", ["c"])
    assert js.log == [("warning", "early"), ("error", "late")]
    for lines, json_based in ((["no equals sign"], False), (["{bad"], True), (["[]"], True),
                              ([], True), (["log_shout=x"], False)):
        with pytest.raises(ProtocolError):
            parse_response(lines, json_based)


# --- a real module of cfengine/modules ------------------------------------------------

MODULES_ENV = "CF_LITE_CFENGINE_MODULES"


def test_real_git_module_from_cfengine_modules(tmp_path: Path) -> None:
    """promise-types/git/git.py of github.com/cfengine/modules clones, then keeps.

    No PyPI or Debian package ships that repository's modules or its Python library
    (checked: PyPI ``cfengine`` 0.23.3 and ``cfbs`` 5.8.1, Debian ``cfengine3`` 3.21.0-2),
    so the test runs when ``$CF_LITE_CFENGINE_MODULES`` names a checkout of it."""
    checkout = os.environ.get(MODULES_ENV)
    if not checkout:
        pytest.skip(f"needs a checkout of github.com/cfengine/modules in ${MODULES_ENV}")
    root = Path(checkout)
    library = root / "libraries" / "python" / "cfengine_module_library.py"
    module = root / "promise-types" / "git" / "git.py"
    if not library.is_file() or not module.is_file():
        pytest.skip(f"needs {library} and {module}")
    if shutil.which("git") is None:
        pytest.skip("needs git")
    promises = tmp_path / "modules"
    promises.mkdir()
    shutil.copy(library, promises)
    shutil.copy(module, promises)
    source = tmp_path / "src"
    subprocess.run(["git", "init", "-q", "-b", "main", str(source)], check=True)
    subprocess.run(["git", "-C", str(source), "-c", "user.email=t@example.com", "-c",
                    "user.name=t", "commit", "-q", "--allow-empty", "-m", "init"], check=True)
    policy = """
promise agent git
{
  path => "%(modules)s/git.py";
  interpreter => "/usr/bin/python3";
}
bundle agent main
{
  git:
    "clone"
      repository => "%(source)s",
      destination => "%(dest)s",
      version => "main",
      classes => outcome;
  reports:
    git_repaired:: "repaired";
    git_kept:: "kept";
}
body classes outcome { promise_repaired => { "git_repaired" }; promise_kept => { "git_kept" }; }
""" % {"modules": promises, "source": source, "dest": tmp_path / "dest"}
    first = agent(tmp_path, policy, "-I")
    assert reports(first) == ["repaired"], first.stdout
    assert (tmp_path / "dest" / ".git").is_dir()
    assert "info: Cloning" in first.stdout
    second = agent(tmp_path, policy, "-I")
    assert reports(second) == ["kept"], second.stdout


def test_module_that_answers_without_reading(tmp_path: Path) -> None:
    """Like upstream's custom_promise_binary: it prints its answers and exits without
    reading the requests; what it sent still counts (cf-agent ignores the closed pipe)."""
    path = tmp_path / "eager.sh"
    path.write_text("#!/bin/sh\nexec 0<&-\nprintf 'eager 1 v1 line_based\\n\\n'\n"
                    "printf 'operation=validate_promise\\nresult=valid\\n\\n'\n"
                    "printf 'operation=evaluate_promise\\nresult=kept\\n\\n'\n")
    path.chmod(0o755)
    policy = BAD_POLICY.replace('"second" classes => outcome;', "") \
        .replace("repair_failed", "promise_kept").replace('"not kept"', '"kept"')
    proc = agent(tmp_path, policy % {"interpreter": "", "path": path})
    assert reports(proc) == ["kept"], proc.stdout
    assert "error" not in proc.stdout
