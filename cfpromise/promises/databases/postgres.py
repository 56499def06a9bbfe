"""A PostgreSQL session for databases promises, through psycopg 3 (imported on first use).

cf-agent 3.21 talks to PostgreSQL through libpq with ``dbname= host= user=
password=``; this does the same through psycopg (so libpq's environment, e.g.
``PGPORT``, applies as it does for cf-agent).  A ``db_server_host`` that is an
absolute path is a Unix socket directory, as for libpq.  Identifiers are always
sent quoted (cf-agent splices them raw), and every error message is scrubbed of
the password before anyone sees it.
"""
from __future__ import annotations

from typing import Any

from cfpromise.promises.databases.spec import Column

CONNECT_TIMEOUT_S = 10


def scrub(text: str, password: str) -> str:
    """``text`` without the password: as a word of its own (a one-letter password must not
    blank every letter of a message) and in any ``password=...`` setting."""
    import re
    text = re.sub(r"password\s*=\s*\S+", "password=********", text, flags=re.IGNORECASE)
    if password:
        text = re.sub(r"(?<![A-Za-z0-9])" + re.escape(password) + r"(?![A-Za-z0-9])",
                      "********", text)
    return text


class DbError(Exception):
    """A connection or query failed; the message is safe to log (no password)."""


class MissingDriver(DbError):
    pass


def _driver() -> Any:
    try:
        import psycopg
    except ImportError as exc:
        raise MissingDriver("PostgreSQL support needs the Python package psycopg "
                            "(pip install 'cf-lite[databases]')") from exc
    return psycopg


class SessionBase:
    """What the PostgreSQL and MySQL sessions share: a connection closed on leaving."""

    conn: Any

    def close(self) -> None:
        try:
            self.conn.close()
        except Exception:           # closing is best effort
            pass

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Session(SessionBase):
    """One connection to one database (autocommit: each statement stands alone)."""

    def __init__(self, host: str, user: str, password: str, dbname: str | None) -> None:
        self.password = password
        psycopg = _driver()
        params: dict[str, Any] = {"host": host, "user": user, "password": password,
                                  "connect_timeout": CONNECT_TIMEOUT_S, "autocommit": True}
        if dbname:
            params["dbname"] = dbname
        try:
            self.conn = psycopg.connect(**params)
        except psycopg.Error as exc:
            raise DbError(self._scrub(exc)) from None

    def _scrub(self, exc: BaseException) -> str:
        return scrub(" ".join(str(exc).split()), self.password) or type(exc).__name__

    def _execute(self, query: Any, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        import psycopg
        try:
            with self.conn.cursor() as cur:
                cur.execute(query, params)
                return list(cur.fetchall()) if cur.description is not None else []
        except psycopg.Error as exc:
            raise DbError(self._scrub(exc)) from None

    # -- inspection ---------------------------------------------------------------------
    def databases(self) -> list[str]:
        return [row[0] for row in self._execute("SELECT pg_database.datname FROM pg_database")]

    def tables(self) -> list[str]:
        return [row[0] for row in self._execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema()")]

    def columns(self, table: str) -> list[tuple[str, str, int | None]]:
        """(name, data type, character maximum length) of each column, in order."""
        return [(r[0], str(r[1]).lower(), r[2]) for r in self._execute(
            "SELECT column_name, data_type, character_maximum_length "
            "FROM information_schema.columns "
            "WHERE table_name = %s AND table_schema = current_schema() "
            "ORDER BY ordinal_position", (table,))]

    # -- changes --------------------------------------------------------------------------
    def create_database(self, name: str) -> None:
        from psycopg import sql
        self._execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))

    def drop_database(self, name: str) -> None:
        from psycopg import sql
        self._execute(sql.SQL("DROP DATABASE {}").format(sql.Identifier(name)))

    def create_table(self, table: str, columns: list[Column]) -> None:
        from psycopg import sql
        parts = [sql.SQL("{} {}").format(sql.Identifier(c.name), sql.SQL(c.ddl_type()))
                 for c in columns]
        self._execute(sql.SQL("CREATE TABLE {} ({})").format(sql.Identifier(table),
                                                             sql.SQL(", ").join(parts)))

    def add_column(self, table: str, column: Column) -> None:
        from psycopg import sql
        self._execute(sql.SQL("ALTER TABLE {} ADD {} {}").format(
            sql.Identifier(table), sql.Identifier(column.name), sql.SQL(column.ddl_type())))

    def drop_table(self, table: str) -> None:
        from psycopg import sql
        self._execute(sql.SQL("DROP TABLE {}").format(sql.Identifier(table)))
