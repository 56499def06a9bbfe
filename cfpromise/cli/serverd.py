"""cf-lite-serverd: serve files, variables and remote runs to CFEngine agents (cf-serverd 3.21).

Options are every CFEngine daemon's (:data:`cfpromise.daemon.ROWS_DAEMON`, read as
getopt_long reads cf-serverd's) and cf-serverd's own: ``-L``/``--ld-library-path``
sets LD_LIBRARY_PATH for the programs the server runs (``cfruncommand``);
``-A``/``--generate-avahi-conf`` is not supported -- cf-lite-serverd says what a
cf-serverd built without Avahi says, exit 0; ``-t``/``--graceful-detach[=SECONDS]`` is
checked as cf-serverd checks it, but only matters where cf-serverd hands over to systemd
on SIGHUP: cf-lite-serverd reloads in place.  ``--port`` overrides ``body server
control`` ``port`` (for tests).  The work is in :mod:`cfpromise.server`."""
from __future__ import annotations

import os
import sys

from cfpromise.cli.compat import string_to_long
from cfpromise.cli.options import Options
from cfpromise.daemon import ROWS_DAEMON, STOPS

AVAHI = ("Generating avahi configuration can only be done when avahi-daemon and libavahi are "
         "installed on the machine.")

OPTIONS = Options((
    *ROWS_DAEMON,
    (("-L", "--ld-library-path"), dict(metavar="PATH", help="LD_LIBRARY_PATH for the "
                                                            "programs the server runs")),
    (("-A", "--generate-avahi-conf"), dict(action="store_true",
                                           help="not supported (no Avahi): says so, exit 0")),
    (("-t", "--graceful-detach"), dict(nargs="?", const=60, type=string_to_long,
                                       metavar="SECONDS",
                                       help="accepted (cf-serverd's systemd hand-over on "
                                            "SIGHUP; cf-lite-serverd reloads in place)")),
    (("--port",), dict(type=string_to_long, help="listen on this port, whatever the policy says")),
), extras=("--workdir", "--port"),
   prog="cf-lite-serverd", description="cf-lite's server daemon (cf-serverd 3.21)")


def main(argv: list[str] | None = None) -> int:
    from cfpromise.cli.entry import PROTOCOL_NOTE, getopt_start
    from cfpromise.daemon import options_from_args
    args = getopt_start(OPTIONS, argv, "cf-lite-serverd", PROTOCOL_NOTE, STOPS + ("generate_avahi_conf",))
    if isinstance(args, int):
        return args
    if args.generate_avahi_conf:
        from cfpromise.agent.output import say
        say("error", AVAHI, args.timestamp)
        return 0
    options = options_from_args(args)
    from cfpromise.server.daemon import ServerD
    server = ServerD(options, port=args.port)
    if args.ld_library_path is not None:
        server.log("verbose", f"Setting LD_LIBRARY_PATH to '{args.ld_library_path}'")
        os.environ["LD_LIBRARY_PATH"] = args.ld_library_path
    return server.run()


if __name__ == "__main__":
    sys.exit(main())
