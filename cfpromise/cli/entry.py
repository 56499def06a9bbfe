"""What every cf-lite program does on entry, written once: ``--version``, and the
getopt-style programs' main (argv, their log, Ctrl-C).

The programs read their command lines three ways, each for a reason of its own
(cf-lite-agent, cf-lite-promises, the daemons and cf-lite-runagent from their option
table as getopt_long reads cf-agent's, cf-promises', cf-serverd's, cf-monitord's and
cf-runagent's, without argparse; cf-lite-hub with argparse; cf-lite-key, -net and
-secret with cf-key's, cf-net's and cf-secret's getopt rules, whose messages they
copy), so the parsing stays in each program; what was the same in all of them is here: the version line, the argparse and the getopt_long programs'
start (:func:`argparse_start`, :func:`getopt_start`) and the getopt programs' main.  Nothing is imported at module level: the one-shot programs import this
only when they print their version.
"""
from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any, Callable, Sequence

    from cfpromise.cli.options import Options

PROTOCOL_NOTE = "CFEngine Core 3.21 protocol"
"""The version line's note of the programs that speak the network protocol."""


def language_note() -> str:
    """The version line's note of the programs that read policy."""
    from cfpromise import CFENGINE_COMPAT_VERSION
    return f"CFEngine {CFENGINE_COMPAT_VERSION} language"


def print_version(name: str, note: str = "") -> int:
    """``NAME VERSION (NOTE)`` on stdout, as ``-V``/``--version`` prints it; exit code 0."""
    from cfpromise import __version__
    sys.stdout.write(f"{name} {__version__}{f' ({note})' if note else ''}\n")
    return 0


def getopt_main(run: Callable[[list[str], object], int],
                make_log: Callable[[], object]) -> Callable[..., int]:
    """The main of a getopt-style program: ``run(argv, log)`` with ``sys.argv[1:]`` when
    no argv is given; Ctrl-C ends it with exit code 1 and no traceback, as cf-key,
    cf-net and cf-secret do."""
    def main(argv: Sequence[str] | None = None) -> int:
        try:
            return run(sys.argv[1:] if argv is None else list(argv), make_log())
        except KeyboardInterrupt:
            return 1
    main.__doc__ = run.__doc__
    return main


def argparse_start(parser: argparse.ArgumentParser, argv: Sequence[str] | None, name: str,
                   note: str = "", sanitize: bool = False) -> argparse.Namespace | int:
    """The start of an argparse program (the daemons, cf-lite-runagent, cf-lite-hub):
    the environment cleaned first when ``sanitize`` (a daemon's children get cf-agent's
    environment, :func:`cfpromise.cli.options.sanitize_environment`), then ``argv``
    (``sys.argv[1:]`` when None) parsed; ``--version`` prints the version line and gives
    its exit code (an int) instead of the arguments."""
    if sanitize:
        from cfpromise.cli.options import sanitize_environment
        sanitize_environment()
    args = parser.parse_args(sys.argv[1:] if argv is None else list(argv))
    if args.version:
        return print_version(name, note)
    return args


def getopt_start(options: Options, argv: Sequence[str] | None, name: str, note: str,
                 stops: tuple[str, ...]) -> Any:
    """The start of a program that reads its command line as CFEngine's getopt_long does
    (cf-lite-agent, cf-lite-promises, the daemons, cf-lite-runagent;
    :mod:`cfpromise.cli.gnuopts`): the environment cleaned, then the arguments, or the
    exit code when that is all it does -- refused, -h, -V, -M (the man page),
    ``diagnostic`` where ``stops`` has it (-x, retired, as in cf-promises, cf-serverd and
    cf-monitord), an option getopt knows but the program does not handle (its help,
    exit 1)."""
    from cfpromise.cli import gnuopts
    from cfpromise.cli.compat import refused
    from cfpromise.cli.options import sanitize_environment
    sanitize_environment()
    args = gnuopts.parse(options, sys.argv[1:] if argv is None else argv, stops)
    if isinstance(args, int):
        return args
    code = refused(args)
    if code is not None:
        return code
    if getattr(args, "unhandled", None):
        sys.stdout.write(options.parser().format_help())
        return 1
    if args.version:
        return print_version(name, note)
    if getattr(args, "manpage", False):
        from cfpromise.cli.manpage import page
        sys.stdout.write(page(name))
        return 0
    if getattr(args, "diagnostic", False) and "diagnostic" in stops:
        from cfpromise.agent.output import say
        from cfpromise.cli.compat import DIAGNOSTIC_RETIRED
        say("error", DIAGNOSTIC_RETIRED, args.timestamp)
        return 0
    return args
