"""files promise cases, one or more per attribute family: state before, the promises,
state after, cf-agent's messages.

``{d}`` in promises, messages and bodies is the case's scratch directory.  States
map a path (relative to ``{d}``) to an :class:`Entry`, or to None for "must not
exist".  Expected messages are read off cf-agent 3.21 (``test_differential.py``
replays the table against it when it is installed); ``messages`` must appear in
order among the run's ``info``/``warning`` lines (prefixed ``I:``/``W:``).
"""
from __future__ import annotations

import attrs


@attrs.frozen
class Entry:
    content: str | None = None        # a regular file with this content
    mode: int | None = None
    link: str | None = None           # a symlink to this target
    directory: bool = False
    owner: int | None = None


F = Entry
DIR = Entry(directory=True)


@attrs.frozen
class FileCase:
    id: str
    before: dict[str, Entry]
    promises: str                     # the body of the ``files:`` section of bundle main
    after: dict[str, Entry | None]
    messages: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    bodies: str = ""
    converges: bool = True
    differential: bool = True         # compare with cf-agent (False: cf-lite only output)


COMMON_BODIES = """
body perms m(mode) { mode => "$(mode)"; rxdirs => "false"; }
body perms mrx(mode) { mode => "$(mode)"; rxdirs => "true"; }
body perms owner(o, g) { owners => { "$(o)" }; groups => { "$(g)" }; }
body delete tidy { dirlinks => "delete"; rmdirs => "true"; }
body delete keepdirs { rmdirs => "false"; }
body rename disable { disable => "true"; }
body rename disable_as(s) { disable => "true"; disable_suffix => "$(s)"; }
body rename rotate(n) { rotate => "$(n)"; }
body rename to(n) { newname => "$(n)"; }
body link_from ln(s) { source => "$(s)"; link_type => "symlink"; }
body link_from ln_force(s) { source => "$(s)"; link_type => "symlink"; when_no_source => "force"; }
body link_from ln_rel(s) { source => "$(s)"; link_type => "relative"; }
body link_from ln_hard(s) { source => "$(s)"; link_type => "hardlink"; }
body copy_from cp(s) { source => "$(s)"; compare => "digest"; }
body copy_from cp_nobackup(s) { source => "$(s)"; compare => "digest"; copy_backup => "false"; }
body copy_from cp_preserve(s) { source => "$(s)"; compare => "digest"; preserve => "true"; }
body copy_from cp_sync(s) { source => "$(s)"; compare => "digest"; purge => "true"; }
body depth_search all { depth => "inf"; }
body depth_search one { depth => "1"; }
body depth_search all_base { depth => "inf"; include_basedir => "true"; }
body depth_search skip(x) { depth => "inf"; exclude_dirs => { "$(x)" }; }
body file_select named(x) { leaf_name => { "$(x)" }; file_result => "leaf_name"; }
body file_select plain { file_types => { "plain" }; file_result => "file_types"; }
body file_select bigger(n) { search_size => irange("$(n)", "99999999"); file_result => "size"; }
body action warn { action_policy => "warn"; }
body changes detect { hash => "sha256"; report_changes => "all"; update_hashes => "yes"; }
body edit_defaults keep_ts { edit_backup => "timestamp"; }
body edit_defaults no_backup { edit_backup => "false"; }
body edit_defaults rotating { edit_backup => "rotate"; rotate => "2"; }
bundle edit_line add(x) { insert_lines: "$(x)"; }
"""


CASES: list[FileCase] = [
    # --- create -------------------------------------------------------------------------
    FileCase("create-file", {}, '"{d}/new" create => "true";', {"new": F("", 0o600)},
             ("I:Created file '{d}/new', mode 0600",)),
    FileCase("create-file-mode", {}, '"{d}/new" create => "true", perms => m("0644");',
             {"new": F("", 0o644)}, ("I:Created file '{d}/new', mode 0644",)),
    FileCase("create-directory", {}, '"{d}/a/b/." create => "true";',
             {"a": DIR, "a/b": Entry(directory=True, mode=0o700)},
             ("I:Created directory '{d}/a/b/.'",)),
    FileCase("create-with-parents", {}, '"{d}/x/y/z" create => "true";',
             {"x/y": DIR, "x/y/z": F("")}),
    FileCase("create-exists", {"f": F("data", 0o640)}, '"{d}/f" create => "true";',
             {"f": F("data", 0o640)}),
    FileCase("create-dry-run", {}, '"{d}/new" create => "true";', {"new": None},
             ("W:Should create file '{d}/new', mode '0600'",), args=("-n",), converges=False),
    FileCase("create-warn", {}, '"{d}/new" create => "true", action => warn;', {"new": None},
             ("W:Should create file '{d}/new', mode '0600', but only warning promised",
              "W:Warnings encountered when actuating files promise '{d}/new'"),
             converges=False),
    # --- perms --------------------------------------------------------------------------
    FileCase("perms-octal", {"f": F("x", 0o644)}, '"{d}/f" perms => m("0600");',
             {"f": F("x", 0o600)},
             ("I:Object '{d}/f' had permissions 0644, changed it to 0600",)),
    FileCase("perms-symbolic", {"f": F("x", 0o666)}, '"{d}/f" perms => m("u+x,go-w");',
             {"f": F("x", 0o744)}),
    FileCase("perms-rxdirs", {"d1": Entry(directory=True, mode=0o700)},
             '"{d}/d1" perms => mrx("a+r");', {"d1": Entry(directory=True, mode=0o755)}),
    FileCase("perms-owner", {"f": F("x", 0o644, owner=65534)}, '"{d}/f" perms => owner("root", "root");',
             {"f": F("x", 0o644, owner=0)}, ("I:Owner of '{d}/f' was 65534, set to 0",
                                              "I:Group of '{d}/f' was 65534, set to 0")),
    FileCase("perms-warn", {"f": F("x", 0o644)}, '"{d}/f" perms => m("0600"), action => warn;',
             {"f": F("x", 0o644)},
             ("W:Should change permissions of '{d}/f' from 0644 to 0600, but only warning "
              "promised",), converges=False),
    FileCase("perms-depth-search", {"t/a": F("1", 0o600), "t/s/b": F("2", 0o600)},
             '"{d}/t" perms => m("0644"), depth_search => all, file_select => plain;',
             {"t/a": F("1", 0o644), "t/s/b": F("2", 0o644)}),
    FileCase("perms-depth-one", {"t/a": F("1", 0o600), "t/s/b": F("2", 0o600)},
             '"{d}/t" perms => m("0644"), depth_search => one, file_select => plain;',
             {"t/a": F("1", 0o644), "t/s/b": F("2", 0o600)}),
    FileCase("perms-exclude-dirs",
             {"t/a": F("1", 0o600), "t/skip/b": F("2", 0o600), "t/s/c": F("3", 0o600)},
             '"{d}/t" perms => m("0644"), depth_search => skip("skip"), file_select => plain;',
             {"t/a": F("1", 0o644), "t/skip/b": F("2", 0o600), "t/s/c": F("3", 0o644)}),
    FileCase("perms-file-select-name", {"t/a.conf": F("1", 0o600), "t/b.txt": F("2", 0o600)},
             '"{d}/t" perms => m("0644"), depth_search => all, file_select => named(".*\\.conf");',
             {"t/a.conf": F("1", 0o644), "t/b.txt": F("2", 0o600)}),
    FileCase("perms-file-select-size", {"t/small": F("1", 0o600), "t/big": F("x" * 100, 0o600)},
             '"{d}/t" perms => m("0644"), depth_search => all, file_select => bigger("50");',
             {"t/small": F("1", 0o600), "t/big": F("x" * 100, 0o644)}),
    FileCase("perms-regex-promiser", {"a1": F("1", 0o600), "a2": F("2", 0o600), "b": F("3", 0o600)},
             '"{d}/a[0-9]" perms => m("0640");',
             {"a1": F("1", 0o640), "a2": F("2", 0o640), "b": F("3", 0o600)}),
    # --- delete -------------------------------------------------------------------------
    FileCase("delete-file", {"f": F("x")}, '"{d}/f" delete => tidy;', {"f": None},
             ("I:Deleted file '{d}/f'",)),
    FileCase("delete-absent", {}, '"{d}/f" delete => tidy;', {"f": None}),
    FileCase("delete-empty-dir", {"e": DIR}, '"{d}/e" delete => tidy;', {"e": None},
             ("I:Deleted directory '{d}/e'",)),
    FileCase("delete-dir-not-rmdirs", {"e": DIR}, '"{d}/e" delete => keepdirs;', {"e": DIR}),
    FileCase("delete-selected-in-tree",
             {"t/a.log": F("1"), "t/b.txt": F("2"), "t/s/c.log": F("3")},
             '"{d}/t" delete => tidy, depth_search => all, file_select => named(".*\\.log");',
             {"t/a.log": None, "t/b.txt": F("2"), "t/s/c.log": None, "t": DIR}),
    FileCase("delete-dry-run", {"f": F("x")}, '"{d}/f" delete => tidy;', {"f": F("x")},
             ("W:Should delete file '{d}/f'",), args=("-n",), converges=False),
    # --- rename -------------------------------------------------------------------------
    FileCase("rename-disable", {"f": F("x", 0o644)}, '"{d}/f" rename => disable;',
             {"f": None, "f.cfdisabled": F("x", 0o644)},
             ("W:File object '{d}/f' exists, contrary to promise",
              "I:Disabled file '{d}/f' by renaming to '{d}/f.cfdisabled' with mode 0644")),
    FileCase("rename-disable-suffix", {"f": F("x")}, '"{d}/f" rename => disable_as(".off");',
             {"f": None, "f.off": F("x")}),
    FileCase("rename-rotate", {"f": F("x"), "f.1": F("older")}, '"{d}/f" rename => rotate("3");',
             {"f": F(""), "f.1": F("x"), "f.2": F("older")},
             ("I:Rotated file '{d}/f' in 3 fifo",), converges=False),
    # --- link_from ----------------------------------------------------------------------
    FileCase("link-symlink", {"src": F("s")}, '"{d}/lnk" link_from => ln("{d}/src");',
             {"lnk": Entry(link="{d}/src")}, ("I:Linked files '{d}/lnk' -> '{d}/src'",)),
    FileCase("link-relative", {"s/src": F("s"), "t": DIR}, '"{d}/t/lnk" link_from => ln_rel("{d}/s/src");',
             {"t/lnk": Entry(link="./../s/src")}),
    FileCase("link-hard", {"src": F("s")}, '"{d}/hl" link_from => ln_hard("{d}/src");',
             {"hl": F("s")}),
    FileCase("link-no-source", {}, '"{d}/lnk" link_from => ln("{d}/nothing");', {"lnk": None},
             converges=True),
    FileCase("link-force-no-source", {}, '"{d}/lnk" link_from => ln_force("{d}/nothing");',
             {"lnk": Entry(link="{d}/nothing")}),
    FileCase("link-wrong-no-override", {"a": F("a"), "b": F("b"), "lnk": Entry(link="{d}/a")},
             '"{d}/lnk" link_from => ln("{d}/b");', {"lnk": Entry(link="{d}/a")}),
    FileCase("link-wrong-override", {"a": F("a"), "b": F("b"), "lnk": Entry(link="{d}/a")},
             '"{d}/lnk" link_from => ln("{d}/b"), move_obstructions => "true";',
             {"lnk": Entry(link="{d}/b")}),
    # --- copy_from ----------------------------------------------------------------------
    FileCase("copy-new", {"src": F("hello\n", 0o644)}, '"{d}/dst" copy_from => cp("{d}/src");',
             {"dst": F("hello\n", 0o600)},
             ("I:Copied file '{d}/src' to '{d}/dst.cfnew' (mode '600')",
              "I:Moved '{d}/dst.cfnew' to '{d}/dst'",
              "I:Updated file '{d}/dst' from 'localhost:{d}/src'")),
    FileCase("copy-update", {"src": F("new\n", 0o644), "dst": F("old\n", 0o644)},
             '"{d}/dst" copy_from => cp("{d}/src");',
             {"dst": F("new\n", 0o644), "dst.cfsaved": F("old\n")},
             ("I:Copied file '{d}/src' to '{d}/dst.cfnew' (mode '644')",
              "I:Backed up '{d}/dst' as '{d}/dst.cfsaved'",
              "I:Moved '{d}/dst.cfnew' to '{d}/dst'",
              "I:Updated '{d}/dst' from source '{d}/src' on 'localhost'")),
    FileCase("copy-no-backup", {"src": F("new\n"), "dst": F("old\n")},
             '"{d}/dst" copy_from => cp_nobackup("{d}/src");',
             {"dst": F("new\n"), "dst.cfsaved": None}),
    FileCase("copy-preserve", {"src": F("p\n", 0o750)}, '"{d}/dst" copy_from => cp_preserve("{d}/src");',
             {"dst": F("p\n", 0o750)}),
    FileCase("copy-same", {"src": F("same\n"), "dst": F("same\n", 0o640)},
             '"{d}/dst" copy_from => cp("{d}/src");', {"dst": F("same\n", 0o640)}),
    FileCase("copy-tree-purge",
             {"s/a": F("a"), "s/sub/b": F("b"), "t/a": F("old"), "t/extra": F("x")},
             '"{d}/t" copy_from => cp_sync("{d}/s"), depth_search => all;',
             {"t/a": F("a"), "t/sub/b": F("b"), "t/extra": None}),
    FileCase("copy-tree-with-link", {"s/dest": F("d"), "s/link": Entry(link="dest")},
             '"{d}/t" copy_from => cp("{d}/s"), depth_search => all;',
             {"t/dest": F("d"), "t/link": Entry(link="dest")}),
    FileCase("copy-warn", {"src": F("new\n"), "dst": F("old\n")},
             '"{d}/dst" copy_from => cp("{d}/src"), action => warn;', {"dst": F("old\n")},
             ("W:Should update file '{d}/dst' from '{d}/src' on 'localhost', but only warning "
              "promised",), converges=False),
    # --- content ------------------------------------------------------------------------
    FileCase("content-new", {}, '"{d}/c" content => "hello";', {"c": F("hello", 0o600)},
             ("I:Created file '{d}/c', mode 0600",
              "I:Updated file '{d}/c' with content 'hello'")),
    FileCase("content-replace", {"c": F("old\nstuff\n", 0o644)}, '"{d}/c" content => "new";',
             {"c": F("new", 0o644)}),
    FileCase("content-same", {"c": F("same")}, '"{d}/c" content => "same";', {"c": F("same")}),
    FileCase("content-no-create", {}, '"{d}/c" content => "x", create => "false";', {"c": None}),
    # --- edit_line through files (backups) -----------------------------------------------
    FileCase("edit-backup-default", {"f": F("a\n", 0o640)}, '"{d}/f" edit_line => add("b");',
             {"f": F("a\nb\n", 0o640), "f.cf-before-edit": F("a\n")},
             ("I:Inserted the promised line 'b' into '{d}/f' after locator",
              "I:insert_lines promise 'b' repaired", "I:Edited file '{d}/f'")),
    FileCase("edit-no-backup", {"f": F("a\n")}, '"{d}/f" edit_line => add("b"), edit_defaults => no_backup;',
             {"f": F("a\nb\n"), "f.cf-before-edit": None}),
    FileCase("edit-rotate-backup", {"f": F("a\n")},
             '"{d}/f" edit_line => add("b"), edit_defaults => rotating;',
             {"f": F("a\nb\n"), "f.cf-before-edit": None, "f.cf-before-edit.1": F("a\n")}),
    FileCase("edit-missing-file", {}, '"{d}/f" edit_line => add("b");', {"f": None},
             converges=True),
    FileCase("edit-through-symlink", {"real": F("a\n"), "lnk": Entry(link="{d}/real")},
             '"{d}/lnk" edit_line => add("b");',
             {"real": F("a\nb\n"), "lnk": Entry(link="{d}/real")}),
    FileCase("edit-dry-run", {"f": F("a\n")}, '"{d}/f" edit_line => add("b");', {"f": F("a\n")},
             ("W:Should insert line 'b' into '{d}/f' after locator",), args=("-n",),
             converges=False),
    FileCase("edit-warn", {"f": F("a\n")}, '"{d}/f" edit_line => add("b"), action => warn;',
             {"f": F("a\n")},
             ("W: ! edit_line change warning promised: (add) b",
              "W:Should edit file '{d}/f', but only warning promised",
              "W:Warnings encountered when actuating files promise '{d}/f'"), converges=False),
    # --- templates ----------------------------------------------------------------------
    FileCase("template-mustache", {"t.mustache": F("Hello {{name}}\n{{#l}}- {{.}}\n{{/l}}")},
             '"{d}/out" edit_template => "{d}/t.mustache", template_method => "mustache", '
             'template_data => parsejson(\'{{"name": "world", "l": [1, 2]}}\');',
             {"out": F("Hello world\n- 1\n- 2\n", 0o600)},
             ("I:Created file '{d}/out', mode 0600",
              "I:Updated rendering of '{d}/out' from mustache template '{d}/t.mustache'")),
    FileCase("template-inline-mustache", {},
             '"{d}/out" edit_template_string => "x={{{{x}}}}", template_method => "inline_mustache", '
             'template_data => parsejson(\'{{"x": "<&>"}}\');',
             {"out": F("x=&lt;&amp;&gt;", 0o600)}),
    FileCase("template-cfengine",
             {"t.tmpl": F("line $(const.dollar)\n[%CFEngine BEGIN %]\nb1\nb2\n[%CFEngine END %]\n"
                          "[%CFEngine !any:: %]\nnever\n[%CFEngine any:: %]\nlast\n")},
             '"{d}/out" edit_template => "{d}/t.tmpl";',
             {"out": F("line $\nb1\nb2\nlast\n", 0o600)}),
    # --- transformer --------------------------------------------------------------------
    FileCase("transformer", {"f": F("x")},
             '"{d}/f" transformer => "/bin/sh -c \'echo t >> {d}/log\'";',
             {"log": F("t\n"), "f": F("x")}, converges=False),
    # --- changes ------------------------------------------------------------------------
    FileCase("changes-first-time", {"f": F("x")}, '"{d}/f" changes => detect;', {"f": F("x")},
             ("I:Stored sha256 hash for '{d}/f' "
              "(SHA=2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881)",
              "I:Wrote stat information for '{d}/f' to database")),
    # --- more ---------------------------------------------------------------------------
    FileCase("copy-missing-source", {}, '"{d}/dst" copy_from => cp("{d}/nothing");',
             {"dst": None}),
    FileCase("delete-nonempty-dir", {"t/x": F("x")}, '"{d}/t" delete => tidy;',
             {"t": DIR, "t/x": F("x")}),
    FileCase("rename-newname", {"f": F("x")}, '"{d}/f" rename => to("{d}/g");',
             {"f": None, "g": F("x")}),
    FileCase("perms-unknown-owner", {"f": F("x")},
             '"{d}/f" perms => owner("no_such_user_x", "no_such_group_x");', {"f": F("x")},
             converges=False),              # (its notes about the missing user, every run)
    FileCase("link-children", {"s/a": F("a"), "s/b": F("b")},
             '"{d}/t" link_from => children("{d}/s");',
             {"t/a": Entry(link="{d}/s/a"), "t/b": Entry(link="{d}/s/b")},
             bodies='body link_from children(s) { source => "$(s)"; link_children => "true"; }'),
    FileCase("content-warn", {"c": F("old")}, '"{d}/c" content => "new", action => warn;',
             {"c": F("old")},
             ("W:Should update file '{d}/c' with content 'new', but only warning promised",),
             converges=False),
    FileCase("template-mustache-datastate", {"t.m": F("{{#classes.any}}any is set{{/classes.any}}\n")},
             '"{d}/out" edit_template => "{d}/t.m", template_method => "mustache";',
             {"out": F("any is set\n")}),
    FileCase("template-cfengine-list",
             {"t.tmpl": F("item $(main.l)\n")},
             '"{d}/out" edit_template => "{d}/t.tmpl";', {"out": F("item a\nitem b\n")},
             bodies=""),
    FileCase("template-missing-no-create", {"t.m": F("x")},
             '"{d}/out" create => "false", edit_template => "{d}/t.m", '
             'template_method => "mustache";', {"out": None}),
    FileCase("touch", {"f": F("x")}, '"{d}/f" touch => "true";', {"f": F("x")},
             converges=False),
    # --- a file that is not a directory where one is needed -----------------------------------
    FileCase("create-through-file", {"x": F("file")}, '"{d}/x/y" create => "true";',
             {"x": F("file"), "x/y": None}),
]
