"""cf-lite-key: make this host's key pair and manage trusted keys, as cf-key 3.21
(same options, same file formats, so keys move freely between the two)."""
from __future__ import annotations

import getopt
import os
import sys
import time

from cfpromise.cli.entry import getopt_main
from cfpromise.net.toolkit import Log, Opt, help_text, parse, workdir

OPTIONS = [
    Opt("help", "h", "Print the help message"),
    Opt("inform", "I", "Print basic information about key generation"),
    Opt("debug", "d", "Enable debugging output"),
    Opt("verbose", "v", "Output verbose information about the behaviour of cf-key"),
    Opt("version", "V", "Output the version of the software"),
    Opt("log-level", "g", "Specify how detailed logs should be. Possible values: 'error', "
        "'warning', 'notice', 'info', 'verbose', 'debug'", True),
    Opt("output-file", "f", "Specify an alternative output file than the default.", True),
    Opt("key-type", "T", "Specify a RSA key size in bits, the default value is 2048.", True),
    Opt("show-hosts", "s", "Show lastseen hostnames and IP addresses"),
    Opt("no-truncate", "N", "Don't truncate -s / --show-hosts output"),
    Opt("remove-keys", "r", "Remove keys for specified hostname/IP/MD5/SHA (cf-key -r SHA=12345, "
        "cf-key -r MD5=12345, cf-key -r host001, cf-key -r 203.0.113.1)", True),
    Opt("force-removal", "x", "Force removal of keys"),
    Opt("install-license", "l", "Install license file on Enterprise server (CFEngine Enterprise "
        "Only)", True),
    Opt("print-digest", "p", "Print digest of the specified public key", True),
    Opt("trust-key", "t", "Make cf-serverd/cf-agent trust the specified public key. Argument "
        "value is of the form [[USER@]IPADDR:]FILENAME where FILENAME is the local path of the "
        "public key for client at IPADDR address.", True),
    Opt("color", "C", "Enable colorized output. Possible values: 'always', 'auto', 'never'. If "
        "option is used, the default value is 'auto'", True),
    Opt("timestamp", "\0", "Log timestamps on each line of log output"),
    Opt("numeric", "n", "Do not lookup host names"),
]
FMT_TRUNCATE = "{:<10.10} {:<40.40} {:<25.25} {:<26.26} {}\n"
FMT_FULL = "{}\t{}\t{}\t{}\t{}\n"


def _help() -> str:
    text = help_text("cf-key", "cf-key [OPTIONS]", OPTIONS)
    return text.replace("  --timestamp   , -\0      ", "  --timestamp             ")


def _parse_key_arg(arg: str) -> tuple[str, str | None, str]:
    """ParseKeyArg: ``[[USER@]IPADDR:]FILENAME`` -> (filename, ip, user)."""
    head, colon, filename = arg.rpartition(":")
    if not colon:
        return arg, None, "root"
    user, at, ip = head.partition("@")
    if not at:
        return filename, head, "root"
    return filename, ip or None, user


def print_digest(path: str, log: Log) -> int:
    from cfpromise.net import keys
    try:
        key = keys.parse_public(keys.read_key_file(path, check=False))
    except keys.KeyError_ as exc:
        log("error", f"Cannot open public key file '{path}' ({exc})")
        return 1
    sys.stdout.write(keys.digest(key) + "\n")
    return 0


def trust(arg: str, wd: str, log: Log) -> int:
    from cfpromise.net import keys, lastseen
    filename, ip, user = _parse_key_arg(arg)
    if ip is None:
        log("notice", "Establishing trust might be incomplete. For completeness, use "
                      "--trust-key IPADDR:filename")
    try:
        key = keys.parse_public(keys.read_key_file(filename, check=False))
    except keys.KeyError_ as exc:
        log("error", f"Cannot open public key file '{filename}' ({exc})")
        return 1
    try:
        keys.trust_key(wd, key, user)
    except OSError as exc:
        log("error", f"Couldn't save the trusted key ({exc.strerror})")
        return 1
    if ip is not None:
        lastseen.record(wd, ip, keys.digest(key), incoming=False)
    return 0


def remove(what: str, wd: str, force: bool, log: Log) -> int:
    from cfpromise.net import keys, lastseen
    gone, digests = lastseen.remove(wd, what)
    if gone:
        log("info", "Removed corresponding entries from lastseen database.")
    elif not force:
        log("error", "Unable to remove digest from lastseen database." if keys.is_digest(what)
            else f"Unable to remove entry '{what}' from lastseen database.")
        return 252
    if keys.is_digest(what):
        digests.add(what)
    removed = [p for d in sorted(digests) for p in keys.remove_trusted(wd, d)]
    if not removed:
        log("error", f"No key file(s) for entry '{what}' were found on the filesystem")
        return 1
    log("info", f"Removed {len(removed)} corresponding key file(s) from filesystem.")
    return 0


def show_hosts(wd: str, truncate: bool, numeric: bool) -> int:
    import socket
    from cfpromise.net import lastseen
    fmt = FMT_TRUNCATE if truncate else FMT_FULL
    sys.stdout.write(fmt.format("Direction", "IP", "Name", "Last connection", "Key"))
    entries = lastseen.load(wd)
    for e in entries:
        name = str(e["address"])
        if not numeric:
            try:
                name = socket.gethostbyaddr(name)[0]
            except (OSError, UnicodeError):
                name = "-"
        sys.stdout.write(fmt.format("Incoming" if e["incoming"] else "Outgoing", e["address"],
                                    name, time.ctime(int(e["time"])), e["key"]))  # type: ignore
    sys.stdout.write(f"Total Entries: {len(entries)}\n")
    return 0


def run(argv: list[str], log: Log) -> int:
    from cfpromise.net import keys
    # -p takes an optional argument (the host's own public key by default)
    argv = list(argv)
    bare_p = False
    for i, a in enumerate(argv):
        if a in ("-p", "--print-digest") and (i + 1 == len(argv) or argv[i + 1].startswith("-")):
            argv[i] = "--print-digest="
            bare_p = True
    try:
        opts, rest = parse(argv, [o for o in OPTIONS if o.short != "\0"] +
                           [Opt("timestamp", "", "")])
    except getopt.GetoptError as exc:
        log("error", f"Invalid option: {exc.opt}")
        sys.stdout.write(_help())
        return 1
    wd = workdir()
    given = dict(opts)
    for name, value in opts:
        if name in ("debug", "verbose", "inform"):
            log.set(name)
        elif name == "log-level" and not log.set(value):
            log("error", f"Invalid log level '{value}'")
            return 1
    if "help" in given:
        sys.stdout.write(_help())
        return 0
    if "version" in given:
        from cfpromise.cli.entry import print_version
        print_version("cf-lite", "cf-key compatible")
        return 0
    if "no-truncate" in given and "show-hosts" not in given:
        log("error", "--no-truncate / -N option is only for --show-hosts / -s")
        return 1
    if "show-hosts" in given:
        return show_hosts(wd, "no-truncate" not in given, "numeric" in given)
    if "print-digest" in given:
        path = given["print-digest"] if not (bare_p and not given["print-digest"]) else ""
        return print_digest(path or keys.public_key_path(wd), log)
    if "remove-keys" in given:
        return remove(given["remove-keys"], wd, "force-removal" in given, log)
    if "install-license" in given:
        log("error", "License installation only applies to CFEngine Enterprise")
        return 1
    if "trust-key" in given:
        return trust(given["trust-key"], wd, log)
    bits = keys.KEY_SIZE
    if "key-type" in given:
        try:
            bits = int(given["key-type"])
        except ValueError:
            bits = 0
        if bits not in (1024, 2048, 3072, 4096):
            log("error", f"Invalid key size '{given['key-type']}': use 1024, 2048, 3072 or 4096")
            return 1
    if "output-file" in given:
        base = given["output-file"]
        pub, priv = base + ".pub", base + ".priv"
    else:
        pub, priv = keys.public_key_path(wd), keys.private_key_path(wd)
    log("info", "Making a key pair for CFEngine, please wait, this could take a minute...")
    try:
        keys.create_key_pair(priv, pub, bits)
    except keys.KeyError_ as exc:
        log("error", str(exc))
        return 1
    except OSError as exc:
        log("error", f"Error while writing key files ({exc.strerror})")
        return 1
    return 0


main = getopt_main(run, Log)        # argv, the log, Ctrl-C: cfpromise/cli/entry.py


if __name__ == "__main__":
    sys.exit(main())
