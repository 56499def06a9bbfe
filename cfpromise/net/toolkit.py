"""What cf-lite's small network tools share: CFEngine-style option parsing
(getopt_long: options and operands may mix), CFEngine's help layout, log lines
with CFEngine's prefixes on stdout, and the work directory."""
from __future__ import annotations

import getopt
import os
import sys
import attrs

LEVELS = ("debug", "verbose", "info", "notice", "warning", "error")
FOOTER = ("\nWebsite: http://www.cfengine.com\n"
          "This software is Copyright (C) 2008,2010-present Northern.tech AS.\n")


@attrs.frozen
class Opt:
    long: str
    short: str
    hint: str
    takes_value: bool = False


class Log:
    """Levelled lines (``   error: ...``) on stdout, like the C tools' Log()."""

    def __init__(self, level: str = "notice") -> None:
        self.level = level

    def set(self, level: str) -> bool:
        level = level.lower()
        if level == "inform":
            level = "info"
        if level not in LEVELS:
            return False
        self.level = level
        return True

    def enabled(self, level: str) -> bool:
        return LEVELS.index(level) >= LEVELS.index(self.level)

    def __call__(self, level: str, message: str) -> None:
        if self.enabled(level):
            sys.stdout.write(f"{level:>8}: {message}\n")
            sys.stdout.flush()


def workdir() -> str:
    from cfpromise.eval.hardclasses import default_workdir
    return os.environ.get("CFENGINE_TEST_OVERRIDE_WORKDIR") or default_workdir()


def help_text(program: str, usage: str, options: list[Opt],
              commands: list[tuple[str, str, str]] | None = None,
              commands_first: bool = True) -> str:
    """WriterWriteHelp's layout."""
    cmd_lines: list[str] = []
    if commands:
        cmd_lines.append("Commands:")
        for name, desc, use in commands:
            cmd_lines.append(f"  {name:<12} - {desc}.")
            cmd_lines.append(f"                 Usage: {use}")
    opt_lines = ["Options:"]
    for o in options:
        value = " value" if o.takes_value else "      "
        opt_lines.append(f"  --{o.long:<12}, -{o.short}{value} - {o.hint}")
    blocks = [cmd_lines, opt_lines] if commands_first else [opt_lines, cmd_lines]
    out = [f"Usage: {usage}"]
    for block in blocks:
        if block:
            out += [""] + block
    return "\n".join(out) + "\n" + FOOTER


def parse(argv: list[str], options: list[Opt]) -> tuple[list[tuple[str, str]], list[str]]:
    """(options as (long name, value), operands); getopt.GetoptError on a bad one."""
    shorts = "".join(o.short + (":" if o.takes_value else "") for o in options)
    longs = [o.long + ("=" if o.takes_value else "") for o in options]
    by_flag = {f"-{o.short}": o.long for o in options} | {f"--{o.long}": o.long for o in options}
    pairs, rest = getopt.gnu_getopt(argv, shorts, longs)
    return [(by_flag[flag], value) for flag, value in pairs], rest
