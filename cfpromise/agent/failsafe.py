"""No dead end on a broken policy: the failsafe, as cf-agent 3.21 falls back to it.

When the policy does not validate (a syntax error, an unknown attribute, an
input that is missing, a bundle of the bundlesequence that no file defines),
cf-agent 3.21 (SelectAndLoadPolicy) does this, and so does cf-lite-agent:

* the validation errors are printed, then
  ``CFEngine was not able to get confirmation of promises from cf-promises, so
  going to failsafe``;
* in an interactive session (standard input, output or error a terminal) it
  stops there: ``Failsafe condition triggered. Interactive session detected,
  skipping failsafe.cf execution.``, ``Error reading CFEngine policy.
  Exiting...``, exit code 1 (the operator at the terminal fixes the policy);
* otherwise (cron, a daemon, a pipe) WORKDIR/inputs/failsafe.cf runs: an
  operator's own failsafe.cf when there is one, else the built-in failsafe
  below, written there first (mode 0600) as cf-agent writes its embedded one;
  ``CFEngine failsafe.cf: INPUTDIR FILE`` says which.  The class
  ``failsafe_fallback`` is defined for that run, and
  inputs/cf_promises_release_id says ``failsafe``.  The exit code is the
  failsafe run's: 0, or 6 when it aborts (no key pair).

The built-in failsafe is cf-lite's own text doing what 3.21's embedded
failsafe.cf does with what cf-lite has: without a key pair it aborts (exit 6,
"please create one"); with a policy server (WORKDIR/policy_server.dat, written
by ``--bootstrap``) it refreshes WORKDIR/inputs from the server's
``masterfiles`` (the shortcut, then $(sys.masterdir)) and WORKDIR/modules from
its ``modules``, over the network client every copy_from uses, trusting only a
server key already trusted (the bootstrap trusted it); on the hub itself it
copies WORKDIR/masterfiles.  The next run then uses the refreshed policy.  With
no policy server configured it says so instead of trying to reach one (where
cf-agent prints "No suitable server found" errors).  cf-lite has no cf-execd
and does not start cf-lite-serverd from the failsafe, so those steps of 3.21's
failsafe are left out.  The same text is the bootstrap policy
(``cf-lite-agent --bootstrap``, class ``bootstrap_mode``).
"""
from __future__ import annotations

import os
import sys
from typing import Any, Callable

from cfpromise.agent.output import say

BUILTIN_FAILSAFE = r'''# cf-lite's built-in failsafe/bootstrap policy (written by cf-lite-agent when the
# policy fails validation and inputs/failsafe.cf is missing, and by --bootstrap).
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
  classes:
      "have_policy_hub" expression => isvariable("sys.policy_hub"), scope => "namespace";
  files:
    have_policy_hub|policy_server::
      "$(sys.inputdir)"
        copy_from => cf_lite_failsafe_scp("$(masterfiles_dir_remote)"),
        depth_search => cf_lite_failsafe_recurse,
        file_select => cf_lite_failsafe_exclude_vcs,
        classes => cf_lite_failsafe_results("inputdir_update");
    have_policy_hub.!policy_server::
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
    !bootstrap_mode.!have_policy_hub.!policy_server::
      "No policy server is configured ($(sys.workdir)/policy_server.dat), so the inputs were not refreshed: correct the policy in $(sys.inputdir) (cf-lite-promises -f FILE shows what fails) or bootstrap to a policy server";
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

EXIT_FATAL = 1


def interactive() -> bool:
    """cf-agent's GetTTYInteractive: standard input, output or error is a terminal."""
    for fd in (0, 1, 2):
        try:
            if os.isatty(fd):
                return True
        except OSError:
            continue
    return False


def _error(text: str) -> None:
    say("error", text)


def _ensure(path: str) -> bool:
    """CheckAndGenerateFailsafe: an unreadable or missing failsafe.cf is (re)written
    with the built-in text; False (said why) when that fails."""
    if os.access(path, os.R_OK):
        return True
    from cfpromise.net.keys import write_private_file
    try:
        write_private_file(path, BUILTIN_FAILSAFE.encode())
    except OSError as exc:
        _error(f"Could not write the built-in failsafe policy '{path}': {exc.strerror}")
        return False
    return True


def _mark_release(inputs: str) -> None:
    """inputs/cf_promises_release_id says "failsafe" while the failsafe runs (3.21)."""
    path = os.path.join(inputs, "cf_promises_release_id")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write('{ releaseId: "failsafe" }\n')
    except OSError:
        _error("Failed to open the release_id file for writing during failsafe")


def fall_back(agent: Any, run: Callable[[Any], int]) -> int:
    """After the policy failed validation (errors already printed): run the failsafe
    with ``run`` (cfpromise.agent.loading.run_agent, which calls this) in an agent of
    ``agent``'s class and return the exit code cf-agent would (see the module docstring)."""
    workdir = agent.options.workdir
    inputs = os.path.join(workdir, "inputs")
    path = os.path.join(inputs, "failsafe.cf")
    if os.path.realpath(path) == os.path.realpath(agent.options.file):
        return EXIT_FATAL                 # the failsafe itself is broken: nothing to fall to
    if interactive():
        _error("Failsafe condition triggered. Interactive session detected, skipping "
               "failsafe.cf execution.")
        _error("Error reading CFEngine policy. Exiting...")
        return EXIT_FATAL
    _error("CFEngine was not able to get confirmation of promises from cf-promises, so going "
           "to failsafe")
    os.makedirs(inputs, mode=0o700, exist_ok=True)
    if not _ensure(path):
        _error("Error reading CFEngine policy. Exiting...")
        return EXIT_FATAL
    _error(f"CFEngine failsafe.cf: {inputs} {path}")
    sys.stdout.flush()
    _mark_release(inputs)
    from cfpromise.agent.validated import ValidationTagger
    options = agent.options.evolve(file=path, bundlesequence=None,
                                   define=[*agent.options.define, "failsafe_fallback"])
    failsafe = type(agent)(options, agent.out)
    # the run's report (--report, --summary) describes the failsafe run; a failsafe
    # run does not mark the policy validated
    failsafe.observers = [o for o in agent.observers if not isinstance(o, ValidationTagger)]
    return run(failsafe)
