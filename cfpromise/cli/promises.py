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
from cfpromise.cli.compat import (DIAGNOSTIC_RETIRED, ROW_RETIRED_DIAGNOSTIC, ROWS_COMMON,
                                  ROWS_OUTPUT, colored, refused, warned_as_error)
from cfpromise.cli.options import Options
from cfpromise.agent.output import say
from cfpromise.syntax.errors import Diagnostic, PolicyError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EXIT_OK, EXIT_ERROR = 0, 1

OPTIONS = Options((
    (("-f", "--file"), dict(help="the policy file (default: WORKDIR/inputs/promises.cf)")),
    (("policy",), dict(nargs="?", help="policy file, as with -f (cf-promises accepts both)")),
    (("-c", "--check", "--full-check"), dict(
        action="store_true", dest="full",
        help="full check, as cf-promises -c: undefined bodies, arity, the bundlesequence")),
    (("--lint",), dict(
        action="store_true",
        help="-c and what cf-agent only finds at run time, or never: undefined bundles, "
             "bodies given the wrong number of arguments, depends_on problems")),
    (("-p", "--policy-output-format"), dict(
        choices=("none", "cf", "json", "cf-full", "json-full"),
        help="print the parsed policy file (-full: every file the policy reads)")),
    (("-s", "--syntax-description"), dict(choices=("json",),
                                          help="print the language description")),
    (("--graph",), dict(nargs="?", const="dot", choices=("dot", "json"),
                        help="print the plan of the bundlesequence (Graphviz dot, or JSON)")),
    (("--show-classes",), dict(nargs="?", const=".*", metavar="REGEX",
                               help="show the classes, including those common bundles define")),
    (("--show-vars",), dict(nargs="?", const=".*", metavar="REGEX",
                            help="show the variables, including those common bundles define")),
    (("-T", "--tag-release"), dict(
        metavar="DIR", help="check DIR/promises.cf, then write DIR/cf_promises_validated and "
                            "DIR/cf_promises_release_id (see cfpromise.agent.validated)")),
    (("-D", "--define"), dict(action="append", default=[], metavar="CLASSES",
                              help="define these classes (comma-separated) before evaluation")),
    (("--bundle-path",), dict(action="append", default=[], metavar="DIR[:DIR]",
                              help="directories to autoload undefined bundles and bodies from "
                                   "(see cfpromise.agent.autoload)")),
    (("--eval-functions",), dict(
        nargs="?", const="yes", choices=("yes", "no"),
        help="cf-promises' switch (default yes), accepted as it accepts it; cf-lite's check "
             "is the same either way (masterfiles' tests run cf-promises -c --eval-functions)")),
    (("-b", "--bundlesequence"), dict(metavar="LIST", help="the bundlesequence to check "
                                                           "with: none is verified then")),
    (("-N", "--negate"), dict(action="append", default=[], metavar="CLASSES",
                              help="classes not to define (comma-separated)")),
    (("-W", "--warn"), dict(metavar="WARNINGS", help="deprecated,removed,all; error=... "
                                                     "makes them errors")),
    (("-n", "--dry-run"), dict(action="store_true", help="accepted (nothing is changed)")),
    ROW_RETIRED_DIAGNOSTIC,
    *ROWS_COMMON,
    *ROWS_OUTPUT,
    (("-w", "--workdir"), dict(help="the work directory")),
    (("-V", "--version"), dict(action="store_true")),
), prog="cf-lite-promises", description=__doc__)


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


def main(argv: list[str] | None = None) -> int:
    args = OPTIONS.parse(sys.argv[1:] if argv is None else argv)
    from cfpromise.cli.options import sanitize_environment
    sanitize_environment()
    option = args.policy is None or args.file is not None
    if not option:              # (the file as an argument is from the directory)
        args.file = args.policy
    code = refused(args)
    if code is not None:
        return code
    errors_of = frozenset()
    if args.warn is not None:
        from cfpromise.cli.compat import parse_warnings
        errors_of = parse_warnings(args.warn)
        if isinstance(errors_of, list):
            for line in errors_of:
                say("error", line)
            return EXIT_ERROR
    if args.version:
        from cfpromise.cli.entry import language_note, print_version
        print_version("cf-lite-promises", language_note())
        return EXIT_OK
    if args.diagnostic:         # (and nothing is checked)
        say("error", DIAGNOSTIC_RETIRED)
        return EXIT_OK
    if args.syntax_description:
        import json

        from cfpromise.schema import schema
        # (as cf-promises prints it: no final newline)
        sys.stdout.write(json.dumps(schema().description(), indent=2, sort_keys=True))
        return EXIT_OK
    args.workdir = os.environ.get("CFENGINE_TEST_OVERRIDE_WORKDIR") or args.workdir
    from cfpromise.agent.inputfile import entry_problem, input_file, is_relative
    from cfpromise.eval.hardclasses import default_workdir
    if args.tag_release:        # (-T DIR: DIR/promises.cf, DIR from the working directory)
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
    if args.full and args.bundlesequence is None:    # (-b: nothing to verify, as cf-promises)
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
