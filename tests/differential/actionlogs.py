"""Generated cases: the ``action`` body's private logs (log_kept, log_repaired, log_failed,
log_string, log_priority), compared with cf-agent 3.21's (issue: a third-party sweep).

cf-agent writes ``log_string`` once per result a promise reaches (each cfPS), to the log
its outcome names: ``stdout`` (an info ``L:`` line), ``udp_syslog`` or a file it creates
with mode 0600.  A warning (dry run, ``action_policy => "warn"``) is never logged; vars,
classes and edit_line promises never are; the string is expanded once more when written.
The shapes: every promise type that takes an action body (files of several kinds, edit
bundles, commands with return-code lists and a timeout, reports, methods, processes,
services, packages through a module the case writes), each to files and to ``stdout``,
normally, under ``-n`` and under ``action_policy => "warn"``; then destinations that
cannot be written, expansions (``this.*``, a handle, variables defined by the promise
itself or never), and a syslog host that does not resolve.  What each run leaves in its
``*.log`` files is compared too (:func:`logs`); the run twice, the verbose lines and the
datagrams sent to a syslog port are compared by the test module.
"""
from __future__ import annotations

from pathlib import Path

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []

_ACTION = """
body action al(s) {
  %(policy)s
  log_kept => "%(kept)s"; log_repaired => "%(repaired)s"; log_failed => "%(failed)s";
  log_string => "$(s) p=$(this.promiser) h=$(this.handle) b=$(this.bundle)";
}
"""
_DESTINATIONS = {
    "files": {"kept": "$(sys.workdir)/kept.log", "repaired": "$(sys.workdir)/repaired.log",
              "failed": "$(sys.workdir)/failed.log"},
    "stdout": {"kept": "stdout", "repaired": "stdout", "failed": "stdout"},
    "one_file": {"kept": "$(sys.workdir)/all.log", "repaired": "$(sys.workdir)/all.log",
                 "failed": "$(sys.workdir)/all.log"},
}
_MODES = {"fix": ("", ()), "warn": ('action_policy => "warn";', ()), "dryrun": ("", ("-n",)),
          "nop": ('action_policy => "nop";', ())}

_PKG_MODULE = """
bundle agent setup {
files:
  "$(sys.workdir)/fakepm" create => "true", perms => x, content => "#!/bin/sh
case $1 in
supports-api-version) echo 1 ;;
get-package-data) echo PackageType=repo; sed -n 's/^File=/Name=/p' ;;
list-installed) echo Name=inst; echo Version=1; echo Architecture=amd64 ;;
list-updates|list-updates-local) ;;
*) cat >/dev/null ;;
esac
";
  "$(sys.workdir)/src" content => "source text";
  "$(sys.workdir)/tidy" create => "true";
}
body perms x { mode => "755"; }
body package_module fake { module_path => "$(sys.workdir)/fakepm";
  query_installed_ifelapsed => "0"; query_updates_ifelapsed => "0"; }
body package_module nomod { module_path => "$(sys.workdir)/nosuchpm";
  query_installed_ifelapsed => "0"; query_updates_ifelapsed => "0"; }
"""
_BODIES = """
body perms m(x) { mode => "$(x)"; rxdirs => "false"; }
body copy_from cp { source => "$(sys.workdir)/src"; }
body delete tidy { dirlinks => "delete"; }
body classes rc { kept_returncodes => { "0", "3" }; repaired_returncodes => { "3" };
  failed_returncodes => { "3", "4" }; }
body contain t { exec_timeout => "1"; }
body service_method sm { service_bundle => sb("$(this.promiser)", "$(this.service_policy)"); }
bundle agent sb(n, p) { reports: "service $(n) $(p)"; }
bundle agent called { vars: "x" string => "from_called"; reports: "in called"; }
bundle agent repairs { files: "$(sys.workdir)/by_method" create => "true"; }
bundle edit_line el {
insert_lines: "line1" action => al("insert");
delete_lines: "zz" action => al("delete");
replace_patterns: "line1" replace_with => v("LINE1"), action => al("replace");
}
bundle edit_line fe { field_edits: "a:.*" edit_field => f, action => al("field"); }
body edit_field f { field_separator => ":"; select_field => "2"; field_value => "x";
  field_operation => "set"; }
body replace_with v(x) { replace_value => "$(x)"; }
"""
# promise type -> its promises (each with ``action => al("<label>")``)
PROMISES = {
    "files_create": '''files:
  "$(sys.workdir)/made" create => "true", action => al("create");
  "$(sys.workdir)/made" create => "true", action => al("again");''',
    "files_several": '''files:
  "$(sys.workdir)/multi" create => "true", perms => m("640"), content => "hello",
    action => al("multi");''',
    "files_edit": '''files:
  "$(sys.workdir)/ed" create => "true", edit_line => el, action => al("edit");
  "$(sys.workdir)/fe" content => "a:b", action => al("content");
  "$(sys.workdir)/fe" edit_line => fe, action => al("fields");''',
    "files_copy_delete": '''files:
  "$(sys.workdir)/cp" copy_from => cp, action => al("copy");
  "$(sys.workdir)/tidy" delete => tidy, action => al("delete");''',
    "files_fail": '''files:
  "/proc/cflite_nope/x" create => "true", action => al("nocreate");
  "$(sys.workdir)/nodir/x" perms => m("600"), action => al("missing");''',
    "commands": '''commands:
  "/bin/true" action => al("true");
  "/bin/false" action => al("false");
  "/bin/echo out" action => al("echo");
  "/nonexist/cmd" action => al("noexec");''',
    "commands_codes": '''commands:
  "/bin/sh -c 'exit 3'" classes => rc, action => al("both");
  "/bin/sh -c 'exit 4'" classes => rc, action => al("four");
  "/bin/sh -c 'exit 5'" classes => rc, action => al("five");
  "/bin/sh -c 'exit 0'" classes => rc, action => al("zero");''',
    "commands_timeout": '''commands:
  "/bin/sleep 3" contain => t, action => al("timeout");''',
    "reports": '''reports:
  "hello" action => al("report");
  "to file" report_to_file => "$(sys.workdir)/r.txt", action => al("tofile");''',
    "methods": '''methods:
  "kept" usebundle => called, action => al("method x=$(called.x) y=$(nosuch.y)");
  "repaired" usebundle => repairs, action => al("method2");
  "missing" usebundle => nosuchbundle, action => al("method3");''',
    "processes": '''processes:
  "cflite_nosuch_process" restart_class => "restart_it", action => al("restart");
  "cflite_nosuch_process" signals => { "term" }, action => al("signal");
  "cflite_nosuch_process" process_count => pc, action => al("count");''',
    "services": '''services:
  "svc1" service_policy => "start", service_method => sm, action => al("svc");''',
    "packages": '''packages:
  "inst" policy => "present", package_module => fake, action => al("present");
  "other" policy => "absent", package_module => fake, action => al("absent");
  "x" policy => "present", package_module => nomod, action => al("nomod");''',
    "vars_classes": '''vars:
  "v" string => "x", action => al("vars");
classes:
  "c" expression => "any", action => al("classes");
reports:
  "after";''',
}
_EXTRA = {"processes": 'body process_count pc { match_range => irange("1", "5"); '
                       'out_of_range_define => { "oor" }; }\n'}


def _policy(promises: str, action: str, extra: str = "") -> str:
    return ('body common control { bundlesequence => { "setup", "main" }; }\n' + action
            + _PKG_MODULE + _BODIES + extra + "bundle agent main {\n" + promises + "\n}\n")


for _ptype, _text in PROMISES.items():
    for _dest, _where in _DESTINATIONS.items():
        for _mode, (_line, _args) in _MODES.items():
            if (_dest == "one_file" and _mode != "fix") or (_dest == "stdout" and _mode == "nop"):
                continue
            CASES.append((f"{_ptype}-{_dest}-{_mode}",
                          {"promises.cf": _policy(_text, _ACTION % dict(_where, policy=_line),
                                                  _EXTRA.get(_ptype, ""))},
                          ("-I", *_args)))


def case(name: str, text: str, *args: str) -> None:
    CASES.append((name, {"promises.cf": text}, args or ("-I",)))


_SEQ = 'body common control { bundlesequence => { "main" }; %s }\n'
# destinations that cannot be written, and one that exists with its own mode
case("bad_destinations", _SEQ % "" + """
body action bad(w) { log_kept => "$(w)"; log_repaired => "$(w)"; log_string => "bad $(w)"; }
bundle agent main {
files:
  "$(sys.workdir)/exists.log" create => "true", perms => m;
reports:
  "missing dir" action => bad("/nonexist/x/p.log");
  "a directory" action => bad("$(sys.workdir)");
  "existing" action => bad("$(sys.workdir)/exists.log");
  "again" action => bad("$(sys.workdir)/exists.log");
}
body perms m { mode => "644"; }
""")
# log_string or the destination missing, an empty string, one with no variables
case("partial_bodies", _SEQ % "" + """
body action nostring { log_kept => "stdout"; }
body action nodest { log_string => "never"; }
body action empty { log_kept => "stdout"; log_string => ""; }
body action plain { log_kept => "stdout"; log_repaired => "stdout"; log_string => "plain"; log_priority => "debug"; }
body action inherits { inherit_from => plain; log_string => "inherited"; }
bundle agent main {
reports:
  "a" action => nostring;
  "b" action => nodest;
  "c" action => empty;
  "d" action => plain;
  "e" action => inherits;
}
""")
# what log_string expands to when written
case("expansions", _SEQ % "" + """
body action al(s) { log_kept => "stdout"; log_repaired => "stdout"; log_failed => "stdout";
  log_string => "$(s) p=$(this.promiser) h=$(this.handle) n=$(this.namespace) f=$(this.promise_linenumber)"; }
bundle agent main {
vars:
  "list" slist => { "l1", "l2" };
  "v" string => "vv";
reports:
  "r1" action => al("plain $(v)");
  "r2 $(list)" action => al("iterated $(list)"), handle => "h-$(list)";
  "r3" action => al("later $(called.x) $(main.undef)"), handle => "my.handle";
  "r4" action => al("with $(with)"), with => "W";
methods:
  "m" usebundle => called, action => al("from method $(called.x)");
}
bundle agent called { vars: "x" string => "X"; }
""")
case("module_vars", _SEQ % "" + """
body action al(s) { log_kept => "stdout"; log_repaired => "stdout"; log_failed => "stdout";
  log_string => "$(s)"; }
bundle agent main {
files:
  "$(sys.workdir)/mod.sh" create => "true", perms => x, content => "#!/bin/sh
echo =mv=frommodule
echo ^context=mc
echo =mv2=second
";
commands:
  "$(sys.workdir)/mod.sh" module => "true", action => al("one $(mod_sh.mv) $(mc.mv2)");
  "$(sys.workdir)/mod.sh" module => "true", action => al("two $(mod_sh.mv) $(mc.mv2)");
}
body perms x { mode => "755"; }
""")
# the syslog host does not resolve: said at info, the run goes on
case("syslog_unresolved", _SEQ % 'syslog_host => "cflite-no-such-host.invalid";' + """
body action u { log_kept => "udp_syslog"; log_repaired => "udp_syslog"; log_string => "u $(this.promiser)"; }
bundle agent main {
reports:
  "one" action => u;
  "two" action => u;
}
""")
# ifelapsed: a promise skipped by its lock logs nothing
case("locked", _SEQ % "" + """
body action al { ifelapsed => "60"; log_kept => "stdout"; log_repaired => "stdout"; log_string => "locked $(this.promiser)"; }
bundle agent main {
commands:
  "/bin/true" action => al;
  "/bin/true" action => al;
}
""")

NAMES = [name for name, _, _ in CASES]


def logs(workdir: Path) -> list[tuple[str, str, str]]:
    """The ``*.log`` files a run left in its work directory besides cf-agent's own: name,
    mode and content (work-directory paths as ``WORKDIR``)."""
    found = []
    for path in sorted(workdir.glob("*.log")):
        if path.name.startswith(("cfagent.", "promise_summary")):
            continue
        text = path.read_text(errors="replace").replace(str(workdir), "WORKDIR")
        found.append((path.name, oct(path.stat().st_mode), text))
    return found
