"""Man pages for cf-lite's programs, made from their option tables.

Why: an operator installing a daemon expects ``man cf-lite-serverd`` to answer, and a
page written by hand drifts from the options the program really takes.  Each page is
built from the table the program itself parses with -- the rows of
:class:`cfpromise.cli.options.Options` (cf-lite-agent, cf-lite-promises), the
argparse parser of ``_parser()`` (the daemons, cf-lite-runagent) or the
:class:`cfpromise.net.toolkit.Opt` list with its commands (cf-lite-key, cf-lite-net,
cf-lite-secret) -- plus the module docstring for the NAME line and the description.

The pages are generated files shipped in the package (``cfpromise/data/man/``, as
Debian's cfengine3 puts cf-agent's pages: section 8 for every program) and installed
by ``python -m cfpromise.install``.  Regenerate them after changing an option::

    python -m cfpromise.cli.manpage         (or: make manpages)

tests/cli/test_manpage.py fails when a shipped page is not what this module makes,
when an option of a program is missing from its page, and when man(1) warns.
"""
from __future__ import annotations

import importlib
import os
import re
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from types import ModuleType

SECTION = "8"
MAN_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "data", "man")

# program -> (module, where its option table is): "options" an Options table named
# OPTIONS, "argparse" a _parser() function, "getopt" an Opt list OPTIONS (and COMMANDS).
# Every program of setup.cfg's scripts is here (tests/cli/test_manpage.py).
PROGRAMS = {
    "cf-lite-agent": ("cfpromise.cli.agent", "options"),
    "cf-lite-promises": ("cfpromise.cli.promises", "options"),
    "cf-lite-serverd": ("cfpromise.cli.serverd", "options"),
    "cf-lite-monitord": ("cfpromise.cli.monitord", "options"),
    "cf-lite-runagent": ("cfpromise.cli.runagent", "options"),
    "cf-lite-key": ("cfpromise.cli.key", "getopt"),
    "cf-lite-net": ("cfpromise.cli.net", "getopt"),
    "cf-lite-secret": ("cfpromise.cli.secret", "getopt"),
    "cf-lite-hub": ("cfpromise.cli.hub", "argparse"),
}
# The CFEngine program each one stands in for (SEE ALSO).
REFERENCE = {"cf-lite-agent": "cf-agent", "cf-lite-promises": "cf-promises",
             "cf-lite-serverd": "cf-serverd", "cf-lite-monitord": "cf-monitord",
             "cf-lite-runagent": "cf-runagent", "cf-lite-key": "cf-key",
             "cf-lite-net": "cf-net", "cf-lite-secret": "cf-secret",
             "cf-lite-hub": "cf-hub"}

# What an option without a help text of its own does (the same for every program).
STANDARD_HELP = {
    "--help": "print the help message and exit",
    "--inform": "print basic information about what is done",
    "--verbose": "print verbose information",
    "--debug": "print debugging information",
    "--version": "print the version and exit",
    "--log-level": "how detailed logs are: critical, error, warning, notice, info, "
                   "verbose or debug",
    "--workdir": "the work directory (default /var/lib/cf-lite as root, ~/.cf-lite otherwise)",
    "--remote-options": "options passed to the remote agent",
    "--show-evaluated-classes": "print the classes defined at the end of the run "
                                "(those matching REGEX)",
    "--show-evaluated-vars": "print the variables at the end of the run (those matching REGEX)",
}


class Entry:
    """One option or argument of a page: its strings, its value's name, its text."""

    __slots__ = ("flags", "value", "optional", "text")

    def __init__(self, flags: list[str], value: str | None, optional: bool, text: str) -> None:
        self.flags = flags          # ["-f", "--file"], or [] for a positional
        self.value = value          # "FILE", or None when the option takes no value
        self.optional = optional    # the value may be left out
        self.text = text


def _help(flags: list[str], text: str | None) -> str:
    if text:
        return text
    for flag in flags:
        if flag in STANDARD_HELP:
            return STANDARD_HELP[flag]
    raise ValueError(f"option {'/'.join(flags)} has no help text and no standard one: "
                     f"give it help= or add it to STANDARD_HELP")


def _from_argparse(parser: argparse.ArgumentParser) -> list[Entry]:
    entries = []
    for action in parser._actions:
        if action.help == "==SUPPRESS==":
            continue
        value: str | None = None
        if action.nargs != 0:
            if action.metavar is not None:
                value = str(action.metavar)
            elif action.choices is not None:
                value = "{" + ",".join(map(str, action.choices)) + "}"
            else:
                value = action.dest.upper()
        help_text = action.help % {"default": action.default, "prog": parser.prog} \
            if action.help and "%(" in action.help else action.help
        if not action.option_strings:
            entries.append(Entry([], value, action.nargs == "?", help_text or ""))
            continue
        entries.append(Entry(list(action.option_strings), value, action.nargs == "?",
                             _help(list(action.option_strings), help_text)))
    return entries


def _from_getopt(module: ModuleType) -> list[Entry]:
    entries = []
    for opt in module.OPTIONS:
        flags = ([f"-{opt.short}"] if opt.short != "\0" else []) + [f"--{opt.long}"]
        entries.append(Entry(flags, "VALUE" if opt.takes_value else None, False, opt.hint))
    return entries


def _parser(module: ModuleType, kind: str) -> argparse.ArgumentParser:
    return module.OPTIONS.parser() if kind == "options" else module._parser()


# -- roff ---------------------------------------------------------------------------------

def _text(text: str) -> str:
    """Running text for roff: backslashes escaped, no line starting as a request."""
    text = text.replace("\\", "\\e")
    return "\n".join("\\&" + line if line[:1] in (".", "'") else line
                     for line in text.split("\n"))


def _flag(flag: str) -> str:
    return "\\fB" + flag.replace("-", "\\-") + "\\fR"


def _value(entry: Entry) -> str:
    if entry.value is None:
        return ""
    value = "\\fI" + _text(entry.value).replace("-", "\\-") + "\\fR"
    return " [" + value + "]" if entry.optional else " " + value


def _paragraphs(text: str) -> list[str]:
    """A docstring as roff paragraphs: indented blocks kept as they are (.nf)."""
    out = []
    for block in text.strip("\n").split("\n\n"):
        lines = block.split("\n")
        if not block.strip():
            continue
        if all(line[:1] in (" ", "\t") or not line for line in lines):
            indent = min(len(line) - len(line.lstrip()) for line in lines if line.strip())
            out.append(".PP\n.RS 4\n.nf\n" + _text("\n".join(
                line[indent:] for line in lines)) + "\n.fi\n.RE")
        else:
            out.append(".PP\n" + _text(" ".join(line.strip() for line in lines)))
    return out


def entries(program: str) -> list[Entry]:
    """The options and arguments of ``program``, from its table."""
    module_name, kind = PROGRAMS[program]
    module = importlib.import_module(module_name)
    if kind == "getopt":
        return _from_getopt(module)
    return _from_argparse(_parser(module, kind))


def page(program: str) -> str:
    """The roff source of ``program``'s man page."""
    module_name, kind = PROGRAMS[program]
    module = importlib.import_module(module_name)
    doc = (module.__doc__ or "").strip()
    first, _, rest = doc.partition("\n\n")
    summary = " ".join(first.split())
    if summary.startswith(program + ":"):
        summary = summary[len(program) + 1:].strip()
    # NAME is the first sentence, without a note on where the code is; the rest of
    # the first paragraph opens the description
    summary, _, more = summary.partition(". ")
    summary = re.sub(r"\s*\([^()]*cfpromise[^()]*\)", "", summary).rstrip(".")
    if more:
        rest = more + "\n\n" + rest
    items = entries(program)
    out = [f'.TH {program.upper()} {SECTION} "" "cf-lite" "System Administration"',
           ".SH NAME", f"{program} \\- {_text(summary)}", ".SH SYNOPSIS", f".B {program}"]
    synopsis = ["[\\fIOPTION\\fR]..."]
    for item in items:
        if not item.flags:
            synopsis.append(f"[\\fI{_text(item.value or '')}\\fR]" if item.optional
                            else f"\\fI{_text(item.value or '')}\\fR")
    commands = getattr(module, "COMMANDS", None) if kind == "getopt" else None
    if commands:
        synopsis.insert(0, "\\fICOMMAND\\fR")
    out.append(" ".join(synopsis))
    out.append(".SH DESCRIPTION")
    description = []
    if kind != "getopt":
        parser = _parser(module, kind)
        if parser.description and parser.description.strip() != doc:
            description.append(parser.description)
    if rest.strip():
        description.append(rest)
    out += _paragraphs("\n\n".join(description) or summary + ".")
    if commands:
        out.append(".SH COMMANDS")
        for name, desc, use in commands:
            out += [".TP", f"\\fB{name}\\fR", _text(desc) + ".", ".br",
                    "Usage: " + _text(" ".join(use.split()))]
    out.append(".SH OPTIONS")
    for item in items:
        head = ", ".join(_flag(f) for f in item.flags) if item.flags else \
            f"\\fI{_text(item.value or '')}\\fR"
        out += [".TP", head + (_value(item) if item.flags else ""), _text(item.text)]
    out += [".SH FILES", ".TP", "\\fI/var/lib/cf\\-lite\\fR",
            "the work directory as root (\\fI~/.cf\\-lite\\fR otherwise): "
            "inputs, state, ppkeys, outputs",
            ".SH SEE ALSO"]
    others = [p for p in PROGRAMS if p != program] + [REFERENCE[program]]
    out.append(",\n".join(f".BR {p} ({SECTION})" for p in others))
    return "\n".join(out) + "\n"


def write(directory: str = MAN_DIR) -> list[str]:
    """Write every page into ``directory``; the paths written."""
    os.makedirs(directory, exist_ok=True)
    written = []
    for program in PROGRAMS:
        path = os.path.join(directory, f"{program}.{SECTION}")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(page(program))
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    directory = (sys.argv[1:] if argv is None else argv) or [MAN_DIR]
    for path in write(directory[0]):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
