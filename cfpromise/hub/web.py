"""cf-lite-hub's web page: the fleet at a glance, read-only.

Pages: ``/`` (compliance now and over time as a chart, hosts with their status in a
table one can sort and search, the promises failing most), ``/host/KEY`` (its runs,
failing promises, changes, inventory), ``/promise/ID`` (where it fails, its history),
``/changes``; and the same data as JSON under ``/api/`` (hosts, promises, changes,
inventory: what ``cf-lite-hub QUERY --format json`` prints).

Safety: only GET and HEAD; every value that came from a host is HTML-escaped; bound
to loopback by default.  Any other address needs the hub's web configuration,
``WORKDIR/hub/web.json`` (``{"users": {"NAME": "scrypt$..."}}``, written by
``cf-lite-hub web-user NAME``), and then every page asks for a login (HTTP Basic, over
TLS only: the certificate and key named there, or a self-signed certificate for the
hub's own key).  Nothing here writes to the database.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import html
import ipaddress
import json
import os
import secrets
import ssl
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

from cfpromise.hub import queries
from cfpromise.hub.store import Store

CONFIG = ("hub", "web.json")
SCRYPT = {"n": 2 ** 14, "r": 8, "p": 1}
CHART_DAYS = 7
MAX_PATH = 2048


class WebConfigError(Exception):
    """The web page cannot be served as asked (the message says why)."""


# -- users -------------------------------------------------------------------------------
def hash_password(password: str, salt: bytes | None = None) -> str:
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, **SCRYPT)
    return f"scrypt${SCRYPT['n']}${SCRYPT['r']}${SCRYPT['p']}${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        got = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r),
                             p=int(p))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got.hex(), digest)


def config_path(workdir: str) -> str:
    return os.path.join(workdir, *CONFIG)


def load_config(workdir: str) -> dict[str, Any]:
    path = config_path(workdir)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return {}
    if st.st_mode & 0o077:
        raise WebConfigError(f"'{path}' is readable or writable by others: chmod 600 it")
    with open(path, encoding="utf-8") as fh:
        try:
            config = json.load(fh)
        except ValueError as exc:
            raise WebConfigError(f"'{path}' is not JSON: {exc}") from None
    if not isinstance(config, dict):
        raise WebConfigError(f"'{path}' is not a JSON object")
    return config


def set_user(workdir: str, name: str, password: str) -> None:
    from cfpromise.atomic import write_atomically
    config = load_config(workdir)
    config.setdefault("users", {})[name] = hash_password(password)
    path = config_path(workdir)
    write_atomically(path, json.dumps(config, indent=1) + "\n", mode=0o600, dir_mode=0o700)


def is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return host == "localhost"
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


# -- HTML ----------------------------------------------------------------------------------
E = html.escape

STYLE = """
body{font-family:system-ui,sans-serif;margin:0;background:#f4f6f8;color:#1d2733}
header{background:#1d3557;color:#fff;padding:.6em 1.2em;display:flex;gap:1.5em;align-items:center}
header a{color:#fff;text-decoration:none}header h1{font-size:1.2em;margin:0}
main{padding:1em 1.2em;max-width:1300px}
.cards{display:flex;gap:1em;flex-wrap:wrap}.card{background:#fff;border-radius:6px;
padding:.8em 1.2em;box-shadow:0 1px 2px #0002;min-width:10em}.card b{font-size:1.8em;display:block}
section{background:#fff;border-radius:6px;padding:.8em 1.2em;margin:1em 0;box-shadow:0 1px 2px #0002}
table{border-collapse:collapse;width:100%;font-size:.92em}th,td{text-align:left;padding:.3em .5em;
border-bottom:1px solid #e3e7eb;vertical-align:top}th{cursor:pointer;user-select:none;background:#eef1f4}
.ok{color:#1a7f37}.bad{color:#c62828;font-weight:600}.warn{color:#b26a00}.muted{color:#6b7785}
input.search{padding:.35em .6em;width:20em;margin:.3em 0 .6em}pre{white-space:pre-wrap;margin:0}
"""

SCRIPT = """
document.querySelectorAll('table.sortable').forEach(function(t){
 t.querySelectorAll('th').forEach(function(th,i){th.addEventListener('click',function(){
  var b=t.tBodies[0],rows=Array.from(b.rows),asc=th.dataset.asc!=='1';th.dataset.asc=asc?'1':'0';
  rows.sort(function(x,y){var a=x.cells[i].dataset.v||x.cells[i].textContent,
   c=y.cells[i].dataset.v||y.cells[i].textContent,na=parseFloat(a),nc=parseFloat(c);
   var r=(!isNaN(na)&&!isNaN(nc))?na-nc:a.localeCompare(c);return asc?r:-r;});
  rows.forEach(function(r){b.appendChild(r);});});});});
document.querySelectorAll('input.search').forEach(function(inp){
 inp.addEventListener('input',function(){var t=document.getElementById(inp.dataset.table),
  q=inp.value.toLowerCase();Array.from(t.tBodies[0].rows).forEach(function(r){
  r.style.display=r.textContent.toLowerCase().indexOf(q)>=0?'':'none';});});});
"""


def _when(t: Any) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(int(t))) if t else "-"


def _outcome(o: str) -> str:
    cls = "ok" if o == "kept" else "warn" if o == "repaired" else "bad"
    return f'<span class="{cls}">{E(o)}</span>'


def _page(title: str, body: str) -> bytes:
    return (f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>{E(title)} - "
            f"cf-lite hub</title><style>{STYLE}</style></head><body><header><h1>"
            f"<a href='/'>cf-lite hub</a></h1><a href='/'>Fleet</a><a href='/changes'>Changes"
            f"</a><a href='/inventory'>Inventory</a></header><main><h2>{E(title)}</h2>{body}"
            f"</main><script>{SCRIPT}</script></body></html>").encode()


def _table(tid: str, headers: list[str], rows: list[list[tuple[str, Any]]],
           search: bool = True) -> str:
    """rows of (html, sort value) cells; the html is already escaped."""
    out = []
    if search:
        out.append(f'<input class="search" placeholder="Search..." data-table="{tid}">')
    out.append(f'<table class="sortable" id="{tid}"><thead><tr>'
               + "".join(f"<th>{E(h)}</th>" for h in headers) + "</tr></thead><tbody>")
    for row in rows:
        out.append("<tr>" + "".join(
            f'<td data-v="{E(str(v))}">{h}</td>' if v is not None else f"<td>{h}</td>"
            for h, v in row) + "</tr>")
    out.append("</tbody></table>")
    if not rows:
        out.append('<p class="muted">Nothing to show.</p>')
    return "".join(out)


def _chart(points: list[dict[str, Any]], since: float, until: float) -> str:
    """An SVG line of compliance (0-100 %) over time."""
    w, h, pad = 900, 180, 30
    span = max(until - since, 1)
    coords = [(pad + (p["time"] - since) / span * (w - 2 * pad),
               h - pad - (p["compliance"] or 0) / 100 * (h - 2 * pad))
              for p in points if p["compliance"] is not None]
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
    grid = "".join(f'<line x1="{pad}" x2="{w - pad}" y1="{h - pad - v / 100 * (h - 2 * pad)}" '
                   f'y2="{h - pad - v / 100 * (h - 2 * pad)}" stroke="#e3e7eb"/>'
                   f'<text x="2" y="{h - pad - v / 100 * (h - 2 * pad) + 4}" font-size="10">'
                   f'{v}%</text>' for v in (0, 50, 100))
    labels = (f'<text x="{pad}" y="{h - 8}" font-size="10">{_when(since)}</text>'
              f'<text x="{w - pad - 90}" y="{h - 8}" font-size="10">{_when(until)}</text>')
    dots = "".join(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2" fill="#1d3557"/>'
                   for x, y in coords[-200:])
    return (f'<svg id="compliance-chart" viewBox="0 0 {w} {h}" width="100%" role="img" '
            f'aria-label="Fleet compliance over time">{grid}{labels}'
            f'<polyline fill="none" stroke="#1d3557" stroke-width="2" points="{line}"/>'
            f'{dots}</svg>')


def _cards(cards: list[tuple[str, str, str]]) -> str:
    """The figures at the top of a page: (label, escaped html, element id or "")."""
    out = []
    for label, value, cid in cards:
        ident = f' id="{cid}"' if cid else ""
        out.append(f'<div class="card">{E(label)}<b{ident}>{value}</b></div>')
    return '<div class="cards">' + "".join(out) + "</div>"


def _host_link(r: dict[str, Any]) -> str:
    name = r.get("hostname") or r.get("address") or r["hostkey"]
    return f'<a href="/host/{urllib.parse.quote(r["hostkey"], safe="")}">{E(name)}</a>'


def _promise_link(r: dict[str, Any]) -> str:
    label = f"{r.get('promise_type', '')}: {r.get('promiser', '')}"
    return f'<a href="/promise/{urllib.parse.quote(r["pid"], safe="")}">{E(label[:120])}</a>'


class Pages:
    """Each page is a method returning (status, content type, body)."""

    def __init__(self, store: Store, lock: threading.Lock) -> None:
        self.store = store
        self.lock = lock

    def _q(self, fn: Callable[..., Any], **kw: Any) -> Any:
        with self.lock:
            return fn(self.store, **kw)

    def overview(self, params: dict[str, str]) -> bytes:
        now = time.time()
        hosts = self._q(queries.hosts)
        failing = self._q(queries.promises, outcome="notkept")
        since = now - CHART_DAYS * 86400
        history = self._q(queries.compliance_history, since=since)
        scored = [h["compliance"] for h in hosts if h["compliance"] is not None]
        fleet = round(sum(scored) / len(scored), 1) if scored else None
        stale = sum(1 for h in hosts if h["stale"])
        cards = _cards([("Compliance", f'{fleet if fleet is not None else "-"}%',
                         "fleet-compliance"), ("Hosts", str(len(hosts)), "host-count"),
                        ("Not reporting", str(stale), ""),
                        ("Failing promises", str(len(failing)), "failing-count")])
        rows = [[(_host_link(h), h["hostname"]), (E(h["address"]), h["address"]),
                 (_status(h), h["compliance"] if h["compliance"] is not None else -1),
                 (E(_when(h["last_seen"])), h["last_seen"]), (E(_when(h["last_run"])),
                                                            h["last_run"]),
                 (str(h["kept"]), h["kept"]), (str(h["repaired"]), h["repaired"]),
                 (str(h["notkept"]), h["notkept"])] for h in hosts]
        by_promise: dict[str, dict[str, Any]] = {}
        for p in failing:
            entry = by_promise.setdefault(p["pid"], {**p, "hosts": 0})
            entry["hosts"] += 1
        top = sorted(by_promise.values(), key=lambda p: -p["hosts"])[:20]
        prow = [[(_promise_link(p), p["promiser"]), (E(p["bundle"]), p["bundle"]),
                 (E(p["handle"]), p["handle"]), (str(p["hosts"]), p["hosts"])] for p in top]
        body = (cards + f"<section><h3>Compliance, last {CHART_DAYS} days</h3>"
                + _chart(history, since, now) + "</section><section><h3>Hosts</h3>"
                + _table("hosts", ["Host", "Address", "Compliance", "Last seen", "Last run",
                                   "Kept", "Repaired", "Not kept"], rows)
                + "</section><section><h3>Failing promises</h3>"
                + _table("failing", ["Promise", "Bundle", "Handle", "Hosts"], prow, False)
                + "</section>")
        return _page("Fleet", body)

    def host(self, key: str, params: dict[str, str]) -> bytes | None:
        found = self._q(queries.hosts, host=key)
        found = [h for h in found if h["hostkey"] == key]
        if not found:
            return None
        h = found[0]
        since = time.time() - 7 * 86400
        promises = self._q(queries.promises, host=key)
        changes = self._q(queries.changes, host=key, since=since, limit=500)
        inventory = self._q(queries.inventory, host=key)
        history = self._q(queries.compliance_history, since=since, host=key)
        attrs = inventory[0]["attributes"] if inventory else {}
        failing = [p for p in promises if p["outcome"] not in ("kept", "repaired")]
        info = (_cards([("Compliance", _status(h), ""), ("Address", E(h["address"]), ""),
                        ("Last run", E(_when(h["last_run"])), "")])
                + f'<p class="muted">Key {E(h["hostkey"])}; policy release '
                f'{E(h["release_id"] or "-")}; collected by {E(h["collected_by"])}</p>')
        frows = [[(_promise_link(p), p["promiser"]), (_outcome(p["outcome"]), p["outcome"]),
                  (E(p["bundle"]), p["bundle"]), (E(f"{p['file']}:{p['line']}"), p["file"]),
                  (E(_when(p["time"])), p["time"])] for p in failing]
        crows = [[(E(_when(c["time"])), c["time"]), (E(c["kind"]), c["kind"]),
                  (_promise_link({**c, "pid": c["name"]}) if c["kind"] == "promise"
                   else E(c["name"]), c["name"]), (_outcome(c["outcome"]), c["outcome"]),
                  (f"<pre>{E(c['detail'])}</pre>", None)] for c in changes]
        irows = [[(E(k), k), (f"<pre>{E(json.dumps(v, default=str)[:2000])}</pre>", None)]
                 for k, v in sorted(attrs.items())]
        body = (info + "<section><h3>Compliance, last 7 days</h3>"
                + _chart(history, since, time.time()) + "</section>"
                + "<section><h3>Failing promises</h3>"
                + _table("host-failing", ["Promise", "Outcome", "Bundle", "Where", "Since"],
                         frows, False)
                + "</section><section><h3>Changes, last 7 days</h3>"
                + _table("host-changes", ["Time", "Kind", "What", "Outcome", "Detail"], crows)
                + "</section><section><h3>Inventory</h3>"
                + _table("host-inventory", ["Attribute", "Value"], irows) + "</section>")
        return _page(h["hostname"] or h["address"] or key, body)

    def promise(self, pid: str, params: dict[str, str]) -> bytes | None:
        since = time.time() - 7 * 86400
        rows = self._q(queries.promises, promise=pid, since=since)
        if not rows:
            return None
        p = rows[0]
        head = (f'<p>{E(p["promise_type"])} <b>{E(p["promiser"])}</b> in bundle '
                f'{E(p["bundle"])}, {E(p["file"])}:{p["line"]}; handle '
                f'{E(p["handle"] or "-")}</p>')
        trows = [[(_host_link(r), r["hostname"]), (_outcome(r["outcome"]), r["outcome"]),
                  ("now" if r["current"] else "earlier", int(r["current"])),
                  (E(_when(r["time"])), r["time"])] for r in rows]
        body = head + "<section><h3>Where, last 7 days</h3>" + _table(
            "promise-hosts", ["Host", "Outcome", "State", "Since / at"], trows) + "</section>"
        return _page("Promise", body)

    def changes(self, params: dict[str, str]) -> bytes:
        since = queries_since(params.get("since"), 86400)
        rows = self._q(queries.changes, since=since, limit=2000)
        crows = [[(E(_when(c["time"])), c["time"]), (_host_link(c), c["hostname"]),
                  (E(c["kind"]), c["kind"]),
                  (_promise_link({**c, "pid": c["name"]}) if c["kind"] == "promise"
                   else E(c["name"]), c["name"]), (_outcome(c["outcome"]), c["outcome"]),
                  (f"<pre>{E(c['detail'])}</pre>", None)] for c in rows]
        return _page("Changes", _table("changes", ["Time", "Host", "Kind", "What", "Outcome",
                                                   "Detail"], crows))

    def inventory(self, params: dict[str, str]) -> bytes:
        rows = self._q(queries.inventory, names=["fqhost", "flavor", "release", "arch", "cpus",
                                                 "ipv4"])
        cols = ["fqhost", "flavor", "release", "arch", "cpus", "ipv4"]

        def value(attrs: dict[str, Any], name: str) -> str:
            for k, v in attrs.items():
                if k.rpartition(".")[2] == name:
                    return ", ".join(map(str, v)) if isinstance(v, list) else str(v)
            return ""
        irows = [[(_host_link(r), r["hostname"])] + [
            (E(value(r["attributes"], c)), value(r["attributes"], c)) for c in cols]
            for r in rows]
        return _page("Inventory", _table("inventory", ["Host", "OS", "Kernel", "Arch", "CPUs",
                                                       "IPv4"], irows))

    def api(self, what: str, params: dict[str, str]) -> Any:
        since = queries_since(params.get("since"), None)
        host = params.get("host") or None
        if what == "hosts":
            return self._q(queries.hosts, host=host, since=since)
        if what == "promises":
            return self._q(queries.promises, host=host, since=since,
                           outcome=params.get("outcome") or None,
                           handle=params.get("handle") or None)
        if what == "changes":
            return self._q(queries.changes, host=host, since=since)
        if what == "inventory":
            return self._q(queries.inventory, host=host, since=since)
        return None


def _status(h: dict[str, Any]) -> str:
    c = h["compliance"]
    if c is None:
        return '<span class="muted">-</span>'
    cls = "ok" if c >= 100 else "warn" if c >= 90 else "bad"
    stale = ' <span class="muted">(not reporting)</span>' if h["stale"] else ""
    return f'<span class="{cls}">{c}%</span>{stale}'


def queries_since(text: str | None, default: float | None) -> float | None:
    if not text:
        return None if default is None else time.time() - default
    try:
        return queries.parse_since(text)
    except Exception:
        return None if default is None else time.time() - default


# -- the server ------------------------------------------------------------------------
def make_handler(pages: Pages, users: dict[str, str], log: Callable[[str], None]) -> type:
    class Handler(BaseHTTPRequestHandler):
        server_version = "cf-lite-hub"
        sys_version = ""
        timeout = 30                     # a client that stalls loses its thread, not ours

        def log_message(self, fmt: str, *args: Any) -> None:
            log(fmt % args)

        def _send(self, status: int, ctype: str, body: bytes, extra: dict | None = None
                  ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Content-Security-Policy",
                             "default-src 'none'; style-src 'unsafe-inline'; "
                             "script-src 'unsafe-inline'; img-src 'self'")
            self.send_header("X-Frame-Options", "DENY")
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _authorised(self) -> bool:
            if not users:
                return True
            header = self.headers.get("Authorization", "")
            if header.startswith("Basic "):
                try:
                    name, _, password = base64.b64decode(header[6:], validate=True
                                                         ).decode().partition(":")
                except (ValueError, UnicodeDecodeError):
                    name = password = ""
                stored = users.get(name)
                if stored and check_password(password, stored):
                    return True
            self._send(401, "text/plain", b"login needed\n",
                       {"WWW-Authenticate": 'Basic realm="cf-lite hub", charset="UTF-8"'})
            return False

        def do_HEAD(self) -> None:
            self.do_GET()

        def do_GET(self) -> None:
            if len(self.path) > MAX_PATH:
                return self._send(414, "text/plain", b"too long\n")
            if not self._authorised():
                return None
            url = urllib.parse.urlsplit(self.path)
            params = {k: v[0] for k, v in urllib.parse.parse_qs(url.query).items()}
            parts = [urllib.parse.unquote(p) for p in url.path.split("/") if p]
            try:
                body = self._route(parts, params)
            except Exception as exc:          # noqa: BLE001 - one page, not the server
                log(f"error: {self.path}: {type(exc).__name__}: {exc}")
                return self._send(500, "text/plain", b"internal error (see the hub's log)\n")
            if body is None:
                return self._send(404, "text/html; charset=utf-8",
                                  _page("Not found", "<p>No such page.</p>"))
            ctype, data = body
            return self._send(200, ctype, data)

        def do_POST(self) -> None:
            self._send(405, "text/plain", b"read-only\n", {"Allow": "GET, HEAD"})

        do_PUT = do_DELETE = do_PATCH = do_POST

        def _route(self, parts: list[str], params: dict[str, str]
                   ) -> tuple[str, bytes] | None:
            html_type = "text/html; charset=utf-8"
            if not parts:
                return html_type, pages.overview(params)
            if parts == ["changes"]:
                return html_type, pages.changes(params)
            if parts == ["inventory"]:
                return html_type, pages.inventory(params)
            if len(parts) == 2 and parts[0] == "host":
                page = pages.host(parts[1], params)
                return None if page is None else (html_type, page)
            if len(parts) == 2 and parts[0] == "promise":
                page = pages.promise(parts[1], params)
                return None if page is None else (html_type, page)
            if len(parts) == 2 and parts[0] == "api" and parts[1].endswith(".json"):
                data = pages.api(parts[1][:-5], params)
                if data is None:
                    return None
                return "application/json", json.dumps(data, default=str).encode()
            return None
    return Handler


def make_server(store: Store, workdir: str, listen: str,
                log: Callable[[str], None]) -> ThreadingHTTPServer:
    host, _, port = listen.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit():
        raise WebConfigError(f"--listen '{listen}' is not ADDR:PORT")
    config = load_config(workdir)
    users = config.get("users") or {}
    tls = None
    if not is_loopback(host):
        if not users:
            raise WebConfigError(
                f"serving on '{host}' (not loopback) needs a login: add a user with "
                f"'cf-lite-hub web-user NAME' (password hash in {config_path(workdir)})")
        tls = _tls_context(workdir, config)
    elif users and config.get("tls", False):
        tls = _tls_context(workdir, config)

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        address_family = __import__("socket").AF_INET6 if ":" in host else \
            __import__("socket").AF_INET

    server = Server((host, int(port)), make_handler(Pages(store, threading.Lock()), users,
                                                    log))
    if tls is not None:
        # the handshake happens in the request's own thread, never in the accepting one
        server.socket = tls.wrap_socket(server.socket, server_side=True,
                                        do_handshake_on_connect=False)
    return server


def _tls_context(workdir: str, config: dict[str, Any]) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    cert, key = config.get("certificate"), config.get("key")
    if cert and key:
        ctx.load_cert_chain(cert, key)
        return ctx
    from cfpromise.net import keys, tls
    try:
        hostkey = keys.load_host_key(workdir)
    except keys.KeyError_ as exc:
        raise WebConfigError(f"TLS needs the hub's key pair or a certificate: {exc}") from None
    tls._load_identity(ctx, hostkey.private)
    return ctx


def serve(store: Store, workdir: str, listen: str, args: Any) -> int:
    import sys

    def log(message: str) -> None:
        if getattr(args, "verbose", False) or message.startswith("error"):
            print(f"cf-lite-hub web: {message}", file=sys.stderr, flush=True)
    try:
        server = make_server(store, workdir, listen, log)
    except (WebConfigError, OSError) as exc:
        print(f"cf-lite-hub: error: {exc}", file=sys.stderr)
        return 1
    scheme = "https" if isinstance(server.socket, ssl.SSLSocket) else "http"
    print(f"cf-lite-hub: serving {scheme}://{listen}/", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
