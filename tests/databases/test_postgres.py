"""databases promises against a real scratch PostgreSQL cluster: databases and tables
created, columns added, drops, verify, idempotence, dry run and warn-only, the run
report, and bad input (wrong password, no server, missing operation) as one clear error."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.databases.conftest import Cluster, databases, sql
from tests.files.agentrun import run_agent

POLICY = """
body common control {{ bundlesequence => {{ "main" }}; }}
bundle agent main
{{
  databases:
    "{promiser}"
      database_operation => "{op}",
      database_type => "sql",
      {extra}
      database_server => srv,
      action => a,
      classes => c("d");
  reports:
    "classes: $(with)" with => join(",", sort(classesmatching("d_.*"), "lex"));
}}
body database_server srv
{{
  db_server_owner => "{user}";
  db_server_password => "{password}";
  db_server_host => "{host}";
  db_server_type => "postgres";
  db_server_connection_db => "postgres";
}}
body action a {{ action_policy => "{policy}"; }}
body classes c(p)
{{
  promise_kept => {{ "$(p)_kept" }};
  promise_repaired => {{ "$(p)_repaired" }};
  repair_failed => {{ "$(p)_failed" }};
}}
"""


def policy(pg: Cluster, promiser: str, op: str = "create", extra: str = "",
           action: str = "fix", password: str | None = None, host: str | None = None) -> str:
    return POLICY.format(promiser=promiser, op=op, extra=extra, user=pg.user,
                         password=pg.password if password is None else password,
                         host=pg.socket_dir if host is None else host, policy=action)


def classes(output: str) -> str:
    return next(line for line in output.splitlines() if line.startswith("R: classes:"))


def columns(pg: Cluster, db: str, table: str) -> list[tuple[object, ...]]:
    return sql(pg, "SELECT column_name, data_type, character_maximum_length FROM "
                   f"information_schema.columns WHERE table_name = '{table}' "
                   "ORDER BY ordinal_position", db)


def test_database_create_is_idempotent_and_reported(pg: Cluster, tmp_path: Path) -> None:
    code, out = run_agent(tmp_path, policy(pg, "cflite_a"), "--report", "json")
    assert "Created database 'cflite_a' to keep promise" in out, out
    assert classes(out) == "R: classes: d_repaired" and "cflite_a" in databases(pg)
    report = json.loads((tmp_path / "work" / "outputs" / "report.json").read_text())
    record = next(r for r in report["promises"] if r["promiser"] == "cflite_a")
    assert record["changes"] == [{"kind": "database", "database": "cflite_a",
                                  "old": "absent", "new": "present"}]
    code, out = run_agent(tmp_path, policy(pg, "cflite_a"))
    assert classes(out) == "R: classes: d_kept" and "Created" not in out
    assert pg.password not in out


def test_table_created_columns_added_then_kept(pg: Cluster, tmp_path: Path) -> None:
    cols = 'database_columns => { "name,varchar,50", "age,integer" },'
    code, out = run_agent(tmp_path, policy(pg, "cflite_b.people", extra=cols))
    assert "Database.table 'cflite_b.people' doesn't seem to exist, creating" in out, out
    assert classes(out) == "R: classes: d_repaired"
    assert columns(pg, "cflite_b", "people") == [("name", "character varying", 50),
                                                 ("age", "integer", None)]
    code, out = run_agent(tmp_path, policy(pg, "cflite_b.people", extra=cols))
    assert "Table 'cflite_b.people' is as promised" in out and \
        classes(out) == "R: classes: d_kept"
    more = 'database_columns => { "name,varchar,50", "age,integer", "email,varchar,80" },'
    code, out = run_agent(tmp_path, policy(pg, "cflite_b.people", extra=more, op="verify"))
    assert "Promised column 'email' missing from database table 'cflite_b.people'" in out
    assert classes(out) == "R: classes: d_failed" and len(columns(pg, "cflite_b", "people")) == 2
    code, out = run_agent(tmp_path, policy(pg, "cflite_b.people", extra=more))
    assert "Adding promised column 'email' to database table 'people'" in out
    assert classes(out) == "R: classes: d_repaired"
    assert columns(pg, "cflite_b", "people")[-1] == ("email", "character varying", 80)
    code, out = run_agent(tmp_path, policy(pg, "cflite_b.people", extra=cols))
    assert "Column 'email' found in database.table 'cflite_b.people' is not part of its " \
        "promise." in out and classes(out) == "R: classes: d_failed"


@pytest.mark.parametrize("how", ["dry-run", "warn"])
def test_dry_run_and_warn_only_change_nothing(pg: Cluster, tmp_path: Path, how: str) -> None:
    name = f"cflite_{how.replace('-', '_')}"
    text = policy(pg, f"{name}.t", extra='database_columns => { "x,integer" },',
                  action="warn" if how == "warn" else "fix")
    code, out = run_agent(tmp_path, text, *(("-n",) if how == "dry-run" else ()))
    assert f"Need to create the database '{name}' but only a warning was promised" in out, out
    assert name not in databases(pg)


def test_drop_needs_a_comment_then_drops(pg: Cluster, tmp_path: Path) -> None:
    sql(pg, "CREATE DATABASE cflite_c")
    code, out = run_agent(tmp_path, policy(pg, "cflite_c", op="drop"))
    assert "When specifying a delete/drop from an SQL database you must add a comment" in out
    assert classes(out) == "R: classes: d_failed" and "cflite_c" in databases(pg)
    commented = policy(pg, "cflite_c", op="delete", extra='comment => "backed up",')
    code, out = run_agent(tmp_path, commented)
    assert "Dropped database 'cflite_c' to keep promise" in out
    assert classes(out) == "R: classes: d_repaired" and "cflite_c" not in databases(pg)
    code, out = run_agent(tmp_path, commented)
    assert classes(out) == "R: classes: d_kept"


def test_verify_a_missing_database_is_not_kept(pg: Cluster, tmp_path: Path) -> None:
    code, out = run_agent(tmp_path, policy(pg, "cflite_nonesuch", op="verify"))
    assert "Database 'cflite_nonesuch' does not exist" in out
    assert classes(out) == "R: classes: d_failed"


def test_wrong_password_and_no_server_are_one_clear_error(pg: Cluster, tmp_path: Path) -> None:
    code, out = run_agent(tmp_path, policy(pg, "cflite_d", password="wrong-Pw-123"))
    errors = [line for line in out.splitlines() if "error:" in line]
    assert len(errors) == 1, out
    assert "Could not connect to the sql_db server for 'cflite_d'" in errors[0]
    assert "password authentication failed" in errors[0]
    assert "databases promise 'cflite_d' in bundle 'main'" in errors[0]
    assert "wrong-Pw-123" not in out and classes(out) == "R: classes: d_failed"
    assert code == 0
    code, out = run_agent(tmp_path, policy(pg, "cflite_d", host=str(tmp_path)))
    errors = [line for line in out.splitlines() if "error:" in line]
    assert len(errors) == 1 and "Could not connect" in errors[0], out
    assert "cflite_d" not in databases(pg)


def test_missing_operation_and_server_type_fail_without_connecting(tmp_path: Path) -> None:
    text = POLICY.format(promiser="foobar", op="create", extra="", user="u", password="p",
                         host="/nonexistent", policy="fix").replace(
        'database_operation => "create",', "")
    code, out = run_agent(tmp_path, text)
    assert "error: Missing database_operation in database promise" in out
    assert classes(out) == "R: classes: d_failed"
    code, out = run_agent(tmp_path, text.replace('db_server_type => "postgres";', "")
                          .replace('database_type => "sql",',
                                   'database_type => "sql", database_operation => "create",'))
    assert "No supported db_server_type is promised (postgres or mysql)" in out
    assert "databases promise 'foobar'" in out
