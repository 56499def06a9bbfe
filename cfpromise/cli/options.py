"""A program's options as a table: read as getopt_long reads CFEngine's, written as help.

Why: a program declares its options once, as rows of ``add_argument``'s arguments
(:class:`Options`), and three readers use the same rows:
:mod:`cfpromise.cli.gnuopts` reads the command line as the CFEngine program's
getopt_long does (cf-lite-agent, cf-lite-promises, the daemons, cf-lite-runagent),
argparse writes the help (:meth:`Options.parser`), and the man page is made from that
(:mod:`cfpromise.cli.manpage`).  Reading the rows does not import argparse: every cron
run of cf-lite-agent and every cf-lite-promises check that imported argparse (which
imports gettext and locale) and built a parser (a help formatter for each option)
spent about 17 M instructions on it, 7% of a cold check of lib/files.cf and 11% of a
one-report run (issue #15); argparse is imported only to print the help.
"""
from __future__ import annotations

import sys

# types.SimpleNamespace, as types itself defines it (importing types costs 1.9 M
# instructions of a 84 M one-report run)
SimpleNamespace = type(sys.implementation)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any, Callable, Sequence

    Row = tuple[tuple[str, ...], dict[str, Any]]


def _dest(flags: tuple[str, ...], kw: dict[str, Any]) -> str:
    """argparse's dest: given, else the first long option string, else the first one."""
    if "dest" in kw:
        return kw["dest"]
    if not flags[0].startswith("-"):
        return flags[0]
    long = next((f for f in flags if f.startswith("--")), flags[0])
    return long.lstrip("-").replace("-", "_")


class Options:
    """One program's options: ``rows`` of (option strings, add_argument keywords), in the
    order of the CFEngine program's own table (getopt lists an ambiguous option's
    possibilities in that order); ``extras``, the long options cf-lite adds to it
    (shortened only where none of CFEngine's fits: :mod:`cfpromise.cli.gnuopts`);
    ``distinct``, the long-only options CFEngine's table gives a getopt value of their
    own (the others share 0, so that getopt takes a shortening of two alike as the
    first); ``said``, what the program says of an option as it reads it (called with its
    first option string, the value stored and the values so far); and ArgumentParser's
    keywords (prog, description, epilog...)."""

    def __init__(self, rows: Sequence[Row], extras: Sequence[str] = (),
                 distinct: Sequence[str] = (),
                 said: Callable[[str, Any, dict[str, Any]], None] | None = None,
                 **parser: Any) -> None:
        self.rows = tuple(rows)
        self.extras = tuple(extras)
        self.distinct = tuple(distinct)
        self.said = said
        self.parser_keywords = parser

    def parser(self) -> argparse.ArgumentParser:
        """The argparse parser of the same rows (the help, the man page)."""
        import argparse

        from cfpromise.cli.helpformat import HelpFormatter
        keywords = dict(self.parser_keywords)
        if any(kw.get("action") == "help" for _flags, kw in self.rows):
            keywords["add_help"] = False        # (-h/--help is a row of the table)
        parser = argparse.ArgumentParser(formatter_class=HelpFormatter, **keywords)
        for flags, kw in self.rows:
            if kw.get("help") == argparse.SUPPRESS:     # (argparse tests it with ``is``)
                kw = dict(kw, help=argparse.SUPPRESS)
            parser.add_argument(*flags, **kw)
        return parser


# What cf-agent 3.21's SanitizeEnvironment removes when any of its programs starts, so
# that the programs it runs (commands, execresult, returnszero, modules, ps) print
# unlocalized, unwrapped output; LC_ALL, LC_CTYPE and the other LC_* stay.
UNSET_AT_START = ("COLUMNS", "LANG", "LANGUAGE", "LC_MESSAGES")


def sanitize_environment() -> None:
    import os
    for name in UNSET_AT_START:
        os.environ.pop(name, None)
