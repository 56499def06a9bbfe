"""cf-lite-secret: encrypt and decrypt files for host keys, as cf-secret 3.21
(same command line, same file format: cfpromise/net/secret.py)."""
from __future__ import annotations

import getopt
import os
import socket
import sys
from typing import BinaryIO

from cfpromise.cli.entry import getopt_main
from cfpromise.net.toolkit import Log, Opt, help_text, parse, workdir

OPTIONS = [
    Opt("help", "h", "Print the help message"),
    Opt("manpage", "M", "Print the man page"),
    Opt("debug", "d", "Enable debugging output"),
    Opt("verbose", "v", "Enable verbose output"),
    Opt("log-level", "g", "Specify how detailed logs should be. Possible values: 'error', "
        "'warning', 'notice', 'info', 'verbose', 'debug'", True),
    Opt("inform", "I", "Enable basic information output"),
    Opt("key", "k", "Comma-separated list of key files to use (one of -k/-H options is required "
        "for encryption)", True),
    Opt("host", "H", "Comma-separated list of hosts to encrypt/decrypt for (defaults to "
        "'localhost' for decryption)", True),
    Opt("output", "o", "Output file (required)", True),
]
COMMANDS = [
    ("encrypt", "Encrypt data for one or more hosts/keys",
     "cf-secret encrypt -k/-H KEY/HOST -o OUTPUT INPUT"),
    ("decrypt", "Decrypt data", "cf-secret decrypt [-k/-H KEY/HOST] -o OUTPUT INPUT"),
    ("print-headers", "Print headers from an encrypted file",
     "cf-secret print-headers ENCRYPTED_FILE"),
]


class Fail(Exception):
    pass


def _help() -> str:
    return help_text("cf-secret", "cf-secret COMMAND [OPTIONS] [FILE]", OPTIONS, COMMANDS)


def _is_local(host: str) -> bool:
    try:
        infos = socket.getaddrinfo(host, None)
    except (socket.gaierror, UnicodeError) as exc:
        raise Fail(f"Failed to get IP from host (getaddrinfo: {exc.strerror or exc})") from None
    return any(str(info[4][0]).startswith("127.") or info[4][0] == "::1" for info in infos)


def host_key_path(host: str, private: bool, wd: str) -> str:
    """GetHostRSAKey: localhost's own pair, else a trusted key stored by address."""
    ext = ".priv" if private else ".pub"
    if _is_local(host):
        return os.path.join(wd, "ppkeys", "localhost" + ext)
    for info in socket.getaddrinfo(host, None):
        path = os.path.join(wd, "ppkeys", f"root-{info[4][0]}{ext}")
        if os.path.exists(path):
            return path
    raise Fail(f"Unable to locate key for host '{host}'")


def _open_in(path: str) -> BinaryIO:
    return sys.stdin.buffer if path == "-" else open(path, "rb")


def _write_output(path: str, produce: "object") -> None:
    """Run ``produce(fh)`` into ``path`` atomically (or stdout for '-')."""
    if path == "-":
        produce(sys.stdout.buffer)                   # type: ignore[operator]
        sys.stdout.flush()
        return
    from cfpromise.atomic import CreateError, write_atomically
    try:
        write_atomically(path, produce, fsync=False, make_dirs=False)   # type: ignore[arg-type]
    except CreateError as exc:
        raise Fail(f"Could not create or open output file '{path}' ({exc.strerror})") from None


def run(argv: list[str], log: Log) -> int:
    from cfpromise.net import keys, secret
    if not argv:
        sys.stdout.write(_help())
        return 1
    command = argv[0] if argv[0] in ("encrypt", "decrypt", "print-headers") else None
    try:
        opts, rest = parse(argv[1:] if command else argv, OPTIONS)
    except getopt.GetoptError as exc:
        log("error", f"Unknown option '-{exc.opt}'")
        sys.stdout.write(_help())
        return 1
    key_arg = host_arg = output = None
    for name, value in opts:
        if name == "help":
            sys.stdout.write(_help())
            return 0
        if name == "manpage":
            sys.stdout.write(_help())
            return 0
        if name in ("debug", "verbose", "inform"):
            log.set(name)
        elif name == "log-level":
            if not log.set(value):
                log("error", f"Invalid log level '{value}'")
                return 1
        elif name == "key":
            key_arg = value
        elif name == "host":
            host_arg = value
        elif name == "output":
            output = value
    if command is None:
        sys.stdout.write("Command required. Specify either 'encrypt', 'decrypt' or "
                         "'print-headers'\n" + _help())
        return 1
    if len(rest) > 1:
        log("error", f"Unexpected non-option argument: '{rest[1]}'")
        return 1
    source = rest[0] if rest else None
    if command == "print-headers":
        if source is None:
            log("error", "No input file specified (Use -h for help)")
            return 1
        try:
            with _open_in(source) as fh:
                for key, value in secret.read_headers(fh):
                    sys.stdout.write(f"{key}: {value}\n")
        except OSError as exc:
            log("error", f"Cannot open input file '{source}' ({exc.strerror})")
            return 1
        except secret.SecretError as exc:
            log("error", str(exc))
            return 1
        return 0
    if command == "decrypt" and host_arg is None and key_arg is None:
        host_arg = "localhost"
    if host_arg is not None and key_arg is not None:
        log("error", "--host/-H is used to specify a public key and cannot be used with --key/-k")
        return 1
    if source is None:
        log("error", "No input file specified (Use -h for help)")
        return 1
    if output is None:
        log("error", "No output file specified (Use -h for help)")
        return 1
    wd = workdir()
    try:
        paths = [p for p in key_arg.split(",") if p] if key_arg is not None else []
        if command == "encrypt" and key_arg is None and host_arg is None:
            host_arg = "127.0.0.1"
        if host_arg is not None:
            paths += [host_key_path(h, command == "decrypt", wd) for h in host_arg.split(",") if h]
    except Fail as exc:
        log("error", str(exc))
        return 1
    if command == "encrypt":
        public = []
        for path in paths:
            try:
                public.append(keys.parse_public(keys.read_key_file(path, check=False)))
            except keys.KeyError_ as exc:
                log("error", f"Could not read public key '{path}': {exc}")
                log("error", "Failed to load public key(s)")
                return 1
        try:
            with _open_in(source) as src:
                _write_output(output, lambda dst: secret.encrypt(public, src, dst))
        except OSError as exc:
            log("error", f"Could not open input file '{source}' ({exc.strerror})")
            log("error", "Encryption failed")
            return 1
        except secret.SecretError as exc:
            log("error", str(exc))
            log("error", "Encryption failed")
            return 1
        return 0
    if len(paths) > 1:
        log("error", "--decrypt requires only one key/host to be specified")
        return 1
    try:
        private = keys.parse_private(keys.read_key_file(paths[0]))
    except keys.KeyError_ as exc:
        log("error", f"Could not read private key '{paths[0]}': {exc}")
        log("error", "Failed to initialize decryption context")
        log("error", "Decryption failed")
        return 1
    try:
        with _open_in(source) as src:
            _write_output(output, lambda dst: secret.decrypt(private, src, dst))
    except OSError as exc:
        log("error", f"Cannot open input file '{source}' ({exc.strerror})")
        log("error", "Decryption failed")
        return 1
    except secret.SecretError as exc:
        log("error", str(exc))
        log("error", "Decryption failed")
        return 1
    return 0


main = getopt_main(run, Log)        # argv, the log, Ctrl-C: cfpromise/cli/entry.py


if __name__ == "__main__":
    sys.exit(main())
