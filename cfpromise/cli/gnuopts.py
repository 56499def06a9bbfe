"""GNU getopt_long's reading of an option table, for the programs whose command lines
must read as CFEngine's do (cf-lite-agent, cf-lite-promises, cf-lite-serverd,
cf-lite-monitord, cf-lite-runagent).

Why: cf-agent, cf-promises, cf-serverd, cf-monitord and cf-runagent read their options
with getopt_long, and cron lines, scripts and unit files depend on what it does, which
argparse does otherwise:

* options and operands mix; ``--`` ends the options;
* short options cluster (``-Fv``); a value is the rest of the word or the next word,
  whatever it starts with (``-f -x`` is the file ``-x``);
* an optional value is only an attached one (``-Calways``, ``--color=always``):
  ``-C bad`` is ``-C`` and the operand ``bad``;
* a long option may be shortened while that is unambiguous (``--ign``); an ambiguous
  one lists the possibilities in the table's order (``--=x``: all of them); options
  alike (the same kind of value and short option, or none: getopt's has_arg and val)
  are one, the first (cf-agent's ``--sh`` is ``--show-evaluated-classes``).  The long
  options cf-lite adds (:attr:`cfpromise.cli.options.Options.extras`: ``--summary``,
  ``--bundle-path``...) are shortened only where no option of CFEngine's program fits,
  so that a shortened option means what it means there (``--bundle`` is
  ``--bundlesequence``, ``--s`` is ambiguous between cf-agent's options alone);
* a wrong command line is glibc's message on stderr (``invalid option -- 'Q'``,
  ``option '--d' is ambiguous; possibilities: ...``, ``option requires an argument --
  'f'``), then the help on stdout, exit 1 -- argparse says usage and exits 2; a second
  operand is "Too many arguments", exit 1.

The table is the program's :class:`cfpromise.cli.options.Options` rows (argparse still
writes the help, and the man page reads the rows; a row of action ``help`` places
``--help`` in the table, else it comes last).  The program acts on each option in
order as CFEngine's do, so reading stops at an option the program acts on at once
(``stops``: ``-V``, ``-x``, ``-M``...; ``dest=value``: only with that value, as
cf-promises' ``-s json``) and at a value its type marks
:data:`cfpromise.cli.compat.INVALID` (said by :func:`cfpromise.cli.compat.refused`): what
follows is not looked at, as there (``-V -Q`` prints the version, ``-Q -V`` refuses).
A type function raising ValueError refuses its value with the exception's message, a
log line each line of it (``   error: Conversion error ...``, exit 1, no help).  What a
program says of an option as it reads it is the table's ``said`` (cf-agent's "Setting
workdir" for -w, at info level: only after -I).
"""
from __future__ import annotations

import sys

from cfpromise.cli.compat import INVALID
from cfpromise.cli.options import SimpleNamespace, _dest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterable, Sequence

    from cfpromise.cli.options import Options

_NONE, _REQUIRED, _OPTIONAL = 0, 1, 2
_FLAG_ACTIONS = {"store_true": True, "store_false": False}
_NO_VALUE = ("store_const", "append_const", "count", "help")


class Refused(Exception):
    """A command line getopt refuses: ``message`` for stderr (glibc's form when
    ``glibc``), then the help on stdout when ``show_help``."""

    def __init__(self, message: str, show_help: bool = True, glibc: bool = True,
                 stamped: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.show_help = show_help
        self.glibc = glibc
        self.stamped = stamped      # said after the time (-l read before it)


class _Row:
    __slots__ = ("flags", "dest", "kw", "argument")

    def __init__(self, flags: tuple[str, ...], dest: str, kw: dict[str, Any]) -> None:
        self.flags = flags
        self.dest = dest
        self.kw = kw
        action = kw.get("action")
        if action in _FLAG_ACTIONS or action in _NO_VALUE:
            self.argument = _NONE
        elif kw.get("nargs") == "?":
            self.argument = _OPTIONAL
        else:
            self.argument = _REQUIRED

    def store(self, values: dict[str, Any], word: str | None) -> bool:
        """Store the option (``word``: its value, None when it has none) and note it
        given; False when reading stops here (an INVALID value)."""
        kw = self.kw
        action = kw.get("action")
        value: Any = kw.get("const") if word is None else word
        if action in _FLAG_ACTIONS:
            value = _FLAG_ACTIONS[action]
        elif action == "count":
            value = (values[self.dest] or 0) + 1
        elif word is not None and kw.get("type") is not None:
            try:
                value = kw["type"](word)
            except ValueError as exc:
                raise Refused(str(exc), show_help=False, glibc=False,
                              stamped=bool(values.get("timestamp"))) from None
        values["given"].append(self.flags[0])
        if action == "append":
            values[self.dest] = [*(values[self.dest] or ()), value]
        else:
            values[self.dest] = value
        return not (isinstance(value, str) and value.startswith(INVALID))


_HELP = _Row(("-h", "--help"), "help", {"action": "help"})
"""--help where the table has no row of its own for it (after every other option)."""


def _table(options: Options) -> tuple[dict[str, _Row], dict[str, _Row], list[str], dict]:
    shorts: dict[str, _Row] = {}
    longs: dict[str, _Row] = {}         # in the table's order (ambiguous options' lists)
    positionals: list[str] = []
    defaults: dict[str, Any] = {}
    for flags, kw in options.rows:
        dest = _dest(flags, kw)
        default = kw.get("default", (not _FLAG_ACTIONS[kw["action"]])
                         if kw.get("action") in _FLAG_ACTIONS else None)
        defaults.setdefault(dest, list(default) if isinstance(default, list) else default)
        if not flags[0].startswith("-"):
            positionals.append(dest)
            continue
        row = _Row(flags, dest, kw)
        for flag in flags:
            (longs if flag.startswith("--") else shorts)[flag.lstrip("-")] = row
    longs.setdefault("help", _HELP)
    shorts.setdefault("h", _HELP)
    return shorts, longs, positionals, defaults


def read(options: Options, argv: Sequence[str], stops: Iterable[str] = ()) -> Any:
    """The namespace of ``argv`` as getopt_long reads it (module docstring), with
    ``help`` True when -h/--help was read and ``given`` the options read (their first
    option strings, in order); Refused when getopt would refuse it."""
    shorts, longs, positionals, values = _table(options)
    extras = frozenset(name.lstrip("-") for name in options.extras)
    distinct = frozenset(name.lstrip("-") for name in options.distinct)
    values["help"] = False
    values["given"] = []        # each option read, by its first option string, in order
    stop = set(stops)
    operands: list[str] = []
    words = list(argv)
    i = 0

    def stored(row: _Row, value: str | None) -> bool:
        if row.kw.get("action") == "help":
            values["help"] = True
            return False
        going_on = row.store(values, value)
        if options.said is not None:
            options.said(row.flags[0], values[row.dest], values)
        return going_on and row.dest not in stop and (
            f"{row.dest}={values[row.dest]}" not in stop)

    while i < len(words):
        word = words[i]
        i += 1
        if word == "--":
            operands.extend(words[i:])
            break
        if word.startswith("--"):
            name, eq, attached = word[2:].partition("=")
            name = _long(longs, extras, distinct, name, word)
            row = longs[name]
            value = attached if eq else None
            if eq and row.argument == _NONE:
                raise Refused(f"option '--{name}' doesn't allow an argument")
            if row.argument == _REQUIRED and not eq:
                if i >= len(words):
                    raise Refused(f"option '--{name}' requires an argument")
                value = words[i]
                i += 1
            if not stored(row, value):
                return SimpleNamespace(**values)
            continue
        if word[:1] != "-" or word == "-":
            operands.append(word)
            continue
        j = 1
        while j < len(word):
            letter = word[j]
            j += 1
            row = shorts.get(letter)
            if row is None:
                raise Refused(f"invalid option -- '{letter}'")
            value = None
            if row.argument != _NONE:
                if j < len(word):
                    value, j = word[j:], len(word)
                elif row.argument == _REQUIRED:
                    if i >= len(words):
                        raise Refused(f"option requires an argument -- '{letter}'")
                    value = words[i]
                    i += 1
            if not stored(row, value):
                return SimpleNamespace(**values)
    if len(operands) > len(positionals):
        raise Refused("Too many arguments", show_help=False, glibc=False,
                      stamped=bool(values.get("timestamp")))
    for dest, operand in zip(positionals, operands):
        values[dest] = operand
    return SimpleNamespace(**values)


def _long(longs: dict[str, _Row], extras: frozenset[str], distinct: frozenset[str],
          name: str, word: str) -> str:
    """The long option ``--name`` is: itself, or the one option it abbreviates -- among
    the program's CFEngine options first, then among cf-lite's ``extras``.  As glibc,
    options that read alike (the same kind of value, the same short option, or none:
    getopt's has_arg and val) are one: the first of them (cf-agent's ``--sh`` is
    ``--show-evaluated-classes``); a long-only option in ``distinct`` has a val of its own."""
    if name in longs:
        return name
    for extra in (False, True):
        names = [n for n in longs if n.startswith(name) and (n in extras) is extra]
        if not names:
            continue
        first = _alike(longs, distinct, names[0])
        differing = [n for n in names[1:] if _alike(longs, distinct, n) != first]
        if not differing:
            return names[0]
        raise Refused(f"option '{word}' is ambiguous; possibilities: "
                      + " ".join(f"'--{n}'" for n in [names[0], *differing]))
    raise Refused(f"unrecognized option '{word}'")


def _alike(longs: dict[str, _Row], distinct: frozenset[str], name: str) -> tuple[int, str]:
    """What getopt tells options apart by: has_arg and val (the short option, else 0)."""
    row = longs[name]
    short = next((f[1:] for f in row.flags if not f.startswith("--")), "")
    return row.argument, short or (name if name in distinct else "")


def parse(options: Options, argv: Sequence[str], stops: Iterable[str] = ()) -> Any:
    """:func:`read`, or the exit code after saying why not (and 0 after -h's help)."""
    try:
        args = read(options, argv, stops)
    except Refused as exc:
        prog = options.parser_keywords.get("prog", "")
        if exc.glibc:
            sys.stderr.write(f"{prog}: {exc.message}\n")
        else:
            from cfpromise.agent.output import say
            for line in exc.message.split("\n"):
                say("error", line, exc.stamped)
        if exc.show_help:
            sys.stdout.write(options.parser().format_help())
        return 1
    if args.help:
        sys.stdout.write(options.parser().format_help())
        return 0
    return args
