"""The ``databases`` promise type: SQL databases and tables on a PostgreSQL or a
MySQL/MariaDB server.  See :mod:`.handler`."""
