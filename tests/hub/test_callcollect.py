"""Call-collect: a host the hub cannot reach calls it (call_collect_interval), and the hub's
cf-lite-serverd asks its query on that connection; cf-lite-hub stores what it left."""
from __future__ import annotations

import glob
import json
import os
import time

from cfpromise.net import keys
from tests.hub.fleet import Fleet, _start_server, _user
from tests.server.helpers import free_port, make_workdir, write_policy

HUB_POLICY = """
body common control {{ bundlesequence => {{ "hub_access" }}; }}
body server control {{
  allowconnects => {{ "127.0.0.1" }}; allowallconnects => {{ "127.0.0.1" }};
  trustkeysfrom => {{ "127.0.0.1" }}; allowusers => {{ "root", "{user}" }};
  bindtointerface => "127.0.0.1";
}}
bundle server hub_access {{
  access:
    "collect_calls" resource_type => "query", admit_keys => {{ "{admitted}" }};
}}
"""

HOST_POLICY = """
body common control {{ bundlesequence => {{ "host_access" }}; }}
body server control {{
  allowconnects => {{ "127.0.0.1" }}; allowallconnects => {{ "127.0.0.1" }};
  allowusers => {{ "root", "{user}" }}; bindtointerface => "127.0.0.21";
  call_collect_interval => "5"; collect_window => "10";
}}
bundle server host_access {{
  access:
    "delta" resource_type => "query", admit_keys => {{ "{hubkey}" }};
    "rebase" resource_type => "query", admit_keys => {{ "{hubkey}" }};
}}
"""


def _setup(fleet: Fleet, admit_host: bool):
    from tests.hub.fleet import Host
    hub_port, host_port = free_port(), free_port()
    host_dir = os.path.join(fleet.root, "natted")
    host_key = make_workdir(host_dir)
    host = Host("natted", "127.0.0.21", host_dir, host_port,
                key_digest=keys.digest(host_key.public))
    assert host.run_agent(failing=True).returncode == 0
    hub_key = keys.load_host_key(fleet.hub_workdir)
    for user in {"root", _user()}:
        keys.trust_key(host_dir, hub_key.public, user)
    with open(os.path.join(host_dir, "policy_server.dat"), "w") as fh:
        fh.write(f"127.0.0.1:{hub_port}\n")
    hub_server = _start_server(fleet.hub_workdir, write_policy(
        os.path.join(fleet.hub_workdir, "server.cf"), HUB_POLICY.format(
            user=_user(), admitted=host.key_digest if admit_host else "MD5=" + "0" * 32)),
        hub_port, "127.0.0.1")
    host.server = _start_server(host_dir, write_policy(
        os.path.join(host_dir, "server.cf"), HOST_POLICY.format(
            user=_user(), hubkey=fleet.hub_key)), host_port, "127.0.0.21")
    fleet.hosts.append(host)
    return host, hub_server


def _wait_for(predicate, seconds: float = 30.0) -> bool:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def test_a_host_behind_nat_is_collected_through_its_call(fleet: Fleet) -> None:
    host, hub_server = _setup(fleet, admit_host=True)
    try:
        calls = os.path.join(fleet.hub_workdir, "state", "hub_calls")
        assert _wait_for(lambda: glob.glob(os.path.join(calls, "*.json"))), \
            hub_server.text()[-3000:] + host.server.text()[-3000:]
        result = json.loads(fleet.hub("collect", "--once", "--no-lastseen").stdout)
        assert result["called"] == 1 and result["runs"] == 1
        [entry] = json.loads(fleet.hub("hosts", "--format", "json").stdout)
        assert entry["hostkey"] == host.key_digest
        failed = json.loads(fleet.hub("promises", "--outcome", "failed", "--format",
                                      "json").stdout)
        assert [p["hostkey"] for p in failed] == [host.key_digest]
        assert glob.glob(os.path.join(calls, "*.json")) == []       # stored, then removed
        assert os.path.exists(os.path.join(calls, host.key_digest + ".cursor"))
    finally:
        hub_server.stop()


def test_a_call_the_hub_does_not_admit_leaves_nothing(fleet: Fleet) -> None:
    host, hub_server = _setup(fleet, admit_host=False)
    try:
        assert _wait_for(lambda: "access denied to Call-Collect" in hub_server.text())
        calls = os.path.join(fleet.hub_workdir, "state", "hub_calls")
        assert glob.glob(os.path.join(calls, "*.json")) == []
    finally:
        hub_server.stop()
