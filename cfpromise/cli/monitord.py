"""cf-lite-monitord: the monitoring daemon, as cf-monitord 3.21 (the work is in cfpromise.monitor).

Beyond cf-monitord's options, for tests and cron:

    --interval SECONDS   seconds between samples (default 150, as cf-monitord; also the
                         CF_LITE_MONITOR_INTERVAL environment variable)
    --once               take one sample, write WORKDIR/state/env_data and exit

Environment: CF_LITE_MONITOR_PIPE_TIMEOUT (seconds a pipe measurement may run, default 60),
CF_LITE_POLICY_CHECK_INTERVAL (seconds between checks of the policy files, default 5).
"""
from __future__ import annotations

import os
import sys

from cfpromise.cli.options import Options
from cfpromise.daemon import ROWS_DAEMON

OPTIONS = Options((
    *ROWS_DAEMON,
    (("-n", "--dry-run"), dict(action="store_true", dest="unhandled",
                               help="listed by cf-monitord 3.21, which refuses it: the help, "
                                    "exit 1")),
    (("-H", "--histograms"), dict(action="store_true",
                                  help="ignored for backward compatibility, as cf-monitord")),
    (("-T", "--tcpdump"), dict(action="store_true",
                               help="accepted; cf-lite-monitord does not sniff packets")),
    (("--interval",), dict(type=float, metavar="SECONDS",
                           help="seconds between samples (default 150)")),
    (("--once",), dict(action="store_true", help="take one sample and exit")),
), extras=("--workdir", "--interval", "--once"),
   prog="cf-lite-monitord", description="Monitoring daemon for CFEngine 3 policy.",
   epilog=__doc__.split("\n\n", 1)[1])


def _seconds(text: str | None, default: float) -> float:
    try:
        value = float(text) if text not in (None, "") else default
    except ValueError:
        return default
    return value if value > 0 else default


def main(argv: list[str] | None = None) -> int:
    from cfpromise.cli.entry import getopt_start, language_note
    from cfpromise.daemon import STOPS, options_from_args
    args = getopt_start(OPTIONS, argv, "cf-lite-monitord", language_note(), STOPS)
    if isinstance(args, int):
        return args
    from cfpromise.monitor.daemon import DEFAULT_INTERVAL, MonitorDaemon
    from cfpromise.monitor.measurements import DEFAULT_PIPE_TIMEOUT
    options = options_from_args(args)
    interval = args.interval if args.interval and args.interval > 0 else _seconds(
        os.environ.get("CF_LITE_MONITOR_INTERVAL"), DEFAULT_INTERVAL)
    timeout = _seconds(os.environ.get("CF_LITE_MONITOR_PIPE_TIMEOUT"), DEFAULT_PIPE_TIMEOUT)
    if args.once:
        options.foreground = True
    daemon = MonitorDaemon(options, interval=interval, pipe_timeout=timeout)
    if args.once:
        return daemon.run_once()
    return daemon.run()


if __name__ == "__main__":
    sys.exit(main())
