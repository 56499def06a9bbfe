"""Host-specific data (WORKDIR/data/host_specific.json) and augments (def.json), as
cf-agent 3.21 installs them before the policy is parsed."""
from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from cfpromise.agent.loading import evaluated_agent
from cfpromise.agent.output import Output


def _agent(tmp_path: Path, *, cmdb: Any = None, defs: dict[str, Any] | None = None,
           policy: str = "") -> tuple[Any, str]:
    workdir = tmp_path / "work"
    (workdir / "inputs").mkdir(parents=True)
    if cmdb is not None:
        (workdir / "data").mkdir()
        (workdir / "data" / "host_specific.json").write_text(
            cmdb if isinstance(cmdb, str) else json.dumps(cmdb))
    for name, doc in (defs or {}).items():
        (workdir / "inputs" / name).write_text(doc if isinstance(doc, str) else json.dumps(doc))
    entry = workdir / "inputs" / "promises.cf"
    entry.write_text(policy)
    entry.chmod(0o600)
    log = io.StringIO()
    agent = evaluated_agent(str(entry), str(workdir), Output("verbose", stream=log))
    return agent, log.getvalue()


def _var(agent: Any, ns: str, scope: str, name: str) -> Any:
    var = agent.ctx.vars.get(ns, scope, name)
    return None if var is None else (var.type, var.value, var.tags)


def test_cmdb_variables_go_to_the_data_namespace(tmp_path: Path) -> None:
    agent, _ = _agent(tmp_path, cmdb={
        "vars": {"a": "1", "b.c": ["x"], "n:b.d": {"k": 1}},
        "variables": {"e": {"value": "v", "tags": ["t1"], "comment": "hello"}, "g": 5}})
    assert _var(agent, "data", "variables", "a") == ("string", "1", ("source=cmdb",))
    assert _var(agent, "data", "b", "c") == ("slist", ["x"], ("source=cmdb",))
    assert _var(agent, "n", "b", "d") == ("data", {"k": 1}, ("source=cmdb",))
    assert _var(agent, "data", "variables", "e") == ("string", "v", ("t1", "source=cmdb"))
    assert agent.ctx.comments["data:variables.e"] == "hello"
    assert _var(agent, "data", "variables", "g")[1] == "5"


def test_cmdb_classes_only_unconditional(tmp_path: Path) -> None:
    agent, log = _agent(tmp_path, cmdb={"classes": {
        "c1": "any::", "c2": ["any::"], "ns1:c3": {"class_expressions": ["any::"]},
        "c4": {"tags": ["tt"], "comment": "cc"}, "bad1": ["cfengine"],
        "bad2": {"class_expressions": ["cfengine"]}, "bad3": {"regular_expressions": ["x"]}}})
    table = agent.ctx.class_table
    assert {"data:c1", "data:c2", "ns1:c3", "data:c4"} <= set(table)
    assert table["data:c4"] == ("tt", "source=cmdb")
    assert not {"data:bad1", "data:bad2", "data:bad3"} & set(table)
    assert "Invalid class specification 'cfengine' in CMDB data, only '[\"any::\"]' allowed" in log
    assert "Invalid class expression rules for class 'bad2' in CMDB data" in log
    assert "Invalid regular expression rules for class 'bad3' in CMDB data" in log


def test_cmdb_refuses_references_and_warns_on_unknown_keys(tmp_path: Path) -> None:
    agent, log = _agent(tmp_path, cmdb={"clses": {}, "variables": {
        "a": {"value": "$(sys.uptime)"}, "b": {"value": "plain"}}})
    assert "warning: Invalid key 'clses' in the CMDB data file" in log
    assert "Invalid 'variables' CMDB data, cannot contain variable references" in log
    assert _var(agent, "data", "variables", "b") is None      # the whole file is refused


def test_augments_variables_classes_and_inputs(tmp_path: Path) -> None:
    agent, log = _agent(tmp_path, defs={"def.json": {
        "vars": {"i": "from vars", "z": "$(sys.inputdir) $(nope.x)", "l": [1, "a"], "q.r": "s"},
        "variables": {"i": {"value": "from variables", "tags": ["t"]}, "h": {"tags": []}},
        "classes": {"x1": ["cfengine"], "x2": ["cfengine.any"], "x3": ["cfengine.!nope::"],
                    "ns:x4": {"regular_expressions": ["linu."], "comment": "c"},
                    "x5": {"tags": ["only tags"]}},
        "inputs": ["a.cf", "$(sys.inputdir)/b.cf"]}})
    inputdir = str(tmp_path / "work" / "inputs")
    # "variables" wins over "vars"; references to what exists now are expanded
    assert _var(agent, "default", "def", "i") == ("string", "from variables",
                                                  ("t", "source=augments_file"))
    assert _var(agent, "default", "def", "z")[1] == f"{inputdir} $(nope.x)"
    assert _var(agent, "default", "def", "l")[:2] == ("slist", ["1", "a"])
    assert _var(agent, "default", "q", "r")[1] == "s"
    assert "Missing value for the augments variable 'h'" in log
    # entries are class regexes unless they end in "::" (class expressions)
    table = agent.ctx.class_table
    assert "x1" in table and "x3" in table and "x2" not in table
    assert ("ns:x4" in table) == any(c.startswith("linu") for c in table)
    assert "x5" not in table and "either \"class_expressions\" or \"regular_expressions\"" in log
    # inputs are offered to the policy, never loaded behind its back
    assert _var(agent, "default", "def", "augments_inputs")[1] == ["a.cf", f"{inputdir}/b.cf"]


def test_further_augments_apply_last(tmp_path: Path) -> None:
    agent, log = _agent(tmp_path, defs={
        "def.json": {"augments": ["$(sys.inputdir)/more.json", "missing.json"],
                     "vars": {"v": "first", "w": "kept"}, "inputs": ["a.cf"]},
        "more.json": {"vars": {"v": ["second"], "m": "$(def.w)"}, "inputs": ["b.cf"]}})
    assert _var(agent, "default", "def", "v")[:2] == ("slist", ["second"])
    assert _var(agent, "default", "def", "m")[1] == "kept"
    assert _var(agent, "default", "def", "augments_inputs")[1] == ["b.cf"]
    assert "Could not load requested further augments from file 'missing.json'" in log


def test_def_preferred_json_wins(tmp_path: Path) -> None:
    agent, _ = _agent(tmp_path, defs={"def.json": {"vars": {"bad": "1"}},
                                      "def_preferred.json": {"vars": {"good": "1"}}})
    assert _var(agent, "default", "def", "good") is not None
    assert _var(agent, "default", "def", "bad") is None


def test_augments_never_override_host_specific_data(tmp_path: Path) -> None:
    agent, log = _agent(
        tmp_path,
        cmdb={"variables": {"ns1:s.v": {"value": "cmdb"}}, "classes": {"c": ["any::"]}},
        defs={"def.json": {"variables": {"ns1:s.v": {"value": "augments"}},
                           "classes": {"data:c": ["any"]}}})
    assert _var(agent, "ns1", "s", "v")[1] == "cmdb"
    assert "Cannot set variable ns1:s.v from augments, already defined from host-specific data" \
        in log
    assert agent.ctx.class_table["data:c"] == ("source=cmdb",)


def test_bad_json_is_reported_and_the_policy_still_loads(tmp_path: Path) -> None:
    agent, log = _agent(tmp_path, defs={"def.json": "bad\nJSON"},
                        policy="bundle common x { vars: \"y\" string => \"z\"; }\n")
    assert "error: Could not parse JSON file" in log and "def.json" in log
    assert _var(agent, "default", "x", "y")[1] == "z"


def test_augments_visible_to_the_policy(tmp_path: Path) -> None:
    policy = ('bundle common x { classes: "seen" expression => "from_augments"; '
              'vars: "copy" string => "$(def.v)"; }\n')
    agent, _ = _agent(tmp_path, defs={"def.json": {"vars": {"v": "value"},
                                                   "classes": {"from_augments": ["any"]}}},
                      policy=policy)
    assert "seen" in agent.ctx.class_table
    assert _var(agent, "default", "x", "copy")[1] == "value"
