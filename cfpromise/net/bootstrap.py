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

Log = Callable[[str, str], None]

FAILSAFE = r'''# cf-lite's built-in failsafe/bootstrap policy (written by cf-lite-agent --bootstrap).
body agent control
{
      abortclasses => { "no_ppkeys_ABORT_kept" };
      ifelapsed => "0";
}

bundle agent main
{
  methods:
      "Check Keys" usebundle => cf_lite_failsafe_checkkeys;
      "Fetch Inputs" usebundle => cf_lite_failsafe_update;
      "Trigger Policy" usebundle => cf_lite_failsafe_trigger_policy;
      "Report" usebundle => cf_lite_failsafe_report;
}

bundle agent cf_lite_failsafe_checkkeys
{
  classes:
      "have_ppkeys" expression => fileexists("$(sys.workdir)/ppkeys/localhost.pub");
  reports:
    !have_ppkeys::
      "No public/private key pair is loaded, please create one by running \"cf-lite-key\""
        classes => cf_lite_failsafe_results("no_ppkeys_ABORT");
}

bundle agent cf_lite_failsafe_update
{
  vars:
      "masterfiles_dir_remote" string => ifelse("policy_server", "$(sys.masterdir)",
                                                "masterfiles");
  files:
      "$(sys.inputdir)"
        copy_from => cf_lite_failsafe_scp("$(masterfiles_dir_remote)"),
        depth_search => cf_lite_failsafe_recurse,
        file_select => cf_lite_failsafe_exclude_vcs,
        classes => cf_lite_failsafe_results("inputdir_update");
    !policy_server::
      "$(sys.workdir)/modules"
        copy_from => cf_lite_failsafe_scp("modules"),
        depth_search => cf_lite_failsafe_recurse,
        file_select => cf_lite_failsafe_exclude_vcs,
        classes => cf_lite_failsafe_results("modulesdir_update");
    inputdir_update_error::
      "$(sys.inputdir)"
        copy_from => cf_lite_failsafe_scp("$(sys.masterdir)"),
        depth_search => cf_lite_failsafe_recurse,
        file_select => cf_lite_failsafe_exclude_vcs,
        classes => cf_lite_failsafe_results("inputdir_update");
}

bundle agent cf_lite_failsafe_trigger_policy
{
  commands:
    bootstrap_mode.!skip_policy_on_bootstrap::
      "$(sys.cf_agent) -w \"$(sys.workdir)\" --define bootstrap_mode"
        if => fileexists("$(sys.default_policy_path)"),
        classes => cf_lite_failsafe_results("trigger_policy");
}

bundle agent cf_lite_failsafe_report
{
  classes:
      "have_promises_cf" expression => fileexists("$(sys.inputdir)/promises.cf");
  reports:
    !bootstrap_mode::
      "Built-in failsafe policy triggered";
    bootstrap_mode::
      "Bootstrapping from host '$(sys.policy_hub)' via built-in policy '$(this.promise_filename)'";
    bootstrap_mode.policy_server::
      "This host assumes the role of policy server";
    bootstrap_mode.!policy_server::
      "This autonomous node assumes the role of voluntary client";
    inputdir_update_repaired::
      "Updated local policy from policy server";
    inputdir_update_repaired.!have_promises_cf::
      "Failed to copy policy from policy server at $(sys.policy_hub):$(sys.masterdir)
       Please check
       * cf-serverd is running on $(sys.policy_hub)
       * network connectivity to $(sys.policy_hub) on port $(sys.policy_hub_port)
       * masterfiles 'body server control' - in particular allowconnects, trustkeysfrom
       * masterfiles 'bundle server' -> access: -> masterfiles -> admit/deny";
    trigger_policy_repaired::
      "Triggered an initial run of the policy";
    trigger_policy_failed::
      "Initial run of the policy failed";
}

body copy_from cf_lite_failsafe_scp(from)
{
      source => "$(from)";
      compare => "digest";
    trust_server::
      trustkey => "true";
    !policy_server::
      servers => { "$(sys.policy_hub)" };
      portnumber => "$(sys.policy_hub_port)";
}

body depth_search cf_lite_failsafe_recurse
{
      depth => "inf";
      exclude_dirs => { "\.svn", "\.git", "git-core", "\.no-distrib" };
}

body file_select cf_lite_failsafe_exclude_vcs
{
      leaf_name => { "\.git.*", "\.mailmap" };
      file_result => "!leaf_name";
}

body classes cf_lite_failsafe_results(prefix)
{
      scope => "namespace";
      promise_kept => { "$(prefix)_kept" };
      promise_repaired => { "$(prefix)_repaired" };
      repair_failed => { "$(prefix)_error", "$(prefix)_failed" };
      repair_denied => { "$(prefix)_error", "$(prefix)_denied" };
      repair_timeout => { "$(prefix)_error", "$(prefix)_timeout" };
}
'''


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


def prepare(workdir: str, argument: str, trust_server: bool, log: Log) -> tuple[str, list[str]]:
    """Set up WORKDIR for the bootstrap run: (failsafe policy file, classes to define)."""
    from cfpromise.agent.loading import prepare_workdir
    from cfpromise.net.keys import write_private_file
    host, _port = split(argument)
    if not host:
        raise BootstrapError(f"Could not resolve hostname '{argument}', unable to bootstrap")
    try:
        ip = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)[0][4][0]
    except (socket.gaierror, UnicodeError, IndexError):
        raise BootstrapError(f"Could not resolve hostname '{host}', unable to bootstrap") from None
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
