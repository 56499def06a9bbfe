"""Generated cases: cf-promises' and cf-agent's command-line options that cf-lite reads as
CFEngine 3.21 does though they change little here (:mod:`cfpromise.cli.compat`) --
``-b``, ``-N``, ``-n``, ``-d``/``-g``, ``-l``, ``-C``, ``-W``, ``-x``,
``--ignore-preferred-augments``, ``--log-modules`` of cf-promises; ``-E``,
``--skip-db-check``, ``-T``/``--trust-server`` away from a bootstrap, ``-x`` and
``--ignore-preferred-augments`` of cf-agent -- each on policies that pass, warn of
deprecated or removed language, name a bundle that is not there, or do not parse.
What is compared: the exit code and every line printed, the work directory's path and
log timestamps masked (a failed validation: up to its verdict, which names the program
that shows why, its path masked) (cf-agent -x: its first eight lines; the database checks are each
program's own stores, LMDB's there, cf-lite's JSON and SQLite files here).
"""
from __future__ import annotations

POLICIES = {
    "ok": 'body common control { bundlesequence => { "main" }; }\n'
          'bundle agent main { vars: "v" string => "x"; classes: "c" expression => "any";\n'
          '  reports: "x"; c:: "c is set"; }\nbundle agent other { reports: "o"; }\n',
    "deprecated": 'body server control { skipverify => { "a" }; }\n'
                  'bundle agent main { reports: "x"; }\n',
    "removed": 'body reporter control { }\nbundle common main { }\n',
    "both": 'bundle agent main { reports: "x"; }\nbody knowledge control\n{\n}\n'
            'body acl a\n{\n  acl_directory_inherit => "nochange";\n}\n',
    "nosuch": 'body common control { bundlesequence => { "nosuch" }; }\n'
              'bundle agent main { reports: "x"; }\n',
    "broken": 'bundle agent main\n{\n  any::\n  reports:\n    "x";\n}\n',
    "augments": 'bundle agent main { reports: "a=$(def.a)"; }\n',
}
AUGMENTS = {"def.json": '{ "vars": { "a": "plain" } }\n',
            "def_preferred.json": '{ "vars": { "a": "preferred" } }\n'}

PROMISES_ARGS = {
    "none": [], "b_main": ["-b", "main"], "b_other": ["-b", "other"],
    "c_b_nosuch": ["-c", "-b", "nosuch"], "c_b_two": ["-c", "-b", "main,nosuch"],
    "c": ["-c"], "negate": ["-N", "c", "--show-classes=^c$"], "c_negate": ["-c", "-N", "c"],
    "dry": ["-n"], "g_error": ["-g", "error"], "g_info": ["-g", "info"], "g_bad": ["-g", "nosuch"],
    "l": ["-l"], "color": ["-C"], "color_never": ["--color=never"],
    "w_all": ["-W", "all"], "w_deprecated": ["-W", "deprecated"], "w_removed": ["-W", "removed"],
    "w_error": ["-W", "error"], "w_error_all": ["-W", "error=all"],
    "w_error_deprecated": ["-W", "error=deprecated"], "w_error_removed": ["-W", "error=removed"],
    "w_error_two": ["-W", "error=deprecated,removed"], "w_bad": ["-W", "nosuch"],
    "w_error_bad": ["-W", "error=removed,nosuch"], "c_w_error": ["-c", "-W", "error"],
    "x": ["-x"], "ignore_preferred": ["--ignore-preferred-augments", "--show-vars=^default:def\\.a$"],
    "preferred": ["--show-vars=^default:def\\.a$"], "log_modules": ["--log-modules=evalctx"],
}
AGENT_ARGS = {
    "no_extensions": ["-E"], "log_modules": ["--log-modules=evalctx"],
    "skip_db_check": ["--skip-db-check"], "skip_db_check_no": ["--skip-db-check=no"],
    "trust_no": ["-T", "no"], "trust_yes": ["-T", "yes"], "trust_bare": ["--trust-server"],
    "trust_long_no": ["--trust-server=no"], "ignore_preferred": ["--ignore-preferred-augments"],
    "preferred": [], "x": ["-x"],
}
AGENT_POLICIES = ("ok", "augments", "deprecated")
# a policy that fails validation: "Policy failed validation with command '...'" names the
# command that shows why (cf-agent's cf-promises, cf-lite-promises here: the path masked),
# the lines compared up to it (the failsafes differ by name)
FAILING_ARGS = {"plain": [], "b": ["-b", "main"], "b_two": ["-b", "main,other"],
                "ignore_preferred": ["--ignore-preferred-augments"],
                "b_ignore_preferred": ["-b", "main", "--ignore-preferred-augments"],
                "dry": ["-n"], "define": ["-D", "x"]}

CASES = [(f"promises_{p}_{a}", "promises", p, args) for p in POLICIES
         for a, args in PROMISES_ARGS.items()]
CASES += [(f"agent_{p}_{a}", "agent", p, args) for p in AGENT_POLICIES
          for a, args in AGENT_ARGS.items()]
CASES += [(f"failing_{p}_{a}", "agent", p, args) for p in ("broken", "nosuch")
          for a, args in FAILING_ARGS.items()]
NAMES = [c[0] for c in CASES]
