"""What a databases promise asks for, read as cf-agent 3.21 reads it (pure, no server).

* The promiser is ``database`` or ``database.table`` (``/`` and ``\\`` separate too);
  more than one separator is an error.
* ``database_columns`` items are ``NAME,TYPE[,SIZE]`` (NewSQLColumns); a size of
  0 or none means "unsized".
* ``database_rows`` are read and, for SQL, left alone with 3.21's message
  (``Database row operations are not currently supported...``).
* CheckDatabaseSanity: a host, an owner and a password are required; columns or
  rows need a table in the promiser; ``delete``/``drop`` need a ``comment``.
"""
from __future__ import annotations

import re
from typing import Any

from cfpromise.fast.records import record

SEPARATORS = "./\\"
PROMISER_SYNTAX = 'SQL database promiser syntax should be of the form "database.table"'
# identifiers are quoted when sent; types are spliced, so only plain type words pass
_TYPE = re.compile(r"[A-Za-z][A-Za-z0-9_ ]*\Z")
# PostgreSQL's information_schema data_type for the names policy writes
TYPE_ALIASES = {
    "varchar": "character varying", "char": "character", "int": "integer",
    "int4": "integer", "int2": "smallint", "int8": "bigint", "bool": "boolean",
    "float8": "double precision", "float4": "real", "float": "double precision",
    "decimal": "numeric", "serial": "integer", "bigserial": "bigint",
    "timestamp": "timestamp without time zone", "timestamptz": "timestamp with time zone",
    "time": "time without time zone",
}


@record
class Column:
    name: str
    type: str
    size: int               # 0: unsized

    def ddl_type(self) -> str:
        return f"{self.type}({self.size})" if self.size > 0 else self.type

    def canonical_type(self) -> str:
        word = self.type.strip().lower()
        return TYPE_ALIASES.get(word, word)


class SpecError(ValueError):
    """Bad input in the promise: the message says what."""


def split_promiser(promiser: str) -> tuple[str, str]:
    """(database, table); table is '' for a database promise."""
    count = sum(promiser.count(c) for c in SEPARATORS)
    if count == 0:
        return promiser, ""
    parts = re.split(r"[./\\]", promiser)
    if count > 1 or not parts[0] or not parts[1]:
        raise SpecError(PROMISER_SYNTAX)
    return parts[0], parts[1]


def parse_columns(items: list[str], table: str) -> list[Column]:
    columns = []
    for item in items:
        fields = item.split(",")
        if len(fields) < 2 or len(fields) > 3:
            raise SpecError("SQL Column format should be NAME,TYPE[,SIZE]")
        name, type_ = fields[0].strip(), fields[1].strip()
        if not name:
            raise SpecError(f"Malformed column promise for table '{table}' - found not even "
                            "a name")
        if not type_:
            raise SpecError(f"Malformed column '{name}' promised for table '{table}' - "
                            "missing a type")
        if not _TYPE.match(type_):
            raise SpecError(f"Column '{name}' of table '{table}' has a type cf-lite will not "
                            f"send to the server: '{type_}'")
        size = 0
        if len(fields) == 3 and fields[2].strip():
            if not fields[2].strip().isdigit():
                raise SpecError(f"Integer size of SQL datatype of column '{name}' could not "
                                "be determined")
            size = int(fields[2].strip())
        columns.append(Column(name, type_, size))
    return columns


def _list(value: Any) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def sanity_errors(promiser: str, attributes: dict[str, Any], server: dict[str, Any]
                  ) -> list[str]:
    """CheckDatabaseSanity's complaints (empty: the promise may go on)."""
    errors = []
    columns, rows = _list(attributes.get("database_columns")), \
        _list(attributes.get("database_rows"))
    if not any(c in promiser for c in SEPARATORS):
        if columns:
            errors.append("Columns promised for an SQL table, but only the root database "
                          "was promised")
        if rows:
            errors.append("Row values promised for an SQL table, but only the root database "
                          "was promised")
    if server.get("db_server_host") is None:
        errors.append("No server host is promised for connecting to the SQL server")
    if server.get("db_server_owner") is None:
        errors.append("No database login user is promised for connecting to the SQL server")
    if server.get("db_server_password") is None:
        errors.append("No database authentication password is promised for connecting to "
                      "the SQL server")
    for item in columns:
        if not 1 <= item.count(",") <= 2:
            errors.append("SQL Column format should be NAME,TYPE[,SIZE]")
    if attributes.get("database_operation") in ("delete", "drop") and \
            not attributes.get("comment"):
        errors.append("When specifying a delete/drop from an SQL database you must add a "
                      "comment. Take a backup of the database before making this change. "
                      "This is a highly destructive operation.")
    return errors
