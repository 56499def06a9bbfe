"""cf-lite-net: talk to a cf-serverd (3.21 or cf-lite) from the command line, as
cf-net does: connect, stat, get, opendir, help.  Like cf-net it trusts the
server's key on first contact (it is a diagnostic tool) and does not record
the connection in lastseen."""
from __future__ import annotations

import getopt
import os
import stat
import sys

from cfpromise.cli.entry import getopt_main
from cfpromise.net.toolkit import Log, Opt, help_text, workdir

OPTIONS = [
    Opt("help", "h", "Print the help message"),
    Opt("manpage", "M", "Print the man page"),
    Opt("host", "H", "Server hostnames or IPs, comma-separated (defaults to policy server)", True),
    Opt("debug", "d", "Enable debugging output"),
    Opt("verbose", "v", "Enable verbose output"),
    Opt("log-level", "g", "Specify how detailed logs should be. Possible values: 'error', "
        "'warning', 'notice', 'info', 'verbose', 'debug'", True),
    Opt("inform", "I", "Enable basic information output"),
    Opt("tls-version", "t", "Minimum TLS version to use", True),
    Opt("ciphers", "c", "TLS ciphers to use (comma-separated list)", True),
]
COMMANDS = [
    ("help", "Prints general help or per topic", "cf-net help [command]"),
    ("connect", "Checks if host(s) is available by connecting",
     "cf-net -H 192.168.50.50,192.168.50.51 connect"),
    ("stat", "Look at type of file", "cf-net stat masterfiles/update.cf"),
    ("get", "Get file from server", "cf-net get masterfiles/update.cf -o download.cf "
     "[-jNTHREADS]\n\t\t\t(%d can be used in both the remote and output file paths when '-j' "
     "is used)"),
    ("opendir", "List files and folders in a directory", "cf-net opendir masterfiles"),
]
TOPIC_EXTRA = {
    "help": "\nYou did it, you used the help command!\n",
    "stat": "\nFor security reasons the server doesn't give any additional\ninformation if "
            "unsuccessful. 'Could not stat' message can\nindicate wrong path, the file doesn't "
            "exist, permission \ndenied, or something else.\n",
    "get": "\ncf-net get is comprised of two requests, STAT and GET.\nThe CFEngine GET protocol "
           "command requires a STAT first to\ndetermine file size. By default the file is saved "
           "as its\nbasename in current working directory (cwd). Override this\nusing the -o "
           "filename option (-o - for stdout).\n",
}


class Tool:
    def __init__(self, log: Log, min_tls: str | None, ciphers: str | None) -> None:
        self.log = log
        self.min_tls = min_tls
        self.ciphers = ciphers.replace(",", ":") if ciphers else None
        self.workdir = workdir()

    def open(self, server: str):                     # type: ignore[no-untyped-def]
        from cfpromise.net import client
        opts = client.ConnectOptions(workdir=self.workdir, trust=True, timeout=30,
                                     ciphers=self.ciphers, min_tls=self.min_tls,
                                     log=self.log)
        try:
            return client.connect(server, opts)
        except client.NetError as exc:
            self.log("error", str(exc))
            sys.stdout.write(f"Failed to connect to '{server}'\n")
            return None

    def connect(self, server: str, args: list[str]) -> int:
        if args:
            self.log("error", "connect does not take any arguments\n(See cf-net --help)")
            return -1
        conn = self.open(server)
        if conn is None:
            return -1
        sys.stdout.write(f"Connected & authenticated successfully to '{server}'\n")
        conn.close()
        return 0

    def _stat(self, conn, path: str):                # type: ignore[no-untyped-def]
        from cfpromise.net import client
        try:
            return conn.stat(path)
        except client.NetError as exc:
            self.log("warning", f"Could not stat remote file {conn.server}:{path}, response: "
                                f"{exc}")
            return None

    def stat(self, server: str, args: list[str]) -> int:
        if not args:
            self.log("error", "Invalid, see: 'cf-net help stat' for more info\n")
            return -1
        conn = self.open(server)
        if conn is None:
            return -1
        path = args[0]
        with conn:
            st = self._stat(conn, path)
        if st is None:
            sys.stdout.write(f"Could not stat: '{path}'\n")
            return 0
        self.log("info", "Detailed stat output:\n"
                         f"mode  = {st.mode:o}, \tsize = {st.size},\n"
                         f"uid   = {st.uid}, \tgid = {st.gid},\n"
                         f"atime = {st.atime}, \tmtime = {st.mtime}\n")
        mode = st.mode
        kind = ("a directory" if stat.S_ISDIR(mode) else "a regular file" if stat.S_ISREG(mode)
                else "a socket" if stat.S_ISSOCK(mode) else "a character device file"
                if stat.S_ISCHR(mode) else "a block device file" if stat.S_ISBLK(mode)
                else "a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a symbolic link"
                if stat.S_ISLNK(mode) else None)
        sys.stdout.write(f"{server}:'{path}' " + (f"is {kind}\n" if kind
                                                 else "has an unrecognized st_mode\n"))
        return 0

    def get(self, server: str, args: list[str]) -> int:
        from cfpromise.net import client
        try:
            opts, rest = getopt.gnu_getopt(args, "o:j:", ["output=", "jobs="])
        except getopt.GetoptError:
            self.log("error", "Invalid, see: 'cf-net help get' for more info\n")
            return -1
        local = None
        for flag, value in opts:
            if flag in ("-o", "--output"):
                local = value
        if not rest:
            self.log("error", "Invalid, see: 'cf-net help get' for more info\n")
            return -1
        remote = rest[0]
        local = local or os.path.basename(remote)
        if local == "-":
            sys.stdout.write("Output to stdout not yet implemented (TODO)\n")
            return -1
        conn = self.open(server)
        if conn is None:
            return -1
        with conn:
            st = self._stat(conn, remote)
            if st is None:
                self.log("error", f"Failed to stat remote file {server}:{remote}")
                sys.stdout.write(f"Could not stat: '{remote}'\n")
                return -1
            try:
                os.unlink(local)
            except OSError:
                pass
            try:
                fd = os.open(local, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            except OSError as exc:
                self.log("warning", f"Failed to open file {local} (fopen: {exc.strerror})")
                return -1
            ok = True
            with os.fdopen(fd, "wb") as fh:
                try:
                    conn.get(remote, st.size, fh.write)
                except client.NetError as exc:
                    self.log("error", f"Error from server while retrieving file {server}:"
                                      f"{remote}: {exc}")
                    ok = False
            if not ok:
                os.unlink(local)
                sys.stdout.write(f"Could not stat: '{remote}'\n")
                return -1
        return 0

    def opendir(self, server: str, args: list[str]) -> int:
        from cfpromise.net import client
        if not args:
            self.log("error", "Invalid, see: 'cf-net help opendir' for more info\n")
            return -1
        conn = self.open(server)
        if conn is None:
            return -1
        with conn:
            try:
                names = conn.opendir(args[0])
            except client.NetError as exc:
                self.log("error", f"Protocol error: {exc}")
                return -1
        sys.stdout.write("".join(n + "\n" for n in names))
        return 0


def _help() -> str:
    return help_text("cf-net", "cf-net [OPTIONS] COMMAND", OPTIONS, COMMANDS, commands_first=False)


def help_topic(topic: str | None) -> int:
    if topic is None:
        sys.stdout.write(_help())
        return 0
    found = False
    for name, desc, use in COMMANDS:
        if name == topic:
            sys.stdout.write(f"Command:     {name}\nUsage:       {use}\nDescription: {desc}\n")
            found = True
    if topic in TOPIC_EXTRA:
        sys.stdout.write(TOPIC_EXTRA[topic])
    elif not found:
        sys.stdout.write(f"Unknown help topic: '{topic}'\n")
        return -1
    return 0


def run(argv: list[str], log: Log) -> int:
    if not argv:
        sys.stdout.write(_help())
        return 0
    shorts = "+" + "".join(o.short + (":" if o.takes_value else "") for o in OPTIONS)
    longs = [o.long + ("=" if o.takes_value else "") for o in OPTIONS]
    try:
        pairs, args = getopt.getopt(argv, shorts.lstrip("+"), longs)   # stops at the command
    except getopt.GetoptError:
        return 1
    hosts = min_tls = ciphers = None
    level = None
    for flag, value in pairs:
        name = flag.lstrip("-")
        if name in ("h", "help"):
            sys.stdout.write(_help())
            return 0
        if name in ("M", "manpage"):
            sys.stdout.write(_help())
            return 0
        if name in ("H", "host"):
            if hosts is not None:
                log("info", "Warning: multiple occurences of -H in command, only last one will "
                            "be used.")
            hosts = value
        elif name in ("d", "debug", "v", "verbose", "I", "inform"):
            level = {"d": "debug", "v": "verbose", "I": "info"}.get(name, name)
        elif name in ("g", "log-level"):
            if not log.set(value):
                log("error", f"Invalid log level '{value}'")
                return 1
        elif name in ("t", "tls-version"):
            min_tls = value
        elif name in ("c", "ciphers"):
            ciphers = value
    if level is not None:
        log.set(level)
    if not args:
        sys.stdout.write("Error: Command missing, use cf-net --help for more info.\n")
        return 1
    command, rest = args[0].lower(), args[1:]
    tool = Tool(log, min_tls, ciphers)
    handlers = {"connect": tool.connect, "stat": tool.stat, "get": tool.get,
                "opendir": tool.opendir}
    if command == "help":
        help_topic(rest[0] if rest else None)
        return 0
    if command not in handlers:
        log("error", f"'{args[0].upper()}' is not a valid cf-net command\n")
        return 1
    if hosts is None:
        hosts = _policy_server(tool.workdir)
        if hosts is None:
            sys.stdout.write("Error: no host name (and no policy_server.dat)\n")
            return 1
    for host in [h for h in hosts.split(",") if h]:
        handlers[command](host, rest)
    return 0


def _policy_server(wd: str) -> str | None:
    try:
        with open(os.path.join(wd, "policy_server.dat"), encoding="utf-8") as fh:
            text = fh.read().strip()
    except OSError:
        return None
    return text.splitlines()[0].strip() if text else None


main = getopt_main(run, Log)        # argv, the log, Ctrl-C: cfpromise/cli/entry.py


if __name__ == "__main__":
    sys.exit(main())
