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

Every option is read as cf-agent's getopt_long reads it (cfpromise.cli.gnuopts): an
optional value only attached (-Calways, --graph=json: "-C always" is -C and the file
"always"); these are shortened only where none of cf-agent's fits (--bundle is
--bundlesequence), and --timing written out is cf-lite's (cf-agent takes it for
--timing-output shortened).
"""
from __future__ import annotations

import os
import sys

from cfpromise.fast import oneshot
from cfpromise.cli.compat import (ROW_BUNDLE_PATH, ROW_COLOR, ROW_DEBUG, ROW_GRAPH, ROW_HELP,
                                  ROW_INFORM, ROW_LOG_LEVEL, ROW_MANPAGE, ROW_TIMESTAMP,
                                  ROW_VERBOSE, ROWS_COMMON, colored,
                                  setting_workdir)
from cfpromise.cli.options import Options
from cfpromise.agent.output import say

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cfpromise.agent.observer import Observer


def _simulate_mode(text: str) -> str:
    """--simulate's mode, any case, refused in cf-agent's words (which leave
    manifest-full out) when it reads the option."""
    if text.lower() not in ("manifest", "manifest-full", "diff"):
        raise ValueError(f"Invalid argument for --simulate, 'manifest' or 'diff' required, "
                         f"not '{text}'")
    return text.lower()


def _skip_db_check(text: str) -> str:
    """--skip-db-check=yes|no, any case, refused when cf-agent reads it."""
    if text.lower() not in ("yes", "no"):
        raise ValueError(f"Invalid argument for --skip-db-check(yes/no): '{text}'")
    return text.lower()


def _trust(text: str) -> str:
    """-T/--trust-server's value: anything but yes is no, as cf-agent reads it."""
    return "yes" if text == "yes" else "no"


def _bootstrap_host(text: str) -> str:
    """-B's HOST[:PORT], resolved when cf-agent resolves it: as it reads the option, so
    that an unknown host is refused before what follows (cfpromise.net.bootstrap)."""
    from cfpromise.net.bootstrap import BootstrapError, resolve
    try:
        resolve(text)
    except BootstrapError as exc:
        raise ValueError(str(exc)) from None
    return text


def _report_spec(text: str) -> str:
    """``json`` or ``json=FILE`` -> FILE, or "" for the default place."""
    fmt, _, path = text.partition("=")
    if fmt != "json":
        raise ValueError(f"Invalid argument for --report, 'json' or 'json=FILE' required, "
                         f"not '{text}'")
    return path


# cf-agent 3.21's options in the order of its table, then cf-lite's (EXTRAS)
OPTIONS = Options((
    (("-B", "--bootstrap"), dict(metavar="HOST[:PORT]", type=_bootstrap_host,
                                 help="bootstrap to the policy server at HOST "
                                      "(cfpromise.net.bootstrap)")),
    (("-b", "--bundlesequence"), dict(help="bundles to run, comma separated (the last -b)")),
    (("-w", "--workdir"), dict(help="the work directory")),
    ROW_DEBUG,
    (("-D", "--define"), dict(action="append", default=[], help="classes to define")),
    (("-x", "--self-diagnostics"), dict(nargs="?", const="", metavar="VALUE",
                                        help="report on the agent's set-up and exit "
                                             "(cfpromise.cli.compat)")),
    (("-n", "--dry-run"), dict(action="store_true", help="report what would change")),
    (("-f", "--file"), dict(help="policy file (one not starting with / or . is in WORKDIR/inputs; "
                                 "a bare name missing there, in cf-lite's shipped policy)")),
    ROW_HELP,
    ROW_INFORM,
    ROW_LOG_LEVEL,
    (("-N", "--negate"), dict(action="append", default=[], help="classes to negate")),
    (("-K", "--no-lock"), dict(action="store_true", help="ignore locks")),
    ROW_VERBOSE,
    (("-V", "--version"), dict(action="store_true")),
    (("-t", "--timing-output"), dict(action="store_true", help="timing information on the "
                                                               "console in verbose mode (as "
                                                               "cf-agent)")),
    (("-T", "--trust-server"), dict(nargs="?", const="yes", type=_trust, metavar="yes|no",
                                    help="when bootstrapping, trust the server's key "
                                         "(default yes)")),
    ROW_COLOR,
    (("-E", "--no-extensions"), dict(action="store_true", help="accepted (cf-lite loads no "
                                                               "extension library)")),
    ROW_TIMESTAMP,
    *ROWS_COMMON,
    (("--show-evaluated-classes",), dict(nargs="?", const=".*", metavar="REGEX")),
    (("--show-evaluated-vars",), dict(nargs="?", const=".*", metavar="REGEX")),
    (("--skip-bootstrap-policy-run",), dict(action="store_true", help="do not run the fetched "
                                                                      "policy at the end of the "
                                                                      "bootstrap")),
    (("--skip-db-check",), dict(nargs="?", const="yes", type=_skip_db_check, metavar="yes|no",
                                help="no: check the state databases first (yes, the "
                                     "default: skip it)")),
    (("--simulate",), dict(metavar="MODE", type=_simulate_mode,
                           help="run in simulate mode, either 'manifest', 'manifest-full' or "
                                "'diff': files change only in a chroot under WORKDIR/state, "
                                "shown at the end")),
    ROW_MANPAGE,
    (("policy",), dict(nargs="?", help="policy file, as with -f (cf-agent accepts both)")),
    (ROW_GRAPH[0], dict(ROW_GRAPH[1], help="print the plan (Graphviz dot, or JSON) and exit "
                                           "without running")),
    (("--report",), dict(type=_report_spec, metavar="json[=FILE]",
                         help="write a JSON run report to FILE (default "
                              "WORKDIR/outputs/report.json)")),
    (("--summary",), dict(action="store_true", help="end with a summary line (the default "
                                                    "when stdout is a terminal)")),
    (("--timing",), dict(action="store_true", help="end with the slowest promises and bundles")),
    (("--detailed-exitcodes",), dict(action="store_true", help="exit 0 no change, 2 changes, "
                                                               "4 failures, 6 both")),
    ROW_BUNDLE_PATH,
    (("--only",), dict(action="append", metavar="X[,Y]",
                       help="run only the promises with these handles or meta tags (and what "
                            "they need); the rest is skipped")),
), extras=("--graph", "--report", "--summary", "--timing", "--detailed-exitcodes",
           "--bundle-path", "--only"), said=setting_workdir,
   prog="cf-lite-agent", description="Run CFEngine 3 policy and converge the host.",
   epilog=__doc__.split("\n\n", 1)[1])

STOPS = ("version", "manpage", "self_diagnostics")
"""What cf-agent acts on as it reads it (then exits): nothing after it is read."""

# cf-agent 3.5's bootstrap options, rewritten before the options are read, as cf-agent
# 3.21 still does: ``-s HOST``/``--policy-server HOST`` beside ``-B``/``--bootstrap``
# gives -B its HOST; a word ``-Bs`` is ``-B``
OLD_BOOTSTRAP = ("-s", "--policy-server")
BOOTSTRAP = ("-B", "--bootstrap")
OLD_BOOTSTRAP_WARNING = (
    "Deprecated bootstrap options detected. The --policy-server (-s) option is deprecated "
    "from CFEngine community version 3.5.0.Please provide the address argument to "
    "--bootstrap (-B) instead. Rewriting your arguments now, but you need to adjust them as "
    "this support will be removed soon.")


def old_bootstrap_options(argv: list[str]) -> list[str]:
    """``argv`` with cf-agent 3.5's bootstrap options rewritten (warned of each time)."""
    server = max((i for i, w in enumerate(argv) if w in OLD_BOOTSTRAP), default=None)
    bootstrap = max((i for i, w in enumerate(argv) if w in BOOTSTRAP), default=None)
    if server is not None and bootstrap is not None and server + 1 < len(argv) \
            and server + 1 != bootstrap:
        say("warning", OLD_BOOTSTRAP_WARNING)
        address = argv[server + 1]
        argv = [w for i, word in enumerate(argv) if i not in (server, server + 1)
                for w in ((word, address) if i == bootstrap else (word,))]
    if "-Bs" in argv:
        for _ in range(argv.count("-Bs")):
            say("warning", OLD_BOOTSTRAP_WARNING)
        argv = ["-B" if word == "-Bs" else word for word in argv]
    return argv


def default_workdir() -> str:
    from cfpromise.eval.hardclasses import default_workdir as discover_default
    return discover_default()


def resolve_file(name: str | None, workdir: str, option: bool = True) -> str:
    """-f (``option``) or the argument: where cf-agent finds it (cfpromise.agent.inputfile;
    the daemons' too)."""
    from cfpromise.agent.inputfile import input_file
    return input_file(name, workdir, option)


def main(argv: list[str] | None = None) -> int:
    from cfpromise.cli.entry import getopt_start, language_note
    argv = old_bootstrap_options(sys.argv[1:] if argv is None else list(argv))
    args = getopt_start(OPTIONS, argv, "cf-lite-agent", language_note(), STOPS)
    if isinstance(args, int):
        return args
    option = args.policy is None        # (the file as an argument is from the directory)
    if not option:
        args.file = args.policy
    from cfpromise.agent.engine import Agent, AgentOptions
    from cfpromise.agent.output import Output
    # -w sets CFENGINE_TEST_OVERRIDE_WORKDIR in cf-agent: it wins over the environment's
    workdir = args.workdir or os.environ.get("CFENGINE_TEST_OVERRIDE_WORKDIR") or default_workdir()
    workdir = os.path.abspath(workdir)      # files promises change the working directory
    level = args.log_level or "notice"
    if args.self_diagnostics is not None:
        from cfpromise.cli.compat import self_diagnostics
        self_diagnostics(workdir, sys.stdout.write)
        return 0
    if args.trust_server is not None and not args.bootstrap:
        say("error", "Option --trust-server can only be used when bootstrapping", args.timestamp)
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
        file=file, bundlesequence=[args.bundlesequence] if args.bundlesequence else None,
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
