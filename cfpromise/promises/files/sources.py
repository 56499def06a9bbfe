"""Where ``copy_from`` reads its source: the local disk, or a server over the
3.21 protocol.

``copy.py`` asks one of these objects for stat/lstat/listdir/readlink, for the
data, and for "do the contents differ" -- so the same copy logic serves both.
As in cf-agent 3.21 (ScheduleCopyOperation), ``servers`` is tried in order
until a connection succeeds; the literal name ``localhost`` means the local
disk, while any address -- 127.0.0.1 and ::1 included -- goes through the
protocol and so through the server's access rules.  Connections are kept for
the run (ConnCache) and a server that could not be reached is not retried in
the same run.  Every network failure surfaces as an OSError with a clear
message, so the promise fails instead of the agent crashing.
"""
from __future__ import annotations

import errno
import os
from typing import Any, Callable

from cfpromise.promises.files import atomic, bridge


class LocalSource:
    host = "localhost"
    remote = False

    def stat(self, path: str) -> Any:
        return os.stat(path)

    def lstat(self, path: str) -> Any:
        return os.lstat(path)

    def listdir(self, path: str) -> list[str]:
        return os.listdir(path)

    def readlink(self, path: str) -> str:
        return os.readlink(path)

    def fetch(self, path: str, fd: int, size: int) -> None:
        with open(path, "rb") as src:
            _write_sparse(fd, iter(lambda: src.read(1 << 20), b""))

    def differs(self, path: str, local: str) -> bool:
        return atomic.file_digest(path, "md5") != atomic.file_digest(local, "md5")


LOCAL = LocalSource()


class RemoteSource:
    """A source on a server; stat results are cached for the run, as cf-agent's."""

    remote = True

    def __init__(self, conn: Any, server: str) -> None:
        self.conn = conn
        self.host = server
        self._stats: dict[str, Any] = {}

    def _error(self, exc: Exception, path: str) -> OSError:
        from cfpromise.net.client import AccessDenied
        code = errno.EACCES if isinstance(exc, AccessDenied) else errno.EIO
        return OSError(code, str(exc), path)

    def _remote_stat(self, path: str) -> Any:
        from cfpromise.net.client import NetError
        if path not in self._stats:
            if self.conn.broken:
                raise OSError(errno.EIO, f"connection to '{self.host}' is broken", path)
            try:
                self._stats[path] = self.conn.stat(path)
            except NetError as exc:
                raise self._error(exc, path) from None
        return self._stats[path]

    def stat(self, path: str) -> Any:
        return self._remote_stat(path)

    def lstat(self, path: str) -> Any:
        st = self._remote_stat(path)
        import attrs                  # (remote copies only)
        return attrs.evolve(st, mode=st.lmode) if st.lmode else st

    def listdir(self, path: str) -> list[str]:
        from cfpromise.net.client import NetError
        try:
            names = self.conn.opendir(path)
        except NetError as exc:
            raise self._error(exc, path) from None
        return [n for n in names if n not in (".", "..")]

    def readlink(self, path: str) -> str:
        st = self._remote_stat(path)
        if not st.readlink:
            raise OSError(errno.EINVAL, "not a symbolic link", path)
        return st.readlink

    def fetch(self, path: str, fd: int, size: int) -> None:
        from cfpromise.net.client import NetError
        chunks: list[bytes] = []

        def sink(data: bytes) -> None:
            chunks.append(data)
            if sum(map(len, chunks)) >= 1 << 20:
                _write_sparse(fd, iter(chunks))
                chunks.clear()
        try:
            self.conn.get(path, size, sink)
        except NetError as exc:
            raise self._error(exc, path) from None
        _write_sparse(fd, iter(chunks))

    def differs(self, path: str, local: str) -> bool:
        from cfpromise.net.client import NetError
        try:
            return bool(self.conn.md5_differs(path, local))
        except NetError:
            return True


def _write_sparse(fd: int, chunks: Any) -> None:
    for chunk in chunks:
        if not any(chunk):
            os.lseek(fd, len(chunk), os.SEEK_CUR)     # keep sparse files sparse
            continue
        view = memoryview(chunk)
        while view:
            view = view[os.write(fd, view):]


# --------------------------------------------------------------------------- connections

def _workdir(agent: Any) -> str:
    wd = getattr(agent, "workdir", None)
    if wd:
        return str(wd)
    from cfpromise.eval.hardclasses import default_workdir
    return os.environ.get("CFENGINE_TEST_OVERRIDE_WORKDIR") or default_workdir()


def _common_control(agent: Any) -> dict[str, Any]:
    engine = bridge._engine(agent)
    control = getattr(engine, "control", None) if engine is not None else None
    return control if isinstance(control, dict) else {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value and "$" not in value else None


def open_source(fr: Any, log: Callable[[str, str], None]) -> Any:
    """The source for this copy: LOCAL, a RemoteSource, or None when no server
    could be reached (the caller fails the promise)."""
    copy = fr.a.copy
    if not copy.servers:
        return LOCAL
    from cfpromise.net import client           # (a local copy imports no network code)
    from cfpromise.net import protocol as P
    cache = bridge.run_state(fr.agent, "net_connections")
    common = _common_control(fr.agent)
    # DecideProtocol: the copy_from's protocol_version, else body common control's, else latest
    version = (P.parse_version_policy(copy.protocol_version)
               or P.parse_version_policy(_text(common.get("protocol_version"))) or P.LATEST)
    for server in copy.servers:
        if server == "localhost":
            return LOCAL
        key = (server, str(copy.port), int(version), copy.trustkey, copy.force_ipv4,
               copy.encrypt and version == P.Version.CLASSIC)
        conn = cache.get(key, False)
        if conn is not False and conn is not None and conn.broken:
            conn.close()
            conn = False
        if conn is False:
            from cfpromise.promises.files.attributes import as_list
            control = bridge.agent_control(fr.agent)
            restrict = as_list(control.get("copyfrom_restrict_keys"))
            opts = client.ConnectOptions(workdir=_workdir(fr.agent), port=copy.port,
                                         version=version, trust=copy.trustkey,
                                         timeout=copy.timeout or 30.0,
                                         force_ipv4=copy.force_ipv4, log=log,
                                         restrict_keys=[str(k) for k in restrict],
                                         ciphers=_text(common.get("tls_ciphers")),
                                         min_tls=_text(common.get("tls_min_version")),
                                         encrypt=copy.encrypt,
                                         bind_address=_text(control.get("bindtointerface")) or "")
            try:
                conn = client.connect(server, opts)
                from cfpromise.net import lastseen
                lastseen.record(opts.workdir, conn.address, conn.key_digest, incoming=False)
            except client.NoHostKey:
                # TLSClientInitialize: verbose only, the copy then finds no server
                log("verbose", "No public/private key pair is loaded, please create one "
                               "using cf-key")
                conn = None
            except (client.TrustError, client.SetupError) as exc:
                log("error", str(exc))
                conn = None
            except client.NetError as exc:
                log("info", str(exc))
                conn = None
            cache[key] = conn
        if conn is None:
            log("info", f"Unable to establish connection to '{server}'")
            continue
        sources = bridge.run_state(fr.agent, "net_sources")
        src = sources.get(id(conn))
        if src is None or src.conn is not conn:
            src = sources[id(conn)] = RemoteSource(conn, server)
        return src
    return None
