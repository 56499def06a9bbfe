"""A small fleet on loopback for the hub's tests: hosts with their own key, work directory,
address (127.0.0.x) and cf-lite-serverd, whose agent runs leave a spool; and a hub work
directory with its own key."""
from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field

from cfpromise.net import keys
from tests.server.helpers import Server, free_port, make_workdir, write_policy

SERVER_POLICY = """
body common control {{ bundlesequence => {{ "hub_access" }}; }}
body server control {{
  allowconnects => {{ "127.0.0.1" }};
  allowallconnects => {{ "127.0.0.1" }};
  trustkeysfrom => {{ "127.0.0.1" }};
  allowusers => {{ "root", "{user}" }};
  bindtointerface => "{address}";
}}
bundle server hub_access {{
  access:
    "delta" resource_type => "query", admit_keys => {{ "{hubkey}" }}{select};
    "rebase" resource_type => "query", admit_keys => {{ "{hubkey}" }}{select};
}}
body report_data_select no_reports {{
  promise_handle_exclude => {{ "report_.*" }};
  metatags_exclude => {{ "private" }};
}}
"""

AGENT_POLICY = """
body common control {{ bundlesequence => {{ "main" }}; }}
bundle agent main {{
  vars:
    "role" string => "{role}", meta => {{ "inventory", "attribute_name=Role" }};
    "token" string => "s3cret", meta => {{ "inventory", "private" }};
  files:
    "{workdir}/managed.txt"
      handle => "managed_file",
      create => "true";
  commands:
    {failing}
  reports:
    "ran on {role}" handle => "report_run";
}}
"""


@dataclass
class Host:
    name: str
    address: str
    workdir: str
    port: int
    server: Server | None = None
    key_digest: str = ""

    def run_agent(self, failing: bool = False, role: str = "web") -> subprocess.CompletedProcess:
        policy = write_policy(os.path.join(self.workdir, "agent.cf"), AGENT_POLICY.format(
            role=role, workdir=self.workdir,
            failing='"/bin/false" handle => "always_fails";' if failing else ""))
        env = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=self.workdir,
                   CF_LITE_HUB_SPOOL="1")
        return subprocess.run([os.path.join(os.path.dirname(sys.executable), "cf-lite-agent"),
                               "-K", "-f", policy], env=env, capture_output=True, text=True,
                              timeout=120)

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None


@dataclass
class Fleet:
    root: str
    hub_workdir: str
    hub_key: str
    port: int
    hosts: list[Host] = field(default_factory=list)

    def add_host(self, name: str, address: str, select: bool = False) -> Host:
        """A host; ``select``: its access rules name a report_data_select body that keeps
        the reports promises and the variables tagged ``private`` from the hub."""
        workdir = os.path.join(self.root, name)
        key = make_workdir(workdir)
        host = Host(name, address, workdir, self.port, key_digest=keys.digest(key.public))
        policy = write_policy(os.path.join(workdir, "server.cf"), SERVER_POLICY.format(
            address=address, hubkey=self.hub_key, user=_user(),
            select=', report_data_select => no_reports' if select else ""))
        host.server = _start_server(workdir, policy, self.port, address)
        self.hosts.append(host)
        return host

    def hub(self, *args: str, db: str | None = None, check: bool = True
            ) -> subprocess.CompletedProcess:
        cmd = [os.path.join(os.path.dirname(sys.executable), "cf-lite-hub"),
               "-w", self.hub_workdir]
        if db:
            cmd += ["--db", db]
        env = {k: v for k, v in os.environ.items() if k != "CFENGINE_TEST_OVERRIDE_WORKDIR"}
        result = subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=300,
                                env=env)
        if check and result.returncode not in (0,):
            raise AssertionError(f"cf-lite-hub {' '.join(args)} exited {result.returncode}:\n"
                                 f"{result.stdout}\n{result.stderr}")
        return result

    def collect(self, *hosts: Host, db: str | None = None, check: bool = True
                ) -> subprocess.CompletedProcess:
        args = ["collect", "--once", "--no-lastseen", "--trust-new", "--timeout", "20"]
        for h in hosts or self.hosts:
            args += ["--host", f"{h.address}:{h.port}"]
        return self.hub(*args, db=db, check=check)

    def stop(self) -> None:
        for h in self.hosts:
            h.stop()


def _user() -> str:
    import getpass
    return getpass.getuser()


def _start_server(workdir: str, policy: str, port: int, address: str) -> Server:
    """cf-lite-serverd bound to ``address`` (its policy's bindtointerface) on ``port``."""
    return Server(workdir, policy, port, address=address)


def make_fleet(root: str) -> Fleet:
    hub_workdir = os.path.join(root, "hub")
    key = make_workdir(hub_workdir)
    return Fleet(root, hub_workdir, keys.digest(key.public), free_port())
