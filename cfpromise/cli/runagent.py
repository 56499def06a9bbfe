"""cf-lite-runagent: ask servers to run their agent now (cf-runagent 3.21).

For each host of ``-H`` (or ``hosts`` in ``body runagent control``) it connects
through :mod:`cfpromise.net.client`, sends ``EXEC [-D classes] [-b bundles]``
(``-D``/``--define-class`` and ``--remote-bundles``), then the ``-s`` classes (one
transaction each) and the terminator, and prints what the server answers as
cf-runagent does (``host> -> line`` for the remote agent's output, ``host> !! ...``
for a refusal).  The server decides with its ``roles``, bundle ``access`` rules,
``allowusers`` and ``cfruncommand``.

The options are cf-runagent's, read as its getopt_long reads them
(:mod:`cfpromise.cli.gnuopts`): ``-b``/``--background[=N]`` hails the hosts from up to
N (50) child processes at once (``background_children``/``max_children`` in the
control body otherwise); ``-i``/``--interactive`` asks on the terminal whether to
trust a host whose key is not known yet (not with ``-b``: exit 101); ``-n`` changes
nothing in the request, as in cf-runagent; ``-x`` and ``-o`` are deprecated (exit 1);
``-t`` is the connection timeout in seconds.
Exit code: the remote agent's with one host, else the number of failed runs
(at most 100), 255 when the one host could not run; in the background a host's
run is its child's exit code, which is 101 when the remote agent's was 0 or unknown,
as cf-runagent 3.21's.
"""
from __future__ import annotations

import os
import sys
from typing import Any, TextIO

from cfpromise.cli.compat import (ROWS_COMMON, ROWS_GETOPT_ONLY, ROWS_LEVEL, ROWS_LOOK,
                                  string_to_long)
from cfpromise.cli.options import Options
from cfpromise.fast import oneshot

OTHER_ERROR = 255
CHILD_OTHER_ERROR = 101         # cf-runagent's CF_RA_EXIT_CODE_OTHER_ERR (cfpromise.cli.hailing)
DEFAULT_MAX_CHILD = 50

OPTIONS = Options((
    (("-b", "--background"), dict(nargs="?", const="", type=string_to_long, metavar="N",
                                  help="hail up to N hosts at once, from child processes "
                                       "(default 50)")),
    *ROWS_LEVEL,
    (("-n", "--dry-run"), dict(action="store_true", help="accepted: the request is the same, "
                                                         "as cf-runagent's")),
    (("-V", "--version"), dict(action="store_true")),
    (("-f", "--file"), dict(help="policy with body runagent control")),
    (("policy",), dict(nargs="?", help="as -f")),
    (("-D", "--define-class"), dict(action="append", default=[],
                                    help="classes for the remote agent to define (roles "
                                         "decide)")),
    (("-s", "--select-class"), dict(action="append", default=[],
                                    help="run only on servers that have one of these classes")),
    (("-o", "--remote-options"), dict(help="deprecated: refused, exit 1")),
    (("-x", "--diagnostic"), dict(action="store_true", dest="deprecated",
                                  help="deprecated: refused, exit 1")),
    (("-H", "--hail"), dict(help="comma-separated hosts (host, host:port, [v6]:port)")),
    (("-i", "--interactive"), dict(action="store_true",
                                   help="ask whether to trust a host whose key is not known")),
    (("-t", "--timeout"), dict(type=string_to_long, default=30, metavar="SECONDS",
                               help="connection timeout")),
    *ROWS_LOOK,
    *ROWS_COMMON,
    (("--remote-bundles",), dict(action="append", default=[],
                                 help="bundlesequence for the remote agent (bundle access "
                                      "rules decide)")),
    *ROWS_GETOPT_ONLY,
    (("-K",), dict(action="store_true", dest="no_lock", help="==SUPPRESS==")),
    (("-q",), dict(dest="unhandled", help="==SUPPRESS==")),
    (("-w", "--workdir"), dict(help="the work directory")),
), extras=("--workdir",),
   prog="cf-lite-runagent", description="activate cf-agent on remote hosts through their "
                                        "cf-serverd (cf-runagent 3.21)")
STOPS = ("version", "manpage", "unhandled", "remote_options", "deprecated")


def _joined(items: list[str]) -> str:
    return ",".join(i for item in items for i in item.split(",") if i)


def _control(path: str | None, workdir: str, ignore_preferred_augments: bool = False
             ) -> dict[str, Any]:
    if not path or not os.path.exists(path):
        return {}
    from cfpromise.agent.loading import LoadError, evaluated_agent
    from cfpromise.eval.context import Frame
    from cfpromise.syntax.errors import PolicyError
    try:
        agent = evaluated_agent(path, workdir,
                                ignore_preferred_augments=ignore_preferred_augments)
    except (LoadError, PolicyError) as exc:
        for d in exc.diagnostics[:5]:
            print(f"   error: {d.message}", file=sys.stderr)
        raise SystemExit(OTHER_ERROR) from None
    if agent.bodies.get(("default", "control", "runagent")) is None:
        return {}
    agent.ctx.push(Frame("default", "control"))
    try:
        return agent.resolver.resolve("runagent", "control", [], "default", {})
    finally:
        agent.ctx.pop()


def _list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    return [v for v in value if isinstance(v, str) and v] if isinstance(value, list) else []


def hail(host: str, exec_line: str, send_classes: list[str], opts: Any, out: TextIO,
         log: Any) -> int:
    """One host's remote run; the remote exit code, or -1 when it could not run."""
    from cfpromise.net import client
    from cfpromise.net import protocol as P
    name = client.split_host_port(host, opts.port)[0]
    try:
        conn = client.connect(host, opts)
    except client.NetError as exc:
        set_up = isinstance(exc, (client.NoHostKey, client.SetupError))
        log("error" if set_up else "info", str(exc))
        log("error", f"Failed to connect to host: {name}")
        return -1
    code = -1
    try:
        conn.send(exec_line.encode())
        for cls in send_classes:
            conn.send(cls.encode())
        conn.send(P.CFD_TERMINATOR.encode())
        while True:
            payload, _ = conn.recv()
            text = P.cstring(payload)
            if text.startswith(P.CFD_TERMINATOR):
                break
            if text.startswith("BAD:"):
                line = f"{name}> !! {text[4:]}"
            elif text.startswith("> "):
                line = f"{name}> -> {text[2:]}"
            else:
                if text.startswith("(exit code:"):
                    try:
                        code = int(text[len("(exit code:"):].strip().rstrip(")\n").strip())
                    except ValueError:
                        log("error", f"Failed to parse exit code from '{text}'")
                line = f"{name}> {text}"
            out.write(line if line.endswith("\n") else line + "\n")
    except client.NetError as exc:
        log("verbose", f"Connection to {host} ended: {exc}")
    finally:
        out.flush()
        conn.close()
    return code


def main(argv: list[str] | None = None) -> int:
    from cfpromise.cli.entry import PROTOCOL_NOTE, getopt_start
    args = getopt_start(OPTIONS, argv, "cf-lite-runagent", PROTOCOL_NOTE, STOPS)
    if isinstance(args, int):
        return args
    from cfpromise.agent.output import Output, say
    if args.remote_options is not None:
        say("error", 'Option "-o" has been deprecated, you can not pass arbitrary arguments '
                     "to remote cf-agent", args.timestamp)
        return 1
    if args.deprecated:
        say("error", 'Option "-x" has been deprecated', args.timestamp)
        return 1
    from cfpromise.cli.agent import default_workdir
    from cfpromise.cli.compat import colored
    from cfpromise.net import client
    workdir = os.environ.get("CFENGINE_TEST_OVERRIDE_WORKDIR") or args.workdir or default_workdir()
    out = Output(args.log_level or "notice", args.timestamp)
    out.color = colored(args, out.stream)

    def log(level: str, message: str) -> None:
        out.log(level, message)
        out.stream.flush()
    control = _control(args.policy or args.file, workdir, args.ignore_preferred_augments)
    background = args.background is not None
    if "background_children" in control:
        if background or args.interactive:
            log("warning", "'background_children' setting from 'body runagent control' is "
                           "overridden by command-line option.")
        else:
            background = control["background_children"] in ("true", "yes", "on")
    max_child = args.background or _int(control.get("max_children")) or DEFAULT_MAX_CHILD
    if background and args.interactive:
        log("error", "You cannot specify background mode and interactive mode together")
        return CHILD_OTHER_ERROR
    hosts = [h for h in (args.hail or "").split(",") if h] or _list(control.get("hosts"))
    if not hosts:
        log("notice", "No hosts to contact (-H or body runagent control hosts)")
        return 0
    port = control.get("port") if isinstance(control.get("port"), str) else client.DEFAULT_PORT
    trust = control.get("trustkey") in ("true", "yes", "on")
    timeout = _int(control.get("timeout")) or args.timeout
    opts = client.ConnectOptions(workdir=workdir, port=port, trust=trust, timeout=timeout,
                                 log=log, force_ipv4=control.get("force_ipv4") in
                                 ("true", "yes", "on"))
    exec_line = "EXEC"
    classes = _joined(args.define_class)
    bundles = _joined(args.remote_bundles)
    if classes:
        exec_line += " -D" + classes
    if bundles:
        exec_line += " -b " + bundles
    if len(exec_line) >= 4088:
        log("error", "Command longer than maximum transaction packet")
        return OTHER_ERROR
    send_classes = [c for c in _joined(args.select_class).replace(":", ",").replace(" ", ",")
                    .split(",") if c]

    def one(host: str) -> int:
        name, port_ = client.split_host_port(host, opts.port)
        host_opts = opts
        if args.interactive:
            from cfpromise.cli.hailing import ask_trust
            host_opts = ask_trust(name, opts, log)
        if background:
            log("info", f"Hailing {name} : {port_} (in the background)")
        else:
            log("info", "." * 72)
            log("info", f"Hailing {name} : {port_}")
            log("info", "." * 72)
        return hail(host, exec_line, send_classes, host_opts, sys.stdout, log)
    if background:
        from cfpromise.cli.hailing import in_background
        return in_background(hosts, one, max_child, log)
    exit_code = 0
    for host in hosts:
        code = one(host)
        if len(hosts) == 1:
            exit_code = code if code >= 0 else OTHER_ERROR
        elif code != 0:
            exit_code = min(exit_code + 1, 100)
    return exit_code


def _int(value: Any) -> int | None:
    try:
        return int(value) if isinstance(value, str) else None
    except ValueError:
        return None


program = oneshot.program(main)      # the console script (a one-shot process)


if __name__ == "__main__":
    sys.exit(program())
