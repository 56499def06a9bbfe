"""cf-lite-runagent's two ways of hailing that cf-runagent 3.21's options choose:
``-i`` (ask on the terminal whether to trust a host whose key is not known) and
``-b`` (hail from child processes, several hosts at once).

Why a module of its own: both are about processes and the terminal, not the request
(:mod:`cfpromise.cli.runagent`), and are loaded only when their option is given.
"""
from __future__ import annotations

import os
import socket
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Sequence

CHILD_OTHER_ERROR = 101         # cf-runagent's CF_RA_EXIT_CODE_OTHER_ERR


def known_key(workdir: str, address: str, user: str) -> bool:
    """Whether a key this user trusts was last seen at ``address`` (cf-runagent's
    HavePublicKey of the address's key digest)."""
    from cfpromise.net import keys, lastseen
    return any(not e["incoming"] and e["address"] == address
               and keys.find_trusted_key(workdir, str(e["key"]), user) is not None
               for e in lastseen.load(workdir))


def ask_trust(name: str, opts: Any, log: Callable[[str, str], Any]) -> Any:
    """``opts`` for hailing ``name``, trusting its key when the user says yes; EOF on
    the terminal is cf-runagent's fatal error (exit 1)."""
    import attrs

    from cfpromise.net.connection import current_user
    try:
        address = socket.getaddrinfo(name, None)[0][4][0]
    except (OSError, IndexError):
        return opts
    log("verbose", "Using interactive key trust...")
    if known_key(opts.workdir, address, opts.username or current_user()):
        return opts
    sys.stdout.write(f"WARNING - You do not have a public key from host {name} = {address}\n"
                     "          Do you want to accept one on trust? (yes/no)\n\n--> ")
    sys.stdout.flush()
    while True:
        line = sys.stdin.readline()
        if not line:
            log("error", "Fatal CFEngine error: EOF trying to read answer from terminal")
            raise SystemExit(1)
        reply = line.rstrip("\n")
        if reply in ("yes", "no"):
            sys.stdout.write("Will trust the key...\n" if reply == "yes"
                             else "Will not trust the key...\n")
            sys.stdout.flush()
            return attrs.evolve(opts, trust=reply == "yes")
        sys.stdout.write(f"Please reply yes or no...({reply})\n")
        sys.stdout.flush()


def in_background(hosts: Sequence[str], hail: Callable[[str], int], max_child: int,
                  log: Callable[[str, str], Any]) -> int:
    """Each host hailed in a child process, at most ``max_child`` at once, as
    cf-runagent -b: a child exits with the remote agent's exit code, or 101 when that
    was 0 or unknown (so, as in 3.21, every background run counts as failed); the exit
    code is the child's with one host, else the number of failed runs (at most 100)."""
    exit_code = 0
    one_host = len(hosts) == 1
    running = 0

    def reaped() -> None:
        nonlocal exit_code, running
        _pid, status = os.wait()
        running -= 1
        failed = not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0
        if one_host:
            exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else CHILD_OTHER_ERROR
        elif exit_code < CHILD_OTHER_ERROR and failed:
            exit_code = min(exit_code + 1, 100)
    for host in hosts:
        while running >= max(max_child, 1):
            reaped()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:                                    # the child
            code = CHILD_OTHER_ERROR
            try:
                remote = hail(host)
                code = remote if remote > 0 else CHILD_OTHER_ERROR
            finally:
                sys.stdout.flush()
                os._exit(code)
        running += 1
    log("notice", "Waiting for child processes to finish")
    while running > 0:
        reaped()
    return exit_code
