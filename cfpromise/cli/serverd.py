"""cf-lite-serverd: serve files, variables and remote runs to CFEngine agents (cf-serverd 3.21).

Options are every CFEngine daemon's (see :func:`cfpromise.daemon.add_arguments`);
the work is in :mod:`cfpromise.server`.  ``--port`` overrides ``body server
control`` ``port`` (for tests)."""
from __future__ import annotations

import argparse
import sys


def _parser() -> argparse.ArgumentParser:
    """The options (also read by cfpromise.cli.manpage for the man page)."""
    from cfpromise.daemon import add_arguments
    ap = argparse.ArgumentParser(prog="cf-lite-serverd",
                                 description="cf-lite's server daemon (cf-serverd 3.21)")
    add_arguments(ap)
    ap.add_argument("--port", type=int, help="listen on this port, whatever the policy says")
    return ap


def main(argv: list[str] | None = None) -> int:
    from cfpromise.cli.entry import PROTOCOL_NOTE, argparse_start
    args = argparse_start(_parser(), argv, "cf-lite-serverd", PROTOCOL_NOTE, sanitize=True)
    if isinstance(args, int):
        return args
    from cfpromise.daemon import options_from_args
    from cfpromise.server.daemon import ServerD
    return ServerD(options_from_args(args), port=args.port).run()


if __name__ == "__main__":
    sys.exit(main())
