"""cf-lite-runagent: ask servers to run their agent now (cf-runagent 3.21).

For each host of ``-H`` (or ``hosts`` in ``body runagent control``) it connects
through :mod:`cfpromise.net.client`, sends ``EXEC [-D classes] [-b bundles]``,
then the ``-s`` classes (one transaction each) and the terminator, and prints
what the server answers as cf-runagent does (``host> -> line`` for the remote
agent's output, ``host> !! ...`` for a refusal).  The server decides with its
``roles``, bundle ``access`` rules, ``allowusers`` and ``cfruncommand``.
Exit code: the remote agent's with one host, else the number of failed runs
(at most 100), 255 on other errors.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Any, TextIO

from cfpromise.fast import oneshot

OTHER_ERROR = 255


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="cf-lite-runagent",
                                 description="activate cf-agent on remote hosts through their "
                                             "cf-serverd (cf-runagent 3.21)")
    ap.add_argument("-H", "--hail", help="comma-separated hosts (host, host:port, [v6]:port)")
    ap.add_argument("-D", "--define-class", action="append", default=[],
                    help="classes for the remote agent to define (roles decide)")
    ap.add_argument("-s", "--select-class", action="append", default=[],
                    help="run only on servers that have one of these classes")
    ap.add_argument("--remote-bundles", action="append", default=[],
                    help="bundlesequence for the remote agent (bundle access rules decide)")
    ap.add_argument("-f", "--file", help="policy with body runagent control")
    ap.add_argument("policy", nargs="?", help="as -f")
    ap.add_argument("-t", "--timeout", type=float, default=30.0, help="connection timeout")
    ap.add_argument("-I", "--inform", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("-d", "--debug", action="store_true")
    ap.add_argument("-g", "--log-level")
    ap.add_argument("-w", "--workdir")
    ap.add_argument("-o", "--remote-options")
    ap.add_argument("-V", "--version", action="store_true")
    return ap


def _joined(items: list[str]) -> str:
    return ",".join(i for item in items for i in item.split(",") if i)


def _control(path: str | None, workdir: str) -> dict[str, Any]:
    if not path or not os.path.exists(path):
        return {}
    from cfpromise.agent.loading import LoadError, evaluated_agent
    from cfpromise.eval.context import Frame
    from cfpromise.syntax.errors import PolicyError
    try:
        agent = evaluated_agent(path, workdir)
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
    try:
        conn = client.connect(host, opts)
    except client.NetError as exc:
        log("error", f"Failed to connect to host: {host} ({exc})")
        return -1
    name = client.split_host_port(host, opts.port)[0]
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
    from cfpromise.cli.entry import PROTOCOL_NOTE, argparse_start
    args = argparse_start(_parser(), argv, "cf-lite-runagent", PROTOCOL_NOTE)
    if isinstance(args, int):
        return args
    if args.remote_options:
        print('   error: Option "-o" has been deprecated, you can not pass arbitrary arguments '
              "to remote cf-agent", file=sys.stderr)
        return 1
    from cfpromise.cli.agent import default_workdir
    from cfpromise.net import client
    workdir = os.environ.get("CFENGINE_TEST_OVERRIDE_WORKDIR") or args.workdir or default_workdir()
    level = args.log_level or ("debug" if args.debug else "verbose" if args.verbose else
                               "info" if args.inform else "notice")
    from cfpromise.agent.output import LEVELS, PREFIX

    def log(lvl: str, message: str) -> None:
        if LEVELS[lvl] >= LEVELS.get(level, 3):
            print(PREFIX[lvl] + message, file=sys.stderr if lvl in ("error", "warning") else
                  sys.stdout, flush=True)
    control = _control(args.policy or args.file, workdir)
    hosts = [h for h in (args.hail or "").split(",") if h] or _list(control.get("hosts"))
    if not hosts:
        log("notice", "No hosts to contact (-H or body runagent control hosts)")
        return 0
    port = control.get("port") if isinstance(control.get("port"), str) else client.DEFAULT_PORT
    trust = control.get("trustkey") in ("true", "yes", "on")
    timeout = args.timeout
    if isinstance(control.get("timeout"), str):
        try:
            timeout = float(control["timeout"])
        except ValueError:
            pass
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
    exit_code = 0
    for host in hosts:
        log("info", "." * 72)
        log("info", f"Hailing {host}")
        log("info", "." * 72)
        code = hail(host, exec_line, send_classes, opts, sys.stdout, log)
        if len(hosts) == 1:
            exit_code = code if code >= 0 else OTHER_ERROR
        elif code != 0:
            exit_code = min(exit_code + 1, 100)
    return exit_code


program = oneshot.program(main)      # the console script (a one-shot process)


if __name__ == "__main__":
    sys.exit(program())
