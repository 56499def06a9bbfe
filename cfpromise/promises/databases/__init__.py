"""The ``databases`` promise type: SQL databases and tables on a PostgreSQL server.
See :mod:`.handler`."""
