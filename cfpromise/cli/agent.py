"""cf-lite-agent: run policy, as cf-agent does (command line only; the work is in cfpromise.agent).

Beyond cf-agent's options, ordering and outcomes made visible:

    --graph[=dot|json]      print the plan of the bundlesequence and exit (cfpromise.agent.plan)
    --report json[=FILE]    JSON record of every promise and a summary, written to FILE or
                            WORKDIR/outputs/report.json (never stdout, where R: lines go)
    --summary               one summary line at the end (default when stdout is a terminal)
    --timing                the slowest promises and bundles at the end
    -t, --timing-output     cf-agent's T: timing lines (verbose mode)
    --detailed-exitcodes    0 no change, 2 changes, 4 failures, 6 both (1 fatal, 6 abort kept)
    --bundle-path DIR[:DIR] where undefined bundles and bodies are autoloaded from, after
                            bundles/ beside the policy, before CF_LITE_BUNDLE_PATH and the
                            standard library (cfpromise.agent.autoload)
    --only X[,Y]            run only the promises with handle or meta tag X, what they
                            depend on and the bundles calling them (cfpromise.agent.only)
"""
from __future__ import annotations

import os
import sys

from cfpromise.fast import oneshot
from cfpromise.cli.compat import ROWS_COMMON, ROWS_OUTPUT, colored, refused
from cfpromise.cli.options import Options
from cfpromise.agent.output import say

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cfpromise.agent.observer import Observer


def _simulate_mode(text: str) -> str:
    if text not in ("manifest", "manifest-full", "diff"):
        from argparse import ArgumentTypeError     # (argparse only when it has to speak)
        raise ArgumentTypeError(f"Invalid argument for --simulate, 'manifest', "
                                         f"'manifest-full' or 'diff' required, not '{text}'")
    return text


def _report_spec(text: str) -> str:
    """``json`` or ``json=FILE`` -> FILE, or "" for the default place."""
    fmt, _, path = text.partition("=")
    if fmt != "json":
        from argparse import ArgumentTypeError
        raise ArgumentTypeError(f"unknown report format '{fmt}' (json[=FILE])")
    return path


OPTIONS = Options((
    (("-f", "--file"), dict(help="policy file (one not starting with / or . is in WORKDIR/inputs; "
                                 "a bare name missing there, in cf-lite's shipped policy)")),
    (("policy",), dict(nargs="?", help="policy file, as with -f (cf-agent accepts both)")),
    (("-b", "--bundlesequence"), dict(action="append", help="bundles to run, comma separated")),
    (("-D", "--define"), dict(action="append", default=[], help="classes to define")),
    (("-N", "--negate"), dict(action="append", default=[], help="classes to negate")),
    (("-K", "--no-lock"), dict(action="store_true", help="ignore locks")),
    (("-n", "--dry-run"), dict(action="store_true", help="report what would change")),
    (("--simulate",), dict(metavar="MODE", type=_simulate_mode,
                           help="run in simulate mode, either 'manifest', 'manifest-full' or "
                                "'diff': files change only in a chroot under WORKDIR/state, "
                                "shown at the end")),
    *ROWS_OUTPUT,
    (("-w", "--workdir"), dict(help="the work directory")),
    (("--show-evaluated-classes",), dict(nargs="?", const=".*", metavar="REGEX")),
    (("--show-evaluated-vars",), dict(nargs="?", const=".*", metavar="REGEX")),
    (("-t", "--timing-output"), dict(action="store_true", help="timing information on the "
                                                               "console in verbose mode (as "
                                                               "cf-agent)")),
    (("-V", "--version"), dict(action="store_true")),
    (("-B", "--bootstrap"), dict(metavar="HOST[:PORT]", help="bootstrap to the policy server "
                                                             "at HOST (cfpromise.net.bootstrap)")),
    (("-T", "--trust-server"), dict(nargs="?", const="yes", choices=("yes", "no"),
                                    help="when bootstrapping, trust the server's key "
                                         "(default yes)")),
    (("-x", "--self-diagnostics"), dict(nargs="?", const="", metavar="VALUE",
                                        help="report on the agent's set-up and exit "
                                             "(cfpromise.cli.compat)")),
    (("-E", "--no-extensions"), dict(action="store_true", help="accepted (cf-lite loads no "
                                                               "extension library)")),
    (("--skip-db-check",), dict(nargs="?", const="yes", metavar="yes|no",
                                help="no: check the state databases first (yes, the "
                                     "default: skip it)")),
    *ROWS_COMMON,
    (("--skip-bootstrap-policy-run",), dict(action="store_true", help="do not run the fetched "
                                                                      "policy at the end of the "
                                                                      "bootstrap")),
    (("--graph",), dict(nargs="?", const="dot", choices=("dot", "json"),
                        help="print the plan (Graphviz dot, or JSON) and exit without running")),
    (("--report",), dict(nargs="?", const="json", type=_report_spec, metavar="json[=FILE]",
                         help="write a JSON run report to FILE (default "
                              "WORKDIR/outputs/report.json)")),
    (("--summary",), dict(action="store_true", help="end with a summary line (the default "
                                                    "when stdout is a terminal)")),
    (("--timing",), dict(action="store_true", help="end with the slowest promises and bundles")),
    (("--detailed-exitcodes",), dict(action="store_true", help="exit 0 no change, 2 changes, "
                                                               "4 failures, 6 both")),
    (("--bundle-path",), dict(action="append", default=[], metavar="DIR[:DIR]",
                              help="directories to autoload undefined bundles and bodies from")),
    (("--only",), dict(action="append", metavar="X[,Y]",
                       help="run only the promises with these handles or meta tags (and what "
                            "they need); the rest is skipped")),
), prog="cf-lite-agent", description="Run CFEngine 3 policy and converge the host.",
   epilog=__doc__.split("\n\n", 1)[1])


def _getopt_values(argv: list[str]) -> list[str]:
    """Give -f/--file its next word even when that word starts with '-', as getopt
    does (cf-agent -Kf -f FILE): argparse would refuse it."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        takes_file = word in ("-f", "--file") or (
            word.startswith("-") and not word.startswith("--") and len(word) > 2
            and word.endswith("f") and "f" not in word[1:-1])
        if takes_file and i + 1 < len(argv) and argv[i + 1].startswith("-"):
            flags = word[:-1] if word not in ("-f", "--file") else ""
            if flags and flags != "-":
                out.append(flags)
            out.append(f"--file={argv[i + 1]}")
            i += 2
            continue
        out.append(word)
        i += 1
    return out


def default_workdir() -> str:
    from cfpromise.eval.hardclasses import default_workdir as discover_default
    return discover_default()


def resolve_file(name: str | None, workdir: str, option: bool = True) -> str:
    """-f (``option``) or the argument: where cf-agent finds it (cfpromise.agent.inputfile;
    the daemons' too)."""
    from cfpromise.agent.inputfile import input_file
    return input_file(name, workdir, option)


def main(argv: list[str] | None = None) -> int:
    args = OPTIONS.parse(_getopt_values(sys.argv[1:] if argv is None else argv))
    from cfpromise.cli.options import sanitize_environment
    sanitize_environment()
    option = args.policy is None        # (the file as an argument is from the directory)
    if not option:
        args.file = args.policy
    if args.version:
        from cfpromise.cli.entry import language_note, print_version
        print_version("cf-lite-agent", language_note())
        return 0
    from cfpromise.agent.engine import Agent, AgentOptions
    from cfpromise.agent.output import Output
    workdir = os.environ.get("CFENGINE_TEST_OVERRIDE_WORKDIR") or args.workdir or default_workdir()
    workdir = os.path.abspath(workdir)      # files promises change the working directory
    code = refused(args)
    if code is not None:
        return code
    level = args.log_level or "notice"
    if args.self_diagnostics is not None:
        from cfpromise.cli.compat import self_diagnostics
        self_diagnostics(workdir, sys.stdout.write)
        return 0
    if args.trust_server is not None and not args.bootstrap:
        say("error", "Option --trust-server can only be used when bootstrapping")
        return 1
    if args.skip_db_check is not None:      # (the default skips it: nothing to do)
        from cfpromise.cli.compat import check_databases
        if not check_databases(workdir, args.skip_db_check, Output(level).log):
            return 1
    if args.bootstrap:
        from cfpromise.net.bootstrap import bootstrap_options
        if not bootstrap_options(args, workdir, level):
            return 1
    file = resolve_file(args.file, workdir, option)
    from cfpromise.agent.inputfile import is_relative
    if args.file and not os.path.isabs(args.file) and (is_relative(args.file) or not option):
        # from the working directory: named as written, its inputs beside it as written
        from cfpromise.promises.api import name_as_given
        head = args.file.rpartition("/")[0]
        base = file[:len(file) - len(args.file)] + (head or ".")
        name_as_given(file, args.file, base)
    options = AgentOptions(
        file=file, bundlesequence=args.bundlesequence,
        define=args.define, negate=args.negate,
        ignore_locks=args.no_lock or args.dry_run or bool(args.simulate),
        dry_run=args.dry_run or bool(args.simulate), simulate=args.simulate, level=level,
        timestamps=args.timestamp, workdir=workdir,
        show_classes=args.show_evaluated_classes, show_vars=args.show_evaluated_vars,
        bundle_path=args.bundle_path, ignore_preferred_augments=args.ignore_preferred_augments)
    out = Output(level, args.timestamp)
    out.color = colored(args, out.stream)
    agent = Agent(options, out)
    only = [n for item in args.only or () for n in item.split(",") if n]
    if args.only is not None and not only:
        say("error", "--only names no handle or meta tag")
        return 1
    from cfpromise.agent.inputfile import entry_problem
    problem = entry_problem(args.file, options.file, agent=True, option=option)
    try:
        if args.graph:
            if problem is not None:
                say("error", problem)
                return 1
            from cfpromise.agent.graph import agent_graph
            return agent_graph(agent, args.graph, only=only)
        if only:
            from cfpromise.agent.only import OnlyFilter
            agent.observers.append(OnlyFilter(only))
        from cfpromise.agent.validated import ValidationTagger
        agent.observers.append(ValidationTagger(explicit_file=bool(args.file), original=args.file))
        recorder = _recorder(args, workdir)
        agent.observers.append(recorder)
        if not (args.dry_run or args.simulate):
            from cfpromise.hub import enabled as hub_spool
            if hub_spool(workdir):
                from cfpromise.hub.recorder import SpoolWriter
                if not hasattr(recorder, "records"):
                    from cfpromise.agent.runreport import ReportOptions, RunRecorder
                    agent.observers[-1] = recorder = RunRecorder(ReportOptions())
                agent.observers.append(SpoolWriter(recorder, workdir))
        from cfpromise.agent.loading import failsafe, run_agent
        if problem is not None:     # cf-agent's GenericAgentCheckPolicy: to the failsafe
            say("error", problem)
            if problem.startswith("Can't parse"):
                from cfpromise.agent.programs import validation_failed
                validation_failed(options)
            return failsafe(agent)
        code = run_agent(agent)
        if args.bootstrap:
            from cfpromise.net.bootstrap import verify
            out.flush()
            if not verify(workdir, args.bootstrap, out.log):
                return 1
        return code
    finally:
        out.flush()


def _recorder(args: Any, workdir: str) -> Observer:
    """The observer behind --report, --summary, --timing, -t and --detailed-exitcodes; without
    them (or a terminal for the summary) just the tracker that tells promises waiting for
    ever, which every run has."""
    from cfpromise.agent.waiting import WaitingTracker
    summary = args.summary or _stdout_is_terminal()
    if args.report is None and not (summary or args.timing or args.timing_output
                                    or args.detailed_exitcodes):
        return WaitingTracker()
    from cfpromise.agent.runreport import ReportOptions, RunRecorder, default_report_path
    report = None
    if args.report is not None:
        report = args.report or default_report_path(workdir)
    return RunRecorder(ReportOptions(
        report=report, summary=summary, timing=args.timing,
        timing_output=args.timing_output, detailed_exitcodes=args.detailed_exitcodes))


def _stdout_is_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


program = oneshot.program(main)      # the console script (a one-shot process)


if __name__ == "__main__":
    sys.exit(program())
