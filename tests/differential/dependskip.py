"""A promise whose ``depends_on`` handle was not kept (issue #26): cases.

cf-agent 3.21 skips such a promise without a word at the default level (its verbose
"Skipping promise 'P', as promise dependency 'H' has not yet been kept" is the only
trace), and runs it when the handle's promise was kept or repaired; a warn-only or
dry-run outcome is not kept.  Found in nickanderson/cfengine-training's
read_module_protocol.cf run under ``-n``.  The cases vary the handle's promise (failed
and succeeding commands, a file made, made warn-only or already there, a method whose
bundle warns or fails, a report), the dependent promise (a report, a command, a
method) and the run (for real, ``-n``, ``-I``); each compares the whole run
(:func:`agentmisc.observe`)."""
from __future__ import annotations

from itertools import product

# the promise the handle names (its section, then the promise)
HANDLES = {
    "failed_command": 'commands: "/bin/false" handle => "h";',
    "true_command": 'commands: "/bin/true" handle => "h";',
    "new_file": 'files: "$(sys.workdir)/made" create => "true", handle => "h";',
    "warn_file": 'files: "$(sys.workdir)/made" create => "true", action => w, handle => "h";',
    "kept_file": 'files: "$(sys.workdir)/." create => "true", handle => "h";',
    "warn_method": 'methods: "m" usebundle => warner, handle => "h";',
    "failed_method": 'methods: "m" usebundle => failer, handle => "h";',
    "report": 'reports: "first" handle => "h";',
}
DEPENDENTS = {
    "report": 'reports: "dependent ran" depends_on => { "h" };',
    "command": 'commands: "/bin/echo dependent ran" depends_on => { "h" };',
    "method": 'methods: "d" usebundle => said, depends_on => { "h" };',
}
RUNS = {"run": (), "dry_run": ("-n",), "inform": ("-I",)}

_POLICY = """
body action w {{ action_policy => "warn"; }}
bundle agent main
{{
  {handle}
  {dependent}
  reports: "end";
}}
bundle agent warner {{ files: "$(sys.workdir)/w" create => "true", action => w; }}
bundle agent failer {{ commands: "/bin/false"; }}
bundle agent said {{ reports: "method ran"; }}
"""

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = [
    (f"{h}-{d}-{r}", {"promises.cf": _POLICY.format(handle=HANDLES[h], dependent=DEPENDENTS[d])},
     RUNS[r])
    for h, d, r in product(HANDLES, DEPENDENTS, RUNS)]
NAMES = [name for name, _, _ in CASES]
