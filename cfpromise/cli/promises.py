"""cf-lite-promises: check policy, print it parsed (JSON or canonical CFEngine), print the syntax.

    cf-lite-promises [-f] FILE          syntax and parse-time checks (exit 0 or 1)
    cf-lite-promises -c -f FILE         the full check, as cf-promises -c
    cf-lite-promises --lint -f FILE     -c and the references cf-agent only checks at run time
    cf-lite-promises -p json -f FILE    the parsed file as cf-promises -p json prints it
    cf-lite-promises -p cf -f FILE      the canonical layout (a formatter)
    cf-lite-promises -s json            the language description
    cf-lite-promises -T DIR             check DIR/promises.cf and tag DIR as validated
                                        (cf_promises_validated, cf_promises_release_id)
    cf-lite-promises --graph[=dot|json] -f FILE
                                        the plan: bundlesequence, normal order, calls and
                                        depends_on edges (see cfpromise.agent.plan)

-c also checks depends_on: a handle no promise defines, dependency cycles
(see cfpromise.schema.depends); and warns about a promise guarded by a class that
only an outcome of a promise running after its bundle has ended defines
(cfpromise.agent.notify).
"""
from __future__ import annotations

import os
import sys

from cfpromise.fast import oneshot
from cfpromise.cli.compat import (ROW_BUNDLE_PATH, ROW_COLOR, ROW_DEBUG, ROW_GRAPH, ROW_HELP,
                                  ROW_INFORM, ROW_LOG_LEVEL, ROW_RETIRED_DIAGNOSTIC,
                                  ROW_TIMESTAMP, ROW_VERBOSE, ROWS_COMMON, ROWS_GETOPT_ONLY,
                                  SUPPRESS, colored, parse_warnings, setting_workdir,
                                  warned_as_error)
from cfpromise.cli.options import Options
from cfpromise.agent.output import say
from cfpromise.syntax.errors import Diagnostic, PolicyError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EXIT_OK, EXIT_ERROR = 0, 1
OUTPUT_FORMATS = ("none", "cf", "json", "cf-full", "json-full")


def _output_format(text: str) -> str:
    """-p's format, refused in cf-promises' words when it reads the option."""
    if text not in OUTPUT_FORMATS:
        raise ValueError(f"Invalid policy output format: '{text}'. Possible values are "
                         + ", ".join(f"'{f}'" for f in OUTPUT_FORMATS))
    return text


def _syntax_format(text: str) -> str:
    """-s's format (json: the description, printed as cf-promises reads the option)."""
    if text not in ("none", "json"):
        raise ValueError(f"Invalid syntax description output format: '{text}'. Possible "
                         f"values are 'none', 'json'")
    return text


def _warnings(text: str) -> str:
    """A -W list, refused as cf-promises reads it (cfpromise.cli.compat.parse_warnings)."""
    problem = parse_warnings(text)
    if isinstance(problem, list):
        raise ValueError("\n".join(problem))
    return text


def _unhandled(text: str) -> bool:
    return True


# cf-promises 3.21's options in the order of its table, then cf-lite's (extras)
OPTIONS = Options((
    (("-w", "--workdir"), dict(help="the work directory")),
    (("--eval-functions",), dict(
        nargs="?", const="yes", metavar="yes|no",
        help="cf-promises' switch (default yes), accepted as it accepts it; cf-lite's check "
             "is the same either way (masterfiles' tests run cf-promises -c --eval-functions)")),
    (("--show-classes",), dict(nargs="?", const=".*", metavar="REGEX",
                               help="show the classes, including those common bundles define")),
    (("--show-vars",), dict(nargs="?", const=".*", metavar="REGEX",
                            help="show the variables, including those common bundles define")),
    ROW_HELP,
    (("-b", "--bundlesequence"), dict(metavar="LIST", help="the bundlesequence to check "
                                                           "with: none is verified then")),
    ROW_DEBUG,
    ROW_VERBOSE,
    ROW_LOG_LEVEL,
    (("-n", "--dry-run"), dict(action="store_true", help="accepted (nothing is changed)")),
    (("-V", "--version"), dict(action="store_true")),
    (("-f", "--file"), dict(help="the policy file (default: WORKDIR/inputs/promises.cf)")),
    (("-D", "--define"), dict(action="append", default=[], metavar="CLASSES",
                              help="define these classes (comma-separated) before evaluation")),
    (("-N", "--negate"), dict(action="append", default=[], metavar="CLASSES",
                              help="classes not to define (comma-separated)")),
    ROW_INFORM,
    ROW_RETIRED_DIAGNOSTIC,
    (("-p", "--policy-output-format"), dict(
        type=_output_format, metavar="|".join(OUTPUT_FORMATS),
        help="print the parsed policy file (-full: every file the policy reads)")),
    (("-s", "--syntax-description"), dict(type=_syntax_format, metavar="none|json",
                                          help="print the language description")),
    (("-c", "--full-check", "--check"), dict(
        action="store_true", dest="full",
        help="full check, as cf-promises -c: undefined bodies, arity, the bundlesequence")),
    (("-W", "--warn"), dict(action="append", type=_warnings, metavar="WARNINGS",
                            help="deprecated,removed,all; error=... makes them errors")),
    ROW_COLOR,
    (("-T", "--tag-release"), dict(
        metavar="DIR", help="check DIR/promises.cf, then write DIR/cf_promises_validated and "
                            "DIR/cf_promises_release_id (see cfpromise.agent.validated)")),
    ROW_TIMESTAMP,
    *ROWS_COMMON,
    *ROWS_GETOPT_ONLY,
    (("-r",), dict(action="store_true", dest="deprecated", help=SUPPRESS)),
    (("-i",), dict(dest="unhandled", type=_unhandled, help=SUPPRESS)),
    (("policy",), dict(nargs="?", help="policy file, as with -f (cf-promises accepts both)")),
    (("--lint",), dict(
        action="store_true",
        help="-c and what cf-agent only finds at run time, or never: undefined bundles, "
             "bodies given the wrong number of arguments, depends_on problems")),
    ROW_GRAPH,
    ROW_BUNDLE_PATH,
), extras=("--check", "--lint", "--graph", "--bundle-path"),
   distinct=("--eval-functions", "--show-classes", "--show-vars"), said=setting_workdir,
   prog="cf-lite-promises", description=__doc__)

STOPS = ("version", "manpage", "diagnostic", "unhandled", "deprecated",
         "syntax_description=json")
"""What cf-promises acts on as it reads it (then exits): nothing after it is read."""


def _report(diagnostics: list[Diagnostic]) -> None:
    from cfpromise.agent.policyfile import report_errors
    report_errors(diagnostics)


def _output(args: Any) -> Any:
    """Where loading logs go: errors and warnings by default, more with -I, -v, -d or -g
    (stdout, as cf-promises)."""
    from cfpromise.agent.output import Output
    out = Output(args.log_level or "warning", args.timestamp, stream=sys.stdout)
    out.color = colored(args, sys.stdout)
    return out


def _tag_release_last(args: Any) -> bool:
    """Whether -T came after the last -f: cf-promises takes the file from the later one."""
    given = args.given
    last = {flag: len(given) - given[::-1].index(flag) for flag in ("-T", "-f") if flag in given}
    return last.get("-T", 0) > last.get("-f", 0)


def main(argv: list[str] | None = None) -> int:
    from cfpromise.cli.entry import getopt_start, language_note
    args = getopt_start(OPTIONS, sys.argv[1:] if argv is None else argv, "cf-lite-promises",
                        language_note(), STOPS)
    if isinstance(args, int):
        return args
    if args.deprecated:
        say("error", "Option '-r' has been deprecated", args.timestamp)
        return EXIT_ERROR
    if args.syntax_description == "json":
        import json

        from cfpromise.schema import schema
        # (as cf-promises prints it: no final newline)
        sys.stdout.write(json.dumps(schema().description(), indent=2, sort_keys=True))
        return EXIT_OK
    errors_of: frozenset[str] = frozenset()
    for text in args.warn or ():
        errors_of |= parse_warnings(text)       # (each read already: no error left)
    tag_release = args.tag_release is not None and _tag_release_last(args)
    option = args.policy is None
    if not option:              # (the file as an argument is from the directory)
        args.file = args.policy
    args.workdir = args.workdir or os.environ.get("CFENGINE_TEST_OVERRIDE_WORKDIR")   # (-w wins)
    from cfpromise.agent.inputfile import entry_problem, input_file, is_relative
    from cfpromise.eval.hardclasses import default_workdir
    if tag_release and option:  # (-T DIR: DIR/promises.cf, DIR from the working directory)
        args.file = path = os.path.join(args.tag_release, "promises.cf")
    elif args.file is not None and (is_relative(args.file) or not option):
        path = args.file        # (named as given in messages; nothing here changes directory)
    else:
        path = input_file(args.file, args.workdir or default_workdir())
    from cfpromise.agent.loading import LoadError, evaluated_agent, show_classes, show_vars
    from cfpromise.agent.abort import Exits
    from cfpromise.agent.yyerrors import TooManyErrors
    from cfpromise.eval.functions.api import FatalFunctionError
    # Load as the agent does (host data and augments first, then common bundles
    # evaluated so that inputs held in variables resolve); each file is parsed once.
    # Nothing is actuated.
    try:
        agent = evaluated_agent(path, args.workdir or default_workdir(), _output(args),
                                define=args.define, full_check=args.full or args.lint, cache=True,
                                bundle_path=args.bundle_path, warn_locking=True,
                                check_writable=False, converge=True, negate=args.negate,
                                ignore_preferred_augments=args.ignore_preferred_augments)
        # (the host data is read first: def.json's errors come before these)
        problem = entry_problem(args.file, path, agent=False, option=option)
        if problem is not None:
            say("error", problem)
            return EXIT_ERROR
    except PolicyError as exc:
        _report(exc.diagnostics)
        if getattr(exc, "too_many", False):      # (the parser's exit: no verdict)
            print("Too many errors", file=sys.stderr)
            return EXIT_ERROR
        say("error", "There are syntax errors in policy files")
        return EXIT_ERROR
    except LoadError as exc:
        _report(exc.diagnostics)
        if getattr(exc, "too_many", False):
            print("Too many errors", file=sys.stderr)
        elif exc.parse_time:       # cf-promises says no more of a whole-policy check's errors
            say("error", "There are syntax errors in policy files")
        return EXIT_ERROR
    except TooManyErrors:                   # (said already: cfpromise.agent.yyerrors)
        return EXIT_ERROR
    except Exits as exc:                    # said, then exit 1 (no verdict)
        for message in exc.messages:
            say("error", message)
        return EXIT_ERROR
    except FatalFunctionError as exc:       # a built-in's fatal error while evaluating
        say("error", f"Fatal CFEngine error: {exc}")
        return EXIT_ERROR
    if errors_of and warned_as_error(agent, errors_of):
        say("error", "There are syntax errors in policy files")
        return EXIT_ERROR
    policy = agent.policy
    if args.full and not args.bundlesequence:    # (-b: nothing to verify, as cf-promises)
        from cfpromise.agent.sequence import say_unverified, unverified
        missing = unverified(agent)
        if missing:
            say_unverified(missing)
            say("error", "Fatal CFEngine error: Errors in promise bundles: could not verify "
                "bundlesequence")
            return EXIT_ERROR
    if args.lint:
        from cfpromise.schema.check import lint_diagnostics
        from cfpromise.schema.depends import check_dependencies
        errors = [d for d in lint_diagnostics(policy)] + check_dependencies(policy)
        if errors:
            _report(errors)
            return EXIT_ERROR
        from cfpromise.agent.notify import order_warnings
        from cfpromise.agent.plan import build_plan
        _report(order_warnings(policy, build_plan(policy, path=path)))
    if args.tag_release:
        from cfpromise.agent.validated import tag_release_directory
        if not tag_release_directory(args.tag_release, write_validated=True, write_release=True,
                                     log=agent.out.log):
            say("error", "The given directory could not be tagged, sorry.")
            return EXIT_ERROR
    if args.show_classes is not None or args.show_vars is not None:
        agent.out.stream = sys.stdout
        if args.show_classes is not None:
            show_classes(agent, args.show_classes)
        if args.show_vars is not None:
            show_vars(agent, args.show_vars)
        return EXIT_OK
    if args.graph:
        from cfpromise.agent.plan import build_plan, render
        plan = build_plan(policy, path=path, unresolved=[])
        sys.stdout.write(render(plan, args.graph))
    elif args.policy_output_format not in (None, "none"):
        from cfpromise.syntax.parser import parse_file
        # as written: __main__ is not renamed here; -full: every file read, in the order
        # read, bundles before bodies as cf-promises prints them
        entry = policy if args.policy_output_format.endswith("-full") else parse_file(path)
        from cfpromise.schema import schema
        from cfpromise.schema.deprecations import installed
        entry = installed(entry, schema())      # (what its parser kept: no removed language)
        if args.policy_output_format.startswith("json"):
            from cfpromise.syntax import jsonout
            sys.stdout.write(jsonout.dumps(entry))
        else:
            from cfpromise.syntax.format import format_policy
            sys.stdout.write(format_policy(entry))
    return EXIT_OK


program = oneshot.program(main)      # the console script (a one-shot process)


if __name__ == "__main__":
    sys.exit(program())
