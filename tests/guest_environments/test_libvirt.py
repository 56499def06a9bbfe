"""guest_environments promises against libvirt's own test driver (test:///default, in
process): domains created, run, suspended, shut down and deleted, networks, resources;
a second run repairs nothing, dry run and warn-only change nothing, the run report; bad
input and a host without the binding are one clear error."""
from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import pytest

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.guest_environments import handler, hypervisor
from tests.files.agentrun import run_agent
from tests.promises.fakes import FakeAgent, make_run

POLICY = """
body common control {{ bundlesequence => {{ "main" }}; }}
bundle agent main
{{
  guest_environments:
    "{name}"
      environment_host => "any",
      environment_type => "{etype}",
      environment_state => "{state}",
      {extra}
      action => a,
      classes => c("g");
  reports:
    "classes: $(with)" with => join(",", sort(classesmatching("g_.*"), "lex"));
}}
body environment_resources r(cpus) {{ env_cpus => "$(cpus)"; }}
body action a {{ action_policy => "{policy}"; }}
body classes c(p)
{{
  promise_kept => {{ "$(p)_kept" }};
  promise_repaired => {{ "$(p)_repaired" }};
  repair_failed => {{ "$(p)_failed" }};
  repair_denied => {{ "$(p)_denied" }};
  repair_timeout => {{ "$(p)_timeout" }};
}}
"""


def policy(name: str, state: str, etype: str = "test", extra: str = "",
           action: str = "fix") -> str:
    return POLICY.format(name=name, state=state, etype=etype, extra=extra, policy=action)


def classes(output: str) -> str:
    return next(line for line in output.splitlines() if line.startswith("R: classes:"))


@pytest.fixture
def libvirt() -> object:
    return pytest.importorskip("libvirt", reason="needs libvirt's Python binding "
                                                 "(pip install 'cf-lite[virt]')")


def domain_state(name: str) -> int | None:
    dom = hypervisor.lookup_domain(hypervisor.connect("test:///default"), name)
    return None if dom is None else int(dom.info()[0])


def fresh() -> str:
    return "vm" + uuid.uuid4().hex[:8]


def test_create_then_kept_then_reported(libvirt: object, tmp_path: Path) -> None:
    name = fresh()
    code, out = run_agent(tmp_path, policy(name, "create", extra="environment_resources "
                                                               "=> r(\"1\"),"),
                          "--report", "json")
    assert f"info: Created a virtual domain '{name}'" in out, out
    assert "Verified that environment CPU count is now 1" in out
    assert classes(out) == "R: classes: g_repaired"
    assert domain_state(name) == hypervisor.RUNNING
    report = json.loads((tmp_path / "work" / "outputs" / "report.json").read_text())
    record = next(r for r in report["promises"] if r["promiser"] == name)
    assert record["changes"][0] == {"kind": "domain", "name": name, "old": "absent",
                                    "new": "running"}
    code, out = run_agent(tmp_path, policy(name, "create", extra="environment_resources "
                                                               "=> r(\"1\"),"))
    assert classes(out) == "R: classes: g_kept" and "Created" not in out


def test_running_suspended_down_delete_each_converge(libvirt: object, tmp_path: Path) -> None:
    name = fresh()
    steps = [("running", hypervisor.RUNNING, "Created a virtual domain"),
             ("suspended", hypervisor.PAUSED, "running, suspending"),
             ("running", hypervisor.RUNNING, "was suspended, resuming"),
             ("down", None, "running, terminating"),       # a transient domain goes away
             ("running", hypervisor.RUNNING, "Created a virtual domain"),
             ("delete", None, f"Deleted virtual domain '{name}'")]
    for state, expected, message in steps:
        code, out = run_agent(tmp_path, policy(name, state))
        assert message in out and classes(out) == "R: classes: g_repaired", (state, out)
        assert domain_state(name) == expected
        code, out = run_agent(tmp_path, policy(name, state))
        assert classes(out) == "R: classes: g_kept", (state, out)


def test_resources_are_brought_to_the_promise(libvirt: object, tmp_path: Path) -> None:
    name = fresh()
    run_agent(tmp_path, policy(name, "running"))
    text = policy(name, "running", extra='environment_resources => r("1"),')
    code, out = run_agent(tmp_path, text)
    assert "Verified that environment CPU count is now 1" in out
    assert classes(out) == "R: classes: g_repaired"
    code, out = run_agent(tmp_path, text)
    assert classes(out) == "R: classes: g_kept"
    run_agent(tmp_path, policy(name, "delete"))


@pytest.mark.parametrize("how", ["dry-run", "warn"])
def test_dry_run_and_warn_only_change_nothing(libvirt: object, tmp_path: Path, how: str
                                              ) -> None:
    name = fresh()
    args = ("-n",) if how == "dry-run" else ()
    code, out = run_agent(tmp_path, policy(name, "running",
                                           action="warn" if how == "warn" else "fix"), *args)
    assert f"Virtual domain '{name}' should be created, but only warning was promised" in out
    assert domain_state(name) is None
    run_agent(tmp_path, policy(name, "running"))
    code, out = run_agent(tmp_path, policy(name, "down",
                                           action="warn" if how == "warn" else "fix"), *args)
    assert "should be shut off (shutdown), but only warning was promised" in out
    assert domain_state(name) == hypervisor.RUNNING
    run_agent(tmp_path, policy(name, "delete"))


def test_networks(libvirt: object, tmp_path: Path) -> None:
    name = "net" + uuid.uuid4().hex[:6]
    code, out = run_agent(tmp_path, policy(name, "create", etype="test_net"))
    assert f"Created network '{name}' - promise repaired" in out
    assert classes(out) == "R: classes: g_repaired"
    code, out = run_agent(tmp_path, policy(name, "create", etype="test_net"))
    assert classes(out) == "R: classes: g_kept"
    code, out = run_agent(tmp_path, policy(name, "delete", etype="test_net"))
    assert f"Deleted network '{name}' - promise repaired" in out
    code, out = run_agent(tmp_path, policy(name, "delete", etype="test_net"))
    assert classes(out) == "R: classes: g_kept"


def test_bad_spec_and_missing_host_are_one_clear_error(libvirt: object, tmp_path: Path
                                                       ) -> None:
    name = fresh()
    text = policy(name, "create", extra="environment_resources => bad,") + \
        'body environment_resources bad { env_spec => "<domain type=\'test\'><oops/>"; }'
    code, out = run_agent(tmp_path, text)
    errors = [line for line in out.splitlines() if "error:" in line]
    assert len(errors) == 1, out
    assert f"Failed to create a virtual domain '{name}' - check spec for errors" in errors[0]
    assert f"guest_environments promise '{name}'" in errors[0]
    assert classes(out) == "R: classes: g_failed" and domain_state(name) is None and code == 0
    code, out = run_agent(tmp_path, policy(name, "create").replace(
        'environment_host => "any",', ""))
    assert "error: No environment_host defined for environment promise" in out
    assert classes(out) == "R: classes: g_failed"


def test_without_the_binding_each_promise_fails_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hypervisor, "_CONNECTIONS", {})
    monkeypatch.setitem(sys.modules, "libvirt", None)        # import libvirt -> ImportError
    agent = FakeAgent()
    run = make_run("vm1", agent, promise_type="guest_environments", environment_host="any",
                   environment_type="kvm", environment_state="running")
    assert handler.verify_guest_environment(run) is Outcome.FAILED
    errors = agent.messages("error")
    assert len(errors) == 1
    assert "libvirt's Python binding is not installed" in errors[0]
    assert "guest_environments promise 'vm1'" in errors[0]


REFERENCE = """
body common control { bundlesequence => { "t" }; }
bundle agent t {
guest_environments:
  "NAME"
    environment_host => "any", environment_type => "test", environment_state => "create",
    environment_resources => r, classes => c("a");
  "NAME"
    environment_host => "any", environment_type => "test", environment_state => "suspended",
    classes => c("b");
  "test"
    environment_host => "nosuchhost", environment_type => "test",
    environment_state => "running", classes => c("c");
  "NETNAME"
    environment_host => "any", environment_type => "test_net", environment_state => "create",
    classes => c("d");
  "NAME-absent"
    environment_host => "any", environment_type => "test", environment_state => "down",
    classes => c("e");
reports:
  "classes: $(with)" with => join(",", sort(classesmatching("[abcde]_.*"), "lex"));
}
body environment_resources r { env_cpus => "1"; }
body classes c(p) { promise_kept => { "$(p)_kept" }; promise_repaired => { "$(p)_repaired" };
  repair_failed => { "$(p)_failed" }; repair_denied => { "$(p)_denied" };
  repair_timeout => { "$(p)_timeout" }; }
"""


def test_outcome_classes_match_cf_agent(libvirt: object, tmp_path: Path) -> None:
    from tests.edit import cfagent
    if not cfagent.available():
        pytest.skip("needs cf-agent 3.21")
    name = fresh()
    policy = tmp_path / "g.cf"
    policy.write_text(REFERENCE.replace("NETNAME", "n" + name).replace("NAME", name))
    policy.chmod(0o600)
    _, theirs = cfagent.run_cf_agent(tmp_path, policy)
    _, ours = run_agent(tmp_path, policy)
    assert classes(ours) == classes(theirs) == \
        "R: classes: a_repaired,b_repaired,c_kept,d_repaired,e_kept"
