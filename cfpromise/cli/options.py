"""A program's options as a table, read without argparse when the command line is plain.

Why: every cron run of cf-lite-agent and every cf-lite-promises check imported
argparse (which imports gettext and locale) and built a parser (argparse makes a
help formatter for each option it adds) to read command lines like ``-K -f
promises.cf``: about 17 M instructions, 7% of a cold check of lib/files.cf and
11% of a one-report run (issue #15).

A program declares its options once, as rows of ``add_argument``'s arguments
(:class:`Options`).  :meth:`Options.parse` reads a plain command line straight
from the rows and gives the namespace argparse would give.  Plain means each word
is one of:

* an option string exactly as declared; an option that takes a value takes the
  next word, which must not start with ``-``;
* ``--long=value``, or a short option with its value attached (``-Dclass``);
* the program's positional argument (an optional one, ``nargs="?"``), once.

Anything else -- ``-h``, an abbreviated long option, combined flags (``-Kn``), an
option whose value is optional (``nargs="?"``), a value starting with ``-``, a value
its ``type`` or ``choices`` refuse, ``--``, a word with a space that starts with
``-`` -- is read by argparse, built from the same rows, so usage, help and every
error message stay argparse's.  tests/cli/test_options.py holds both readers to
the same answers on generated command lines.
"""
from __future__ import annotations

import sys

# types.SimpleNamespace, as types itself defines it (importing types costs 1.9 M
# instructions of a 84 M one-report run)
SimpleNamespace = type(sys.implementation)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any, Sequence

    Row = tuple[tuple[str, ...], dict[str, Any]]

_NO_VALUE = {"store_true": True, "store_false": False}     # action -> the value it stores
_TAKES_VALUE = (None, "store", "append")


class _Option:
    """What the quick reader needs of one row."""

    __slots__ = ("dest", "action", "const", "type", "choices")

    def __init__(self, dest: str, kw: dict[str, Any]) -> None:
        self.dest = dest
        self.action = kw.get("action")
        self.const = kw.get("const")
        self.type = kw.get("type")
        self.choices = kw.get("choices")

    def value(self, word: str) -> tuple[bool, Any]:
        """(True, the value argparse stores for ``word``) or (False, None) when argparse
        would refuse it (and so must say so)."""
        value: Any = word
        if self.type is not None:
            try:
                value = self.type(word)
            except Exception:          # ArgumentTypeError, TypeError, ValueError...
                return False, None
        if self.choices is not None and value not in self.choices:
            return False, None
        return True, value


def _dest(flags: tuple[str, ...], kw: dict[str, Any]) -> str:
    """argparse's dest: given, else the first long option string, else the first one."""
    if "dest" in kw:
        return kw["dest"]
    if not flags[0].startswith("-"):
        return flags[0]
    long = next((f for f in flags if f.startswith("--")), flags[0])
    return long.lstrip("-").replace("-", "_")


class Options:
    """One program's options: ``rows`` of (option strings, add_argument keywords), and
    ArgumentParser's keywords (prog, description, epilog...)."""

    def __init__(self, rows: Sequence[Row], **parser: Any) -> None:
        self.rows = tuple(rows)
        self.parser_keywords = parser
        self.options: dict[str, _Option] = {}
        self.positionals: list[_Option] = []
        self.defaults: dict[str, Any] = {}
        self.quick = True               # False: every command line goes to argparse
        for flags, kw in self.rows:
            option = _Option(_dest(flags, kw), kw)
            if kw.get("required") or kw.get("default") == "==SUPPRESS==":
                self.quick = False      # argparse.SUPPRESS, or a check left to argparse
            self.defaults.setdefault(option.dest, kw.get(
                "default", not _NO_VALUE[option.action] if option.action in _NO_VALUE
                else None))
            if isinstance(self.defaults[option.dest], str) and option.type is not None:
                self.quick = False      # argparse converts such a default: not done here
            if not flags[0].startswith("-"):
                if kw.get("nargs") != "?" or option.action is not None:
                    self.quick = False
                self.positionals.append(option)
                continue
            quick_kind = (option.action in _TAKES_VALUE and kw.get("nargs") is None) or (
                option.action in _NO_VALUE or option.action == "store_const")
            for flag in flags:
                # an option the quick reader does not handle is simply not in its index
                if quick_kind:
                    self.options[flag] = option

    def parser(self) -> argparse.ArgumentParser:
        """The argparse parser of the same rows (help, usage, errors, the rest)."""
        import argparse

        from cfpromise.cli.helpformat import HelpFormatter
        parser = argparse.ArgumentParser(formatter_class=HelpFormatter, **self.parser_keywords)
        for flags, kw in self.rows:
            if kw.get("help") == argparse.SUPPRESS:     # (argparse tests it with ``is``)
                kw = dict(kw, help=argparse.SUPPRESS)
            parser.add_argument(*flags, **kw)
        return parser

    def parse(self, argv: Sequence[str]) -> Any:
        """The namespace of ``argv``: read here when it is plain, else by argparse (which
        exits with its message on an error, as before)."""
        quick = self.read(argv) if self.quick else None
        if quick is not None:
            return quick
        return self.parser().parse_args(list(argv))

    def read(self, argv: Sequence[str]) -> SimpleNamespace | None:
        """The namespace of a plain ``argv`` (module docstring), or None."""
        values = {dest: list(d) if isinstance(d, list) else d for dest, d in self.defaults.items()}
        positionals = iter(self.positionals)
        options = self.options
        i, count = 0, len(argv)
        while i < count:
            word = argv[i]
            i += 1
            if word[:1] != "-":
                option = next(positionals, None)
                if option is None:
                    return None
                ok, values[option.dest] = option.value(word)
                if not ok:
                    return None
                continue
            if " " in word:
                return None             # argparse reads it as a positional
            attached = None
            if word.startswith("--"):
                name, eq, rest = word.partition("=")
                option = options.get(name)
                if eq:
                    attached = rest
            else:
                option = options.get(word)
                if option is None and "=" not in word:
                    option = options.get(word[:2])
                    attached = word[2:] or None
            if option is None:
                return None
            if option.action in _NO_VALUE or option.action == "store_const":
                if attached is not None:
                    return None
                values[option.dest] = (option.const if option.action == "store_const"
                                       else _NO_VALUE[option.action])
                continue
            if attached is None:
                if i >= count or argv[i][:1] == "-":
                    return None
                attached = argv[i]
                i += 1
            ok, value = option.value(attached)
            if not ok:
                return None
            if option.action == "append":
                if values[option.dest] is None:
                    values[option.dest] = []
                values[option.dest].append(value)
            else:
                values[option.dest] = value
        return SimpleNamespace(**values)


# What cf-agent 3.21's SanitizeEnvironment removes when any of its programs starts, so
# that the programs it runs (commands, execresult, returnszero, modules, ps) print
# unlocalized, unwrapped output; LC_ALL, LC_CTYPE and the other LC_* stay.
UNSET_AT_START = ("COLUMNS", "LANG", "LANGUAGE", "LC_MESSAGES")


def sanitize_environment() -> None:
    import os
    for name in UNSET_AT_START:
        os.environ.pop(name, None)
