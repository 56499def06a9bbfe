"""Generated cases for the smaller behaviours of a cf-agent 3.21 run (issue #26, 7, 9 and 10).

Each case is a small policy tree (an entry file and maybe a ``def.json`` or an input),
an agent command line, and what must agree between the two agents (:func:`observe`):

* control bodies as variables -- every control body type, class-guarded attributes,
  values from common bundles, lists read with ``@()``;
* ``def.json`` read with libntech's leniency (trailing commas, bare-word keys), its
  errors (printed twice by cf-agent, once more by the cf-promises it runs), and how
  each JSON value becomes a variable;
* fatal errors: what is printed, the exit code, and no ``--show-evaluated-*`` table
  after them;
* what the cf-promises that cf-agent runs to validate says of promise locking (vars
  promises, a common bundle's classes promises, whose action body sets ``ifelapsed``
  or ``expireafter``): in common, agent, edit_line and server bundles, guarded by hard,
  common, agent-bundle and ``-D`` classes, iterated, in inputs, under ``-n`` and ``-b``;
* the dry run: ``restart_class`` of processes, signals and stop commands under
  ``-n``, and files promises whose directories do not exist (the trees live under
  each agent's own ``$(sys.workdir)``, so the two runs never see each other's work).

Work-directory paths are replaced by ``WORKDIR`` before comparing; the failsafe that
follows a failed validation differs by name only (cf-key/cf-lite-key), so a run is
compared up to "Policy failed validation".
"""
from __future__ import annotations

import re
from typing import Any

from tests.differential.stdlib import MASTERFILES as MASTERFILES_LIB

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []


def case(name: str, files: dict[str, str] | str, *args: str) -> None:
    CASES.append((name, {"promises.cf": files} if isinstance(files, str) else files, args))


def run_observed(root: Any, cases: Any, extra: Any = None,
                 distinct: Any = None) -> dict[str, tuple]:
    """Each (name, files, args) case -- files: {path: text}, or the text of promises.cf --
    written under ``root``/name and run under cf-agent 3.21 and cf-lite (two at a time):
    name -> (cf-agent's run, cf-lite's run) as :func:`observe` sees them, followed by
    ``extra(workdir)`` when given (what else the run left there); ``distinct(name)``: the
    case's lines are compared as distinct lines (:func:`observe`)."""
    from tests.differential import harness
    jobs = []
    for name, files, args in cases:
        tree = root / name
        tree.mkdir()
        for rel, text in ({"promises.cf": files} if isinstance(files, str) else files).items():
            harness.write_policy(tree / rel, text)
        jobs.append((name, tree / "promises.cf", list(args)))
    def seen(run: Any, workdir: Any, name: str) -> tuple:
        observed = observe(run.stdout, run.stderr, run.returncode, str(workdir), name,
                           distinct is not None and distinct(name))
        return observed if extra is None else observed + (extra(workdir),)

    return {name: (seen(ref, root / f"ref-workdir-{name}", name),
                   seen(lite, root / f"lite-workdir-{name}", name))
            for name, (ref, lite) in harness.run_many(jobs, root).items()}


def observed_tests(cases: Any, extra: Any = None) -> tuple[Any, Any]:
    """For a module of generated cases (``CASES``, ``NAMES``, maybe
    ``EXPECTED_DIFFERENCES``, ``DISTINCT_LINES``: which cases compare distinct lines):
    its module-scoped ``results`` fixture (:func:`run_observed`)
    and the test that each case runs alike under both agents; a test module binds them,
    ``results, test_same_run_as_cf_agent = agentmisc.observed_tests(cases)``."""
    import pytest
    label = cases.__name__.rpartition(".")[2]
    expected: dict[str, str] = getattr(cases, "EXPECTED_DIFFERENCES", {})

    @pytest.fixture(scope="module", name="results")
    def results(tmp_path_factory: Any) -> dict[str, tuple]:
        return run_observed(tmp_path_factory.mktemp(label), cases.CASES, extra,
                            getattr(cases, "DISTINCT_LINES", None))

    @pytest.mark.parametrize("name", cases.NAMES)
    def test_same_run_as_cf_agent(results: dict[str, tuple], name: str) -> None:
        reference, ours = results[name]
        if name in expected:
            assert ours != reference, "now agrees: drop it from EXPECTED_DIFFERENCES"
            pytest.xfail(expected[name])
        assert ours == reference
    return results, test_same_run_as_cf_agent

# -- control bodies as variables --------------------------------------------------
_ALL_CONTROLS = """
body common control { bundlesequence => { "g", "main" }; version => "1.2"; %s }
body agent control { ifelapsed => "$(g.n)"; default_repository => "/tmp"; abortclasses => { "x_abort", "y_abort" }; expireafter => "1k"; environment => { "A=1", "B=$(g.v)" }; nosuch_class:: maxconnections => "5"; any:: addclasses => { "added_$(g.v)" }; }
body server control { allowconnects => { "127.0.0.1" }; port => "5309"; }
body executor control { splaytime => "3"; schedule => { "Min00" }; }
body monitor control { forgetrate => "0.7"; }
body runagent control { hosts => { "a", "b" }; }
body hub control { port => "5308"; }
bundle common g { vars: "v" string => "from_g"; "n" string => "7"; }
bundle agent main {
vars:
  "bs" slist => { @(control_common.bundlesequence) };
  "e" slist => { @(control_agent.environment), "x" };
reports:
  "ifelapsed=$(control_agent.ifelapsed) version=$(control_common.version)";
  "bs=$(bs) abort=$(control_agent.abortclasses) e=$(e)";
  "srv=$(control_server.allowconnects) port=$(control_server.port) exe=$(control_executor.splaytime)";
  "mon=$(control_monitor.forgetrate) ra=$(control_runagent.hosts) hub=$(control_hub.port)";
  "mc=$(control_agent.maxconnections) join=$(with)" with => join(",", "control_runagent.hosts");
  "added" if => "added_from_g";
  "nope=$(control_agent.nosuch)";
}
"""
case("control_all", _ALL_CONTROLS % "", "--show-evaluated-vars=^default:control_")
case("control_guarded", _ALL_CONTROLS % 'linux:: inputs => { }; !linux:: inputs => { "x.cf" };',
     "--show-evaluated-vars=^default:control_common")
case("control_common_only", """
body common control { bundlesequence => { @(g.seq) }; ignore_missing_bundles => "true"; }
bundle common g { vars: "seq" slist => { "main", "nosuch" }; }
bundle agent main { reports: "seq=$(control_common.bundlesequence) imb=$(control_common.ignore_missing_bundles)"; }
""", "--show-evaluated-vars=^default:control_")
case("control_none", """
bundle agent main { reports: "seq=$(control_common.bundlesequence)" if => isvariable("control_common.bundlesequence"); "none"; }
""", "--show-evaluated-vars=^default:control_")

case("control_file", {
    "promises.cf": """
body common control { bundlesequence => { "main" }; inputs => { "a.cf" }; }
body file control { inputs => { "b.cf" }; }
bundle agent main {
vars:
  "names" slist => variablesmatching("default:control_file\\..*");
reports:
  "file=$(control_file.inputs) ns=$(control_file.namespace) names=$(names)";
  "a=$(a:x.v) b=$(b.v)";
}
""",
    "a.cf": 'body file control { namespace => "a"; }\nbundle common x { vars: "v" string => "A"; }\n',
    "b.cf": 'body file control { inputs => { "c.cf" }; }\nbundle common b { vars: "v" string => "B"; }\n',
    "c.cf": "bundle common c { }\n"},
    "--show-evaluated-vars=^default:control_")

# -- what an edit bundle leaves behind: its parameters and arrays stay (a methods call's
# parameters go and its arrays start afresh), which variablesmatching() and the order
# of cf-agent's variable table show
_LEFT = """
bundle agent main {
methods:
  "m1" usebundle => ab("one");
  "m2" usebundle => ab("two");
files:
  "$(sys.workdir)/left1" create => "true", edit_line => eb("lineA", "k1");
  "$(sys.workdir)/left2" create => "true", edit_line => eb("lineB", "k2");
}
bundle agent ab(x) { vars: "arr[$(x)]" string => "A"; "loc" string => "L$(x)"; }
bundle edit_line eb(line, key) {
vars:
  "earr[$(key)]" string => "$(line)";
  "keys" slist => getindices("earr");
insert_lines:
  "$(line) $(keys)";
}
bundle agent after {
vars:
  "vm" slist => variablesmatching("default:(ab|eb)\\..*");
  "all" slist => variablesmatching(".*");
reports:
  "V $(vm)";
  "ab.x=$(ab.x) eb.line=$(eb.line) eb.keys=$(eb.keys)";
  "all=$(all)";
}
"""
case("edit_bundle_leftovers", "body common control { bundlesequence => { \"main\", \"after\" }; }\n"
     + _LEFT)
if MASTERFILES_LIB.is_file():
    case("edit_bundle_leftovers_lib", "body common control { bundlesequence => { \"main\", "
         f"\"after\" }}; inputs => {{ \"{MASTERFILES_LIB}\" }}; }}\n" + _LEFT)

# -- def.json ------------------------------------------------------------------------
_DEF_USER = """
bundle agent main {
vars:
  "names" slist => variablesmatching("default:def\\..*");
reports:
  "a=$(def.a) b=$(def.b) c=$(with)" with => join(",", "def.c");
  "cls" if => "myclass";
  "other" if => "other_class";
}
"""
for name, text in (
        ("trailing_commas", '{ "vars": { "a": "1", "b": "two", "c": [ "x", "y", ], },\n'
                            '  "classes": { "myclass": [ "any" ], }, }'),
        ("bare_keys", '{ vars: { a: "1", b: "2" }, classes: { myclass: "any::" } }'),
        ("missing_brace", '{ "vars": { "a": "1" }\n'),
        ("junk_after", '{ "vars": { "a": "1" } } trailing junk'),
        ("not_json", "vars = a"),
        ("values", '{ "vars": { "a": 2.50, "b": true, "c": [1.25, 10, false, null, "s"], '
                   '"d": {"k": 1.5, "n": 12345678901}, "e": [], "f": {}, "g": [[1]] } }'),
        ("inputs_bad", '{ "inputs": "x.cf", "vars": { "a": "1" } }'),
        ("classes_forms", '{ "classes": { "myclass": "any", "other_class": ["nosuch::", "linux::"], '
                          '"c3": { "class_expressions": ["any::"], "tags": ["t1"] } } }'),
        ("unicode", '{ "vars": { "a": "caf\\u00e9", "b": "tab\\there" } }'),
):
    case(f"defjson_{name}", {"promises.cf": _DEF_USER, "def.json": text},
         "--show-evaluated-vars=^default:def\\.[a-i]$", "--show-evaluated-classes=^(myclass|other_class|c3)$")

# -- fatal errors ----------------------------------------------------------------------
_SHOW = ("--show-evaluated-vars=^default:main\\.", "--show-evaluated-classes=^stop")
case("fatal_bare_usebundle", """
bundle agent main { vars: "x" string => "a"; methods: "m" usebundle => nosuch; reports: "after"; }
""", *_SHOW)
case("fatal_quoted_usebundle", """
bundle agent main { vars: "x" string => "a"; "b" string => "nosuch"; methods: "m" usebundle => "$(b)"; }
""", *_SHOW)
case("fatal_other_bundle", """
bundle agent main { methods: "ok" usebundle => x; "m" usebundle => nosuch("a", "b"); }
bundle agent x { reports: "in x"; }
bundle agent unused { methods: "o" usebundle => nosuch3; }
""", *_SHOW)
# a missing bundle called with arguments not resolved yet: fatal in the first pass (the
# name is known; cf-lite waits for values only where the bundle exists)
case("fatal_missing_unresolved_arg", """
bundle agent main { methods: "m" usebundle => nosuch($(undefined.x)); reports: "after"; }
""", *_SHOW)
case("fatal_missing_unresolved_quoted", """
bundle agent main { vars: "x" string => "a"; methods: "m" usebundle => nosuch("$(x)", "$(undefined.y)"); reports: "after $(x)"; }
""", *_SHOW)
case("fatal_missing_unresolved_called", """
bundle agent main { methods: "c" usebundle => sub; reports: "after"; }
bundle agent sub { methods: "m" usebundle => nosuch(@(undefined.l)); reports: "in sub"; }
""", *_SHOW)
case("fatal_class_context", """
bundle agent main { vars: "x" string => "a"; "e" string => "a b"; classes: "c" expression => "$(e)"; }
""", *_SHOW)
case("abort_prints_tables", """
body agent control { abortclasses => { "stop" }; }
bundle agent main { vars: "x" string => "a"; classes: "stop" expression => "any"; reports: "hi"; }
""", *_SHOW)
case("missing_bundle_in_sequence", """
body common control { bundlesequence => { "main", "nosuch" }; }
bundle agent main { vars: "x" string => "a"; }
""", *_SHOW)

# -- validation verdicts the agent reaches ---------------------------------------------
case("seq_empty_runs_main", """
body common control { bundlesequence => { }; }
bundle agent main { reports: "main ran"; }
""")
case("seq_empty_list_var", """
bundle common g { vars: "l" slist => { }; }
body common control { bundlesequence => { @(g.l) }; }
bundle agent main { reports: "main ran"; }
""")
case("seq_guarded_away", """
body common control { nosuch_class:: bundlesequence => { "x" }; }
bundle agent main { reports: "main ran"; }
bundle agent x { reports: "x ran"; }
""")
case("no_main_no_seq", """
bundle agent x { reports: "x ran"; }
""")
case("two_common_controls", """
body common control { bundlesequence => { "main" }; }
body common control { version => "2"; }
bundle agent main { reports: "main ran"; }
""")
case("included_main_not_run", {
    "promises.cf": 'body common control { inputs => { "inc.cf" }; }\n'
                   'bundle agent main { methods: "l" usebundle => lib; reports: "main ran"; }\n',
    "inc.cf": 'bundle agent __main__ { reports: "included main ran"; }\n'
              'bundle agent lib { reports: "lib ran"; }\n'})
case("entry_main_runs", {
    "promises.cf": 'body file control { inputs => { "inc.cf" }; }\n'
                   'bundle agent __main__ { methods: "l" usebundle => lib; reports: "entry ran"; }\n',
    "inc.cf": 'bundle agent __main__ { reports: "included main ran"; }\n'
              'bundle agent lib { reports: "lib ran"; }\n'})
case("ldap_and_remote_pass", """
bundle agent main { vars: "r" string => remotescalar("id", "127.0.0.1", "no"); reports: "ran"; }
""")

# -- promise locking with -D classes cf-promises is not given (tests.differential.lockdefine)
from tests.differential.lockdefine import CASES as _LOCKDEFINE  # noqa: E402
CASES += _LOCKDEFINE

# -- the dry run ------------------------------------------------------------------------
_FILES = """
bundle agent main {
vars:
  "w" string => "$(sys.workdir)/tree";
files:
  "$(w)/src.txt" create => "true", edit_line => one;
  "$(w)/nodir/sub/dest.txt" copy_from => cp("$(w)/src.txt");
  "$(w)/nodir2/dest.txt" copy_from => cp("$(w)/src.txt"), create => "true";
  "$(w)/dest3.txt" copy_from => cp("$(w)/src.txt");
  "$(w)/newdir/." create => "true";
  "$(w)/newfile" create => "true";
  "$(w)/w1/sub/dest.txt" copy_from => cp("$(w)/src.txt"), action => warn;
  "$(w)/w2/f" create => "true", action => warn;
  "$(w)/w5/x" perms => m;
  "$(w)/w6/x" delete => tidy;
}
bundle edit_line one { insert_lines: "content"; }
body copy_from cp(f) { source => "$(f)"; }
body action warn { action_policy => "warn"; }
body perms m { mode => "600"; rxdirs => "false"; }
body delete tidy { dirlinks => "delete"; }
"""
case("files_dry_run", _FILES, "-n")
case("files_run", _FILES)

# -- the working directory: cf-agent changes into the directory of every files promise
# made without depth_search (verify_files.c's safe_chdir), ends a depth search inside the
# directory searched (its parent with include_basedir), purges from inside the copy's
# destination, and stays there: commands, execresult() and relative paths in functions
# see it afterwards.  Each step is a bundle of one files promise, then a look around.
_CWD_STEPS = (
    ('"$(w)/a/f1" create => "true"',),
    ('"$(w)/b/." create => "true"',),
    ('"$(w)/nodir/x" perms => m',),                     # no such directory: stays
    ('"$(w)/a" perms => m, depth_search => all',),
    ('"$(w)/b/gone" delete => tidy',),                  # nothing to delete: stays
    ('"$(w)/src/s1/s2/f" create => "true"',),
    ('"$(w)/src/s3/g" create => "true"',),
    ('"$(w)/src" perms => m, depth_search => all',),
    ('"$(w)/src/s1" perms => m, depth_search => base',),
    ('"$(w)/dst" copy_from => cp("$(w)/src"), depth_search => all',),
    ('"$(w)/a/f1" edit_line => one',),
    ('"$(w)/dst" copy_from => purging("$(w)/src"), depth_search => all',),
    ('"$(w)/dst/s3" perms => m, depth_search => all, file_select => none',),
    ('"$(w)/a/f2" create => "true"',),
)
_CWD = ("bundle agent main {\nmethods:\n"
        + "".join(f'  "step {i}" usebundle => step{i};\n' for i in range(len(_CWD_STEPS)))
        + '  "relative" usebundle => relative;\n}\n'
        + "".join(f'bundle agent step{i} {{\nvars:\n  "w" string => "$(sys.workdir)/cwd";\n'
                  f'  "p" string => execresult("/bin/pwd", "noshell");\nfiles:\n  {step[0]};\n'
                  f'commands:\n  "/bin/pwd # step {i}" contain => shown;\n'
                  f'reports:\n  "step {i}: execresult at start $(p)";\n}}\n'
                  for i, step in enumerate(_CWD_STEPS))
        + """bundle agent relative {
classes:
  "both" expression => filesexist('[ "f1", "f2" ]');
  "one" expression => filesexist('[ "f1", "nosuch" ]');
reports:
  both:: "f1 and f2 are here";
  one:: "one should not be defined";
}
bundle edit_line one { insert_lines: "content"; }
body perms m { mode => "750"; rxdirs => "false"; }
body depth_search all { depth => "inf"; }
body depth_search base { depth => "inf"; include_basedir => "true"; }
body copy_from cp(f) { source => "$(f)"; }
body copy_from purging(f) { source => "$(f)"; purge => "true"; }
body file_select none { leaf_name => { "nothing_is_called_this" }; file_result => "leaf_name"; }
body delete tidy { dirlinks => "delete"; }
body contain shown { useshell => "useshell"; }
""")
case("cwd_files_run", _CWD)
case("cwd_files_dry_run", _CWD, "-n")

# -- what reading a perms body says: cf-agent's GetFilesAttributes reads the promise's
# attributes before its lock (so once in every pass) and again for every file it handles
# (VerifyFileLeaf); each read warns about the rxdirs default and notes unknown owners and
# groups.  A "d/." promiser is chopped to "d" for the rest of the pass.
_NOTES_BODIES = {
    "rx": 'mode => "644";',
    "rx_ids": 'mode => "644"; owners => { "cflite_no_user" }; groups => { "cflite_no_group" };',
    "ids": 'mode => "600"; owners => { "cflite_no_user", "root" };',
    "given": 'mode => "644"; rxdirs => "true";',
}
_NOTES_SHAPES = (
    '"$(w)/exists" perms => m;',
    '"$(w)/new" create => "true", perms => m;',
    '"$(w)/missing/x" perms => m;',
    '"$(w)/tree" perms => m, depth_search => all;',
    '"$(w)/tree/." create => "true", perms => m;',
    '"$(w)/tree" perms => m, depth_search => base;',
    '"$(w)/exists" perms => m, edit_line => one;',
    '"$(w)/copy" copy_from => cp("$(w)/exists"), perms => m;',
    '"$(w)/t.*" perms => m;',
)
for _body, _text in _NOTES_BODIES.items():
    case(f"perms_notes_{_body}", f"""
bundle agent main {{ methods: "setup" usebundle => setup; "check" usebundle => check; }}
bundle agent setup {{
vars:
  "w" string => "$(sys.workdir)/notes";
files:
  "$(w)/exists" create => "true";
  "$(w)/tree/sub/f" create => "true";
}}
bundle agent check {{
vars:
  "w" string => "$(setup.w)";
files:
  {chr(10).join("  " + shape for shape in _NOTES_SHAPES)}
}}
bundle edit_line one {{ insert_lines: "content"; }}
body perms m {{ {_text} }}
body depth_search all {{ depth => "inf"; }}
body depth_search base {{ depth => "inf"; include_basedir => "true"; }}
body copy_from cp(f) {{ source => "$(f)"; }}
""", *(("-I",) if _body != "given" else ()))
case("perms_notes_dry_run", CASES[-2][1]["promises.cf"], "-n", "-I")

# -- a vars promiser naming a scope ("b.x", VarRefParse), and what may not be a name:
# another bundle's scope is refused once the policy is loaded (CFE-1915: "Remote bundle
# variable injection detected!"); written while the policy loads (a common bundle), it is
# dropped when that bundle runs ("Ignoring remotely-injected variable")
_SCOPES = """
body common control { bundlesequence => { "early", "main", "target" }; }
bundle common early {
vars:
  "target.planted" string => "from early";
  "early.own" string => "own";
  "elsewhere.x" string => "into a scope no bundle has";
}
bundle agent main {
vars:
  "expected.single" string => "v1";
  "main.other" string => "v2";
  "target.injected" string => "refused";
  "arr[a.b]" string => "key with dots";
  "odd" slist => { "a-b", "ok", "c d", "x.y" };
  "$(odd)" string => "named from a list";
  "k" slist => { "k1", "k.2" };
  "zone.$(k)" string => "dotted from a list";
reports:
  "1 $(expected.single) 2 $(other) 3 $(main.other) 4 $(elsewhere.x) 5 $(early.own)";
  "6 $(arr[a.b]) 7 $(ok) 8 $(x.y) 9 $(zone.k1)";
  "10 $(target.planted) 11 $(target.injected)";
}
bundle agent target {
reports:
  "in target: $(planted) $(target.injected)";
}
"""
case("promiser_scopes", _SCOPES, "--show-evaluated-vars=^default:(expected|main|elsewhere|zone|target|early)\\.")

# -- ifelapsed => "0" calls memoised functions again (fncall.c, ENT-7478): each command
# counts its own runs in a file, so the reports say how often each agent ran it
_FRESH_ACTIONS = {
    "immediate": 'action => immediate',
    "param0": 'action => elapsed("0")',
    "param5": 'action => elapsed("5")',
    "none": '',
}
_FRESH_CALLS = {     # the value, what a report shows of it
    "execresult": ('string => execresult("$(cmd)", "useshell")', "$(v)"),
    "returnszero": ('string => ifelse(returnszero("$(cmd) >/dev/null", "useshell"), "ok", "no")',
                    "$(v)"),
    "as_data": ('data => execresult_as_data("$(cmd)", "useshell", "stdout")', "$(v[output])"),
}
for _aname, _action in _FRESH_ACTIONS.items():
    for _cname, (_call, _shown) in _FRESH_CALLS.items():
        _sep = ", " if _action else ""
        case(f"fresh_calls_{_cname}_{_aname}", f"""
bundle agent counted(x)
{{
  vars:
    "cmd" string => "echo x >> $(sys.workdir)/count; wc -l < $(sys.workdir)/count";
    "v" {_call}{_sep}{_action};
  reports:
    "$(x): {_shown}";
}}
bundle agent main
{{
  methods:
    "a" usebundle => counted("a");
    "b" usebundle => counted("b");
  classes:
    "c" expression => returnszero("/bin/echo x >> $(sys.workdir)/count2", "useshell"){_sep}{_action};
  vars:
    "n" string => execresult("/usr/bin/wc -l < $(sys.workdir)/count2", "useshell"){_sep}{_action};
  reports:
    "runs of the class command: $(n)";
}}
body action immediate {{ ifelapsed => "0"; }}
body action elapsed(n) {{ ifelapsed => "$(n)"; }}
""")
# -- what cf-promises says of promise locking on vars promises (and a common bundle's
# classes promises), per PolicyResolve round, when cf-agent validates (cfpromise.agent.lockwarn)
_LOCKING_BODIES = """
body action elapsed(n) { ifelapsed => "$(n)"; }
body action expire(n) { expireafter => "$(n)"; }
body action both { expireafter => "3"; ifelapsed => "4"; }
body action child { inherit_from => elapsed("7"); log_level => "inform"; }
body action zero_expire { inherit_from => expire("2"); ifelapsed => "0"; }
body action guarded { linux:: ifelapsed => "5"; windows:: expireafter => "6"; }
"""
_LOCKING = {
    "agent": 'bundle agent main {\nvars:\n  "v" string => "x", action => elapsed("5");\nreports:\n  "r $(v)";\n}\n',
    "common": 'bundle common g {\nvars:\n  "v" string => "x", action => elapsed("5");\n}\n'
              'bundle agent main {\nreports:\n  "r $(g.v)";\n}\n',
    "hard_set": 'bundle agent main {\nvars:\n  linux::\n    "v" string => "x", action => elapsed("5");\n'
                '  windows::\n    "w" string => "x", action => elapsed("5");\nreports:\n  "r";\n}\n',
    "agent_class": 'bundle agent main {\nvars:\n  agent::\n    "v" string => "x", action => elapsed("5");\n'
                   '  common::\n    "w" string => "x", action => elapsed("5");\nreports:\n  "r";\n}\n',
    "common_class": 'bundle agent main {\nvars:\n  gc::\n    "v" string => "x", action => elapsed("5");\n'
                    'reports:\n  "r";\n}\nbundle common g {\nclasses:\n  "gc" expression => "any";\n}\n',
    "own_class": 'bundle common g {\nvars:\n  gc::\n    "v" string => "x", action => elapsed("5");\n'
                 'classes:\n  "gc" expression => "any";\n}\nbundle agent main {\nreports:\n  "r";\n}\n',
    "later_class": 'bundle common g {\nvars:\n  hc::\n    "v" string => "x", action => elapsed("5");\n}\n'
                   'bundle common h {\nclasses:\n  "hc" expression => "any";\n}\n'
                   'bundle agent main {\nreports:\n  "r";\n}\n',
    "agent_bundle_class": 'bundle agent main {\nclasses:\n  "ac" expression => "any";\nvars:\n  ac::\n'
                          '    "v" string => "x", action => elapsed("5");\nreports:\n  "r";\n}\n',
    "list_promiser": 'bundle agent main {\nvars:\n  "l" slist => { "a", "b", "c" };\n'
                     '  "v_$(l)" string => "x", action => elapsed("5");\nreports:\n  "r";\n}\n',
    "list_value": 'bundle agent main {\nvars:\n  "l" slist => { "a", "b", "c" };\n'
                  '  "v" string => "$(l)", action => elapsed("5");\nreports:\n  "r";\n}\n',
    "two_lists": 'bundle agent main {\nvars:\n  "l" slist => { "a", "b" };\n  "m" slist => { "x", "y", "z" };\n'
                 '  "v_$(l)_$(m)" string => "x", action => elapsed("5");\nreports:\n  "r";\n}\n',
    "common_list": 'bundle common g {\nvars:\n  "l" slist => { "a", "b" };\n'
                   '  "v_$(l)" string => "x", action => elapsed("5");\n}\nbundle agent main {\nreports:\n  "r";\n}\n',
    "later_list": 'bundle common g {\nvars:\n  "v_$(h.l)" string => "x", action => elapsed("5");\n}\n'
                  'bundle common h {\nvars:\n  "l" slist => { "p", "q" };\n}\nbundle agent main {\nreports:\n  "r";\n}\n',
    "other_bundle_list": 'bundle agent main {\nvars:\n  "v_$(other.l)" string => "x", action => elapsed("5");\n'
                         'reports:\n  "r";\n}\nbundle agent other {\nvars:\n  "l" slist => { "a", "b" };\n}\n',
    "undefined_list": 'bundle agent main {\nvars:\n  "v_$(nosuch)" string => "x", action => elapsed("5");\n'
                      'reports:\n  "r";\n}\n',
    "array": 'bundle agent main {\nvars:\n  "a[k1]" string => "1";\n  "a[k2]" string => "2";\n'
             '  "i" slist => getindices("a");\n  "v_$(i)" string => "$(a[$(i)])", action => elapsed("5");\n'
             'reports:\n  "r";\n}\n',
    "zero": 'bundle agent main {\nvars:\n  "v" string => "x", action => elapsed("0");\nreports:\n  "r";\n}\n',
    "expire": 'bundle agent main {\nvars:\n  "v" string => "x", action => expire("5");\n'
              '  "w" string => "x", action => expire("0");\nreports:\n  "r";\n}\n',
    "both": 'bundle agent main {\nvars:\n  "v" string => "x", action => both;\nreports:\n  "r";\n}\n',
    "inherit": 'bundle agent main {\nvars:\n  "v" string => "x", action => child;\n'
               '  "w" string => "x", action => zero_expire;\nreports:\n  "r";\n}\n',
    "body_guards": 'bundle agent main {\nvars:\n  "v" string => "x", action => guarded;\nreports:\n  "r";\n}\n',
    "body_variable": 'bundle common g {\nvars:\n  "n" string => "9";\n}\nbundle agent main {\nvars:\n'
                     '  "v" string => "x", action => elapsed("$(g.n)");\nreports:\n  "r";\n}\n',
    "numbers": 'bundle agent main {\nvars:\n  "v" string => "x", action => elapsed("inf");\n'
               '  "u" string => "x", action => elapsed("2k");\nreports:\n  "r";\n}\n',
    "numbers_bad": 'bundle agent main {\nvars:\n  "v" string => "x", action => elapsed("abc");\n'
                   '  "w" string => "x", action => expire("1x");\nreports:\n  "r";\n}\n',
    "list_after": 'bundle agent main {\nvars:\n  "v_$(l)" string => "x", action => elapsed("5");\n'
                  '  "l" slist => { "a", "b" };\nreports:\n  "r";\n}\n',
    "if_unless": 'bundle agent main {\nvars:\n  "v" string => "x", action => elapsed("5"), if => "linux";\n'
                 '  "w" string => "x", action => elapsed("5"), unless => "linux";\nreports:\n  "r";\n}\n',
    "varclass": 'bundle agent main {\nvars:\n  "c" string => "linux";\n  "$(c)"::\n'
                '    "v" string => "x", action => elapsed("5");\nreports:\n  "r";\n}\n',
    "varclass_list": 'bundle agent main {\nvars:\n  "cl" slist => { "linux", "windows", "any" };\n  "$(cl)"::\n'
                     '    "v_$(cl)" string => "x", action => elapsed("5");\nreports:\n  "r";\n}\n',
    "not_in_sequence": 'bundle agent other {\nvars:\n  "v" string => "x", action => elapsed("5");\n}\n'
                       'bundle agent main {\nreports:\n  "r";\n}\n',
    "parameters": 'bundle agent main {\nmethods:\n  "m" usebundle => b("q");\n}\nbundle agent b(x) {\nvars:\n'
                  '  "v_$(x)" string => "x", action => elapsed("5");\n  "w" string => "x", action => elapsed("$(x)");\n}\n',
    "edit_line": 'bundle agent main {\nreports:\n  "r";\n}\nbundle edit_line el(p) {\nvars:\n'
                 '  "v_$(p)" string => "x", action => elapsed("5");\ninsert_lines:\n  "x";\n}\n',
    "server": 'bundle agent main {\nreports:\n  "r";\n}\nbundle server srv {\nvars:\n'
              '  "v" string => "x", action => elapsed("5");\n}\n',
    # bundles cf-agent's parser leaves out (cfpromise.agent.leftout): the cf-promises
    # it validates with still warns of them, in their places among the others
    "monitor": 'bundle agent main {\nreports:\n  "r";\n}\nbundle monitor monb {\nvars:\n'
               '  "v" string => "x", action => elapsed("5");\n}\n',
    "server_between": 'bundle agent main {\nvars:\n  "a" string => "x", action => elapsed("5");\n'
                      'reports:\n  "r";\n}\nbundle server srv {\nvars:\n'
                      '  "s" string => "x", action => elapsed("5");\n}\nbundle agent z {\nvars:\n'
                      '  "b" string => "x", action => elapsed("5");\n}\n',
    "meta_defaults": 'bundle agent main {\nmeta:\n  "m" string => "x", action => elapsed("5");\ndefaults:\n'
                     '  "d" string => "x", action => elapsed("5");\nreports:\n  "r";\n}\n',
    "common_classes": 'bundle common g {\nclasses:\n  "gc" expression => "any", action => elapsed("5");\n'
                      '  "gz" expression => "any", action => elapsed("0");\n}\nbundle agent main {\nreports:\n  "r";\n}\n',
    "common_classes_false": 'bundle common g {\nclasses:\n  "gf" expression => "!any", action => elapsed("5");\n}\n'
                            'bundle agent main {\nreports:\n  "r";\n}\n',
    "common_classes_guarded": 'bundle common g {\nclasses:\n  "a" expression => "any";\n  a::\n'
                              '    "gc" expression => "any", action => elapsed("5");\n}\nbundle agent main {\nreports:\n  "r";\n}\n',
    "agent_classes": 'bundle agent main {\nclasses:\n  "c" expression => "any", action => elapsed("5");\n'
                     '  "f" expression => "!any", action => elapsed("5");\nreports:\n  "r";\n}\n',
    # a common bundle run by the agent: its classes once more after each pass's classes
    # section (BundleResolve), while the class stays undefined
    "common_classes_sequence": 'body common control {\n  bundlesequence => { "g", "main" };\n}\n'
                               'bundle common g {\nclasses:\n  "gf" expression => "nosuch_xyz", '
                               'action => elapsed("5");\n}\nbundle agent main {\nreports:\n  "r";\n}\n',
    "common_classes_methods": 'bundle common g {\nclasses:\n  "gf" expression => "nosuch_xyz", '
                              'action => elapsed("5");\n}\nbundle agent main {\nmethods:\n'
                              '  "m" usebundle => g;\nreports:\n  "r";\n}\n',
}
for _name, _text in _LOCKING.items():
    case(f"locking_{_name}", _text + _LOCKING_BODIES)
# defaults promises as DefaultVarPromise decides: a defined string stays (even empty)
# unless if_match_regex matches it; a list is replaced unless the regex matches none of
# its items; a data container always; an undefined variable gets the default
case("defaults_shapes", """
bundle agent main {
  vars:
    "s_empty" string => "";
    "s_val" string => "abc";
    "l_val" slist => { "a", "b" };
    "l_empty" slist => { };
    "i_val" int => "5";
    "s_re" string => "";
    "s_re_no" string => "abc";
    "l_re" slist => { "a", "" };
    "l_re_no" slist => { "a", "b" };
    "d_val" data => '{"k":1}';
  defaults:
    "s_empty" string => "D";
    "s_val" string => "D";
    "l_val" slist => { "D" };
    "l_empty" slist => { "D" };
    "i_val" string => "D";
    "s_undef" string => "D";
    "l_undef" slist => { "D" };
    "s_re" string => "D", if_match_regex => "";
    "s_re_no" string => "D", if_match_regex => "ab";
    "l_re" slist => { "D" }, if_match_regex => "";
    "l_re_no" slist => { "D" }, if_match_regex => "c";
    "d_val" string => "D";
  methods:
    "p" usebundle => params("", "given", "");
  reports:
    "s_empty=$(s_empty) s_val=$(s_val) i_val=$(i_val) s_undef=$(s_undef) s_re=$(s_re) s_re_no=$(s_re_no)";
    "l_val: $(l_val)";
    "l_empty: $(l_empty)";
    "l_undef: $(l_undef)";
    "l_re: $(l_re)";
    "l_re_no: $(l_re_no)";
    "d_val: $(d_val)";
}
bundle agent params(a, b, c)
{
  defaults:
    "a" string => "A", if_match_regex => "";
    "b" string => "B", if_match_regex => "";
    "c" string => "C";
  reports:
    "params: a=$(a) b=$(b) c=$(c)";
}
""")
case("locking_dry_run", _LOCKING["agent"] + _LOCKING_BODIES, "-n")
case("locking_bundlesequence", _LOCKING["agent"] + _LOCKING_BODIES, "-b", "main")
case("locking_define", 'bundle agent main {\nvars:\n  dd::\n    "v" string => "x", action => elapsed("5");\n'
     'reports:\n  "r";\n}\n' + _LOCKING_BODIES, "-D", "dd")
_LOCKING_CONTROL = 'body common control {\n  bundlesequence => { "main" };\n  inputs => { "lib.cf" };\n}\n'
case("locking_namespace", {"promises.cf": 'body common control {\n  bundlesequence => { "main", "ns:nb" };\n'
                                          '  inputs => { "ns.cf" };\n}\nbundle agent main {\nreports:\n  "r";\n}\n'
                                          + _LOCKING_BODIES,
                           "ns.cf": 'body file control {\n  namespace => "ns";\n}\nbundle agent nb {\nvars:\n'
                                    '  "v" string => "x", action => nsbody;\n  "w" string => "x", action => default:elapsed("3");\n}\n'
                                    'body action nsbody {\n  expireafter => "4";\n}\n'})
case("locking_augments_class", {"promises.cf": 'bundle agent main {\nvars:\n  from_augments::\n'
                                               '    "v" string => "x", action => elapsed("5");\nreports:\n  "r";\n}\n'
                                               + _LOCKING_BODIES,
                                "def.json": '{ "classes": { "from_augments": [ "any" ] } }\n'})
case("locking_define_derived", 'bundle common g {\nclasses:\n  "x" expression => "dd";\n}\nbundle agent main {\nvars:\n'
     '  x::\n    "v" string => "x", action => elapsed("5");\nreports:\n  "r";\n}\n' + _LOCKING_BODIES, "-D", "dd")
case("locking_input_agent", {"promises.cf": _LOCKING_CONTROL + 'bundle agent main {\nreports:\n  "r";\n}\n',
                             "lib.cf": 'bundle agent libb {\nvars:\n  "v" string => "x", action => elapsed("5");\n}\n'
                                       + _LOCKING_BODIES})
case("locking_input_common", {"promises.cf": _LOCKING_CONTROL + 'bundle agent main {\nreports:\n  "r";\n}\n'
                                             + _LOCKING_BODIES,
                              "lib.cf": 'bundle common libg {\nvars:\n  "v" string => "x", action => elapsed("5");\n'
                                        'classes:\n  "gc" expression => "any", action => elapsed("5");\n'
                                        '  "gf" expression => "!any", action => elapsed("6");\n}\n'})
case("locking_input_bodies", {"promises.cf": _LOCKING_CONTROL + 'bundle agent main {\nvars:\n'
                                             '  "v" string => "x", action => elapsed("5");\nreports:\n  "r";\n}\n',
                              "lib.cf": 'bundle common libg {\nvars:\n  "w" string => "x", action => elapsed("5");\n'
                                        'classes:\n  "gc" expression => "any", action => elapsed("5");\n}\n'
                                        + _LOCKING_BODIES})
case("locking_input_nested", {"promises.cf": 'body common control {\n  bundlesequence => { "main" };\n'
                                             '  inputs => { "a.cf", "b.cf" };\n}\nbundle agent main {\nreports:\n  "r";\n}\n',
                              "a.cf": 'body file control {\n  inputs => { "c.cf" };\n}\nbundle agent ab {\nvars:\n'
                                      '  "va" string => "x", action => ea("1");\n}\nbody action ea(n) {\n  ifelapsed => "$(n)";\n}\n',
                              "b.cf": 'bundle common bb {\nvars:\n  "vb" string => "x", action => eb("2");\n}\n'
                                      'body action eb(n) {\n  ifelapsed => "$(n)";\n}\n',
                              "c.cf": 'bundle agent cb {\nvars:\n  "vc" string => "x", action => ec("3");\n}\n'
                                      'body action ec(n) {\n  expireafter => "$(n)";\n}\n'})
case("locking_input_class", {"promises.cf": _LOCKING_CONTROL + 'bundle agent main {\nvars:\n  lc::\n'
                                            '    "v" string => "x", action => elapsed("5");\nreports:\n  "r";\n}\n'
                                            'bundle common g {\nvars:\n  lc::\n'
                                            '    "w" string => "x", action => elapsed("5");\n}\n' + _LOCKING_BODIES,
                             "lib.cf": 'bundle common lib {\nclasses:\n  "lc" expression => "any";\n}\n'})
_PROCESSES = """
bundle agent main {
processes:
  "nosuch_process_xyz_26" restart_class => "restart_it";
  "cflite_dryrun_sleeper" signals => { "term" }, restart_class => "restart_sleeper";
  "cflite_dryrun_sleeper" process_stop => "/bin/false";
  "nosuch_process_xyz_26" restart_class => "warn_restart", action => warn;
  "cflite_dryrun_sleeper" process_count => c;
reports:
  "restart_it" if => "restart_it";
  "restart_sleeper" if => "restart_sleeper";
  "warn_restart" if => "warn_restart";
  "in range" if => "sleeper_found";
}
body action warn { action_policy => "warn"; }
body process_count c { match_range => "1,1"; in_range_define => { "sleeper_found" }; }
"""
case("processes_dry_run", _PROCESSES.replace(', restart_class => "restart_sleeper"', ""), "-n")
case("processes_kill_restart", _PROCESSES, "-n")
case("processes_warn", _PROCESSES.replace('signals => { "term" }, ', "")
     .replace('process_stop => "/bin/false"', 'process_stop => "/bin/false", action => warn'))

# -- printfile ---------------------------------------------------------------------------
case("printfile", """
bundle agent main {
vars:
  "f" string => "$(sys.workdir)/pf.txt";
files:
  "$(f)" create => "true", content => "l1
l2$(const.r)
l3
l4
l5
l6
l7";
reports:
  "inf" printfile => pf("inf", "$(f)");
  "two" printfile => pf("2", "$(f)");
  "zero" printfile => pf("0", "$(f)");
  "neg" printfile => pf("-2", "$(f)");
  "k" printfile => pf("1k", "$(f)");
  "default" printfile => d("$(f)");
  "missing" printfile => pf("3", "$(sys.workdir)/nope.txt"), classes => c("missing");
  "tofile" printfile => pf("2", "$(f)"), report_to_file => "$(sys.workdir)/out.txt";
  "missing failed" if => "missing_failed";
}
body printfile pf(n, f) { file_to_print => "$(f)"; number_of_lines => "$(n)"; }
body printfile d(f) { file_to_print => "$(f)"; }
body classes c(p) { repair_failed => { "$(p)_failed" }; promise_kept => { "$(p)_kept" }; }
""")

# -- a bundle with parameters in the bundlesequence ----------------------------------------
case("seq_params_missing", """
body common control { bundlesequence => { "test", t2("a") }; }
bundle agent test(f) { vars: "v" string => "x$(f)"; reports: "f=$(f) v=$(v)"; }
bundle agent t2(a) { reports: "a=$(a)"; }
""")
case("seq_params_mismatch", """
body common control { bundlesequence => { t2("a"), t3("x", "y") }; }
bundle agent t2(a) { reports: "a=$(a)"; }
bundle agent t3(a) { reports: "t3 a=$(a)"; }
""")

# -- augments: the order variables are defined in (nested files override) ------------------
case("augments_order", {
    "promises.cf": """
bundle agent main {
reports:
  "b=$(def.b) e=$(def.e)";
  "cls" if => "augclass";
}
""",
    "def.json": '{ "vars": { "a": "$(def.b)", "b": "B", "d": "$(sys.uqhost)-$(def.c)" },\n'
                '  "augments": [ "$(sys.policy_entry_dirname)/more.json" ],\n'
                '  "classes": { "augclass": [ "$(def.b)::" ] } }',
    "more.json": '{ "vars": { "b": "B2", "c": "$(def.a)", "e": "$(def.b)" } }'},
    "--show-evaluated-vars=^default:def\\.[a-z]$")

# -- packagesmatching() without an inventory ------------------------------------------------
_PACKAGES = """
%s
bundle agent main {
vars:
  "p" data => packagesmatching(".*", ".*", ".*", ".*");
  "u" data => packageupdatesmatching(".*", ".*", ".*", ".*");
reports:
  "p=$(with)" with => storejson(p);
  "has p" if => isvariable("p");
  "has u" if => isvariable("u");
}
"""
# packages promises that fail cf-agent's checks before the lock: said and failed in each
# pass (dry run: nothing is installed)
_SANITY = ('bundle agent main\n{\n  packages:\n    %s\n  reports:\n    "done";\n'
           '    "failed" if => "pf";\n}\n'
           'body classes c\n{\n  repair_failed => { "pf" };\n}\n'
           'body package_module m\n{\n  query_updates_ifelapsed => "10";\n}\n')
for _name, _promise in (
        ("no_body", '"aide" policy => "present", classes => c;'),
        ("bad_policy", '"aide" policy => "nosuch", classes => c;'),
        ("mixed", '"aide" policy => "present", package_policy => "add", classes => c;'),
        ("two", '"aide" policy => "present"; "vim" policy => "absent", classes => c;')):
    case(f"packages_sanity_{_name}", _SANITY % _promise, "-n")
case("packages_legacy_none", _PACKAGES % "", "--show-evaluated-vars=^default:main\\.")
# (package_inventory naming a module: cf-lite ships its own apt_get module where
# cf-agent finds none in WORKDIR/modules/packages, so the two runs differ by design;
# modules without a body, an empty name or an unexpanded one open an empty database)
for name, inventory in (("empty_name", '""'), ("no_body", '"nosuch_pm"'),
                        ("unexpanded", '"$(g.undef)"'), ("undefined_list", "@(g.undef)"),
                        ("from_list", "@(g.inv)"), ("none", "")):
    case(f"packages_inventory_{name}", _PACKAGES % (
        'body common control { bundlesequence => { "main" }; package_inventory => { %s }; }\n'
        'bundle common g { vars: "inv" slist => { "nosuch_pm", "other_pm" }; }' % inventory),
        "--show-evaluated-vars=^default:main\\.")

# the legacy inventory as GetCsvLineNext reads it: records end with CRLF outside quotes
# (a lone LF is data), a record keeps its CRLF for the regex; written by a first bundle,
# read by the second
_LEGACY_CSV = """
body common control { bundlesequence => { "write", "main" }; }
bundle agent write {
files:
  "$(sys.workdir)/state/software_packages.csv" create => "true", content => "%s";
  "$(sys.workdir)/state/software_patches_avail.csv" create => "true", content => "%s";
}
bundle agent main {
vars:
  "all" data => packagesmatching(".*", ".*", ".*", ".*");
  "z" data => packagesmatching("z.*", "2\\..*", "amd64", "apt");
  "alt" data => packagesmatching("a|zz", ".*", ".*", ".*");
  "up" data => packageupdatesmatching(".*", ".*", ".*", ".*");
reports:
  "all=$(with)" with => storejson(all);
  "z=$(with)" with => storejson(z);
  "alt=$(with)" with => storejson(alt);
  "up=$(with)" with => storejson(up);
}
"""
_CRLF = "$(const.r)$(const.n)"
for name, installed, updates in (
        ("crlf", f"a,1,x,m{_CRLF}zz,2.0,amd64,apt{_CRLF}", f"u,9,x,m{_CRLF}"),
        ("crlf_unterminated", f"a,1,x,m{_CRLF}zz,2.0,amd64,apt", "u,9,x,m"),
        ("quoted", f'\\"c,d\\",3,y,m{_CRLF}\\"q\\"\\"x\\",1,a,m{_CRLF}zz,2.0,amd64,apt',
         f"u,9,x,m{_CRLF}v,8,y"),
        ("lf_only", "a,1,x,m$(const.n)zz,2.0,amd64,apt", "u,9,x,m$(const.n)"),
        ("empty", "", "")):
    case(f"packages_legacy_{name}", _LEGACY_CSV % (installed, updates))

# -- inline JSON and YAML in single-line data and with values (CFEngine's examples) ---------
case("inline_data_with", """
bundle agent main {
vars:
  "l" slist => { "p", "q" };
  "d1" data => '{"a":1}';
  "d2" data => '[1,2]';
  "d3" data => parsejson('{"b":[1,2]}');
  "d4" data => '---
a: 1';
  "d5" data => parseyaml('- x
- y');
  "d8" data => '{"n": "$(l)"}';
  "d9" data => mergedata('[1]', '{"z": 2}');
reports:
  "d1=$(with)" with => storejson(d1);
  "d2=$(with)" with => storejson(d2);
  "d3=$(with)" with => storejson(d3);
  "d4=$(with)" with => storejson(d4);
  "d5=$(with)" with => storejson(d5);
  "d8=$(with)" with => storejson(d8);
  "d9=$(with)" with => storejson(d9);
  "w1=$(with)" with => storejson('[1,2]');
  "w3=$(with)" with => join(",", '["a","b"]');
  "w4=$(with)" with => format("%S", '{"x":1}');
  "w5=$(with)" with => string_mustache("{{a}}", '{"a":"m"}');
  "w6=$(with)" with => join(",", @(l));
  "w7=$(with)" with => length('[1,2,3]');
  "w8=$(with)" with => nth('["a","b"]', 1);
  "w10=$(with)" with => storejson(mergedata('{"q": 1}', d1));
  "w11=$(with)" with => storejson('---
- y');
  "w12=$(with)" with => parsejson('[1,2]');
  "w13=$(with)" with => "$(l)";
  "w14=$(with)" with => canonify(@(l));
}
""")
# a list in with: cf-promises lets it through; running, cf-agent defines no $(with) (but
# while loading it stops the run on one whose guard holds then: "with_list_at_load")
_WITH_LIST = """
body common control { bundlesequence => { "first", "main" }; }
bundle agent first { reports: "first"; }
bundle agent main {
vars:
  "l" slist => { "p", "q" };
classes:
  "later" expression => "any";
reports:
  "before";
  %s"w=$(with)" with => %s;
  "after";
}
"""
for name, value in (("at", "@(l)"), ("split", 'splitstring("a,b", ",", 9)'),
                    ("getindices", """getindices('{"a":1,"b":2}')"""),
                    ("getvalues", "getvalues(l)"), ("qualified", "@(main.l)"),
                    ("data", "parsejson('[1, 2]')"), ("mergedata", "mergedata(l)")):
    case(f"with_list_{name}", _WITH_LIST % ("later:: ", value))
case("with_list_at_load", _WITH_LIST % ("", "@(l)"))

# checks a verifier makes before its lock: made (and printed) again in every pass, also for
# a promise done in pass 1 (commands' SyntaxCheckExec fails the promise with no class)
_BEFORE_LOCK = """
bundle agent main {
commands:
  "/bin/echo hi" contain => c(%s), classes => o("cmd");
processes:
  "nosuch_process_xyz_26" restart_class => "pc_restart", %s classes => o("pc");
reports:
  "class $(cl)";
vars:
  "cl" slist => classesmatching("(cmd|pc)_.*");
}
body contain c(p) { no_output => "true"; preview => "$(p)"; }
body classes o(p) { promise_kept => { "$(p)_kept" }; promise_repaired => { "$(p)_repaired" };
  repair_failed => { "$(p)_failed" }; }
body process_count zero { match_range => "0,0"; in_range_define => { "pc_in" }; }
body process_count norange { in_range_define => { "pc_in" }; }
body process_select nores { command => ".*"; }
"""
for name, preview, extra in (("preview", "true", ""), ("nopreview", "false", ""),
                             ("zero", "false", "process_count => zero,"),
                             ("norange", "true", "process_count => norange,"),
                             ("noresult", "true", "process_select => nores,"),
                             ("kill", "true", 'signals => { "kill" },')):
    case(f"before_lock_{name}", _BEFORE_LOCK % (preview, extra))
    case(f"before_lock_{name}_dry", _BEFORE_LOCK % (preview, extra), "-n")

# cf-agent's type check of every promise while it loads the policy (cfpromise.agent.precheck):
# which promises (guards holding then, if/unless, depends_on, bundles never called, other
# bundle types, variables of later bundles), which attributes and which values
_LOAD = """
body common control { bundlesequence => { "first", "main" }; }
bundle common cm { classes: "cc" expression => "any"; }
bundle agent first { reports: "first"; }
bundle agent main {
vars:
  "l" slist => { "p", "q" };
  "one" slist => { "p" };
  "d" data => '{"a":1}';
  "darr" data => '["a", "b"]';
  "x" string => "any";
  "v" string => "maybe";
  "rel" string => "rel/x";
  "sp" string => "a b";
  "dec" string => "1.5x";
  "lv" slist => { "ignore_leading", "maybe" };
classes:
  "later" expression => "any";
%s
reports:
  "after";
}
bundle agent other { vars: "l" slist => { "p", "q" }; }
body action pa { action_policy => "warn"; }
body action pbad(p) { action_policy => "$(p)"; }
body perms pm(m) { mode => "$(m)"; rxdirs => "false"; }
body classes pint(t) { promise_kept => { "k" }; persist_time => "$(t)"; }
body action pint_action(t) { ifelapsed => "$(t)"; }
body classes pscope(t) { promise_kept => { "k" }; scope => "$(t)"; }
body classes ptimer(t) { promise_kept => { "k" }; timer_policy => "$(t)"; }
body copy_from pcmp(t) { source => "/etc/hosts"; compare => "$(t)"; }
body copy_from psize(t) { source => "/etc/hosts"; copy_size => "$(t)"; }
body copy_from psrc(t) { source => "$(t)"; }
body depth_search pdepth(t) { depth => "$(t)"; }
body contain pdir(t) { chdir => "$(t)"; }
body perms pown(t) { owners => { "$(t)" }; }
body perms pparent { rxdirs => "$(main.v)"; }
body perms pchild(t) { inherit_from => pparent; mode => "$(t)"; }
body perms pguard(t) { any:: rxdirs => "true"; nosuch:: rxdirs => "$(t)"; }
body printfile plines(t) { file_to_print => "/etc/hosts"; number_of_lines => "$(t)"; }
body rename protate(t) { rotate => "$(t)"; }
body process_count prange(t) { match_range => "$(t)"; }
body file_select psearch(t) { search_size => "$(t)"; file_result => "size"; }
body select_region pregion(t) { select_start => "a"; include_start_delimiter => "$(t)"; }
body location pwhere(t) { before_after => "$(t)"; }
"""
# edit_line bundles of one case each (every bundle is checked at load, called or not)
_EDITS = {
    "region_body_option": 'bundle edit_line pedit_region { insert_lines: "x" '
                          'select_region => pregion("$(main.v)"); }',
    "location_body_option": 'bundle edit_line pedit_where { insert_lines: "x" '
                            'location => pwhere("$(main.v)"); }',
    "list_attribute_option": 'bundle edit_line pedit_ws { insert_lines: "x" '
                             'whitespace_policy => { @(main.lv) }; }',
}
_EDIT = 'bundle edit_line ed { vars: "m" slist => { "p", "q" }; insert_lines: "x" with => @(m); }'

for name, text in (
        ("with_at", 'reports: "w=$(with)" with => @(l);'),
        ("with_one", 'reports: "w=$(with)" with => @(one);'),
        ("with_hard_guard", 'reports: linux:: "w=$(with)" with => @(l);'),
        ("with_common_class", 'reports: cc:: "w=$(with)" with => @(l);'),
        ("with_d_class", 'reports: dd:: "w=$(with)" with => @(l);'),
        ("with_var_guard", 'reports: "$(x)":: "w=$(with)" with => @(l);'),
        ("with_if_later", 'reports: "w=$(with)" with => @(l), if => "later";'),
        ("with_if_any", 'reports: "w=$(with)" with => @(l), if => "any";'),
        ("with_unless", 'reports: "w=$(with)" with => @(l), unless => "nosuch";'),
        ("with_unless_any", 'reports: "w=$(with)" with => @(l), unless => "any";'),
        ("with_depends", 'reports: "w=$(with)" with => @(l), depends_on => { "h" }; '
                         '"h" handle => "h";'),
        ("with_other", 'reports: "w=$(with)" with => @(other.l);'),
        ("with_split", 'reports: "w=$(with)" with => splitstring("a,b", ",", 9);'),
        ("with_data", 'reports: "w=$(with)" with => @(d);'),
        ("with_data_array", 'reports: "w=$(with)" with => @(darr);'),
        ("with_iterated", 'reports: "w=$(with)" with => "$(l)";'),
        ("with_undefined", 'reports: "w=$(with)" with => @(nosuch);'),
        ("comment_list", 'reports: "c" comment => @(l);'),
        ("handle_list", 'reports: "h" handle => @(l);'),
        ("report_to_file_list", 'reports: "r" report_to_file => @(l);'),
        ("commands_list", 'commands: "/bin/true" args => @(l), action => pa;'),
        ("files_create_range", 'files: "$(sys.workdir)/f" create => "$(v)";'),
        ("edit_bundle", ""),
        ("classes_with", 'classes: "k" expression => "any", with => @(l);'),
        ("vars_with", 'vars: "k" string => "k", with => @(l);'),
        # an action body's value out of range: never checked (read as the default)
        ("action_body_range", 'reports: "r" action => pbad("$(v)");'),
        ("action_body_range_literal", 'reports: "r" action => pbad("maybe");'),
        ("perms_body_mode", 'files: "$(sys.workdir)/f" create => "true", perms => pm("$(v)");'),
        ("classes_body_int", 'reports: "r" classes => pint("$(v)");'),
        # the integers of those bodies: said each time cf-agent reads them (each pass)
        ("classes_body_int_commands", 'commands: "/bin/true" classes => pint("$(v)");'),
        ("classes_body_int_methods", 'methods: "m" usebundle => other, '
                                     'classes => pint("$(v)");'),
        ("classes_body_int_iterated", 'reports: "r $(l)" classes => pint("$(v)");'),
        ("action_body_int", 'reports: "r" action => pint_action("$(v)");'),
        # the attributes of the promise type's own bodies (not action's, classes' but
        # scope, nor select_region's), each type with a check, at load
        ("classes_body_scope", 'reports: "r" classes => pscope("$(v)");'),
        ("classes_body_option", 'reports: "r" classes => ptimer("$(v)");'),
        ("copy_body_option", 'files: "$(sys.workdir)/f" copy_from => pcmp("$(v)");'),
        ("copy_body_irange", 'files: "$(sys.workdir)/f" copy_from => psize("$(v)");'),
        ("copy_body_empty", 'files: "$(sys.workdir)/f" copy_from => psrc("");'),
        ("depth_body_int", 'files: "$(sys.workdir)" depth_search => pdepth("$(v)"), '
                           'create => "true";'),
        ("depth_body_int_ending", 'files: "$(sys.workdir)" depth_search => pdepth("$(dec)"), '
                                  'create => "true";'),
        ("contain_body_abspath", 'commands: "/bin/true" contain => pdir("$(rel)");'),
        ("perms_body_list", 'files: "$(sys.workdir)/f" create => "true", perms => pown("$(sp)");'),
        ("perms_body_inherited", 'files: "$(sys.workdir)/f" create => "true", '
                                 'perms => pchild("600");'),
        ("perms_body_guarded", 'files: "$(sys.workdir)/f" create => "true", '
                               'perms => pguard("$(v)");'),
        ("printfile_body_int", 'reports: "r" printfile => plines("$(v)");'),
        ("rename_body_int", 'files: "$(sys.workdir)/f" rename => protate("$(dec)");'),
        ("process_body_irange", 'processes: "nosuch_xyz_26" process_count => prange("$(v)");'),
        ("select_body_irange", 'files: "$(sys.workdir)" file_select => psearch("$(v)"), '
                               'depth_search => pdepth("1"), create => "true";'),
        ("region_body_option", 'files: "$(sys.workdir)/f" create => "true", '
                               'edit_line => pedit_region;'),
        ("location_body_option", 'files: "$(sys.workdir)/f" create => "true", '
                                 'edit_line => pedit_where;'),
        ("list_attribute_option", 'files: "$(sys.workdir)/f" create => "true", '
                                  'edit_line => pedit_ws;'),
        ("string_attribute_abspath", 'reports: "r" report_to_file => "$(rel)";'),
        ("string_attribute_range", 'processes: "nosuch_xyz_26" restart_class => "$(sp)";')):
    case(f"load_{name}", _LOAD % text + (_EDIT if name == "edit_bundle" else "")
         + _EDITS.get(name, ""),
         *(("-D", "dd") if name == "with_d_class" else ()))

# errors cf-agent says of values it refuses (a container under an index, an index that
# reaches into a container, brackets that do not balance, JSON it cannot parse, format()
# short of parameters): the variable is not defined, the error is said (compared as a
# set of distinct lines: cf-agent says it again at each evaluation, its cf-promises too)
case("errors_once_values", """
bundle agent main
{
  vars:
    "d" data => '{ "k": { "x": 1 }, "s": "str" }';
    "d[k]" string => "v1";
    "d[s]" string => "v2";
    "d[new]" string => "v3";
    "e[x]" data => '[ "a" ]';
    "b[c]d]" string => "broken";
    "j1" data => parsejson('{"q":"x}');
    "j2" data => parsejson('[1.2.3]');
    "j3" data => parsejson('[01]');
    "j4" data => parsejson('"str"');
    "j5" data => '[1,,2]';
    "f1" string => format("%s %s", "a");
    "f2" string => format("%S", mergedata('[[1]]'));
    "f3" string => format("%5hs", "a");
  reports:
    "d[new]=$(d[new]) d[s]=$(d[s]) b=$(b)";
    "defined: $(with)" with => join(",", variablesmatching("default:main\\.(e|j[0-9]|f[0-9]).*"));
}
""")
case("errors_once_list_parameters", """
bundle agent main
{
  vars:
    "s" string => "str";
  methods:
    "m1" usebundle => b(@(s));
    "m2" usebundle => b(@(main.nosuch_list));
}
bundle agent b(x) { reports: "b: $(x)"; }
""")

# -- the bundlesequence given on the command line (KeepPromiseBundles says so at info) --
_SEQUENCE = ('body common control { bundlesequence => { "main" }; }\n'
             'bundle agent main { reports: "main ran"; }\n'
             'bundle agent other { reports: "other ran"; }\n')
for name, args in {"plain": ("-b", "other"), "inform": ("-I", "-b", "other"),
                   "joined": ("-Ib", "main,other"), "long": ("--bundlesequence", "other",
                                                              "--inform"),
                   "level": ("-g", "info", "-b", "main"), "no_b_inform": ("-I",),
                   "undefined": ("-I", "-b", "nosuch")}.items():
    case(f"command_line_sequence_{name}", _SEQUENCE, *args)

# -- perms with a mode and no rxdirs: GetPermissionConstraints warns of the default each
# time it reads the attributes (any mode, read bits or not), in each pass and on each leaf
_RXDIRS = ('bundle agent main\n{{\nfiles:\n  "$(sys.workdir)/rx/." create => "true";\n'
           '  "$(sys.workdir)/rx/{name}" {attrs};\n}}\n'
           'body perms p(m) {{ {body} }}\nbody depth_search d {{ depth => "inf"; }}\n')
for mode in ("644", "600", "o-w", "u+x", "0", "a+rX"):
    for shape, attrs in (("created", 'create => "true", perms => p("{m}")'),
                         ("missing", 'perms => p("{m}")'),
                         ("tree", 'perms => p("{m}"), depth_search => d')):
        case(f"rxdirs_default_{shape}_{mode.replace('+', 'p').replace('-', 'm')}",
             _RXDIRS.format(name="f" if shape != "tree" else "", attrs=attrs.format(m=mode),
                            body='mode => "$(m)";'))
for name, body in (("given_false", 'mode => "$(m)"; rxdirs => "false";'),
                   ("given_true", 'mode => "$(m)"; rxdirs => "true";'),
                   ("no_mode", 'owners => { "root" };')):
    case(f"rxdirs_{name}", _RXDIRS.format(name="f", attrs='create => "true", perms => p("644")',
                                          body=body))

# -- link_children into a directory that is not there, in a dry run or warn-only: the
# directory is not made, so the children cannot be linked (the promise fails)
_LINK_CHILDREN = ('bundle agent main\n{{\nfiles:\n  "$(sys.workdir)/{dest}" '
                  'link_from => lc("{src}"){extra};\n}}\nbody link_from lc(s)\n{{\n'
                  '  source => "$(s)";\n  link_type => "symlink";\n  link_children => "true";\n'
                  '  when_no_source => "force";\n}}\nbody action w {{ action_policy => "warn"; }}\n')
for dname, dest in (("missing", "lc_dest"), ("missing_parent", "lc_none/lc_dest"),
                    ("existing", ".")):
    for sname, src in (("source", "/usr/bin"), ("no_source", "/nonexistent_src_dir")):
        text = _LINK_CHILDREN.format(dest=dest, src=src, extra="")
        case(f"link_children_dry_{dname}_{sname}", text, "-n")
        case(f"link_children_warn_{dname}_{sname}",
             _LINK_CHILDREN.format(dest=dest, src=src, extra=", action => w"))

# -- what a bundle's parameters and a files promise's match.N leave behind: a bundle the
# bundlesequence or an edit_line calls keeps its parameters (tagged source=promise), a
# methods call's are taken away; match.N belong to their files promise only
_PARAMS = ('body common control {{ bundlesequence => {{ "main"{seq} }}; }}\n'
           'bundle agent main\n{{\nvars:\n  "l" slist => {{ "a", "b" }};\n'
           '  "d" data => \'{{"k": "v"}}\';\n{promises}}}\n'
           'bundle agent pb(s, li, da) {{ vars: "t" slist => getvariablemetatags("pb.s"); '
           'reports: "pb $(s) $(li) tags=$(t)"; }}\n'
           'bundle edit_line pe(s, li) {{ insert_lines: "$(s) $(li)"; }}\n'
           'bundle agent after {{ reports: "after s=$(pb.s) pe=$(pe.s) m=$(match.1)"; }}\n')
for name, seq, promises in (
        ("sequence", ', pb("x", "y", "z"), "after"', ""),
        ("sequence_lists", ', pb("x", @(main.l), @(main.d)), "after"', ""),
        ("methods", ', "after"', 'methods:\n  "m" usebundle => pb("x", @(l), @(d));\n'),
        ("edit_line", ', "after"', 'files:\n  "$(sys.workdir)/pe.txt" create => "true", '
                                   'edit_line => pe("x", @(l));\n'),
        ("match", ', "after"', 'files:\n  "$(sys.workdir)/m(.*)" create => "true", '
                               'perms => p("$(match.1)");\n'),
        ("match_report", ', "after"', 'files:\n  "$(sys.workdir)/(p)e.txt" create => "true";\n'
                                      'reports:\n  "m0=$(match.0)";\n')):
    text = _PARAMS.format(seq=seq, promises=promises) + \
        'body perms p(x) { mode => "600"; rxdirs => "false"; }\n'
    case(f"leftovers_{name}", text, "--show-evaluated-vars=^default:(pb|pe|match)\\.")

# -- bundle return values: last-result[INDEX] in the called bundle's scope (source=bundle),
# set at every call, before any lock; useresult copies what the scope holds
_RETURNS = ('bundle agent main\n{\nmethods:\n'
            '  "a" usebundle => child("one"), useresult => "r1";\n'
            '  "b" usebundle => child("two"), useresult => "r2";\n'
            '  "c" usebundle => other, useresult => "r3";\n'
            '  "d" usebundle => child("one");\n'
            '  "e" usebundle => other, useresult => "r4";\n'
            'vars:\n  "t" slist => getvariablemetatags("main.r1[one]");\n'
            '  "i" slist => getindices("r3");\nreports:\n'
            '  "r1=$(r1[one]) r1two=$(r1[two]) r2=$(r2[two]) r2one=$(r2[one]) r3=$(r3[x]) '
            'r4=$(r4[x]) tags=$(t) i=$(i)";\n  "lr=$(child.last-result[one])";\n}\n'
            'bundle agent child(k)\n{\nreports:\n'
            '  "value $(k)" bundle_return_value_index => "$(k)";\n}\n'
            'bundle agent other\n{\nreports:\n  "x-val" bundle_return_value_index => "x";\n'
            '  "second" bundle_return_value_index => "y", if => "nosuch";\n'
            '  "nested" bundle_return_value_index => "a_b";\n}\n')
case("returns_calls", _RETURNS, "--show-evaluated-vars=^default:(main|child|other)\\.")
case("returns_calls_dry", _RETURNS, "-n")

# -- a vars promise whose call gives no value (it fails, or waits for a variable) and
# whose function is declared to return another type than the variable's: VerifyVarPromise
# stops the run ("variable declared type 'string' but function 'getuid' returns type
# 'int'"), in the validating cf-promises too; the community agent's Enterprise functions
_VARTYPE = ('bundle agent main\n{{\nvars:\n  "v" {vtype} => {call};\n'
            '  "later" string => "root";\nreports:\n  "v=$(v)";\n}}\n')
for fname, call in (("getuid_unknown", 'getuid("nosuchuser_zz")'),
                    ("getuid_later", 'getuid("$(later)")'),
                    ("getuid_undefined", 'getuid("$(nosuch)")'),
                    ("getuid_known", 'getuid("root")'),
                    ("getgid_unknown", 'getgid("nosuchgroup_zz")'),
                    ("length_undefined", 'length("nosuchlist")'),
                    ("fileexists_later", 'fileexists("/tmp/$(later)")'),
                    ("fileexists_now", 'fileexists("/tmp")'),
                    ("readfile_missing", 'readfile("/nonexistent_zz", "10")'),
                    ("ldapvalue", 'ldapvalue("ldap://x", "dc=x", "(u=*)", "u", "subtree", '
                                  '"none")'),
                    ("hubknowledge", 'hubknowledge("monitoring")')):
    for vtype in ("string", "int"):
        case(f"errors_once_vartype_{fname}_{vtype}", _VARTYPE.format(vtype=vtype, call=call))
case("errors_once_vartype_in_parameter_bundle", 'bundle agent main\n{\nmethods:\n  "m" usebundle => '
     'b("root");\n}\nbundle agent b(u)\n{\nvars:\n  "uid" string => getuid("$(u)");\n'
     'reports:\n  "uid=$(uid)";\n}\n')
case("errors_once_enterprise_functions", 'bundle agent main\n{\nvars:\n'
     '  "hk" string => hubknowledge("monitoring");\n'
     '  "hwc" slist => hostswithclass("linux", "name");\n'
     '  "ll" slist => ldaplist("ldap://localhost", "dc=x", "(uid=*)", "uid", "subtree", '
     '"none");\n  "lv" string => ldapvalue("ldap://localhost", "dc=x", "(uid=*)", "uid", '
     '"subtree", "none");\nclasses:\n  "rl" expression => regldap("ldap://localhost", '
     '"dc=x", "(uid=*)", "uid", "subtree", "x.*", "none");\nreports:\n'
     '  "hk=$(hk) hwc=$(hwc) ll=$(ll) lv=$(lv)";\n  "rl" if => "rl";\n}\n',
     "--show-evaluated-vars=^default:main\\.")

# -- datastate()'s classes: sorted, the bundle's among the global ones
case("datastate_classes_order", 'bundle common holder\n{\nclasses:\n  "holderclass" '
     'expression => "any";\n  "Bz_holder" expression => "any";\n}\nbundle agent main\n{\n'
     'classes:\n  "zz_first" expression => "any";\n  "aa_second" expression => "any";\n'
     '  "Ab_third" expression => "any", scope => "namespace";\nvars:\n'
     '  "state" data => datastate();\n  "c" slist => getindices("state[classes]");\n'
     '  "ci" slist => filter("(zz|aa|Ab|Bz|holder).*", c, "true", "false", 99);\nreports:\n'
     '  "ci=$(with)" with => join(",", ci);\n}\n')

# -- sort() of addresses: cf-agent's own IPv4, IPv6 and MAC readers (sort "ip", "mac")
_ADDRESSES = {
    "ipv4": ("1.2.3.4", "1.2.3.4x", "1.2.3.4.", "1.2x", "9x", "9", "9.7.5", "256.1.1.1",
             "1.2.3.4:80", "1.2.3.4:", "1..2.3", ".1.2.3", "10.0.0.1", "2.0.0.0",
             "1.2.3.4:99999", "001.002.003.004", "1.2.3.04", " 1.2.3.4", "", "-1", "x"),
    "ipv6": ("::", "::1", "1::", "[::1]", "[::1]:80", "[1:2::3]:8", "a:b:c:d:e:f:0:1",
             "[a:b:c:d:e:f:0:1]", "[a:b:c:d:e:f:0:1]:9", "1:2:3", "::ffff:1.2.3.4",
             "A::1", "1::2::3", "12345::1", "fe80::1%eth0", "[1::2", "1::2]", "1:2::3:4",
             "1:2:3:4:5:6:7:8:9", "ff::", "0:0::0", "[1::2:3]", "1.2.3.4", "fe80::a",
             "1:0::", "::a:b"),
    "mac": ("00:14:BF:F7:23:1D", "0:14:BF:F7:23:1D", ":14:BF:F7:23:1D",
            "00:014:BF:0F7:23:01D", "0x1:2:3:4:5:6", "+1:2:3:4:5:6x", " 01:02:03:04:05:06",
            "010203040506", "0102030405", "01-02-03-04-05-06", "1:2:3:4:5:6:7",
            "-1:2:3:4:5:6", "ff:ff:ff:ff:ff:ff", "100:2:3:4:5:6", "0a0b0c0d0e0f",
            "0X10:2:3:4:5:6", "a:b:c:d:e:fg", "", "zz"),
}
for aname, items in _ADDRESSES.items():
    listed = ", ".join(f'"{i}"' for i in items)
    mode = "mac" if aname == "mac" else "ip"
    case(f"sort_addresses_{aname}", 'bundle agent main\n{\nvars:\n'
         f'  "l" slist => {{ {listed} }};\n  "s" slist => sort("l", "{mode}");\n'
         f'  "r" slist => sort(reverse("l"), "{mode}");\nreports:\n'
         '  "s=$(with)" with => join("|", s);\n  "r=$(with)" with => join("|", r);\n}\n')

NAMES = [c[0] for c in CASES]

# a process table line (cf-lite's columns are not cf-agent's; times change anyway)
_PS_LINE = re.compile(r"(in process entry '|Matched '|Process alert ').*(')")


_COORD = re.compile(r"^(\S+):(\d+):\d+: (error|warning): ")
_LOG = re.compile(r"^ *(error|warning|notice|info|verbose):|^R: |^\S+:\d+:\d+: ")


def _lines(output: str, workdir: str) -> tuple[list[str], bool]:
    """The lines of one stream up to a failed validation (and whether it failed there);
    a policy error's column and the source lines cf-lite prints under it are left out."""
    lines: list[str] = []
    after_diagnostic = False
    for line in output.replace(workdir, "WORKDIR").splitlines():
        if "Policy failed validation" in line:
            return lines, True
        if line.startswith(("default:sys.", "default:const.")):
            continue
        if _COORD.match(line):
            line = _COORD.sub(r"\1:\2: \3: ", line)
            after_diagnostic = True
        elif after_diagnostic and not _LOG.match(line):
            continue                # the source line and caret under a diagnostic
        else:
            after_diagnostic = False
        if line.strip() == "error: There are syntax errors in policy files":
            continue                # which of the two verdicts is worded differently
        lines.append(_PS_LINE.sub(r"\1PS\2", line.rstrip()))
    return lines, False


def _is_error(line: str) -> bool:
    return "error: " in line.split("'", 1)[0]


def observe(stdout: str, stderr: str, returncode: int, workdir: str,
            name: str = "", distinct: bool = False) -> tuple[int, bool, list[str], list[str]]:
    """The exit code, whether validation failed, the output lines in order and the error
    lines as a sorted list (which stream and in what order each line comes is
    :mod:`streams`' business); after a failed validation only what came before it counts
    (the failsafe follows)."""
    out, out_failed = _lines(stdout, workdir)
    err, err_failed = _lines(stderr, workdir)
    if name.startswith("fresh_calls_"):
        # how many times a command ran in all counts cf-promises' runs too (cf-agent's
        # validation calls the functions of every bundle, cf-lite's calls none): the
        # number of reports, one per value, says whether the cache answered
        out = [re.sub(r"\d+", "N", line) for line in out]
    if err_failed:
        out = []                    # cf-lite: standard output holds only the failsafe
    lines = out + err
    if distinct or name.startswith(("promiser_scopes", "errors_once_")):
        # each evaluation of a vars promise says its error again, and cf-agent's count
        # includes the cf-promises it runs (which evaluates every bundle's vars): the
        # errors are compared as a set of distinct lines
        lines = list(dict.fromkeys(lines))
    return (returncode, out_failed or err_failed,
            [line for line in lines if not _is_error(line)],
            sorted(line for line in lines if _is_error(line)))


# Known differences, each with its reason (the test fails when one starts agreeing).
EXPECTED_DIFFERENCES: dict[str, str] = {}
