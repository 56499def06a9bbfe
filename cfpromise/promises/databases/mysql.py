"""A MySQL/MariaDB session for databases promises, through PyMySQL (imported on first use).

The same interface as :class:`cfpromise.promises.databases.postgres.Session`.
cf-agent 3.21 connects with ``mysql_real_connect(host, user, password, db)``;
here a ``db_server_host`` that is an absolute path is the server's Unix socket.
Identifiers are sent quoted with backquotes; error messages are scrubbed of
the password.
"""
from __future__ import annotations

from typing import Any

from cfpromise.promises.databases.postgres import DbError, MissingDriver, SessionBase, scrub
from cfpromise.promises.databases.spec import Column

CONNECT_TIMEOUT_S = 10


def _driver() -> Any:
    try:
        import pymysql
    except ImportError as exc:
        raise MissingDriver("MySQL/MariaDB support needs the Python package PyMySQL "
                            "(pip install 'cf-lite[databases]')") from exc
    return pymysql


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


class Session(SessionBase):
    """One connection to one database (autocommit)."""

    def __init__(self, host: str, user: str, password: str, dbname: str | None) -> None:
        self.password = password
        pymysql = _driver()
        params: dict[str, Any] = {"user": user, "password": password, "autocommit": True,
                                  "connect_timeout": CONNECT_TIMEOUT_S, "charset": "utf8mb4"}
        if host.startswith("/"):
            params["unix_socket"] = host
        else:
            name, _, port = host.partition(":")
            params["host"] = name
            if port.isdigit():
                params["port"] = int(port)
        if dbname:
            params["database"] = dbname
        try:
            self.conn = pymysql.connect(**params)
        except pymysql.MySQLError as exc:
            raise DbError(self._scrub(exc)) from None

    def _scrub(self, exc: BaseException) -> str:
        args = getattr(exc, "args", ())
        text = str(args[1]) if len(args) > 1 else str(exc)
        return scrub(" ".join(text.split()), self.password) or type(exc).__name__

    def _execute(self, query: str, params: tuple[Any, ...] | None = None
                 ) -> list[tuple[Any, ...]]:
        import pymysql
        try:
            with self.conn.cursor() as cur:
                cur.execute(query, params)
                return list(cur.fetchall()) if cur.description is not None else []
        except pymysql.MySQLError as exc:
            raise DbError(self._scrub(exc)) from None

    def databases(self) -> list[str]:
        return [str(row[0]) for row in self._execute("SHOW DATABASES")]

    def tables(self) -> list[str]:
        return [str(row[0]) for row in self._execute("SHOW TABLES")]

    def columns(self, table: str) -> list[tuple[str, str, int | None]]:
        rows = self._execute(
            "SELECT column_name, data_type, character_maximum_length "
            "FROM information_schema.columns "
            "WHERE table_name = %s AND table_schema = DATABASE() "
            "ORDER BY ordinal_position", (table,))
        return [(str(r[0]), str(r[1]).lower(), None if r[2] is None else int(r[2]))
                for r in rows]

    def create_database(self, name: str) -> None:
        self._execute(f"CREATE DATABASE {_quote(name)}")

    def drop_database(self, name: str) -> None:
        self._execute(f"DROP DATABASE {_quote(name)}")

    def create_table(self, table: str, columns: list[Column]) -> None:
        cols = ", ".join(f"{_quote(c.name)} {c.ddl_type()}" for c in columns)
        self._execute(f"CREATE TABLE {_quote(table)} ({cols})")

    def add_column(self, table: str, column: Column) -> None:
        self._execute(f"ALTER TABLE {_quote(table)} ADD {_quote(column.name)} "
                      f"{column.ddl_type()}")

    def drop_table(self, table: str) -> None:
        self._execute(f"DROP TABLE {_quote(table)}")
