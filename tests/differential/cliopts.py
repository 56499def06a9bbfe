"""Generated cases: cf-agent's and cf-promises' command lines as getopt_long reads them
(:mod:`cfpromise.cli.gnuopts`), beside cf-lite-agent and cf-lite-promises -- unknown
short and long options, clusters (``-KIf``), a value attached or in the next word
(``-ffile``, ``-f -x``, ``--file=x``), a value missing at the end, optional values
(``-C``, ``--color=always``, ``-C bad``, ``--show-evaluated-vars REGEX``), shortened long
options (unique, ambiguous, alike: cf-agent's ``--sh``), ``--`` and operands, too many
operands, the options acted on at once (``-V``, ``-h``, ``-M``, ``-x``, ``-s json``)
before and after others, values refused as the option is read (``-g``, ``-C``,
``--simulate``, ``--skip-db-check``, ``-p``, ``-s``, ``-W``, ``--log-modules``, ``-B``),
cf-agent 3.5's bootstrap options, repeated options and -D/-N/-b lists.

A case ends in ``-V`` or is refused, unless it names the policy (``POLICY``: ``./p.cf``,
``OTHER``: ``./other.cf``, both beside the run): then it runs, and what ran shows how
the command line was read.  ``WD`` is a work directory for -w beside the run (said at
info level as it is read, and -w wins over CFENGINE_TEST_OVERRIDE_WORKDIR).  What is compared
(tests/differential/test_cliopts_differential.py): the exit code, standard error and
standard output, the program's name, the version line, the help and the man page after
their first line, log timestamps and the work directory masked, and -x's checks (each
program's own stores) left out.
"""
from __future__ import annotations

POLICY = """body common control { bundlesequence => { "a" }; }
bundle agent a { vars: "v" string => "from a"; reports: "in $(this.promise_filename)";
  x:: "x set"; y:: "y set"; z:: "z set"; !any:: "never"; }
bundle agent b { reports: "in b"; x:: "b: x set"; }
"""
OTHER = POLICY.replace('"in $(', '"other: in $(')

# parse only: refused, or read up to -V
AGENT = {
    "unknown_long": ["--bogus"], "unknown_long_value": ["--bogus=x"], "unknown_short": ["-Q"],
    "cluster_unknown": ["-KQ"], "unknown_after_cluster": ["-Kn", "-Q"],
    "three_dashes": ["---x"], "short_equals": ["-="], "dash_operand": ["-", "-V"],
    "file_missing": ["-f"], "file_long_missing": ["--file"], "cluster_file_missing": ["-KIf"],
    "file_attached": ["-KIfx.cf", "-V"], "file_next_dash": ["-f", "-x", "-V"],
    "file_long_eq": ["--file=x", "-V"], "file_abbrev": ["--fi", "x", "-V"],
    "file_abbrev_missing": ["--f"], "define_missing": ["-D"], "define_long_missing": ["--define"],
    "negate_missing": ["-N"], "bundle_missing": ["-b"], "bundle_long_missing": ["--bundlesequence"],
    "workdir_missing": ["-w"], "level_missing": ["-g"], "bootstrap_missing": ["--bootstrap"],
    "simulate_missing": ["--simulate"], "log_modules_missing": ["--log-modules"],
    "define_dash_value": ["-D", "-V", "-V"], "level_dash_value": ["-g", "-V"],
    "level_bad": ["-g", "bad"], "level_long_bad": ["--log-level", "bad"],
    "level_eq_bad": ["--log-level=bad"], "level_prefix": ["-gerr", "-V"],
    "level_upper": ["-gE", "-V"], "level_empty": ["-g", ""], "level_bad_then_unknown": ["-gx", "-Q"],
    "unknown_then_bad_level": ["-Q", "-gx"],
    "color_bad": ["-Cbad"], "color_long_bad": ["--color=bad"], "color_bare": ["-C", "-V"],
    "color_next_word": ["-C", "bad", "-V"], "color_always": ["-Calways", "-V"],
    "color_long_bare": ["--color", "-V"], "color_abbrev": ["--col=never", "-V"],
    "color_stamped_bad": ["-l", "-Cx"],
    "simulate_bad": ["--simulate", "bad"], "simulate_eq_bad": ["--simulate=bad"],
    "simulate_empty": ["--simulate="], "simulate_upper": ["--simulate=DIFF", "-V"],
    "simulate_full": ["--simulate", "manifest-full", "-V"], "simulate_abbrev": ["--si", "diff", "-V"],
    "simulate_bad_then_version": ["--simulate=x", "-V"], "stamped_simulate": ["-l", "--simulate=x"],
    "skip_db_bad": ["--skip-db-check=bad"], "skip_db_next_word": ["--skip-db-check", "bad", "-V"],
    "skip_db_upper": ["--skip-db-check=NO", "-V"], "skip_db_abbrev": ["--skip-d=maybe"],
    "trust_bad": ["-T", "bad"], "trust_attached": ["-Tbad"], "trust_then_version": ["-T", "-V"],
    "trust_long": ["--trust-server=no"], "trust_stamped": ["-lT"],
    "x_first": ["-x", "-Q"], "x_after_unknown": ["-Q", "-x"], "x_abbrev": ["--se"],
    "x_value": ["--self-diagnostics=foo"], "x_cluster": ["-Kx"],
    "version_first": ["-V", "-Q"], "version_after_operands": ["a", "b", "-V"],
    "version_value": ["--version=x"], "version_short_equals": ["-V=x"],
    "version_abbrev": ["--vers"], "help_first": ["-h", "-Q"], "help_after_unknown": ["-Q", "-h"],
    "help_cluster": ["-Kh"], "help_abbrev": ["--he"], "help_value": ["--help=x"],
    "help_abbrev_value": ["--he=x"], "manpage": ["-M"], "manpage_after": ["-K", "-M", "-Q"],
    "ambiguous_s": ["--s"], "ambiguous_s_value": ["--s=x"], "ambiguous_d": ["--d"],
    "ambiguous_d_value": ["--d=1"], "ambiguous_de": ["--de"], "ambiguous_n": ["--n"],
    "ambiguous_no": ["--no"], "ambiguous_no_dash": ["--no-"], "ambiguous_b": ["--b"],
    "ambiguous_v": ["--v"], "ambiguous_ver": ["--ver"], "ambiguous_i": ["--i"],
    "ambiguous_l": ["--l"], "ambiguous_t": ["--t"], "ambiguous_ti": ["--ti"],
    "ambiguous_tim": ["--tim"], "ambiguous_sk": ["--sk"], "ambiguous_empty": ["--=x"],
    "unrecognized_e": ["--e"], "abbrev_dry": ["--dry", "-V"], "abbrev_bundle": ["--bu", "x", "-V"],
    "abbrev_inform_value": ["--inf=x"], "abbrev_no_lock_value": ["--no-l=1"],
    "operands_two": ["a", "b"], "operands_three": ["a", "b", "c"],
    "stamped_operands": ["-l", "a", "b"], "operands_after_dashes": ["--", "a", "b"],
    "dashes_version": ["--", "-V", "x"], "log_modules_help": ["--log-modules=help"],
    "log_modules_unknown": ["--log-modules=nosuch", "-V"],
    "log_modules_two": ["--log-modules", "all,vars", "-V"],
    "augments_abbrev": ["--ign", "-V"], "augments_value": ["--ignore-preferred-augments=1"],
    "old_bootstrap_cluster": ["-Bs"], "old_bootstrap_alone": ["-s", "1.2.3.4"],
    "old_bootstrap_version": ["-s", "1.2.3.4", "-B", "-V"],
    "bootstrap_unknown_host": ["-B", "nosuch.invalid", "-Q"],
    "bootstrap_empty_host": ["--bootstrap="], "bootstrap_port_only": ["-B", ":5308"],
    "old_bootstrap_long": ["--policy-server", "1.2.3.4", "--bootstrap", "-V"],
    "old_bootstrap_no_address": ["-B", "1.2.3.4", "-V", "-s"], "cf_promises_only": ["-p"],
    "cf_promises_only_c": ["-c"], "timing_output_cluster": ["-tV"],
    "extensions": ["-E", "-V"], "repeated": ["-K", "-K", "-nn", "-V"],
    "workdir_said": ["-I", "-w", "WD", "-V"], "workdir_quiet": ["-w", "WD", "-I", "-V"],
    "workdir_stamped_twice": ["-l", "-g", "info", "-w", "WD", "--workdir=WD", "-Q"],
    "workdir_then_x": ["-w", "WD", "-x"], "x_then_workdir": ["-x", "-w", "WD"],
}
# they run POLICY (or OTHER): what ran shows how the line was read
AGENT_RUNS = {
    "cluster_file": ["-KIf", "POLICY"], "cluster_file_attached": ["-Kf./p.cf"],
    "file_long": ["-K", "--file", "POLICY"], "file_long_eq_run": ["-K", "--file=./p.cf"],
    "operand": ["-K", "POLICY"], "operand_after_dashes": ["-K", "--", "POLICY"],
    "operand_overrides_file": ["-K", "-f", "POLICY", "OTHER"],
    "operand_before_file": ["-K", "OTHER", "-f", "POLICY"],
    "file_twice": ["-K", "-f", "POLICY", "-f", "OTHER"],
    "bundle": ["-Kb", "b", "-f", "POLICY"], "bundle_attached": ["-Kbb", "-f./p.cf"],
    "bundle_twice": ["-K", "-b", "a", "-b", "b", "-f", "POLICY"],
    "bundle_list": ["-K", "-b", "a,b", "-f", "POLICY"],
    "bundle_empty": ["-K", "-b", "", "-f", "POLICY"],
    "bundle_abbrev": ["-K", "--bundle=b", "-f", "POLICY"],
    "define_twice": ["-K", "-Dx", "-D", "y", "-f", "POLICY"],
    "define_list": ["-K", "-Dx,y", "-f", "POLICY"], "define_long": ["-K", "--define=z", "POLICY"],
    "define_empty": ["-K", "-D", "", "-f", "POLICY"],
    "define_cluster": ["-KDx", "-f", "POLICY"], "negate_any": ["-K", "-N", "any", "-f", "POLICY"],
    "dry_run": ["-Kn", "-f", "POLICY"], "dry_run_abbrev": ["--dry", "-Kf", "POLICY"],
    "color_then_operand": ["-K", "-C", "POLICY"], "color_never": ["-K", "--color=never", "POLICY"],
    "show_classes_then_operand": ["-K", "--show-evaluated-classes=^[xy]$", "-Dx", "POLICY"],
    "show_vars_regex": ["-K", "--show-evaluated-vars=^default:a\\.v$", "-f", "POLICY"],
    "show_alike": ["-K", "--sh=^x$", "-Dx", "POLICY"],
    "skip_db_yes": ["-K", "--skip-db-check=YES", "-f", "POLICY"],
    "level_error": ["-K", "-g", "error", "-f", "POLICY"],
    "inform_abbrev": ["-K", "--inf", "-f", "POLICY"],
}
PROMISES = {
    "unknown_long": ["--bogus"], "unknown_short": ["-Q"], "agent_only": ["-K"],
    "agent_only_cluster": ["-KV"], "cluster_unknown": ["-cQ"], "file_missing": ["-f"],
    "cluster_file_missing": ["-cf"], "file_next_dash": ["-f", "-x", "-V"],
    "inform_abbrev": ["--inf", "-V"], "ambiguous_s": ["--s"], "ambiguous_show": ["--show"],
    "ambiguous_t": ["--t"], "ambiguous_d": ["--d"], "ambiguous_de": ["--de"],
    "ambiguous_log": ["--log"], "ambiguous_f": ["--f"], "ambiguous_empty": ["--=x"],
    "ambiguous_l": ["--l"], "abbrev_color": ["--c", "-V"], "abbrev_diagnostic": ["--di"],
    "eval_functions_bad": ["--eval-functions=bad", "-V"], "eval_functions_abbrev": ["--e", "-V"],
    "output_bad": ["-p", "bad"], "output_attached_bad": ["-pbad"], "output_missing": ["-p"],
    "output_long_bad": ["--policy-output-format=x"], "output_bad_then_level": ["-p", "x", "-g", "y"],
    "level_bad_then_output": ["-g", "y", "-p", "x"], "stamped_output": ["-l", "-p", "bad"],
    "syntax_bad": ["-s", "bad"], "syntax_none": ["-s", "none", "-V"],
    "syntax_missing": ["-s"], "syntax_then_unknown": ["-s", "json", "-Q"],
    "syntax_after_unknown": ["-Q", "-s", "json"], "syntax_then_operands": ["-sjson", "a", "b"],
    "x_first": ["-x", "-Q"], "x_after_unknown": ["-Q", "-x"], "stamped_x": ["-lx"],
    "deprecated_r": ["-r"], "stamped_r": ["-l", "-r"], "unhandled_s": ["-S"],
    "unhandled_i": ["-i", "x"], "unhandled_i_missing": ["-i"], "manpage": ["-M"],
    "warn_bad": ["-W", "bad"], "warn_missing": ["-W"], "warn_error_bad": ["-W", "error=bad", "-V"],
    "version_then_warn_bad": ["-V", "-W", "bad"], "warn_empty": ["-W", ""],
    "stamped_warn": ["-l", "-W", "x,deprecated"], "warn_ok": ["-W", "all", "-W", "error", "-V"],
    "operands_two": ["-c", "a", "b"], "stamped_operands": ["-l", "a", "b"],
    "level_bad": ["-g", "bad"], "level_attached_bad": ["-gbad", "-V"],
    "tag_missing": ["-T"], "tag_long_missing": ["--tag"], "log_modules_abbrev": ["--log-m"],
    "log_modules_help": ["--log-modules=help"], "log_modules_unknown": ["--log-modules=nosuch", "-V"],
    "augments_value": ["--ignore=x"], "version_value": ["--version=x"],
    "version_short_equals": ["-V=x"], "full_check_value": ["--full-check=x"],
    "define_missing": ["-D"], "negate_missing": ["-N"], "bundle_missing": ["-b"],
    "color_bad": ["--color=bad"], "color_next_word": ["-C", "bad", "-V"],
    "help_first": ["-h", "-Q"], "help_after_unknown": ["-Q", "-h"],
    "workdir_missing": ["-w"], "bootstrap_is_agent_only": ["-B", "x"],
    "workdir_said": ["-I", "-w", "WD", "-V"], "workdir_quiet": ["-w", "WD", "-I", "-V"],
    "workdir_stamped": ["-gverb", "-l", "--workdir=WD", "-x"],
}
PROMISES_RUNS = {
    "file": ["-f", "POLICY"], "operand": ["POLICY"], "cluster_check_file": ["-cf", "POLICY"],
    "file_dash": ["-f", "-x"], "operand_overrides_file": ["-f", "POLICY", "nosuch.cf"],
    "operand_before_file": ["nosuch.cf", "-f", "POLICY"], "file_twice": ["-f", "nosuch.cf", "-f",
                                                                          "POLICY"],
    "dashes_operand": ["--", "-V"], "show_classes_then_operand": ["--show-classes=^x$", "POLICY"],
    "show_vars_regex": ["--show-vars=^default:a\\.v$", "POLICY"],
    "show_classes_alike": ["--show-c=^x$", "-Dx", "POLICY"],
    "output_json": ["-pjson", "POLICY"], "output_json_long": ["--policy-output-format", "json",
                                                               "POLICY"],
    "output_none": ["-p", "none", "-f", "POLICY"], "syntax_none": ["-s", "none", "POLICY"],
    "bundle_check": ["-c", "-b", "nosuch", "-f", "POLICY"], "bundle_empty": ["-c", "-b", "",
                                                                            "POLICY"],
    "warn_error": ["-W", "error", "POLICY"], "level_info": ["-g", "inf", "POLICY"],
    "tag_then_file": ["-T", "WD", "-f", "POLICY"], "file_then_tag": ["-f", "POLICY", "-T", "WD"],
    "tag_then_operand": ["-T", "WD", "POLICY"],
}

CASES = [(f"agent_{name}", "agent", args) for name, args in {**AGENT, **AGENT_RUNS}.items()]
CASES += [(f"promises_{name}", "promises", args)
          for name, args in {**PROMISES, **PROMISES_RUNS}.items()]
NAMES = [c[0] for c in CASES]
