"""Cases for the standard library differential test: every bundle and body that cf-lite's
``bundles/`` shares by name with masterfiles' ``lib/``, used in generated scenarios.

A case is a promise (or a few) working only inside its own scratch directory
``@D@`` (files to edit, trees to copy, link, tidy, commands that write there), with an
outcome class set ``sdiff_<case>_{kept,repaired,failed}`` and, where the library body
itself defines classes, class names starting with ``sdiff_<case>``.  One policy holds
a whole family; it is run under each (agent, library) pair on a fresh copy of the
same scratch tree, twice (the second run shows convergence).  :func:`snapshot` and
:func:`outcomes` reduce a run to what must agree: every case's files (kind, mode,
owner, content, link target) and its classes; ``R:`` lines are compared as a set.

The case tables name what each case covers (:data:`COVERS`), so the test can list the
shared names no case exercises (:data:`NOT_COVERED` says why for each).
"""
from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[2]
OURS = REPO / "bundles" / "stdlib.cf"
_MF_DIRS = (REPO.parents[1] / "shared" / "conformance" / "masterfiles-3.21.0" / "lib",
            Path("/work/shared/conformance/masterfiles-3.21.0/lib"),
            Path("/usr/share/cfengine3/masterfiles/lib"))
MASTERFILES_LIB = next((d for d in _MF_DIRS if (d / "stdlib.cf").is_file()), _MF_DIRS[-1])
MASTERFILES = MASTERFILES_LIB / "stdlib.cf"

OLD = 1_000_000_000          # an mtime far in the past (2001)

Setup = Callable[[Path], None]


@dataclass
class Case:
    name: str
    promises: str                       # promise text with @D@ for the case directory
    covers: tuple[str, ...]
    setup: Setup | None = None
    section: str = "files"
    order_free: bool = False            # lines added in getindices() order


@dataclass
class Family:
    name: str
    cases: list[Case] = field(default_factory=list)
    extra: str = ""                     # bundles/bodies of the family's own (prefix sdiff_)

    def add(self, *args, **kw) -> None:  # type: ignore[no-untyped-def]
        self.cases.append(Case(*args, **kw))


def _write(path: Path, text: str | None, mode: int = 0o644, mtime: int | None = None) -> None:
    if text is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)
    if mtime is not None:
        os.utime(path, (mtime, mtime))


def _files(spec: dict[str, str | None], mode: int = 0o644, mtime: int | None = None) -> Setup:
    def setup(d: Path) -> None:
        for rel, text in spec.items():
            if rel.endswith("/"):
                (d / rel).mkdir(parents=True, exist_ok=True)
            else:
                _write(d / rel, text, mode, mtime)
    return setup


# -- data every family can use ------------------------------------------------------------
COMMON = r"""
bundle common sdiff
{
  vars:
      "lines" slist => { "b", "c", "new line" };
      "one" slist => { "only" };
      "managed" slist => { "x # managed", "y # managed" };
      "ns" slist => { "1.1.1.1", "8.8.8.8" };
      "members" slist => { "bob", "alice" };
      "kv[alpha]" string => "1";
      "kv[beta]" string => "2";
      "kv[gamma]" string => "3";
      "kv2[PATH]" string => "/usr/bin:/bin";
      "kv2[name]" string => "a value with spaces";
      "quoted[alpha]" string => "one two";
      "sshd[PermitRootLogin]" string => "no";
      "sshd[X11Forwarding]" string => "no";
      "sshd[Port]" string => "22";
      "ini[s1][a]" string => "2";
      "ini[s1][b]" string => "3";
      "ini[s1][c]" string => "dontchange";
      "ini[s1][new]" string => "added";
      "ini[s3][x]" string => "1";
      "users[root]" string => "root:x:0:0::/root:/bin/bash";
      "users[sdiffnouser4711]" string => "sdiffnouser4711:x:4711:4711::/:/bin/false";
      "groups[root]" string => "root:x:0:";
      "groups[sdiffnogroup4711]" string => "sdiffnogroup4711:x:4711:";
      "template_value" string => "expanded";
      "json" string => '{ "name": "world", "list": [1, 2] }';
      "data" data => '{ "name": "data", "list": [ "a", "b" ] }';
}

body classes sdiff_o(p)
{
  promise_kept => { "sdiff_$(p)_kept" };
  promise_repaired => { "sdiff_$(p)_repaired" };
  repair_failed => { "sdiff_$(p)_failed" };
  repair_denied => { "sdiff_$(p)_failed" };
  repair_timeout => { "sdiff_$(p)_failed" };
}

bundle agent sdiff_report
{
  vars:
      "cl" slist => sort(classesmatching("sdiff_.*"), "lex");
  reports:
      "sdiff-class $(cl)";
}
"""

CONTENTS: dict[str, str | None] = {
    "absent": None,
    "empty": "",
    "kv": "alpha=9\nbeta = 2\n#gamma=3\n# gamma = 4\ndelta=4\n",
    "kvsame": "alpha=1\nbeta=2\ngamma=3\n",
    "sshd": "#PermitRootLogin yes\nPort 2222\n#X11Forwarding no\n#X11Forwarding yes\nUseDNS no\n",
    "sshd2": "PermitRootLogin no\n# Port 22\nX11Forwarding  yes\n",
    "ini": "[s1]\na=1\n#b=0\nz=9\n[s2]\na=5\n",
    "ini2": "[s2]\na=5\n",
    "plain": "a\nb\nfoo bar\n# foo commented\nanchor\nkey old value\n",
    "managed": "a\nold # managed\nb\n",
    "resolv": "search old\nnameserver 9.9.9.9\noptions x\n",
    "passwd": "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/sh\n",
    "group": "root:x:0:\nwheel:x:10:carol\nstaff:x:50:\n",
    "fstab": "/dev/sda1 / ext4 defaults 0 1\n/dev/sda2 /home ext4 defaults,nodev 0 2\n",
    "spaces": "  alpha   =  5  \nbeta=\n",
}
GENERAL = ("absent", "empty", "kv", "plain", "sshd")

# edit_line bundle -> (invocations, contents it is tried on, lines come in getindices order)
EDITS: dict[str, tuple[tuple[str, ...], tuple[str, ...], bool]] = {
    "insert_lines": (('insert_lines(@(sdiff.lines))', 'insert_lines("a")'), GENERAL, False),
    "append_if_no_line": (('append_if_no_line("z")', 'append_if_no_line("a")'), GENERAL, False),
    "append_if_no_lines": (('append_if_no_lines(@(sdiff.lines))',), GENERAL, False),
    "lines_present": (('lines_present(@(sdiff.lines))', 'lines_present("b")'), GENERAL, False),
    "prepend_if_no_line": (('prepend_if_no_line("first")', 'prepend_if_no_line("a")'),
                           GENERAL, False),
    "insert_before_if_no_line": (('insert_before_if_no_line("anchor", "before anchor")',
                                  'insert_before_if_no_line("nomatch", "x")'), GENERAL, False),
    "insert_file": (('insert_file("@D@/../template.txt")',), GENERAL, False),
    "expand_template": (('expand_template("@D@/../template.txt")',), GENERAL, False),
    "contains_literal_string": (('contains_literal_string("  two$(const.n)  lines")',),
                                GENERAL, False),
    "delete_lines_matching": (('delete_lines_matching("a.*")', 'delete_lines_matching("nomatch")'),
                              GENERAL, False),
    "warn_lines_matching": (('warn_lines_matching("a.*")', 'warn_lines_matching("nomatch")'),
                            GENERAL, False),
    "comment_lines_matching": (('comment_lines_matching("a.*", "#")',
                                'comment_lines_matching("foo.*", "//")'), GENERAL, False),
    "uncomment_lines_matching": (('uncomment_lines_matching("\\s*gamma.*", "#")',
                                  'uncomment_lines_matching("foo.*", "# ")'), GENERAL, False),
    "comment_lines_containing": (('comment_lines_containing("foo", "#")',
                                  'comment_lines_containing("a", ";")'), GENERAL, False),
    "uncomment_lines_containing": (('uncomment_lines_containing("foo", "#")',
                                    'uncomment_lines_containing("gamma", "#")'), GENERAL, False),
    "regex_replace": (('regex_replace("a", "A")', 'regex_replace("(o+)", "0")'), GENERAL, False),
    "replace_uncommented_substrings": (('replace_uncommented_substrings("#", "foo", "baz")',
                                        'replace_uncommented_substrings("#", "a", "a")'),
                                       GENERAL, False),
    "replace_or_add": (('replace_or_add("PermitRootLogin.*", "PermitRootLogin no")',
                        'replace_or_add("a", "a")', 'replace_or_add("key.*", "key new")'),
                       GENERAL + ("sshd2",), False),
    "replace_line_end": (('replace_line_end("key", "new v")', 'replace_line_end("alpha=", "7")'),
                         GENERAL, False),
    "append_to_line_end": (('append_to_line_end("key", "more")',
                            'append_to_line_end("alpha", "9")'), GENERAL, False),
    "converge": (('converge("# managed", @(sdiff.managed))',), GENERAL + ("managed",), False),
    "converge_prepend": (('converge_prepend("# managed", @(sdiff.managed))',),
                         GENERAL + ("managed",), False),
    "resolvconf": (('resolvconf("example.com", @(sdiff.ns))',), ("absent", "empty", "resolv"),
                   False),
    "resolvconf_o": (('resolvconf_o("example.com", @(sdiff.ns), "rotate")',),
                     ("absent", "empty", "resolv"), False),
    "set_colon_field": (('set_colon_field("root", "7", "/bin/zsh")',
                         'set_colon_field("alice", "5", "Alice")'),
                        ("empty", "passwd", "group"), False),
    "set_user_field": (('set_user_field("alice", "5", "Alice")',
                        'set_user_field("root", "7", "/bin/bash")'), ("empty", "passwd"), False),
    "append_user_field": (('append_user_field("wheel", "4", @(sdiff.members))',
                           'append_user_field("staff", "4", @(sdiff.members))'),
                          ("empty", "group"), False),
    "fstab_option_editor": (('fstab_option_editor("append", "/home", "noatime")',
                             'fstab_option_editor("delete", "/home", "nodev")',
                             'fstab_option_editor("append", "/", "defaults")'),
                            ("empty", "fstab"), False),
    "append_users_starting": (('append_users_starting("sdiff.users")',), ("empty", "passwd"),
                              True),
    "append_groups_starting": (('append_groups_starting("sdiff.groups")',), ("empty", "group"),
                               True),
    "set_line_based": (('set_line_based("sdiff.kv", "=", "\\s*=\\s*", ".*", "\\s*#\\s*")',
                        'set_line_based("sdiff.sshd", " ", "\\s+", "Permit.*|Port", "#\\s*")',
                        'set_line_based("sdiff.kv2", "=", "\\s*=\\s*", ".*", "\\s*#\\s*")'),
                       GENERAL + ("kvsame", "spaces", "sshd2"), True),
    "set_config_values": (('set_config_values("sdiff.sshd")',),
                          GENERAL + ("sshd2",), True),
    "set_config_values_matching": (('set_config_values_matching("sdiff.sshd", "P.*")',),
                                   GENERAL + ("sshd2",), True),
    "set_variable_values": (('set_variable_values("sdiff.kv")', 'set_variable_values("sdiff.kv2")'),
                            GENERAL + ("kvsame", "spaces"), True),
    "set_quoted_values": (('set_quoted_values("sdiff.kv")', 'set_quoted_values("sdiff.quoted")'),
                          GENERAL + ("kvsame", "spaces"), True),
    "maintain_key_values": (('maintain_key_values("sdiff.kv", "=")',
                             'maintain_key_values("sdiff.kv", " = ")'),
                            GENERAL + ("kvsame", "spaces"), True),
    "set_variable_values_ini": (('set_variable_values_ini("sdiff.ini", "s1")',
                                 'set_variable_values_ini("sdiff.ini", "s3")'),
                                ("absent", "empty", "ini", "ini2", "kv"), True),
    "manage_variable_values_ini": (('manage_variable_values_ini("sdiff.ini", "s1")',
                                    'manage_variable_values_ini("sdiff.ini", "s3")'),
                                   ("absent", "empty", "ini", "ini2", "kv"), True),
    "create_solaris_admin_file": (("create_solaris_admin_file",), ("absent", "empty", "plain"),
                                  False),
    "insert_ini_section": (('insert_ini_section("new", "sdiff.kv")',
                            'insert_ini_section("s1", "sdiff.kv")'),
                           ("absent", "empty", "ini", "kv"), True),
}


def edit_family() -> Family:
    fam = Family("edit_line")
    for bundle, (calls, contents, order_free) in EDITS.items():
        for i, call in enumerate(calls):
            for content in contents:
                create = ' create => "true",' if CONTENTS[content] is None else ""
                fam.add(f"{bundle}_{i}_{content}",
                        f'"@D@/file"{create}\n        edit_line => {call}',
                        (f"edit_line:{bundle}",), _files({"file": CONTENTS[content]}),
                        order_free=order_free)
    return fam


# -- bodies through files promises ----------------------------------------------------------
TREE = {"top": "top\n", "sub/f1": "one\n", "sub/f2.log": "two\n", "sub/deep/f3": "three\n",
        "skip/f4": "four\n", "empty/": None}


def _tree(mode: int = 0o644, mtime: int | None = OLD) -> Setup:
    def setup(d: Path) -> None:
        _files({f"src/{k}": v for k, v in TREE.items()}, mode, mtime)(d)
        if mtime is not None:
            for p in sorted((d / "src").rglob("*"), reverse=True):
                os.utime(p, (mtime, mtime))
            os.utime(d / "src", (mtime, mtime))
    return setup


PERMS = ('m("600")', 'm("0755")', 'mo("640", "root")', 'mog("644", "root", "root")',
         'og("root", "root")', 'owner("root")', 'system_owned("0444")')
COPIES = ('local_cp("@D@/src/top")', 'local_dcp("@D@/src/top")', 'perms_cp("@D@/src/top")',
          'perms_dcp("@D@/src/top")', 'backup_local_cp("@D@/src/top")', 'seed_cp("@D@/src/top")',
          'no_backup_cp("@D@/src/top")', 'no_backup_dcp("@D@/src/top")',
          'copyfrom_sync("@D@/src/top")')
REMOTE = ('remote_cp("@D@/src/top", "127.0.0.1")', 'remote_dcp("@D@/src/top", "127.0.0.1")',
          'no_backup_rcp("@D@/src/top", "127.0.0.1")', 'secure_cp("@D@/src/top", "127.0.0.1")',
          'sync_cp("@D@/src/top", "127.0.0.1")')
SELECTS = ('all', 'plain', 'dirs', 'not_dir', 'by_name(@(sdiff_sel.names))',
           'ex_list(@(sdiff_sel.names))', 'exclude("f1")', 'symlinked_to("@D@/src/top")',
           'days_old("1")', 'older_than("1", "0", "0", "0", "0", "0")',
           'name_age("f.*", "1")', 'filetype_older_than("plain", "1")',
           'filetypes_older_than(@(sdiff_sel.types), "1")', 'size_range("0", "4")',
           'bigger_than("4")')
DEPTHS = ('recurse("inf")', 'recurse("1")', 'recurse_with_base("inf")',
          'recurse_ignore("inf", @(sdiff_sel.ignore))', 'include_base')

BODY_EXTRA = r"""
bundle common sdiff_sel
{
  vars:
      "names" slist => { "f1", "f2.log", "deep" };
      "types" slist => { "plain", "dir" };
      "ignore" slist => { "skip", "deep" };
      "aces" slist => { "user:*:rw", "group:*:r", "all:r" };
}

bundle edit_line sdiff_loc_start(l) { insert_lines: "$(l)" location => start; }
bundle edit_line sdiff_loc_before(l, a) { insert_lines: "$(l)" location => before("$(a)"); }
bundle edit_line sdiff_loc_after(l, a) { insert_lines: "$(l)" location => after("$(a)"); }
bundle edit_line sdiff_region(s, l) { insert_lines: "$(l)" select_region => INI_section("$(s)"); }
bundle edit_line sdiff_value(p, v) { replace_patterns: "$(p)" replace_with => value("$(v)"); }
bundle edit_line sdiff_comment(p, c) { replace_patterns: "$(p)" replace_with => comment("$(c)"); }
bundle edit_line sdiff_uncomment(p) { replace_patterns: "$(p)" replace_with => uncomment; }
bundle edit_line sdiff_between(p, t)
{ replace_patterns: "$(p)" replace_with => text_between_match1_and_match2("$(t)"); }
bundle edit_line sdiff_col(m, s, c, v, op)
{ field_edits: "$(m)" edit_field => col("$(s)", "$(c)", "$(v)", "$(op)"); }
bundle edit_line sdiff_line(m, s, c, v, op)
{ field_edits: "$(m)" edit_field => line("$(s)", "$(c)", "$(v)", "$(op)"); }
bundle edit_line sdiff_quoted(m, v, op)
{ field_edits: "$(m)" edit_field => quoted_var("$(v)", "$(op)"); }
bundle edit_line sdiff_fstab(m, v, op)
{ field_edits: "$(m)" edit_field => fstab_options("$(v)", "$(op)"); }
bundle edit_line sdiff_ins(l) { insert_lines: "$(l)"; }
"""


def body_family() -> Family:
    fam = Family("bodies", extra=BODY_EXTRA)
    for i, p in enumerate(PERMS):
        for mode in (0o600, 0o777):
            fam.add(f"perms_{i}_{mode:o}", f'"@D@/f" perms => {p}',
                    (f"perms:{p.split('(')[0]}",), _files({"f": "x\n"}, mode))
        fam.add(f"perms_{i}_tree", f'"@D@/src" perms => {p}, depth_search => recurse("inf")',
                (f"perms:{p.split('(')[0]}", "depth_search:recurse"), _tree(0o640))
    for i, c in enumerate(COPIES):
        name = c.split("(")[0]
        fam.add(f"copy_{i}_new", f'"@D@/dst" copy_from => {c}', (f"copy_from:{name}",), _tree())
        fam.add(f"copy_{i}_old", f'"@D@/dst" copy_from => {c}', (f"copy_from:{name}",),
                lambda d: (_tree()(d), _write(d / "dst", "stale\n", 0o600, OLD)))
        fam.add(f"copy_{i}_same", f'"@D@/dst" copy_from => {c}', (f"copy_from:{name}",),
                lambda d: (_tree()(d), _write(d / "dst", "top\n", 0o644, OLD + 10)))
    for i, c in enumerate(REMOTE):
        fam.add(f"rcopy_{i}", f'"@D@/dst" copy_from => {c}', (f"copy_from:{c.split('(')[0]}",),
                _tree())
    for i, dep in enumerate(DEPTHS):
        fam.add(f"depth_cp_{i}", f'"@D@/dst" copy_from => local_cp("@D@/src"), '
                f'depth_search => {dep}', (f"depth_search:{dep.split('(')[0]}",), _tree())
        fam.add(f"depth_perm_{i}", f'"@D@/src" perms => m("600"), depth_search => {dep}',
                (f"depth_search:{dep.split('(')[0]}",), _tree())
    for i, sel in enumerate(SELECTS):
        name = sel.split("(")[0]
        fam.add(f"tidy_{i}", f'"@D@/src" delete => tidy, depth_search => recurse("inf"), '
                f'file_select => {sel}', (f"file_select:{name}", "delete:tidy"), _tree())
        fam.add(f"tidy_new_{i}", f'"@D@/src" delete => tidy, depth_search => recurse("inf"), '
                f'file_select => {sel}', (f"file_select:{name}", "delete:tidy"),
                _tree(mtime=None))
    fam.add("tidy_file", '"@D@/src/top" delete => tidy', ("delete:tidy",), _tree())
    fam.add("tidy_missing", '"@D@/nothing" delete => tidy', ("delete:tidy",), None)
    fam.add("link_ln_s", '"@D@/link" link_from => ln_s("@D@/src/top")', ("link_from:ln_s",),
            _tree())
    fam.add("link_ln_s_dangling", '"@D@/link" link_from => ln_s("@D@/nothing")',
            ("link_from:ln_s",), None)
    fam.add("link_children", '"@D@/dst" link_from => linkchildren("@D@/src")',
            ("link_from:linkchildren",), _tree())
    for t in ("symlink", "hardlink", "relative", "absolute"):
        fam.add(f"link_from_{t}", f'"@D@/link" link_from => linkfrom("@D@/src/top", "{t}")',
                ("link_from:linkfrom",), _tree())
    fam.add("rename_disable", '"@D@/f" rename => disable', ("rename:disable",),
            _files({"f": "x\n"}))
    fam.add("rename_disable_missing", '"@D@/f" rename => disable', ("rename:disable",), None)
    for n in ("0", "1", "3"):
        fam.add(f"rename_rotate_{n}", f'"@D@/f" rename => rotate("{n}")', ("rename:rotate",),
                _files({"f": "now\n", "f.1": "one\n", "f.2": "two\n"}))
    fam.add("rename_to", '"@D@/f" rename => to("@D@/g")', ("rename:to",), _files({"f": "x\n"}))
    for name in ("detect_all_change", "detect_content", "noupdate", "diff", "diff_noupdate",
                 "all_changes", 'detect_all_change_using("sha256")',
                 'detect_content_using("md5")'):
        cname = re.sub(r"\W", "_", name)
        fam.add(f"changes_{cname}", f'"@D@/f" changes => {name}',
                (f"changes:{name.split('(')[0]}",), _files({"f": "x\n"}))
    for ed in ("empty", "no_backup", "std_defs", "backup_timestamp"):
        fam.add(f"defaults_{ed}", f'"@D@/f" edit_line => sdiff_ins("new"), edit_defaults => {ed}',
                (f"edit_defaults:{ed}",), _files({"f": "a\nb\n"}))
    loc = {"start": 'sdiff_loc_start("new")', "before": 'sdiff_loc_before("new", "b")',
           "after": 'sdiff_loc_after("new", "a")', "before_none": 'sdiff_loc_before("new", "zz")'}
    for k, call in loc.items():
        fam.add(f"location_{k}", f'"@D@/f" edit_line => {call}',
                (f"location:{k.split('_')[0]}",), _files({"f": "a\nb\nc\n"}))
    for s in ("s1", "s2", "none"):
        fam.add(f"region_{s}", f'"@D@/f" edit_line => sdiff_region("{s}", "k=v")',
                ("select_region:INI_section",), _files({"f": CONTENTS["ini"]}))
    repl = {"value": 'sdiff_value("a=1", "a=2")', "comment": 'sdiff_comment("z=9", "# ")',
            "uncomment": 'sdiff_uncomment("#\\s*(b=0)")',
            "between": 'sdiff_between("(\\[)s2(\\])", "S2")'}
    for k, call in repl.items():
        fam.add(f"replace_{k}", f'"@D@/f" edit_line => {call}',
                ("replace_with:" + {"between": "text_between_match1_and_match2"}.get(k, k),),
                _files({"f": CONTENTS["ini"]}))
    fields = {"col_set": 'sdiff_col("root:.*", ":", "7", "/bin/zsh", "set")',
              "col_append": 'sdiff_col("wheel:.*", ":", "4", "dave", "append")',
              "col_prepend": 'sdiff_col("wheel:.*", ":", "4", "dave", "prepend")',
              "col_delete": 'sdiff_col("wheel:.*", ":", "4", "carol", "delete")',
              "col_alphanum": 'sdiff_col("wheel:.*", ":", "4", "alice", "alphanum")',
              "line_set": 'sdiff_line("root:.*", ":", "7", "/bin/zsh", "set")',
              "line_append": 'sdiff_line("wheel:.*", ":", "4", "dave", "append")'}
    for k, call in fields.items():
        fam.add(f"field_{k}", f'"@D@/f" edit_line => {call}', (f"edit_field:{k.split('_')[0]}",),
                _files({"f": CONTENTS["group"] + CONTENTS["passwd"]}))
    fam.add("field_quoted", '"@D@/f" edit_line => sdiff_quoted("A=.*", "x", "append")',
            ("edit_field:quoted_var",), _files({"f": 'A="a b"\nB="c"\n'}))
    fam.add("field_fstab", '"@D@/f" edit_line => sdiff_fstab("/dev/sda2.*", "noatime", "append")',
            ("edit_field:fstab_options",), _files({"f": CONTENTS["fstab"]}))
    fam.add("volume_free", '"@D@" volume => min_free_space("1M")', ("volume:min_free_space",),
            None, section="storage")
    fam.add("volume_full", '"@D@" volume => min_free_space("99%")',
            ("volume:min_free_space",), None, section="storage")
    fam.add("acl_generic", '"@D@/f" acl => access_generic(@(sdiff_sel.aces))',
            ("acl:access_generic",), _files({"f": "x\n"}))
    fam.add("acl_strict", '"@D@/f" acl => strict', ("acl:strict",), _files({"f": "x\n"}))
    return fam


# -- classes, action and contain bodies through commands and files --------------------------
CLASSES_BODIES = ('classes_generic("sdiff_@C@_g")', 'scoped_classes_generic("namespace", "sdiff_@C@_g")',
                  'scoped_classes_generic("bundle", "sdiff_@C@_g")',
                  'results("namespace", "sdiff_@C@_r")', 'results("bundle", "sdiff_@C@_r")',
                  'diff_results("namespace", "sdiff_@C@_d")', 'if_repaired("sdiff_@C@_x")',
                  'if_else("sdiff_@C@_yes", "sdiff_@C@_no")',
                  'cf2_if_else("sdiff_@C@_yes", "sdiff_@C@_no")', 'if_ok("sdiff_@C@_x")',
                  'if_notkept("sdiff_@C@_x")', 'if_ok_cancel("sdiff_@C@_pre")',
                  'cmd_repair("0", "sdiff_@C@_x")', 'cmd_repair("1", "sdiff_@C@_x")',
                  'kept_successful_command', 'always("sdiff_@C@_x")',
                  'state_repaired("sdiff_@C@_x")', 'enumerate("sdiff_@C@_x")')
PROMISES = {  # shape -> (promise text, setup)
    "true": ('"/bin/true"', None, "commands"),
    "false": ('"/bin/false"', None, "commands"),
    "exit2": ('"/bin/sh -c \'exit 2\'"', None, "commands"),
    "created": ('"@D@/f" create => "true"', None, "files"),
    "exists": ('"@D@/f" create => "true"', _files({"f": ""}), "files"),
    "denied": ('"@D@/nodir/f" create => "true", move_obstructions => "false"',
               _files({"nodir": "a file in the way\n"}), "files"),
}
ACTIONS = ('if_elapsed("60")', 'if_elapsed_day', 'immediate', 'warn_only', 'policy("warn")',
           'policy("fix")', 'sample_rate("0")', 'log_verbose', 'measure_performance("5")',
           'measure_promise_time("sdiff")', 'log_repaired("@D@/log", "logged $(this.promiser)")',
           'fresh_systemd_state')
CONTAINS = ('in_shell', 'in_shell_and_silent', 'silent', 'in_dir("@D@/sub")',
            'in_dir_shell("@D@/sub")', 'silent_in_dir("@D@/sub")',
            'in_dir_shell_and_silent("@D@/sub")', 'setuid("nobody")', 'setuid_sh("nobody")',
            'setuidgid_sh("nobody", "nogroup")', 'setuidgid_dir("nobody", "nogroup", "@D@/sub")',
            'setuid_umask("root", "077")', 'setuid_gid_umask("root", "nogroup", "027")',
            'jail("root", "/", "@D@/sub")')
CONTAIN_CMD = ('"/bin/sh -c \'exec > @D@/sub/out 2>&1; '
               '[ `pwd` = @D@/sub ] && echo in-sub; id -u; id -g; umask\'"')

CMD_EXTRA = ""


def _join(text: str, attr: str) -> str:
    """A promise text with one more attribute (no comma right after a bare promiser)."""
    bare = re.fullmatch(r'\s*"[^"]*"\s*', text) is not None
    return f"{text}{' ' if bare else ','}\n        {attr}"


def command_family() -> Family:
    fam = Family("classes_action_contain", extra=CMD_EXTRA)
    for i, body in enumerate(CLASSES_BODIES):
        for shape, (text, setup, section) in PROMISES.items():
            case = f"cls{i}_{shape}"
            fam.add(case, _join(text, f"classes => {body.replace('@C@', case)}"),
                    (f"classes:{body.split('(')[0]}",), setup, section=section)
    for i, act in enumerate(ACTIONS):
        for shape in ("created", "exists", "true"):
            text, setup, section = PROMISES[shape]
            fam.add(f"act{i}_{shape}", _join(text, f"action => {act}"),
                    (f"action:{act.split('(')[0]}",), setup, section=section)
    for i, con in enumerate(CONTAINS):
        fam.add(f"con{i}", f'{CONTAIN_CMD}\n        contain => {con}',
                (f"contain:{con.split('(')[0]}",), _files({"sub/": None}), section="commands")
    return fam


# -- agent bundles through methods ----------------------------------------------------------
def agent_family() -> Family:
    fam = Family("agent_bundles")
    src = _files({"template.txt": "value: $(sdiff.template_value)\n",
                  "hello.mustache": "Hello {{name}} {{#list}}[{{.}}]{{/list}}\n",
                  "data.json": '{ "name": "file", "list": [ "x" ] }\n'}, mtime=OLD)

    def with_src(extra: Setup | None = None) -> Setup:
        def setup(d: Path) -> None:
            src(d)
            _tree()(d)
            if extra:
                extra(d)
        return setup

    def m(name: str, call: str, covers: str, extra: Setup | None = None) -> None:
        fam.add(name, f'"{name}" usebundle => {call}', (f"agent:{covers}",), with_src(extra),
                section="methods")
    old_made = _files({"made": "old\n"}, 0o600)
    m("file_make_new", 'file_make("@D@/made", "line one$(const.n)line two")', "file_make")
    m("file_make_old", 'file_make("@D@/made", "line one$(const.n)line two")', "file_make",
      old_made)
    m("file_make_same", 'file_make("@D@/made", "same")', "file_make", _files({"made": "same\n"}))
    m("file_make_long", 'file_make("@D@/made", "' + "x" * 60 + '")', "file_make")
    m("file_make_mog", 'file_make_mog("@D@/made", "x", "600", "root", "root")', "file_make_mog",
      old_made)
    m("file_empty", 'file_empty("@D@/made")', "file_empty", old_made)
    m("file_empty_new", 'file_empty("@D@/made")', "file_empty")
    m("file_copy", 'file_copy("@D@/template.txt", "@D@/copy")', "file_copy")
    m("file_copy_missing", 'file_copy("@D@/nothing", "@D@/copy")', "file_copy")
    m("dir_sync", 'dir_sync("@D@/src", "@D@/mirror")', "dir_sync",
      _files({"mirror/extra": "purged\n"}))
    m("file_tidy", 'file_tidy("@D@/made")', "file_tidy", old_made)
    m("file_tidy_missing", 'file_tidy("@D@/made")', "file_tidy")
    m("file_link", 'file_link("@D@/template.txt", "@D@/link")', "file_link")
    m("file_link_replace", 'file_link("@D@/template.txt", "@D@/link")', "file_link",
      old_made)
    m("file_hardlink", 'file_hardlink("@D@/template.txt", "@D@/hard")', "file_hardlink")
    m("file_mustache", 'file_mustache("@D@/hello.mustache", "@D@/data.json", "@D@/out")',
      "file_mustache")
    m("file_mustache_jsonstring",
      'file_mustache_jsonstring("@D@/hello.mustache", "$(sdiff.json)", "@D@/out")',
      "file_mustache_jsonstring")
    m("file_make_mustache", 'file_make_mustache("@D@/out", "@D@/hello.mustache", @(sdiff.data))',
      "file_make_mustache")
    m("file_make_mustache_perms", 'file_make_mustache_with_perms("@D@/out", "@D@/hello.mustache", '
      '@(sdiff.data), "640", "root", "root")', "file_make_mustache_with_perms")
    m("rm_rf_tree", 'rm_rf("@D@/src")', "rm_rf")
    m("rm_rf_file", 'rm_rf("@D@/template.txt")', "rm_rf")
    m("rm_rf_missing", 'rm_rf("@D@/nothing")', "rm_rf")
    for depth in ("0", "1", "inf"):
        m(f"rm_rf_depth_{depth}", f'rm_rf_depth("@D@/src", "{depth}")', "rm_rf_depth")
    for days in ("0", "1", "900"):
        m(f"prunedir_{days}", f'prunedir("@D@/src", "{days}")', "prunedir")
    for depth, days in (("inf", "0"), ("1", "0"), ("inf", "900")):
        m(f"prunetree_{depth}_{days}", f'prunetree("@D@/src", "{depth}", "{days}")', "prunetree")
    for size, keep in (("1", "2"), ("1000", "2"), ("1", "0")):
        m(f"logrotate_{size}_{keep}", f'logrotate("@D@/log", "{size}", "{keep}")', "logrotate",
          _files({"log": "a long enough log line\n", "log.1": "older\n"}))
    fam.add("fileinfo", '"fileinfo" usebundle => fileinfo("@D@/template.txt")',
            ("agent:fileinfo",), with_src(), section="methods")
    fam.add("fileinfo_missing", '"fileinfo_missing" usebundle => fileinfo("@D@/nothing")',
            ("agent:fileinfo",), with_src(), section="methods")
    m("run_ifdefined", 'run_ifdefined("default", "sdiff_helper")', "run_ifdefined")
    m("run_ifdefined_none", 'run_ifdefined("default", "sdiff_no_such_bundle")', "run_ifdefined")
    fam.extra = r"""
bundle agent sdiff_helper
{
  reports:
      "sdiff helper ran";
}
"""
    return fam


# fileinfo() publishes its results as variables: report what both made
FILEINFO_REPORT = r"""
bundle agent sdiff_fileinfo
{
  vars:
      "v" slist => sort(variablesmatching("default:fileinfo\..*"), "lex");
      "show[$(v)]" string => "$($(v))", if => isvariable("$(v)");
  reports:
      "sdiff-var $(v)";
}
"""


def printfile_family() -> Family:
    fam = Family("printfile")
    text = "".join(f"line {i}\n" for i in range(1, 16))
    for body in ('cat("@D@/f")', 'head("@D@/f")', 'head_n("@D@/f", "3")', 'tail("@D@/f")',
                 'tail_n("@D@/f", "2")', 'cat("@D@/nothing")'):
        name = re.sub(r"\W+", "_", body.split("@D@/")[0] + body.split("/")[-1]).strip("_")
        fam.add(f"print_{name}", f'"sdiff print {name}" printfile => {body}',
                (f"printfile:{body.split('(')[0]}",), _files({"f": text}), section="reports")
    return fam


# -- processes: a sleeper of the test's own per case, found by its unique command line -------
STARTED: list[subprocess.Popen] = []


def _sleeper(d: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", f"{d}/proc"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    STARTED.append(proc)
    (d / "pid").write_text(str(proc.pid))


def stop_processes() -> None:
    while STARTED:
        proc = STARTED.pop()
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def _alive(pid: int) -> bool:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"


def process_family() -> Family:
    fam = Family("processes")
    counts = {"any": 'any_count("sdiff_@C@_any")',
              "range1": 'check_range("sdiff_@C@_r", "1", "1")',
              "range2": 'check_range("sdiff_@C@_r", "2", "5")'}
    selects = {"none": "", "root": 'by_owner("root")', "nobody": 'by_owner("nobody")',
               "exclude": 'exclude_procs(".*time.*")', "old": 'days_older_than("1")',
               "pid": 'by_pid(readfile("@D@/pid", "20"))'}
    for cname, count in counts.items():
        for sname, sel in selects.items():
            attrs = f"process_count => {count}" + (f", process_select => {sel}" if sel else "")
            fam.add(f"proc_{cname}_{sname}", f'"@D@/proc" {attrs}',
                    (f"process_count:{count.split('(')[0]}",)
                    + ((f"process_select:{sel.split('(')[0]}",) if sel else ()),
                    _sleeper, section="processes")
    fam.add("process_kill", '"process_kill" usebundle => process_kill("@D@/proc")',
            ("agent:process_kill",), _sleeper, section="methods")
    fam.add("process_kill_none", '"process_kill_none" usebundle => process_kill("@D@/nothing")',
            ("agent:process_kill",), _sleeper, section="methods")
    fam.add("daemonize", '"daemonize" usebundle => daemonize("/bin/true")', ("agent:daemonize",),
            None, section="methods")
    return fam


def families() -> list[Family]:
    return [edit_family(), body_family(), command_family(), agent_family(), printfile_family(),
            process_family()]


# -- the policy ------------------------------------------------------------------------------
def policy_text(fam: Family, root: Path, lib: Path) -> str:
    sections: dict[str, list[str]] = {}
    for case in fam.cases:
        d = str(root / case.name)
        text = case.promises.replace("@D@", d).replace("@C@", case.name)
        if "classes =>" not in text and case.section != "reports":
            text = _join(text, f'classes => sdiff_o("{case.name}")')
        sections.setdefault(case.section, []).append(f"      {text};")
    body = "\n".join(f"  {sec}:\n" + "\n".join(lines) for sec, lines in sections.items())
    extra = fam.extra + (FILEINFO_REPORT if fam.name == "agent_bundles" else "")
    seq = '"main", "sdiff_report"' + (', "sdiff_fileinfo"' if fam.name == "agent_bundles" else "")
    return (f'body common control\n{{\n  bundlesequence => {{ {seq} }};\n'
            f'  inputs => {{ "{lib}" }};\n}}\n\nbundle agent main\n{{\n{body}\n}}\n'
            + COMMON + extra)


def prepare(fam: Family, root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "template.txt").write_text("value: $(sdiff.template_value)\n[$(sdiff.lines)]\n")
    for case in fam.cases:
        d = root / case.name
        d.mkdir()
        if case.setup is not None:
            case.setup(d)


_DATE = re.compile(r"\b[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\b")
_STAMP = re.compile(r"_\d{9,}_[A-Za-z0-9_]*?(?=\.cf-before-edit|\.cfsaved|$)")


def snapshot(root: Path, case: str) -> dict[str, tuple]:
    out: dict[str, tuple] = {}
    base = root / case
    for dirpath, dirnames, filenames in os.walk(base):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = _STAMP.sub("_STAMP", str(path.relative_to(base)))
            st = path.lstat()
            own = (st.st_uid, st.st_gid)
            if rel == "pid":                # a sleeper's: is it still running?
                out[rel] = ("process", _alive(int(path.read_text())))
                continue
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(path).replace(str(root), "@ROOT@"))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", oct(st.st_mode & 0o7777), own)
            else:
                data = path.read_bytes().decode(errors="replace").replace(str(root), "@ROOT@")
                data = _DATE.sub("@DATE@", data)
                out[rel] = ("file", oct(st.st_mode & 0o7777), own, st.st_nlink, data)
    return out


def order_free(entry: dict[str, tuple]) -> dict[str, tuple]:
    return {k: v[:-1] + (tuple(sorted(v[-1].splitlines())),) if v[0] == "file" else v
            for k, v in entry.items()}


def outcomes(stdout: str) -> dict[str, set[str]]:
    """case -> its classes (sdiff_<case>_...), from sdiff_report's lines."""
    found: set[str] = set()
    for line in stdout.splitlines():
        if line.startswith("R: sdiff-class "):
            found.add(line[len("R: sdiff-class "):].strip())
    return {"": found}


def report_lines(stdout: str) -> list[str]:
    return sorted(line for line in stdout.splitlines()
                  if line.startswith("R: ") and not line.startswith("R: sdiff-class "))


def classes_of(found: set[str], case: str, cases: list[str]) -> list[str]:
    """The classes of one case: those starting sdiff_<case>_ that no longer case name owns."""
    prefix = f"sdiff_{case}_"
    longer = [c for c in cases if c != case and c.startswith(case + "_")]
    return sorted(c for c in found if c.startswith(prefix)
                  and not any(c.startswith(f"sdiff_{o}_") for o in longer))


def covered_names() -> set[str]:
    return {c for fam in families() for case in fam.cases for c in case.covers}
