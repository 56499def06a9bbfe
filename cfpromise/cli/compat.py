"""The options of cf-agent 3.21 and cf-promises 3.21 that cf-lite reads as they do,
though they change little or nothing here, so that a command line, a cron entry or a
script written for CFEngine runs unchanged (``tests/differential/test_cliparity_differential.py``).

* ``-W``/``--warn WARNINGS`` (cf-promises): the parser's warnings to record --
  ``deprecated``, ``removed``, ``all``, comma-separated -- or with ``error=`` (or ``error``
  alone: all of them) to treat as errors: a warning of such a kind makes the check fail
  with "There are syntax errors in policy files".  Every warning is recorded by default,
  so only ``error=`` changes anything.  A name it does not know is "Unrecognized warning
  'X'" and "Error parsing warning option", exit 1.
* ``-x``: cf-promises' self-diagnostics are retired (it says so and checks nothing);
  cf-agent's report on the host's agent (:func:`self_diagnostics`) and exit 0.
* ``--ignore-preferred-augments``: ``def.json`` is read even where a
  ``def_preferred.json`` is (:mod:`cfpromise.agent.augments`).
* ``--skip-db-check=no`` (cf-agent): check the agent's state databases before the run
  (:func:`check_databases`) -- cf-agent's are LMDB files, cf-lite's JSON and SQLite; a
  corrupt one is moved aside, as cf-check's repair does, so the run starts it afresh;
  ``yes`` or no value: skip it (the default); anything else is an error, exit 1.
* ``-E``/``--no-extensions``, ``-n`` (cf-promises): accepted; cf-lite loads no
  extension library and cf-promises changes nothing.
* ``--log-modules LIST``: cf-lite has no per-module debug logging, but the names are
  checked as CFEngine checks them: one it does not know is a warning, ``help`` lists
  them and exits 1 (:func:`refused`).
* ``-C``/``--color[=WHEN]``: a word other than always, auto or never is "Unrecognized
  color mode", exit 1 (:func:`refused`).
* :func:`string_to_long`: a number option of cf-runagent and cf-serverd (``-t``, ``-b``),
  refused with libntech's StringToLongExitOnError message.

The rows the programs' tables share are here too, one by one (``ROW_*``: each table
lists them in its CFEngine program's order, cfpromise.cli.gnuopts), with cf-lite's own
``--graph`` and ``--bundle-path`` of cf-lite-agent and cf-lite-promises.
"""
from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

WARNING_KINDS = ("deprecated", "removed")

INVALID = "\0invalid:"
"""What a type function of a row returns for a value the program refuses after parsing
(:func:`refused`), where CFEngine's programs refuse it: argparse would say its own words."""

LOG_MODULES = ("help", "all", "evalctx", "expand", "iterations", "parser", "vartable", "vars",
               "locks", "ps")


def log_modules(text: str) -> str:
    """A --log-modules list; with ``help``, INVALID (the list is printed, exit 1)."""
    return INVALID + text if "help" in text.split(",") else text


def color(text: str) -> str:
    return text if text in ("always", "auto", "never") else INVALID + text


ROW_AUGMENTS = (("--ignore-preferred-augments",), dict(
    action="store_true", help="read def.json even where def_preferred.json is"))
ROW_LOG_MODULES = (("--log-modules",), dict(
    metavar="LIST", type=log_modules,
    help="checked (help lists them) but cf-lite has no per-module debug logging"))
ROWS_COMMON = (ROW_AUGMENTS, ROW_LOG_MODULES)

DIAGNOSTIC_RETIRED = "Self-diagnostic functionality is retired."
ROW_RETIRED_DIAGNOSTIC = (("-x", "--diagnostic"), dict(
    action="store_true", help="retired, as in CFEngine 3.21: says so and exits 0"))

SUPPRESS = "==SUPPRESS=="        # argparse.SUPPRESS: in no help and no man page
ROW_MANPAGE = (("-M",), dict(action="store_true", dest="manpage", help=SUPPRESS))
ROW_UNHANDLED = (("-S",), dict(action="store_true", dest="unhandled", help=SUPPRESS))
ROWS_GETOPT_ONLY = (ROW_MANPAGE, ROW_UNHANDLED)
"""What CFEngine's programs take without listing it: -M prints the man page; -S the
daemons' and cf-promises' getopt knows but they do not handle (the help, exit 1)."""


_LEVEL_NAMES = (("critical", "critical"), ("errors", "error"), ("warnings", "warning"),
                ("notices", "notice"), ("information", "info"), ("verbose", "verbose"),
                ("debug", "debug"))


def log_level(text: str) -> str:
    """A --log-level word as cf-agent reads it: any case-insensitive prefix of critical,
    errors, warnings, notices, information, verbose or debug (the first that fits)."""
    word = text.lower()
    for name, level in _LEVEL_NAMES:
        if word and name.startswith(word):
            return level
    return INVALID + text        # told after parsing, as cf-agent: exit 1

# -I, -v, -d and -g set one level: the last one given wins, as in cf-agent and cf-promises
ROW_INFORM = (("-I", "--inform"), dict(dest="log_level", action="store_const", const="info"))
ROW_VERBOSE = (("-v", "--verbose"), dict(dest="log_level", action="store_const",
                                         const="verbose"))
ROW_DEBUG = (("-d", "--debug"), dict(dest="log_level", action="store_const", const="debug"))
ROW_LOG_LEVEL = (("-g", "--log-level"), dict(
    dest="log_level", type=log_level,
    metavar="{critical,error,warning,notice,info,verbose,debug}"))
ROWS_LEVEL = (ROW_INFORM, ROW_VERBOSE, ROW_DEBUG, ROW_LOG_LEVEL)
ROW_TIMESTAMP = (("-l", "--timestamp"), dict(action="store_true",
                                             help="timestamps on log lines"))
ROW_COLOR = (("-C", "--color"), dict(nargs="?", const="auto", type=color,
                                     metavar="always|auto|never",
                                     help="colour log lines as cf-agent (auto: when stdout "
                                          "is a terminal)"))
ROWS_LOOK = (ROW_TIMESTAMP, ROW_COLOR)
ROWS_OUTPUT = ROWS_LEVEL + ROWS_LOOK
"""(Apart where a program's table has them apart: getopt lists an ambiguous option's
possibilities in the table's order, cfpromise.cli.gnuopts.)"""
ROW_HELP = (("-h", "--help"), dict(action="help", help="print the help message and exit"))
"""-h/--help at its place in a table (cf-agent's and cf-promises' list it among the others)."""


def graph_format(text: str) -> str:
    """--graph's value (cf-lite's: dot or json), refused in the words cf-agent refuses
    --simulate's."""
    if text not in ("dot", "json"):
        raise ValueError(f"Invalid argument for --graph, 'dot' or 'json' required, not '{text}'")
    return text


ROW_GRAPH = (("--graph",), dict(nargs="?", const="dot", type=graph_format, metavar="dot|json",
                                help="print the plan of the bundlesequence (Graphviz dot, or "
                                     "JSON) and exit"))
ROW_BUNDLE_PATH = (("--bundle-path",), dict(
    action="append", default=[], metavar="DIR[:DIR]",
    help="directories to autoload undefined bundles and bodies from "
         "(see cfpromise.agent.autoload)"))


def refused(args: Any) -> int | None:
    """What the options the rows above check say after parsing, in CFEngine's words: the
    exit code (1) when one refuses its value, else None (a warning may have been said)."""
    import sys

    from cfpromise.agent.output import say
    stamped = bool(getattr(args, "timestamp", False))       # -l: said after the time
    level = getattr(args, "log_level", None) or ""
    if level.startswith(INVALID):
        print(f"Invalid log level: '{level[len(INVALID):]}'", file=sys.stderr)
        return 1
    if (getattr(args, "color", None) or "").startswith(INVALID):
        say("error", f"Unrecognized color mode '{args.color[len(INVALID):]}'", stamped)
        return 1
    modules = getattr(args, "log_modules", None) or ""
    if modules.startswith(INVALID):
        print("\n--log-modules accepts a comma separated list of one or more of the "
              "following:\n\n" + "".join(f"    {m}\n" for m in LOG_MODULES))
        return 1
    for name in modules.split(","):
        if name and name not in LOG_MODULES:
            say("warning", f"Unknown debug logging module '{name}'", stamped)
    return None


_SAYS_INFO = ("info", "verbose", "debug")


def setting_workdir(flag: str, value: Any, values: dict[str, Any]) -> None:
    """What cf-agent and cf-promises say of -w as they read it (the table's ``said``):
    "Setting workdir to 'DIR'" at info level -- so only after -I, -v, -d or -g info or
    more, stamped only after -l."""
    if flag == "-w" and values.get("log_level") in _SAYS_INFO:
        from cfpromise.agent.output import say
        say("info", f"Setting workdir to '{value}'", bool(values.get("timestamp")))


def colored(args: Any, stream: Any) -> bool:
    """Whether -C/--color colours log lines written to ``stream``."""
    when = getattr(args, "color", None)
    if when == "auto":
        try:
            return stream.isatty()
        except (AttributeError, ValueError):
            return False
    return when == "always"


_LONG = 2 ** 63


def string_to_long(text: str) -> int:
    """A number as libntech's StringToLong reads it (base 10, blanks around it); a
    ValueError with StringToLongExitOnError's message otherwise."""
    import re
    match = re.match(r"\s*([+-]?\d+)", text)
    if match is None:
        code, why = -81, "No digits"
    elif text[match.end():].strip():
        code, why = -83, "Not terminated"
    elif not -_LONG <= int(match.group(1)) < _LONG:
        code, why = 34, "Overflow"
    else:
        return int(match.group(1))
    raise ValueError(f"Conversion error ({code} - {why}) on '{text}' (StringToLongExitOnError)")


def parse_warnings(text: str) -> frozenset[str] | list[str]:
    """The warning kinds ``-W text`` makes errors (empty: none), or the error lines to
    say (then exit 1)."""
    if text == "error":
        return frozenset(WARNING_KINDS)
    errors = text.startswith("error=")
    kinds: set[str] = set()
    for name in (n for n in (text[len("error="):] if errors else text).split(",") if n):
        if name not in WARNING_KINDS + ("all",):
            return [f"Unrecognized warning '{name}'", "Error parsing warning option"]
        kinds.update(WARNING_KINDS if name == "all" else (name,))
    if not text:
        return ["Error parsing warning option"]
    return frozenset(kinds) if errors else frozenset()


def warned_as_error(agent: Any, kinds: frozenset[str]) -> bool:
    """Whether the parser warned ``agent`` (cfpromise.agent.policyfile) of a kind that
    ``-W error=`` names."""
    return any(any(f"[-W{k}]" in d.message for k in kinds)
               for d in getattr(agent, "parser_warnings", ()))


# -- cf-agent -x ----------------------------------------------------------------------

def _key(path: str, public: bool) -> tuple[bool, str]:
    what = "public" if public else "private"
    try:
        st = os.stat(path)
    except OSError:
        return False, f"No {what} key found at '{path}'"
    if st.st_mode & 0o077:
        return False, (f"{what.capitalize()} key found at '{path}', but had incorrect "
                       f"permissions '{st.st_mode:o}'")
    return True, f"OK at '{path}'"


def _store(path: str) -> tuple[bool, str]:
    """A state file of cf-lite's: JSON, or SQLite (an integrity check)."""
    if not os.path.exists(path):
        return False, f"Not created yet at '{path}'"
    try:
        if path.endswith(".json"):
            import json
            with open(path, encoding="utf-8") as fh:
                json.load(fh)
        else:
            import sqlite3
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
                verdict = db.execute("PRAGMA quick_check").fetchone()[0]
            if verdict != "ok":
                return False, f"Internal DB coherence problem at '{path}': {verdict}"
    except (OSError, ValueError) as exc:
        return False, f"Unreadable at '{path}': {exc}"
    except Exception as exc:          # noqa: BLE001 - sqlite3.Error and the like
        return False, f"Unreadable at '{path}': {exc}"
    return True, f"OK at '{path}'"


def _stores(workdir: str) -> tuple[tuple[str, str], ...]:
    """(the check's title, the path) of each state database cf-lite keeps."""
    from cfpromise.agent.locks import DB_NAME
    from cfpromise.agent.persistence import FILENAME as CLASSES
    from cfpromise.monitor.store import FILENAME as OBSERVATIONS
    from cfpromise.net.lastseen import FILE as LASTSEEN
    state = os.path.join(workdir, "state")
    return (("Check persistent classes DB", os.path.join(state, CLASSES)),
            ("Check observations DB", os.path.join(state, OBSERVATIONS)),
            ("Check locks DB", os.path.join(state, DB_NAME)),
            ("Check lastseen DB", os.path.join(state, LASTSEEN)))


def check_databases(workdir: str, value: str | None, log: Callable[[str, str], Any]) -> bool:
    """--skip-db-check: False (exit 1) on a value it does not take."""
    if value is None or value.lower() == "yes":
        return True
    if value.lower() != "no":
        log("error", f"Invalid argument for --skip-db-check(yes/no): '{value}'")
        return False
    log("info", "Running internal DB consistency checks")
    state = os.path.join(workdir, "state")
    if not os.path.isdir(state):
        log("error", f"Could not open {state}")
        return True
    present = [path for _title, path in _stores(workdir) if os.path.exists(path)]
    if not present:
        log("info", "Skipping local database repair, no database files")
    for path in present:
        ok, message = _store(path)
        if not ok:
            os.replace(path, path + ".broken")
            log("error", f"{message}: moved aside to '{path}.broken'")
    return True


def self_diagnostics(workdir: str, write: Callable[[str], Any]) -> None:
    """cf-agent -x: the directories, then each check as ``[ YES ]``/``[ NO  ]``."""
    state = os.path.join(workdir, "state")
    for name, where in (("workdir", workdir), ("inputdir", os.path.join(workdir, "inputs")),
                        ("logdir", workdir), ("statedir", state)):
        write(f"self-diagnostics for agent using {name} '{where}'\n")
    try:
        with open(os.path.join(workdir, "policy_server.dat"), encoding="utf-8") as fh:
            server = fh.read().strip()
    except OSError:
        server = ""
    hub = os.path.exists(os.path.join(state, "am_policy_hub"))
    keys = os.path.join(workdir, "ppkeys")
    checks = (
        ("Check that agent is bootstrapped", (bool(server), server or "Not bootstrapped")),
        ("Check if agent is acting as a policy server",
         (hub, "Acting as a policy server" if hub else "Not acting as a policy server")),
        ("Check private key", _key(os.path.join(keys, "localhost.priv"), False)),
        ("Check public key", _key(os.path.join(keys, "localhost.pub"), True)),
    ) + tuple((title, _store(path)) for title, path in _stores(workdir))
    for title, (ok, message) in checks:
        write(f"[ {'YES' if ok else 'NO '} ] {title}: {message}\n")
