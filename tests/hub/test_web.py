"""The hub's web page: served read-only, escaped, loopback without login, a login and TLS
anywhere else -- and looked at in a real browser (Debian's chromium, headless)."""
from __future__ import annotations

import base64
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from cfpromise.hub import web
from tests.hub.fleet import Fleet
from tests.server.helpers import free_port


class WebServer:
    def __init__(self, fleet: Fleet, listen: str) -> None:
        self.listen = listen
        cmd = [os.path.join(os.path.dirname(sys.executable), "cf-lite-hub"), "-w",
               fleet.hub_workdir, "web", "--listen", listen]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True)
        host, _, port = listen.rpartition(":")
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                socket.create_connection((host, int(port)), timeout=0.5).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"web did not start: {self.proc.stdout.read()}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


def _fleet_with_failure(fleet: Fleet):
    web1 = fleet.add_host("web1", "127.0.0.11")
    web2 = fleet.add_host("web2", "127.0.0.12")
    assert web1.run_agent().returncode == 0
    assert web2.run_agent(failing=True).returncode == 0
    fleet.collect()
    return web1, web2


def _get(url: str, **kw) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, **kw), timeout=20) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_pages_and_api_on_loopback(fleet: Fleet) -> None:
    web1, web2 = _fleet_with_failure(fleet)
    server = WebServer(fleet, f"127.0.0.1:{free_port()}")
    try:
        base = f"http://{server.listen}"
        status, page = _get(base + "/")
        assert status == 200 and 'id="host-count">2<' in page and "always_fails" in page
        key = urllib.request.quote(web2.key_digest, safe="")
        status, host_page = _get(f"{base}/host/{key}")
        assert status == 200 and "/bin/false" in host_page
        pid = re.search(r'href="/promise/([^"]+)"', host_page).group(1)
        status, promise_page = _get(f"{base}/promise/{pid}")
        assert status == 200 and f"/host/{key}" in promise_page
        assert _get(base + "/api/hosts.json")[0] == 200
        hosts = json.loads(_get(base + "/api/hosts.json")[1])
        assert {h["hostkey"] for h in hosts} == {web1.key_digest, web2.key_digest}
        assert _get(base + "/host/nope")[0] == 404
        assert _get(base + "/", method="POST", data=b"x")[0] == 405
        assert _get(base + "/" + "a" * 5000)[0] == 414
    finally:
        server.stop()


def test_everything_from_a_host_is_escaped(fleet: Fleet) -> None:
    web1 = fleet.add_host("web1", "127.0.0.11")
    assert web1.run_agent(role="<script>alert(1)</script>").returncode == 0
    fleet.collect()
    server = WebServer(fleet, f"127.0.0.1:{free_port()}")
    try:
        key = urllib.request.quote(web1.key_digest, safe="")
        page = _get(f"http://{server.listen}/host/{key}")[1]
        assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page
    finally:
        server.stop()


def test_other_addresses_need_a_login_and_tls(fleet: Fleet) -> None:
    fleet.hub("collect", "--once", "--no-lastseen")          # an empty database
    listen = f"0.0.0.0:{free_port()}"
    refused = fleet.hub("web", "--listen", listen, check=False)
    assert refused.returncode == 1 and "needs a login" in refused.stderr
    add = subprocess.run([os.path.join(os.path.dirname(sys.executable), "cf-lite-hub"), "-w",
                          fleet.hub_workdir, "web-user", "admin"], input="correct horse\n",
                         capture_output=True, text=True)
    assert add.returncode == 0, add.stderr
    stored = json.load(open(web.config_path(fleet.hub_workdir)))["users"]["admin"]
    assert "correct horse" not in stored and web.check_password("correct horse", stored)
    server = WebServer(fleet, listen)
    try:
        port = listen.rpartition(":")[2]
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        url = f"https://127.0.0.1:{port}/"
        import http.client
        with pytest.raises((urllib.error.URLError, http.client.HTTPException, OSError)):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10)   # no plain HTTP
        for auth, status in ((None, 401), ("admin:wrong", 401), ("admin:correct horse", 200)):
            headers = {"Authorization": "Basic " + base64.b64encode(auth.encode()).decode()} \
                if auth else {}
            try:
                with urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                            timeout=20, context=ctx) as r:
                    got = r.status
            except urllib.error.HTTPError as exc:
                got = exc.code
            assert got == status, auth
    finally:
        server.stop()


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("needs a headless browser (apt-get install chromium)")


def _browse(browser: str, url: str, tmp: str) -> str:
    result = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                             "--disable-dev-shm-usage", f"--user-data-dir={tmp}",
                             "--virtual-time-budget=3000", "--dump-dom", url],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def test_in_a_real_browser(fleet: Fleet, tmp_path) -> None:
    """Pages load, links work, the failing promise of an agent run shows up; the sorting
    and search scripts run (the browser's DOM after them is checked)."""
    browser = _chromium()
    web1, web2 = _fleet_with_failure(fleet)
    server = WebServer(fleet, f"127.0.0.1:{free_port()}")
    try:
        base = f"http://{server.listen}"
        dom = _browse(browser, base + "/", str(tmp_path / "b1"))
        assert 'id="host-count">2<' in dom and "always_fails" in dom
        assert "<polyline" in dom                              # the chart
        links = re.findall(r'href="(/host/[^"]+)"', dom)
        assert len(set(links)) == 2
        key = urllib.request.quote(web2.key_digest, safe="")
        host_dom = _browse(browser, f"{base}/host/{key}", str(tmp_path / "b2"))
        assert "/bin/false" in host_dom and "failed" in host_dom
        promise_link = re.search(r'href="(/promise/[^"]+)"', host_dom).group(1)
        promise_dom = _browse(browser, base + promise_link.replace("&amp;", "&"),
                              str(tmp_path / "b3"))
        assert f"/host/{key}" in promise_dom
        for path in ("/changes", "/inventory"):
            assert "<table" in _browse(browser, base + path, str(tmp_path / "b4"))
        shot = tmp_path / "overview.png"
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                        f"--user-data-dir={tmp_path / 'b5'}", f"--screenshot={shot}",
                        "--window-size=1280,900", base + "/"],
                       capture_output=True, timeout=120)
        assert shot.exists() and shot.stat().st_size > 5000
        if os.environ.get("CF_LITE_KEEP_SCREENSHOT"):
            shutil.copy(shot, os.environ["CF_LITE_KEEP_SCREENSHOT"])
    finally:
        server.stop()
