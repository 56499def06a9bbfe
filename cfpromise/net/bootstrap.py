"""``cf-lite-agent --bootstrap HOST[:PORT]``, as cf-agent 3.21 bootstraps.

Before the run (GenericAgentConfigApply): resolve the hub, clear
WORKDIR/inputs, write the built-in failsafe policy there, decide the role --
policy server when the hub's address is one of this host's (then
WORKDIR/masterfiles/promises.cf must exist and state/am_policy_hub is written),
regular client otherwise (the ``trust_server`` class makes the failsafe copy
trust the hub's key on first contact unless ``--trust-server=no``) -- then write
policy_server.dat and bootstrap_id.dat.  The failsafe policy (cf-lite's own
text, doing what 3.21's embedded failsafe.cf does) copies the hub's
masterfiles into WORKDIR/inputs over the network (the ``masterfiles``
shortcut, then $(sys.masterdir) as a fallback) and, unless
``--skip-bootstrap-policy-run``, runs the new policy once.  After the run
(VerifyBootstrap) inputs/promises.cf must exist, else the bootstrap is undone.

cf-lite has no cf-execd, so the failsafe does not start a scheduler and the
bootstrap does not require one.  For tests on a single machine,
CF_LITE_BOOTSTRAP_ROLE=client forces the client role (every loopback address
is otherwise this host's own).
"""
from __future__ import annotations

import os
import secrets
import shutil
import socket
from typing import Callable

from cfpromise.agent.failsafe import BUILTIN_FAILSAFE as FAILSAFE

Log = Callable[[str, str], None]


class BootstrapError(Exception):
    pass


def split(argument: str) -> tuple[str, str | None]:
    from cfpromise.net.client import split_host_port
    host, port = split_host_port(argument, "")
    return host, port or None


def _own_addresses() -> set[str]:
    out = {"127.0.0.1", "::1"}
    try:
        import psutil
        for addrs in psutil.net_if_addrs().values():
            for a in addrs:
                if a.family in (socket.AF_INET, socket.AF_INET6):
                    out.add(a.address.split("%", 1)[0])
    except Exception:                      # noqa: BLE001 - best effort discovery
        pass
    return out


def is_policy_server(ip: str) -> bool:
    role = os.environ.get("CF_LITE_BOOTSTRAP_ROLE", "")
    if role in ("client", "hub"):
        return role == "hub"
    return ip.startswith("127.") or ip in _own_addresses()


def resolve(argument: str) -> str:
    """The address of -B's HOST[:PORT] (cf-agent resolves it as it reads the option)."""
    host, _port = split(argument)
    if not host:        # (no host: cf-agent's message says a null pointer)
        raise BootstrapError("Could not resolve hostname '(null)', unable to bootstrap")
    try:
        return str(socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)[0][4][0])
    except (socket.gaierror, UnicodeError, IndexError):
        raise BootstrapError(f"Could not resolve hostname '{host}', unable to bootstrap") from None


def prepare(workdir: str, argument: str, trust_server: bool, log: Log) -> tuple[str, list[str]]:
    """Set up WORKDIR for the bootstrap run: (failsafe policy file, classes to define)."""
    from cfpromise.agent.loading import prepare_workdir
    from cfpromise.net.keys import write_private_file
    ip = resolve(argument)
    if ip.startswith("127.") or ip == "::1":
        log("warning", "Bootstrapping to loopback interface (localhost), other hosts will not be "
                       "able to bootstrap to this server")
    prepare_workdir(workdir)
    inputs = os.path.join(workdir, "inputs")
    log("info", f"Removing all files in '{inputs}'")
    for name in os.listdir(inputs):
        path = os.path.join(inputs, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    failsafe = os.path.join(inputs, "failsafe.cf")
    log("info", f"Writing built-in failsafe policy to '{failsafe}'")
    write_private_file(failsafe, FAILSAFE.encode())
    classes = ["bootstrap_mode"]
    hub_marker = os.path.join(workdir, "state", "am_policy_hub")
    if is_policy_server(ip):
        masterdir = os.path.join(workdir, "masterfiles")
        log("info", f"Assuming role as policy server, with policy distribution point at: "
                    f"{masterdir}")
        if not os.path.isfile(os.path.join(masterdir, "promises.cf")):
            raise BootstrapError("In order to bootstrap as a policy server, the file "
                                 f"'{masterdir}/promises.cf' must exist.")
        write_private_file(hub_marker, b"")        # -> am_policy_hub, policy_server
    else:
        log("info", f"Assuming role as regular client, bootstrapping to policy server: "
                    f"{argument}")
        if trust_server:
            classes.append("trust_server")
            log("notice", "Bootstrap mode: implicitly trusting server, use --trust-server=no "
                          "if server trust is already established")
        try:
            os.unlink(hub_marker)
        except FileNotFoundError:
            pass
    write_private_file(os.path.join(workdir, "policy_server.dat"), (argument + "\n").encode())
    write_private_file(os.path.join(workdir, "bootstrap_id.dat"),
                       (secrets.token_hex(20) + "\n").encode())
    return failsafe, classes


def verify(workdir: str, argument: str, log: Log) -> bool:
    """VerifyBootstrap (without the cf-execd check); undoes the bootstrap on failure."""
    promises = os.path.join(workdir, "inputs", "promises.cf")
    if os.path.exists(promises):
        log("notice", f"Bootstrap to '{argument}' completed successfully!")
        return True
    log("error", f"Bootstrapping failed, no input file at '{promises}' after bootstrap")
    for path in (os.path.join(workdir, "policy_server.dat"),
                 os.path.join(workdir, "state", "am_policy_hub")):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
    return False


def bootstrap_options(args: object, workdir: str, level: str) -> bool:
    """Adjust the agent's command line for a bootstrap run (False: refused, said why)."""
    from cfpromise.agent.output import Output
    out = Output(level)
    try:
        failsafe, classes = prepare(workdir, args.bootstrap,               # type: ignore
                                    getattr(args, "trust_server", "yes") != "no", out.log)
    except (BootstrapError, OSError) as exc:
        out.log("error", str(exc))
        out.flush()
        return False
    out.flush()
    if getattr(args, "skip_bootstrap_policy_run", False):
        classes.append("skip_policy_on_bootstrap")
    args.file = failsafe                                                   # type: ignore
    args.define = list(getattr(args, "define", []) or []) + classes        # type: ignore
    return True
