"""How a databases promise is read (no server needed)."""
from __future__ import annotations

import pytest

from cfpromise.promises.databases import spec


def test_promiser_forms() -> None:
    assert spec.split_promiser("db") == ("db", "")
    assert spec.split_promiser("db.t") == ("db", "t")
    assert spec.split_promiser("db/t") == ("db", "t")
    assert spec.split_promiser("db\\t") == ("db", "t")
    for bad in ("a.b.c", ".t", "db."):
        with pytest.raises(spec.SpecError, match="database.table"):
            spec.split_promiser(bad)


def test_columns() -> None:
    cols = spec.parse_columns(["name,varchar,50", "age,integer", "n,int,"], "t")
    assert [c.ddl_type() for c in cols] == ["varchar(50)", "integer", "int"]
    assert cols[0].canonical_type() == "character varying"
    for bad in ("name", "a,b,c,d", "x,int; drop table y", ",int", "x,,1", "x,int,big"):
        with pytest.raises(spec.SpecError):
            spec.parse_columns([bad], "t")


def test_sanity_as_3_21() -> None:
    server = {"db_server_host": "h", "db_server_owner": "o", "db_server_password": "p"}
    assert spec.sanity_errors("db.t", {"database_columns": ["a,int"]}, server) == []
    errors = spec.sanity_errors("db", {"database_columns": ["a,int"],
                                       "database_operation": "drop"}, {})
    assert len(errors) == 5
    assert errors[1] == "No server host is promised for connecting to the SQL server"
    assert spec.sanity_errors("db", {"database_operation": "drop", "comment": "x"},
                              server) == []


def test_password_scrubbing_keeps_messages_readable() -> None:
    from cfpromise.promises.databases.postgres import scrub
    text = 'connection to server at "127.0.0.1", port 5432 failed'
    assert scrub(text, "p") == text
    assert scrub("bad password s3cret! for u", "s3cret!") == "bad password ******** for u"
    assert scrub("dsn host=h password=xyz user=u", "other") == \
        "dsn host=h password=******** user=u"
