"""Fixtures of the hub's tests: a loopback fleet, and the scratch PostgreSQL cluster the
databases tests use (shared, not copied)."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.databases.conftest import Cluster, cluster  # noqa: F401  (a fixture)
from tests.hub.fleet import Fleet, make_fleet


@pytest.fixture
def fleet(tmp_path) -> Iterator[Fleet]:
    f = make_fleet(str(tmp_path))
    try:
        yield f
    finally:
        f.stop()


@pytest.fixture
def pg_url(cluster: Cluster) -> str:  # noqa: F811
    """A fresh database in the scratch cluster, as a postgresql:// URL."""
    import uuid

    from tests.databases.conftest import sql
    name = "hub_" + uuid.uuid4().hex[:12]
    sql(cluster, f"CREATE DATABASE {name}")
    return (f"postgresql://{cluster.user}:{cluster.password}@/{name}"
            f"?host={cluster.socket_dir}&port={cluster.port}")
