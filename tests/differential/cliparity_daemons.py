"""Generated cases: the command lines of cf-serverd, cf-monitord and cf-runagent 3.21
(getopt_long's reading, :mod:`cfpromise.cli.gnuopts`) beside cf-lite-serverd,
cf-lite-monitord and cf-lite-runagent -- every option of their ``--help``, with a value
refused (``-g``, ``-C``, ``-t``, ``-b``, ``--log-modules``), missing, attached or given as
the next word; unknown, shortened and ambiguous options; too many operands; the options
each program acts on at once (``-V``, ``-x``, ``-A``, ``-o``, ``-S``) before or after
another; and cf-runagent's hailing options (``-b``, ``-i``, ``-n``, ``--remote-bundles``,
``-s``, ``-D``) against hosts where no server listens.

No daemon is started: a daemon's command line ends in ``-V`` (the version, once what
comes before it is read) or is refused before anything starts.  What is compared
(tests/differential/test_cliparity_daemons_differential.py): the exit code, standard
error and the lines of standard output, the program's name, the version line, the help
after a usage line and the closed ports masked.
"""
from __future__ import annotations

COMMON = {
    "unknown_short": ["-Q"], "unknown_long": ["--nosuch"], "level_bad": ["-g", "nosuch"],
    "level_missing": ["-g"], "level_prefix": ["-g", "err", "-V"], "level_case": ["-g", "ERR", "-V"],
    "level_empty": ["-g", ""], "level_attached": ["-gverbose", "-V"],
    "level_long": ["--log-level=info", "-V"], "file_missing": ["-f"],
    "file_long_missing": ["--file"], "color_bad": ["--color=bad"], "color_bad_short": ["-Cbad"],
    "color_next_word": ["-C", "bad", "-V"], "color_bare": ["-C", "-V"],
    "color_always": ["-Calways", "-V"], "color_never": ["--color=never", "-V"],
    "color_long_next": ["--color", "always", "-V"], "timestamp": ["-l", "-V"],
    "timestamp_cluster": ["-lV"], "inform_value": ["--inform=x", "-V"],
    "levels": ["-I", "-v", "-d", "-V"], "augments": ["--ignore-preferred-augments", "-V"],
    "augments_short": ["--ign", "-V"], "version_first": ["-V", "-Q"],
    "version_then_bad_level": ["-V", "-g", "nosuch"], "bad_level_then_version": ["-g", "x", "-V"],
    "operands": ["a", "b"], "operands_version": ["a", "b", "-V"], "unhandled": ["-S"],
    "diagnostic_after_version": ["-Vx"], "ver_ambiguous": ["--ver"],
    "log_modules": ["--log-modules=evalctx", "-V"], "stamped_operands": ["-l", "a", "b"],
    "stamped_color": ["-l", "--color=bad"], "color_not_yet": ["-Calways", "--color=bad"],
}
DAEMONS = {
    "diagnostic": ["-x"], "diagnostic_long": ["--diagnostic"], "diagnostic_short": ["--diag"],
    "stamped_diagnostic": ["-l", "-x"], "diagnostic_then_stamp": ["-x", "-l"],
    "no_fork": ["-F", "-V"], "no_lock": ["-K", "-V"], "file_next": ["-f", "x.cf", "-V"],
    "file_dash": ["-f", "-x", "-V"], "runagent_only": ["-i"], "background": ["-b"],
    "remote_bundles": ["--remote-bundles=x", "-V"],
}
SERVERD = {
    "define": ["-D", "a,b", "-N", "c", "-V"], "avahi": ["-A"],
    "avahi_long": ["--generate-avahi-conf"], "graceful": ["-t", "-V"],
    "graceful_value": ["-t5", "-V"], "graceful_bad": ["-tx"], "graceful_tail": ["-t5x"],
    "stamped_graceful_bad": ["-l", "-tx"], "stamped_avahi": ["-lA"],
    "graceful_long": ["--graceful-detach=7", "-V"], "graceful_long_next": ["--graceful-detach",
                                                                           "7", "-V"],
    "ld_path": ["--ld-library-path=/x", "-V"], "ld_path_next": ["--ld-library-path", "/x", "-V"],
    "ld_path_missing": ["--ld-library-path"], "dry_run": ["-n", "-V"],
    "d_ambiguous": ["--d"],
}
MONITORD = {
    "dry_run": ["-n", "-V"], "dry_run_long": ["--dry-run", "-V"], "histograms": ["-H", "-V"],
    "tcpdump": ["-T", "-V"], "tcpdump_long": ["--tcpdump", "-V"], "graceful": ["-t", "5"],
    "avahi": ["-A"],
}
RUNAGENT = {
    "diagnostic": ["-x"], "remote_options": ["-o", "x"], "background_value": ["-b5", "-V"],
    "stamped_diagnostic": ["-lx"], "stamped_remote_options": ["-l", "-o", "x"],
    "stamped_timeout": ["-l", "-t", "x"],
    "background_bad": ["-bx"], "background_next": ["-b", "5", "-V"],
    "log_modules_help": ["--log-modules=help"], "log_modules_bad": ["--log-modules=nosuch", "-V"],
    "log_modules_two": ["--log-modules=all,vars", "-V"], "log_modules_missing": ["--log-modules"],
    "remote_bundles_missing": ["--remote-bundles"], "remote_bundles": ["--remote-bundles", "x",
                                                                       "-V"],
    "dry_run": ["-n", "-V"], "unhandled_value": ["-q"], "unhandled_value_given": ["-q", "x"],
    "no_lock": ["-K", "-V"], "interactive": ["-i", "-V"], "timeout_bad": ["-t", "x"],
    "timeout_tail": ["-t", "5x"], "timeout_overflow": ["-t", "99999999999999999999"],
    "timeout_negative": ["-t", "-5", "-V"], "timeout_missing": ["-t"], "no_fork": ["-F"],
    "hail_missing": ["-H"], "select_missing": ["-s"], "define_missing": ["-D"],
    "d_ambiguous": ["--d"], "diagnostic_first": ["-xV"], "options_first": ["-o", "x", "-x"],
    "time_ambiguous": ["--time"], "t_ambiguous": ["--t", "5"],
}
# cf-runagent hailing: PORT1 and PORT2 are closed ports of 127.0.0.1 (nothing listens)
HAILING = {
    "serial": ["-I"], "two_hosts": ["-I", "-H", "127.0.0.1:PORT1,127.0.0.1:PORT2"],
    "background": ["-I", "-b"], "background_one": ["-I", "-b1", "-H",
                                                   "127.0.0.1:PORT1,127.0.0.1:PORT2"],
    "background_quiet": ["-b"], "interactive_background": ["-i", "-b"],
    "background_interactive": ["-b", "-i"], "interactive_eof": ["-i"],
    "dry_run": ["-n", "-I"], "bundles": ["--remote-bundles", "a,b", "-I"],
    "classes": ["-D", "x", "-s", "y", "-I"], "timeout": ["-t", "3", "-I"],
    "timestamps": ["-l", "-I"], "color": ["-Calways", "-I"],
    "color_stamps": ["-l", "-Calways", "-I"], "color_auto": ["-C", "-I"],
    "color_never": ["--color=never", "-I"], "augments": ["--ignore-preferred-augments", "-I"],
    "verbose_modules": ["--log-modules=nosuch", "-I"], "operand": ["-I", "POLICY"],
}
INTERACTIVE_INPUT = {"interactive_yes": ["-i", "-I"], "interactive_no": ["-i", "-I"]}
ANSWERS = {"interactive_yes": "maybe\nyes\n", "interactive_no": "no\n"}

RUNAGENT_POLICY = ('body runagent control { hosts => { "127.0.0.1:PORT1" }; }\n'
                   'bundle agent main { reports: "x"; }\n')

CASES = [(f"{p}_{name}", p, args) for p, table in (
    ("serverd", {**COMMON, **DAEMONS, **SERVERD}), ("monitord", {**COMMON, **DAEMONS, **MONITORD}),
    ("runagent", {**COMMON, **RUNAGENT})) for name, args in table.items()]
CASES += [(f"hailing_{name}", "hailing", args) for name, args in
          {**HAILING, **INTERACTIVE_INPUT}.items()]
NAMES = [c[0] for c in CASES]

