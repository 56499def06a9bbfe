"""Host built-ins: commands, users, processes, packages, sysctl, the module
protocol and the network functions that work on loopback."""
from __future__ import annotations

import os
import pwd
import socket
import threading
from pathlib import Path

import pytest

from cfpromise.eval.functions.api import FunctionError
from cfpromise.eval.functions.network import fuzzy_set_match
from cfpromise.eval.functions.system import split_command
from tests.functions.fakectx import FakeContext


def test_execresult_output_shaping() -> None:
    ctx = FakeContext()
    assert ctx.call("execresult", "/bin/printf 'a  \\n\\nb \\n\\n'", "useshell") == "a  \n\nb"
    assert ctx.call("execresult", "/bin/echo hi there", "noshell") == "hi there"
    assert ctx.call("execresult", "echo $((1+2))", "useshell") == "3"
    both = "/bin/sh -c 'echo out; echo err >&2; exit 3'"
    assert ctx.call("execresult", both, "noshell") == "out\nerr"
    assert ctx.call("execresult", both, "noshell", "stdout") == "out"
    assert ctx.call("execresult_as_data", both, "noshell", "stderr") == \
        {"exit_code": 3, "output": "err"}


def test_execresult_is_cached_per_run(tmp_path: Path) -> None:
    ctx = FakeContext()
    counter = tmp_path / "n"
    command = f"/bin/sh -c 'echo x >> {counter}; wc -l < {counter}'"
    assert ctx.call("execresult", command, "noshell") == "1"
    assert ctx.call("execresult", command, "noshell") == "1"
    assert FakeContext().call("execresult", command, "noshell") == "2"


def test_commands_run_under_dry_run_like_cf_agent(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    ctx = FakeContext(dry_run=True)
    ctx.call("execresult", f"/usr/bin/touch {marker}", "noshell")
    assert marker.exists()


def test_unsafe_functions_are_not_called_in_simulate_mode(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    ctx = FakeContext(simulate=True, workdir=str(tmp_path))
    for name, args in (("execresult", (f"/usr/bin/touch {marker}", "noshell")),
                       ("execresult_as_data", (f"/usr/bin/touch {marker}", "noshell")),
                       ("returnszero", (f"/usr/bin/touch {marker}", "noshell")),
                       ("usemodule", ("m", ""))):
        with pytest.raises(FunctionError, match="Not calling unsafe function"):
            ctx.call(name, *args)
    assert not marker.exists()


@pytest.mark.parametrize("command,shell,message", [
    ("echo hi", "noshell", "does not have an absolute path"),
    ("/nonexistent/cmd", "noshell", "assumed to be executable"),
    ("/bin/echo", "powershell", "Windows"),
])
def test_execresult_errors(command: str, shell: str, message: str) -> None:
    with pytest.raises(FunctionError, match=message):
        FakeContext().call("execresult", command, shell)


def test_returnszero() -> None:
    ctx = FakeContext()
    assert ctx.call("returnszero", "/bin/true", "noshell") is True
    assert ctx.call("returnszero", "/bin/false", "noshell") is False
    assert ctx.call("returnszero", "exit 0", "useshell") is True
    assert ctx.call("returnszero", "true", "noshell") is False        # not absolute


def test_split_command() -> None:
    assert split_command("/bin/a 'b c' \"d e\" `f`  g") == ["/bin/a", "b c", "d e", "f", "g"]


def test_environment_and_users(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CFLITE_TEST", "abcdef")
    ctx = FakeContext()
    assert ctx.call("getenv", "CFLITE_TEST", "3") == "abc"
    assert ctx.call("getenv", "CFLITE_NOSUCH", "3") == ""
    root = pwd.getpwuid(0)
    assert ctx.call("getuid", root.pw_name) == "0"
    assert ctx.call("getgid", "root") == "0"
    assert ctx.call("userexists", root.pw_name) is True
    assert ctx.call("userexists", "0") is True
    assert ctx.call("userexists", "no_such_user_x") is False
    assert ctx.call("groupexists", "root") is True
    assert ctx.call("groupexists", "no_such_group_x") is False
    info = ctx.call("getuserinfo", "0")
    assert info["username"] == root.pw_name and info["uid"] == 0
    assert ctx.call("getuserinfo")["uid"] == os.getuid()
    users = ctx.call("getusers", root.pw_name, "")
    assert root.pw_name not in users and len(users) == len(set(users))
    with pytest.raises(FunctionError, match=r"UID for user 'no_such_user_x', \(getpwnam: not"):
        ctx.call("getuid", "no_such_user_x")
    with pytest.raises(FunctionError, match=r"GID for group 'no_such_group_x', \(getgrnam: not"):
        ctx.call("getgid", "no_such_group_x")
    with pytest.raises(FunctionError, match="no such user"):
        ctx.call("getuserinfo", "no_such_user_x")


def test_processes() -> None:
    ctx = FakeContext()
    assert ctx.call("processexists", "pytest|python") is True
    assert ctx.call("processexists", "no-such-process-[x]yz") is False
    found = ctx.call("findprocesses", "pytest|python")
    assert {"line", "pid"} <= set(found[0]) and any(p["pid"] == os.getpid() for p in found)
    with pytest.raises(FunctionError):
        ctx.call("processexists", "(")


def test_packages(tmp_path: Path) -> None:
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "software_packages.csv").write_text(
        "bash,5.2,amd64,dpkg\r\ncurl,7.88,amd64,dpkg\r\nbroken,line\r\n", newline="")
    ctx = FakeContext(workdir=str(tmp_path))
    assert ctx.call("packagesmatching", "b.*", ".*", ".*", ".*") == [
        {"name": "bash", "version": "5.2", "arch": "amd64", "method": "dpkg"}]
    # records end with CRLF (RFC 4180, as cf-agent writes and reads them); the regex
    # sees the record with its CRLF, so "...dpkg$" misses it
    assert ctx.call("packagesmatching", "bash", "5.2", "amd64", "dpkg") == []
    # a lone LF is data: the whole file is one record with too many fields
    (tmp_path / "state" / "software_packages.csv").write_text("bash,5.2,amd64,dpkg\nx,1,a,m\n")
    assert ctx.call("packagesmatching", ".*", ".*", ".*", ".*") == []
    assert ctx.call("packageupdatesmatching", ".*", ".*", ".*", ".*") == []


def test_sysctl() -> None:
    ctx = FakeContext()
    assert ctx.call("sysctlvalue", "kernel.ostype") == "Linux"
    with pytest.raises(FunctionError, match="directory"):
        ctx.call("sysctlvalue", "kernel")
    with pytest.raises(FunctionError):
        ctx.call("sysctlvalue", "no.such.key")
    with pytest.raises(FunctionError, match="Windows registry"):
        ctx.call("registryvalue", "HKLM", "x")


def test_hostinnetgroup_without_netgroups() -> None:
    assert FakeContext().call("hostinnetgroup", "no_such_netgroup") is False


# ---------------------------------------------------------------------------
# Module protocol

MODULE = """#!/bin/sh
echo "=plain=$1"
echo "+defined-class"
echo "@list= { \\"a\\", 'b' }"
echo '%data={"k": [1, 2.5]}'
echo "^context=other"
echo "^meta=inventory,x=1"
echo "=tagged=yes"
echo "-gone"
echo "&fromfile=$2"
echo "just some text"
"""


def test_usemodule(tmp_path: Path) -> None:
    (tmp_path / "modules").mkdir()
    module = tmp_path / "modules" / "my-mod"
    module.write_text(MODULE)
    module.chmod(0o755)
    data = tmp_path / "f.json"
    data.write_text('{"q": true}')
    ctx = FakeContext(workdir=str(tmp_path))
    ctx.define("gone")
    assert ctx.call("usemodule", "my-mod", f"arg1 {data}") is True
    values = {k: v.value for k, v in ctx.variables()}
    assert values["default:my_mod.plain"] == "arg1"
    assert values["default:my_mod.list"] == ["a", "b"]
    assert values["default:my_mod.data"] == {"k": [1, 2.5]}
    assert values["default:other.tagged"] == "yes"
    assert values["default:other.fromfile"] == {"q": True}
    tags = ctx.vars["default:other.tagged"].tags
    assert tags[:2] == ("inventory", "x=1") and "source=module" in tags
    assert ctx.class_defined("defined_class") and not ctx.class_defined("gone")
    assert ("info", f"M '\"{module}\" arg1 {data}': just some text") in ctx.logs
    with pytest.raises(FunctionError, match="not found"):
        ctx.call("usemodule", "nosuch", "")


def test_read_module_protocol(tmp_path: Path) -> None:
    cache = tmp_path / "cached_output"
    cache.write_text("=v=1\n+c\nnoise\n")
    ctx = FakeContext()
    assert ctx.call("read_module_protocol", str(cache)) is True
    assert ctx.lookup("cached_output.v").value == "1"
    assert ctx.class_defined("c")
    assert ctx.call("read_module_protocol", str(tmp_path / "nosuch")) is False


# ---------------------------------------------------------------------------
# Network

FUZZY = [
    ("10.0.0.0/8", "10.1.2.3", True), ("10.0.0.0/8", "11.1.2.3", False),
    ("192.168.1.1-10", "192.168.1.5", True), ("192.168.1.1-10", "192.168.1.50", False),
    ("10.0", "10.0.5.1", True), ("10.0", "10.01.5.1", False), ("1.2.3.4", "1.2.3.4", True),
    ("fe80::/16", "fe80::1", True), ("fe80::/16", "fe81::1", False),
    ("10.0.0.0/8", "fe80::1", False), ("nonsense", "1.2.3.4", False),
]


@pytest.mark.parametrize("pattern,address,result", FUZZY)
def test_fuzzy_set_match(pattern: str, address: str, result: bool) -> None:
    assert fuzzy_set_match(pattern, address) is result


def test_address_functions() -> None:
    ctx = FakeContext()
    assert ctx.call("isipinsubnet", "10.0.0.0/8", "1.1.1.1", "10.9.9.9") is True
    assert ctx.call("isipinsubnet", "10.0.0.0/8") is False
    assert ctx.call("iprange", "127.0.0.0/8") is True
    assert ctx.call("iprange", "127.0.0.1", "no_such_iface") is False
    assert ctx.call("host2ip", "localhost") in ("127.0.0.1", "::1")
    assert ctx.call("host2ip", "no-such-host.invalid") == "no-such-host.invalid"
    assert ctx.call("ip2host", "256.1.1.1") == "256.1.1.1"
    with pytest.raises(FunctionError):
        ctx.call("iprange")


def test_hostrange() -> None:
    ctx = FakeContext()
    ctx.set("sys.uqhost", "web07")
    assert ctx.call("hostrange", "web", "1-9") is True
    assert ctx.call("hostrange", "WEB", "8-9") is False
    assert ctx.call("hostrange", "db", "1-9") is False
    with pytest.raises(FunctionError, match="X-Y"):
        ctx.call("hostrange", "web", "x")


def _server(reply: bytes) -> tuple[socket.socket, int]:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)

    def serve() -> None:
        for _ in range(2):
            try:
                conn, _addr = srv.accept()
            except OSError:
                return
            with conn:
                conn.recv(100)
                conn.sendall(reply)
    threading.Thread(target=serve, daemon=True).start()
    return srv, srv.getsockname()[1]


def test_readtcp_and_selectservers() -> None:
    srv, port = _server(b"HELLO there")
    try:
        ctx = FakeContext()
        assert ctx.call("readtcp", "127.0.0.1", str(port), "hi", "5") == "HELLO"
        ctx.set("hosts", ["127.0.0.1"], "slist")
        assert ctx.call("selectservers", "@(hosts)", str(port), "hi", "HEL.*", "100",
                        "up") == "1"
        assert ctx.lookup("up[0]").value == "127.0.0.1"
    finally:
        srv.close()
    with pytest.raises(FunctionError, match="Couldn't connect"):
        FakeContext().call("readtcp", "127.0.0.1", str(port), "", "10")
    with pytest.raises(FunctionError, match="promised a list"):
        FakeContext().call("selectservers", "hosts", "1", "", "", "1", "a")


def test_url_get_file(tmp_path: Path) -> None:
    page = tmp_path / "page.txt"
    page.write_text("0123456789")
    ctx = FakeContext()
    result = ctx.call("url_get", f"file://{page}", '{"url.max_content": 4}')
    assert result["content"] == "0123" and result["success"] is True
    bad = ctx.call("url_get", "http://127.0.0.1:9/", "{}")
    assert bad["success"] is False and "error_message" in bad
    with pytest.raises(FunctionError, match="data container object"):
        ctx.call("url_get", "file:///x", "[1]")


def test_network_connections() -> None:
    result = FakeContext().call("network_connections")
    assert set(result) <= {"tcp", "tcp6", "udp", "udp6"}


def test_netconn_parser() -> None:
    from cfpromise.eval.functions.netconn import parse
    text = ("  sl  local_address rem_address   st\n"
            "   0: 0100007F:0016 00000000:0000 0A 00000000\n"
            "   1: 0100007F:0016 0200007F:D431 01 00000000\n")
    assert parse(text) == [
        {"local": {"address": "127.0.0.1", "port": "22"},
         "remote": {"address": "0.0.0.0", "port": "0"}, "state": "UNKNOWN"},
        {"local": {"address": "127.0.0.1", "port": "22"},
         "remote": {"address": "127.0.0.2", "port": "54321"}, "state": "ESTABLISHED"}]


def test_hostsseen_fails_without_lastseen_data() -> None:
    with pytest.raises(FunctionError, match="lastseen"):
        FakeContext().call("hostsseen", "1", "lastseen", "name")
