"""Databases promises as cf-agent 3.21 keeps them (VerifyDatabasePromises): PostgreSQL, MySQL.

Checks come first (spec.py): a promise that fails them is not kept, and no
connection is made (``Missing database_operation in database promise``...).
``db_server_type`` picks the driver: ``postgres`` (psycopg 3) or ``mysql``
(PyMySQL, for MySQL and MariaDB); ``database_type => "ms_registry"`` is the
Windows registry: nothing to do on Linux (as 3.21).

A database promise (``"name"``) connects to ``db_server_connection_db``
(default ``postgres``, or ``mysql`` for MySQL) and lists the databases:

* ``create``: a missing database is created (repaired), a present one kept;
* ``delete``/``drop``: a present database is dropped (repaired), a missing one
  kept (3.21 never drops one: its test is upside down);
* ``verify``, and ``cache``/``restore`` (which 3.21 reads but never acts on):
  kept when it exists, not kept otherwise.

A table promise (``"name.table"``) connects to that database (``create``
first creates the database as above):

* ``create``: a missing table is created with ``database_columns``
  (``NAME,TYPE[,SIZE]``: ``Database.table '...' doesn't seem to exist,
  creating``), a missing column is added (``Adding promised column...``);
* ``verify`` (``cache``, ``restore``): the same checks, no changes;
* ``delete``/``drop``: the table is dropped when present;
* a column the promise does not list, or one whose size differs, is not kept
  (``Column '...' found in database.table '...' is not part of its promise.``);
  a different type is a verbose note, as in 3.21.  Then ``Table '...' is as
  promised`` (kept) or ``Table '...' is not as promised`` (not kept).
* ``database_rows``: 3.21 does not act on SQL rows and says so; so does cf-lite.

Under ``-n`` or ``action_policy => "warn"`` nothing is created or dropped
(``Need to create the database '...' but only a warning was promised``...).
An unreachable server or a wrong password is one error naming the promise and
the server's reason, never the password.  Changes are recorded for
``--report json`` (kinds ``database``, ``table``, ``column``).
"""
from __future__ import annotations

from typing import Any

from cfpromise.agent.outcome import Outcome, merge
from cfpromise.promises.api import PromiseRun, handler
from cfpromise.promises.databases import spec
from cfpromise.promises.databases.postgres import DbError, MissingDriver

# db_server_type -> (the module with its Session, the default db_server_connection_db)
SERVER_TYPES = {"postgres": ("cfpromise.promises.databases.postgres", "postgres"),
                "mysql": ("cfpromise.promises.databases.mysql", "mysql")}
_OPERATIONS = {"create": "create", "delete": "drop", "drop": "drop", "verify": "verify",
               "cache": "verify", "restore": "verify"}


@handler("databases")
def verify_databases(run: PromiseRun) -> Outcome:
    log = run.agent.log
    attrs = run.attributes
    server = run.body("database_server")
    dbtype = attrs.get("database_type") or "sql"
    if dbtype == "ms_registry":
        log("verbose", f"ms_registry databases are the Windows registry: nothing to do on this "
                       f"host ({run.where()})")
        return Outcome.KEPT
    errors = spec.sanity_errors(run.promiser, attrs, server)
    if errors:
        for error in errors:
            log("error", f"{error} ({run.where()})")
        return Outcome.FAILED
    try:
        database, table = spec.split_promiser(run.promiser)
        columns = spec.parse_columns(_list(attrs.get("database_columns")), table)
    except spec.SpecError as exc:
        log("error", f"{exc} ({run.where()})")
        return Outcome.FAILED
    operation = attrs.get("database_operation")
    if not operation:
        log("error", f"Missing database_operation in database promise ({run.where()})")
        return Outcome.FAILED
    server_type = server.get("db_server_type")
    if server_type not in SERVER_TYPES:
        log("error", f"No supported db_server_type is promised (postgres or mysql) in "
                     f"{run.where()}")
        return Outcome.FAILED
    op = _OPERATIONS[str(operation)]
    if operation in ("cache", "restore"):
        log("verbose", f"database_operation '{operation}' only verifies (cf-agent 3.21 "
                       "does no more)")
    if _list(attrs.get("database_rows")):
        log("info", "Database row operations are not currently supported. Please contact "
                    "cfengine with suggestions.")
    job = _Job(run, server, str(server_type), database, table, columns, op)
    try:
        return job.run()
    except MissingDriver as exc:
        log("error", f"{exc}: {run.where()} is not kept")
        return Outcome.FAILED
    except DbError as exc:
        log("error", f"Database '{database}': {exc} ({run.where()})")
        return Outcome.FAILED


def _list(value: Any) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


class _Job:
    """One promise against one server."""

    def __init__(self, run: PromiseRun, server: dict[str, Any], server_type: str,
                 database: str, table: str, columns: list[spec.Column], op: str) -> None:
        self.run_, self.server, self.database, self.table = run, server, database, table
        self.module, self.default_db = SERVER_TYPES[server_type]
        self.columns, self.op = columns, op
        self.log = run.agent.log

    def connect(self, dbname: str | None) -> Any:
        import importlib
        s = self.server
        session = importlib.import_module(self.module).Session
        return session(str(s["db_server_host"]), str(s["db_server_owner"]),
                       str(s["db_server_password"]), dbname)

    def run(self) -> Outcome:
        if not self.table:
            return self.database_promise()
        results = []
        if self.op == "create":
            results.append(self.database_promise())
            if results[-1] is Outcome.FAILED:
                return Outcome.FAILED
            if results[-1] is Outcome.WARN:          # the database is not there yet
                self.log("warning", f"Database.table '{self.database}.{self.table}' doesn't "
                                    "seem to exist, but only a warning was promised")
                return Outcome.WARN
        try:
            session = self.connect(self.database)
        except MissingDriver:
            raise
        except DbError as exc:
            self.log("error", f"Could not connect an existing database '{self.database}' - "
                              f"check server configuration? ({exc}) ({self.run_.where()})")
            return Outcome.FAILED
        with session:
            results.append(self.table_promise(session))
        return merge(results)

    # -- the database ---------------------------------------------------------------------
    def database_promise(self) -> Outcome:
        run, name = self.run_, self.database
        conn_db = self.server.get("db_server_connection_db") or self.default_db
        try:
            session = self.connect(str(conn_db))
        except MissingDriver:
            raise
        except DbError as exc:
            self.log("error", f"Could not connect to the sql_db server for '{name}' ({exc}) "
                              f"({run.where()})")
            return Outcome.FAILED
        with session:
            self.log("verbose", "Verifying promised database")
            exists = name in session.databases()
            self.log("verbose", f"Database '{name}' " + ("exists on this connection" if exists
                                else "does not seem to exist on this connection"))
            if self.op == "verify" or (self.op == "create") == exists:
                if exists or self.op == "drop":
                    return Outcome.KEPT
                self.log("error", f"Database '{name}' does not exist ({run.where()})")
                return Outcome.FAILED
            verb, past = ("create", "Created") if self.op == "create" else ("delete", "Dropped")
            if run.warn_only:
                self.log("warning", f"Need to {verb} the database '{name}' but only a warning "
                                    "was promised")
                return Outcome.WARN
            self.log("verbose", f"Attempting to {verb} the database '{name}'")
            if self.op == "create":
                session.create_database(name)
            else:
                session.drop_database(name)
            self.log("info", f"{past} database '{name}' to keep promise")
            run.agent.note_change(run, kind="database", database=name,
                                  old="absent" if self.op == "create" else "present",
                                  new="present" if self.op == "create" else "absent")
            return Outcome.REPAIRED

    # -- the table ------------------------------------------------------------------------
    def table_promise(self, session: Any) -> Outcome:
        run, table = self.run_, self.table
        path = f"{self.database}.{table}"
        self.log("verbose", f"Verifying promised table structure for '{path}'")
        exists = table in session.tables()
        if self.op == "drop":
            if not exists:
                self.log("verbose", f"Table '{path}' does not exist, as promised")
                return Outcome.KEPT
            if run.warn_only:
                self.log("warning", f"Need to delete the table '{path}' but only a warning "
                                    "was promised")
                return Outcome.WARN
            session.drop_table(table)
            self.log("info", f"Dropped table '{path}' to keep promise")
            run.agent.note_change(run, kind="table", table=path, old="present", new="absent")
            return Outcome.REPAIRED
        if not exists:
            if self.op != "create":
                self.log("error", f"The database did not contain the promised table '{path}' "
                                  f"({run.where()})")
                return Outcome.FAILED
            if run.warn_only:
                self.log("warning", f"Database.table '{path}' doesn't seem to exist, but only "
                                    "a warning was promised")
                return Outcome.WARN
            session.create_table(table, self.columns)
            self.log("info", f"Database.table '{path}' doesn't seem to exist, creating")
            run.agent.note_change(run, kind="table", table=path, old="absent", new="present",
                                  columns=[f"{c.name} {c.ddl_type()}" for c in self.columns])
            return Outcome.REPAIRED
        return self.check_columns(session, path)

    def check_columns(self, session: Any, path: str) -> Outcome:
        run = self.run_
        results: list[Outcome] = []
        promised = {c.name: c for c in self.columns}
        seen: set[str] = set()
        for name, type_, size in session.columns(self.table):
            self.log("verbose", f"Discovered database column ({name},{type_},{size})")
            column = promised.get(name)
            if column is None:
                self.log("error", f"Column '{name}' found in database.table '{path}' is not "
                                  "part of its promise.")
                results.append(Outcome.FAILED)
                continue
            seen.add(name)
            if type_ not in (column.type.lower(), column.canonical_type()):
                self.log("verbose", f"Promised column in database '{run.promiser}' has a "
                                    f"non-matching type ({column.type} != {type_})")
            if column.size > 0 and size != column.size:
                self.log("error", f"Promised column '{name}' in database.table '{path}' has a "
                                  f"non-matching array size ({size} != {column.size})")
                results.append(Outcome.FAILED)
            else:
                self.log("verbose", f"Promised column '{name}' in database.table '{path}' is "
                                    "as promised")
        for column in self.columns:
            if column.name in seen:
                continue
            if self.op != "create":
                self.log("error", f"Promised column '{column.name}' missing from database "
                                  f"table '{path}'")
                results.append(Outcome.FAILED)
            elif run.warn_only:
                self.log("warning", f"Promised column '{column.name}' missing from database "
                                    f"table '{self.table}' but only a warning was promised")
                results.append(Outcome.WARN)
            else:
                session.add_column(self.table, column)
                self.log("info", f"Adding promised column '{column.name}' to database table "
                                 f"'{self.table}'")
                run.agent.note_change(run, kind="column", table=path, column=column.name,
                                      type=column.ddl_type(), old="absent", new="present")
                results.append(Outcome.REPAIRED)
        outcome = merge(results)
        if outcome in (Outcome.SKIPPED, Outcome.KEPT, Outcome.REPAIRED):
            self.log("info", f"Table '{path}' is as promised")
            return Outcome.KEPT if outcome is Outcome.SKIPPED else outcome
        if outcome is Outcome.FAILED:
            self.log("error", f"Table '{path}' is not as promised ({run.where()})")
        return outcome
