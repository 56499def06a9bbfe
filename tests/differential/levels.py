"""Generated cases for the classes that reflect the output level.

cf-agent 3.21 defines, from its command line and before it reads the policy,
``inform_mode`` (-I and more), ``verbose_mode`` (-v, -d), ``debug_mode`` and
``opt_debug`` (-d), tagged ``cfe_internal,source=agent,hardclass``, and ``opt_dry_run`` (-n,
``source=environment``).  -I, -v, -d and -g/--log-level set one level: the last given wins;
--log-level takes any case-insensitive prefix of critical, errors, warnings, notices,
information, verbose, debug.  ``body agent control`` ``inform``/``verbose`` move the log
level (true raises it to info/verbose, false lowers it to notice/info) but leave the
classes as they are.  A case is a command line, a ``body agent control`` and a policy
shape (classes of those names promised in a bundle, -D/-N of them); each is run once
under both agents, and :func:`observe` is what must agree.
"""
from __future__ import annotations

import itertools
import re

PROMISER = "$(sys.workdir)/made_by_files"   # each agent its own: a fresh file each run

COMMAND_LINES: tuple[tuple[str, ...], ...] = (
    (), ("-I",), ("-v",), ("-d",), ("--inform",), ("--verbose",), ("--debug",),
    ("-I", "-v"), ("-v", "-I"), ("-d", "-I"), ("-I", "-d"), ("-d", "-v"), ("-v", "-d"),
    ("-g", "info"), ("-g", "VERB"), ("-g", "d"), ("-g", "notice"), ("-g", "error"),
    ("-g", "w"), ("-g", "crit"), ("--log-level", "Information"), ("--log-level", "inform"),
    ("-g", "verbose", "-I"), ("-I", "-g", "notice"), ("-d", "-g", "info"),
    ("-n",), ("-n", "-I"), ("-n", "-d"),
    ("-D", "inform_mode"), ("-D", "verbose_mode,debug_mode", "-I"), ("-D", "opt_dry_run"),
    ("-N", "inform_mode", "-I"), ("-N", "verbose_mode", "-v"), ("-D", "opt_debug", "-v"),
    ("-D", "dcls_a,dcls_b", "-D", "dcls_c"), ("-D", "dcls-x,dcls.y"), ("-D", "dcls_ns:dcls_z"),
    ("-D", "dcls_a,,dcls_b", "-N", "dcls_b"), ("--define=dcls_q", "-I"),
)
CONTROLS: tuple[tuple[tuple[str, str], ...], ...] = (
    (("inform", "true"),), (("inform", "false"),), (("verbose", "true"),),
    (("verbose", "false"),), (("inform", "false"), ("verbose", "true")),
    (("verbose", "true"), ("inform", "false")), (("inform", "yes"), ("verbose", "off")),
)
CONTROL_LINES: tuple[tuple[str, ...], ...] = ((), ("-I",), ("-v",), ("-d",), ("-g", "error"))
SHAPES = ("plain", "promised")

_CHECKS = ("inform_mode", "verbose_mode", "debug_mode", "opt_debug", "opt_dry_run",
           "inform_mode.!verbose_mode", "verbose_mode.!debug_mode", "debug_mode.opt_debug",
           "inform_mode|opt_dry_run")


def cases() -> list[tuple[str, tuple[str, ...], tuple[tuple[str, str], ...], str]]:
    """(name, command line, body agent control, shape)."""
    out = []
    for i, (line, shape) in enumerate(itertools.product(COMMAND_LINES, SHAPES)):
        out.append((f"cli{i:02d}_{shape}", line, (), shape))
    for i, (control, line) in enumerate(itertools.product(CONTROLS, CONTROL_LINES)):
        out.append((f"ctl{i:02d}", line, control, "plain"))
    return out


def policy_text(control: tuple[tuple[str, str], ...], shape: str) -> str:
    lines = ["body common control", "{", '  bundlesequence => { "first", "main" };', "}", ""]
    if control:
        lines += ["body agent control", "{"]
        lines += [f'  {lval} => "{value}";' for lval, value in control]
        lines += ["}", ""]
    lines += ["bundle agent first", "{"]
    if shape == "promised":
        lines += ["  classes:",
                  '      "debug_mode" expression => "any";',
                  '      "verbose_mode" expression => "any", scope => "bundle";',
                  '      "opt_dry_run" expression => "any", meta => { "mine" };',
                  "  reports:",
                  '      verbose_mode::', '        "first sees verbose_mode";']
    lines += ["}", "", "bundle agent main", "{", "  vars:",
              '      "c" slist => sort(classesmatching('
              '"(inform|verbose|debug)_mode|opt_.*|dcls.*|.*:dcls.*"), "lex");',
              "  files:",
              f'      "{PROMISER}" create => "true";',
              "  reports:",
              '      "class $(c) tags=$(with)" with => join(",", getclassmetatags("$(c)"));',
              '      "end of main";']
    for check in _CHECKS:
        lines += [f"    {check}::", f'      "expr {check}";']
    lines += ["}", ""]
    return "\n".join(lines)


_REPORT = re.compile(r"^(?:R: |\s*warning: Need to repair reports promise: )(.*)$", re.M)


def observe(stdout: str, returncode: int) -> dict[str, object]:
    """What must agree: the reports (classes with tags, class expressions), whether the
    files promise's info line and the end-of-run verbose summary were shown (both come
    after body agent control), and the exit code.  (Debug lines
    are cf-agent's internals, not compared.)"""
    marks = {"info": PROMISER.rsplit("/", 1)[1],            # Created file '...'
             "verbose": "Promises observed to be kept"}       # the run's last verbose line
    shown = {level: any(line.lstrip().startswith(f"{level}:") and mark in line
                        for line in stdout.splitlines())
             for level, mark in marks.items()}
    return {"reports": sorted(_REPORT.findall(stdout)), "info_lines": shown["info"],
            "verbose_lines": shown["verbose"], "exit": returncode}
