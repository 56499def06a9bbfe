"""The man pages (cfpromise/cli/manpage.py): one per program, made from the option table
the program parses with, shipped current, and rendered by man(1) without a warning."""
from __future__ import annotations

import configparser
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cfpromise.cli import manpage

REPO = Path(__file__).resolve().parents[2]


def test_every_program_has_a_page() -> None:
    cfg = configparser.ConfigParser()
    cfg.read(REPO / "setup.cfg")
    programs = [os.path.basename(p) for p in cfg["options"]["scripts"].split()]
    assert sorted(manpage.PROGRAMS) == sorted(programs)
    shipped = sorted(os.listdir(manpage.MAN_DIR))
    assert shipped == sorted(f"{p}.{manpage.SECTION}" for p in programs)


@pytest.mark.parametrize("program", sorted(manpage.PROGRAMS))
def test_shipped_page_is_current(program: str) -> None:
    """Regenerate with `make manpages` (python -m cfpromise.cli.manpage) when this fails."""
    path = os.path.join(manpage.MAN_DIR, f"{program}.{manpage.SECTION}")
    with open(path, encoding="utf-8") as fh:
        assert fh.read() == manpage.page(program), \
            f"{path} is stale: run `make manpages`"


def _argparse_options(program: str) -> list[list[str]]:
    """Every option string group of the program's own parser, read independently of
    the generator's Entry model."""
    import importlib
    module_name, kind = manpage.PROGRAMS[program]
    module = importlib.import_module(module_name)
    if kind == "getopt":
        return [[f"--{o.long}"] + ([f"-{o.short}"] if o.short != "\0" else [])
                for o in module.OPTIONS]
    parser = module.OPTIONS.parser() if kind == "options" else module._parser()
    # (an option kept out of the help, as CFEngine's -M, is kept out of the page too)
    return [list(a.option_strings) for a in parser._actions
            if a.option_strings and a.help != "==SUPPRESS=="]


@pytest.mark.parametrize("program", sorted(manpage.PROGRAMS))
def test_every_option_is_documented(program: str) -> None:
    text = manpage.page(program)
    options = text.split(".SH OPTIONS", 1)[1].split(".SH ", 1)[0]
    items = options.split(".TP\n")[1:]
    heads = [item.split("\n", 1)[0] for item in items]
    groups = _argparse_options(program)
    assert groups
    for group in groups:
        roffed = ["\\fB" + flag.replace("-", "\\-") + "\\fR" for flag in group]
        where = [i for i, head in enumerate(heads) if all(r in head for r in roffed)]
        assert where, f"{program}: {' '.join(group)} is not in its man page"
        body = items[where[0]].split("\n", 1)[1].strip()
        assert body, f"{program}: {' '.join(group)} has no description"


def test_options_without_help_get_the_standard_text() -> None:
    page = manpage.page("cf-lite-serverd")
    assert "\\fB\\-F\\fR, \\fB\\-\\-no\\-fork\\fR\nrun in the foreground" in page
    assert "\\fB\\-I\\fR, \\fB\\-\\-inform\\fR\n" + manpage.STANDARD_HELP["--inform"] in page


def test_roff_escaping() -> None:
    assert manpage._text("a\\b\n.start\n'quote") == "a\\eb\n\\&.start\n\\&'quote"


@pytest.mark.parametrize("program", sorted(manpage.PROGRAMS))
def test_man_renders_without_warnings(program: str) -> None:
    if not shutil.which("man"):
        pytest.skip("man(1) is not installed (apt-get install man-db groff-base)")
    path = os.path.join(manpage.MAN_DIR, f"{program}.{manpage.SECTION}")
    env = dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8", MANPAGER="cat", PAGER="cat")
    proc = subprocess.run(["man", "--warnings", "-l", path], capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "", proc.stderr
    assert proc.stdout.startswith(program.upper() + "(8)")
    assert "NAME" in proc.stdout and "OPTIONS" in proc.stdout


def test_man_warning_check_can_fail(tmp_path: Path) -> None:
    """The check above does see roff mistakes (an undefined macro here)."""
    if not shutil.which("man"):
        pytest.skip("man(1) is not installed (apt-get install man-db groff-base)")
    bad = tmp_path / "bad.8"
    bad.write_text(manpage.page("cf-lite-key").replace(".SH OPTIONS", ".SH OPTIONS\n.XX y"))
    proc = subprocess.run(["man", "--warnings", "-l", str(bad)], capture_output=True,
                          text=True, env=dict(os.environ, MANPAGER="cat", PAGER="cat"),
                          timeout=60)
    assert "warning" in proc.stderr
