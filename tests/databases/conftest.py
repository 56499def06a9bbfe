"""A throwaway PostgreSQL cluster for databases promises: initdb (as the postgres user
when run as root) in a scratch directory, password authentication, a Unix socket in
that directory on a free port; started once for the module, stopped after."""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

PASSWORD = "s3cret-Pw"


class Cluster(NamedTuple):
    socket_dir: str
    port: int
    user: str
    password: str


def _pg_bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    pytest.importorskip("psycopg", reason="needs psycopg (pip install 'cf-lite[databases]')")
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if initdb is None or pg_ctl is None:
        pytest.skip("needs PostgreSQL's initdb and pg_ctl (apt-get install postgresql)")
    prefix: list[str] = []
    owner = None
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("needs the postgres user (apt-get install postgresql)")
        prefix = ["runuser", "-u", "postgres", "--"]
    top = tempfile.mkdtemp(prefix="cf-lite-pg-")
    if owner is not None:
        os.chown(top, owner.pw_uid, owner.pw_gid)
    pwfile = os.path.join(top, "pw")
    with open(pwfile, "w") as fh:
        fh.write(PASSWORD + "\n")
    if owner is not None:
        os.chown(pwfile, owner.pw_uid, owner.pw_gid)
    data, port = os.path.join(top, "data"), _free_port()
    try:
        subprocess.run([*prefix, initdb, "-D", data, "-U", "postgres", "-A", "scram-sha-256",
                        f"--pwfile={pwfile}", "-E", "UTF8", "--no-sync"],
                       check=True, capture_output=True, timeout=120)
        subprocess.run([*prefix, pg_ctl, "-D", data, "-l", os.path.join(top, "log"), "-w",
                        "-o", f"-k {top} -p {port} -c listen_addresses=''", "start"],
                       check=True, capture_output=True, timeout=120)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        shutil.rmtree(top, ignore_errors=True)
        pytest.skip(f"cannot start a scratch PostgreSQL cluster: {exc}")
    try:
        yield Cluster(top, port, "postgres", PASSWORD)
    finally:
        subprocess.run([*prefix, pg_ctl, "-D", data, "-m", "immediate", "-w", "stop"],
                       capture_output=True, timeout=120)
        shutil.rmtree(top, ignore_errors=True)


@pytest.fixture
def pg(cluster: Cluster, monkeypatch: pytest.MonkeyPatch) -> Cluster:
    """The cluster, with libpq pointed at its port (the agent runs in process)."""
    monkeypatch.setenv("PGPORT", str(cluster.port))
    return cluster


def sql(cluster: Cluster, query: str, dbname: str = "postgres") -> list[tuple[object, ...]]:
    import psycopg
    with psycopg.connect(host=cluster.socket_dir, port=cluster.port, user=cluster.user,
                         password=cluster.password, dbname=dbname, autocommit=True) as conn:
        cur = conn.execute(query)
        return list(cur.fetchall()) if cur.description is not None else []


def databases(cluster: Cluster) -> set[str]:
    return {str(r[0]) for r in sql(cluster, "SELECT datname FROM pg_database")}


def write(tmp: Path, text: str) -> Path:
    path = tmp / "policy.cf"
    path.write_text(text)
    path.chmod(0o600)
    return path


class MariaDB(NamedTuple):
    socket: str
    user: str
    password: str


@pytest.fixture(scope="module")
def mariadb() -> Iterator[MariaDB]:
    """A throwaway MariaDB server: mariadb-install-db in a scratch directory, mariadbd on a
    Unix socket there (no network), root with a password; stopped after the module."""
    pytest.importorskip("pymysql", reason="needs PyMySQL (pip install 'cf-lite[databases]')")
    install, server = shutil.which("mariadb-install-db"), \
        shutil.which("mariadbd") or (os.path.exists("/usr/sbin/mariadbd") and "/usr/sbin/mariadbd")
    if not install or not server:
        pytest.skip("needs MariaDB's server (apt-get install mariadb-server)")
    run_as: list[str] = []
    owner = None
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("mysql")
        except KeyError:
            pytest.skip("needs the mysql user (apt-get install mariadb-server)")
        run_as = ["--user=mysql"]
    top = tempfile.mkdtemp(prefix="cf-lite-my-")
    if owner is not None:
        os.chown(top, owner.pw_uid, owner.pw_gid)
    data, sock = os.path.join(top, "data"), os.path.join(top, "sock")
    proc = None
    try:
        subprocess.run([install, "--no-defaults", f"--datadir={data}", *run_as,
                        "--auth-root-authentication-method=normal", "--skip-test-db"],
                       check=True, capture_output=True, timeout=180)
        proc = subprocess.Popen([str(server), "--no-defaults", f"--datadir={data}",
                                 f"--socket={sock}", "--skip-networking", *run_as,
                                 f"--pid-file={os.path.join(top, 'pid')}",
                                 f"--log-error={os.path.join(top, 'err')}"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import pymysql
        import time
        deadline = time.monotonic() + 60
        while True:
            try:
                conn = pymysql.connect(unix_socket=sock, user="root", password="",
                                       autocommit=True)
                break
            except pymysql.MySQLError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("mariadbd did not start")
                time.sleep(0.2)
        with conn.cursor() as cur:
            cur.execute("ALTER USER root@localhost IDENTIFIED BY %s", (PASSWORD,))
        conn.close()
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, RuntimeError) as exc:
        if proc is not None:
            proc.kill()
            proc.wait()
        shutil.rmtree(top, ignore_errors=True)
        pytest.skip(f"cannot start a scratch MariaDB server: {exc}")
    try:
        yield MariaDB(sock, "root", PASSWORD)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(top, ignore_errors=True)


def my_sql(server: MariaDB, query: str, dbname: str | None = None) -> list[tuple[object, ...]]:
    import pymysql
    conn = pymysql.connect(unix_socket=server.socket, user=server.user,
                           password=server.password, database=dbname, autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute(query)
            return list(cur.fetchall()) if cur.description is not None else []
    finally:
        conn.close()
