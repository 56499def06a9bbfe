"""databases promises against a real scratch MariaDB server (db_server_type mysql):
create, tables and columns, drop, idempotence, dry run, a wrong password."""
from __future__ import annotations

from pathlib import Path

from tests.databases.conftest import MariaDB, my_sql
from tests.databases.test_postgres import POLICY, classes
from tests.files.agentrun import run_agent


def policy(my: MariaDB, promiser: str, op: str = "create", extra: str = "",
           action: str = "fix", password: str | None = None) -> str:
    return POLICY.format(promiser=promiser, op=op, extra=extra, user=my.user,
                         password=my.password if password is None else password,
                         host=my.socket, policy=action).replace(
        'db_server_type => "postgres";\n  db_server_connection_db => "postgres";',
        'db_server_type => "mysql";\n  db_server_connection_db => "mysql";')


def databases(my: MariaDB) -> set[str]:
    return {str(r[0]) for r in my_sql(my, "SHOW DATABASES")}


def test_create_tables_columns_and_drop(mariadb: MariaDB, tmp_path: Path) -> None:
    cols = 'database_columns => { "name,varchar,50", "age,int" },'
    code, out = run_agent(tmp_path, policy(mariadb, "cflite_m.people", extra=cols))
    assert "Created database 'cflite_m' to keep promise" in out, out
    assert "Database.table 'cflite_m.people' doesn't seem to exist, creating" in out
    assert classes(out) == "R: classes: d_repaired"
    code, out = run_agent(tmp_path, policy(mariadb, "cflite_m.people", extra=cols))
    assert "Table 'cflite_m.people' is as promised" in out and \
        classes(out) == "R: classes: d_kept"
    more = 'database_columns => { "name,varchar,50", "age,int", "email,varchar,80" },'
    code, out = run_agent(tmp_path, policy(mariadb, "cflite_m.people", extra=more))
    assert "Adding promised column 'email' to database table 'people'" in out
    assert my_sql(mariadb, "SELECT character_maximum_length FROM information_schema.columns "
                           "WHERE table_name = 'people' AND column_name = 'email'") == [(80,)]
    code, out = run_agent(tmp_path, policy(mariadb, "cflite_m.people", extra=cols))
    assert "Column 'email' found in database.table 'cflite_m.people' is not part of its " \
        "promise." in out and classes(out) == "R: classes: d_failed"
    drop = policy(mariadb, "cflite_m", op="drop", extra='comment => "backed up",')
    code, out = run_agent(tmp_path, drop, "-n")
    assert "Need to delete the database 'cflite_m' but only a warning was promised" in out
    assert "cflite_m" in databases(mariadb)
    code, out = run_agent(tmp_path, drop)
    assert "Dropped database 'cflite_m' to keep promise" in out
    assert "cflite_m" not in databases(mariadb)
    code, out = run_agent(tmp_path, drop)
    assert classes(out) == "R: classes: d_kept"


def test_wrong_password_is_one_clear_error(mariadb: MariaDB, tmp_path: Path) -> None:
    code, out = run_agent(tmp_path, policy(mariadb, "cflite_n", password="wrong-Pw-456"))
    errors = [line for line in out.splitlines() if "error:" in line]
    assert len(errors) == 1, out
    assert "Could not connect to the sql_db server for 'cflite_n'" in errors[0]
    assert "Access denied" in errors[0] and "wrong-Pw-456" not in out
    assert classes(out) == "R: classes: d_failed"
