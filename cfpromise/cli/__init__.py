"""cf-lite: cli package (the programs' command lines; the work is elsewhere)."""
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
