"""Partial runs: cf-lite-agent --only X[,Y] (cfpromise.agent.only)."""
from __future__ import annotations

import json
from pathlib import Path

from tests.ordering.support import agent


def policy(tmp: Path) -> str:
    return f"""body common control {{ bundlesequence => {{ "main", "other" }}; }}
bundle common g
{{
  vars:
      "dir" string => "{tmp}";
}}
bundle agent main
{{
  methods:
      "db" usebundle => db;
      "web" usebundle => web;
  files:
      "$(g.dir)/main-file" create => "true";
}}
bundle agent web
{{
  vars:
      "name" string => "site.conf";
  files:
      "$(g.dir)/$(name)"
        create => "true",
        handle => "web_conf",
        depends_on => {{ "db_ready" }};
      "$(g.dir)/web-extra" create => "true", meta => {{ "extra" }};
}}
bundle agent db
{{
  files:
      "$(g.dir)/db-ready" create => "true", handle => "db_ready";
      "$(g.dir)/db-other" create => "true";
}}
bundle agent other
{{
  meta:
      "tags" slist => {{ "ops" }};
  files:
      "$(g.dir)/ops-1" create => "true";
  methods:
      "nested" usebundle => nested;
}}
bundle agent nested
{{
  files:
      "$(g.dir)/ops-nested" create => "true";
}}
"""


def made(tmp: Path) -> set[str]:
    return {p.name for p in tmp.iterdir() if p.name not in ("p.cf", "wd", "r.json")}


def test_a_handle_runs_with_its_dependencies_and_the_way_to_them(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    proc = agent(tmp_path, policy(tmp_path), "--only", "web_conf", "--report", f"json={out}")
    assert proc.returncode == 0, proc.stderr
    assert made(tmp_path) == {"site.conf", "db-ready"}      # vars evaluated: $(name), $(g.dir)
    records = json.loads(out.read_text())["promises"]
    skipped = {r["promiser"] for r in records if r["outcome"] == "skipped"}
    assert {"$(g.dir)/main-file", "$(g.dir)/web-extra", "$(g.dir)/db-other",
            "$(g.dir)/ops-1", "nested"} <= skipped
    reasons = {r["reason"] for r in records if r["outcome"] == "skipped"}
    assert reasons == {"not selected by --only web_conf"}
    ran = {r["promiser"] for r in records if r["outcome"] != "skipped" and r["counted"]}
    assert {"web", "db"} <= ran                                # the calling methods promises
    # a second run repairs nothing
    agent(tmp_path, policy(tmp_path), "--only", "web_conf", "--report", f"json={out}")
    summary = json.loads(out.read_text())["summary"]
    assert summary["repaired"] == 0 and summary["kept"] >= 2


def test_meta_tags_of_promises_and_bundles(tmp_path: Path) -> None:
    proc = agent(tmp_path, policy(tmp_path), "--only", "extra,ops")
    assert proc.returncode == 0, proc.stderr
    assert made(tmp_path) == {"web-extra", "ops-1", "ops-nested"}


def test_dry_run_changes_nothing(tmp_path: Path) -> None:
    proc = agent(tmp_path, policy(tmp_path), "--only", "web_conf", "-n", "-I")
    assert proc.returncode == 0, proc.stderr
    assert made(tmp_path) == set()
    # db-ready (the closure) would be made; site.conf, depending on it, is skipped without
    # a word as cf-agent skips a promise whose dependency was not kept (a dry run's warn)
    assert "db-ready" in proc.stdout and "main-file" not in proc.stdout


def test_graph_draws_only_the_selected_part(tmp_path: Path) -> None:
    proc = agent(tmp_path, policy(tmp_path), "--only", "web_conf", "--graph=json")
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)
    promisers = {p["promiser"] for b in plan["bundles"] for s in b["steps"]
                 for p in s["promises"]}
    assert promisers == {"web", "db", "$(g.dir)/$(name)", "$(g.dir)/db-ready"}
    kinds = {e["kind"] for e in plan["edges"]}
    assert "depends_on" in kinds and "usebundle" in kinds
    assert made(tmp_path) == set()


def test_naming_nothing_is_an_error_with_close_matches(tmp_path: Path) -> None:
    proc = agent(tmp_path, policy(tmp_path), "--only", "web_cnf")
    assert proc.returncode == 1
    text = proc.stdout + proc.stderr
    assert "no promise has the handle or meta tag 'web_cnf' (close matches: web_conf" in text
    assert made(tmp_path) == set()
    proc = agent(tmp_path, policy(tmp_path), "--only", "web_cnf", "--graph")
    assert proc.returncode == 1 and "close matches: web_conf" in proc.stdout
