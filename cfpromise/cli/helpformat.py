"""The programs' help layout (argparse's, with the width from COLUMNS).

A module of its own so that importing the cli package does not import argparse:
cf-lite-agent and cf-lite-promises read plain command lines without it
(:mod:`cfpromise.cli.options`).
"""
from __future__ import annotations

import argparse
import os


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """argparse's raw-description formatter with the width taken from ``COLUMNS`` (80 by
    default) instead of asking the terminal: argparse builds a formatter for every
    option it adds, and the terminal query imports shutil (and bz2, lzma...), which a
    cron run every five minutes should not pay for."""

    def __init__(self, prog: str) -> None:
        try:
            width = int(os.environ.get("COLUMNS", "80")) - 2
        except ValueError:
            width = 78
        super().__init__(prog, width=max(width, 20))
