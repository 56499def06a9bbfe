"""Files promisers ending in "/" (issue #26): cases.

``files: "$(dir)/" perms => m;`` is common in real policy.  cf-agent 3.21 keeps the
promiser as written: its messages name ``'D/'``, it changes into ``D`` itself (the part
before the last "/") rather than into D's parent, and the system calls it makes on
``D/`` fail on anything but a directory (or a link to one) -- so a regular file, a
dangling link or a missing path each give their own messages.

The cases give each family of files attributes (create, perms, owners, changes, rename,
delete, copy_from, link_from, edit_line, edit_template, content, transformer, acl,
depth_search, file_select, touch) a promiser ending in "/" on each kind of target
(missing, a directory, a regular file, a link to a directory, a link to a file, a
dangling link, missing parents), in a normal run, a dry run (``-n``) and warn-only
(``action_policy => "warn"``).  Each case runs twice, on a tree made before the first
run under each agent's own work directory; after each run what is said (``-I``), the
outcome classes (reported by the bundle) and the tree (:func:`snapshot`) are compared.
"""
from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any, Callable

# target -> the promiser under $(t) (all end in "/")
TARGETS = {
    "missing": "m/",
    "dir": "d/",
    "file": "f/",
    "link_dir": "ld/",
    "link_file": "lf/",
    "dangling": "dl/",
    "nested": "n1/n2/n3/",
}

# family -> (the promise's attributes, the bodies and bundles they need)
ATTRS = {
    "create": ('create => "true"', ""),
    "touch": ('touch => "true"', ""),
    "perms": ("perms => m", 'body perms m { mode => "750"; }'),
    "create_perms": ('create => "true", perms => m', 'body perms m { mode => "750"; }'),
    "owners": ("perms => ow", 'body perms ow { owners => { "root" }; groups => { "root" }; '
               'rxdirs => "false"; }'),
    "changes": ("changes => c", 'body changes c { hash => "md5"; report_changes => "all"; '
                'update_hashes => "true"; }'),
    "rename_disable": ("rename => rn", 'body rename rn { disable => "true"; }'),
    "rename_newname": ("rename => rn", 'body rename rn { newname => "renamed"; }'),
    "rename_rotate": ("rename => rn", 'body rename rn { rotate => "2"; }'),
    "delete": ("delete => tidy", 'body delete tidy { dirlinks => "delete"; rmdirs => "true"; }'),
    "copy_from": ('copy_from => cp("$(t)/src")', 'body copy_from cp(s) { source => "$(s)"; }'),
    "copy_from_dir": ('copy_from => cp("$(t)/srcdir"), depth_search => ds',
                      'body copy_from cp(s) { source => "$(s)"; }\n'
                      'body depth_search ds { depth => "inf"; }'),
    "link_from": ('link_from => ln("$(t)/src")',
                  'body link_from ln(s) { source => "$(s)"; link_type => "symlink"; }'),
    "edit_line": ("edit_line => el", 'bundle edit_line el { insert_lines: "x"; }'),
    "edit_line_create": ('create => "true", edit_line => el',
                         'bundle edit_line el { insert_lines: "x"; }'),
    "edit_template": ('edit_template => "$(t)/tmpl"', ""),
    "edit_mustache": ('edit_template => "$(t)/tmpl", template_method => "mustache"', ""),
    "content": ('content => "x"', ""),
    "transformer": ('transformer => "/bin/true"', ""),
    "acl": ("acl => a", 'body acl a { acl_method => "append"; aces => { "user:root:r" }; }'),
    "depth_perms": ("depth_search => ds, perms => m",
                    'body depth_search ds { depth => "inf"; }\n'
                    'body perms m { mode => "640"; rxdirs => "false"; }'),
    "depth_delete": ("depth_search => ds, file_select => all, delete => tidy",
                     'body depth_search ds { depth => "inf"; }\n'
                     'body file_select all { leaf_name => { ".*" }; file_result => "leaf_name"; }\n'
                     'body delete tidy { dirlinks => "delete"; rmdirs => "true"; }'),
    "select_perms": ("file_select => sel, perms => m",
                     'body file_select sel { file_types => { "dir", "plain" }; '
                     'file_result => "file_types"; }\n'
                     'body perms m { mode => "750"; rxdirs => "false"; }'),
}

# mode -> (command-line arguments, what the promise adds)
MODES = {
    "run": ((), ""),
    "dry": (("-n",), ""),
    "warn": ((), ", action => warn"),
}

_TEMPLATE = """
body common control {{ bundlesequence => {{ "main" }}; }}
bundle agent main
{{
vars:
  "t" string => "$(sys.workdir)/t";
files:
  "$(t)/{target}"
    {attrs}{extra},
    classes => o;
reports:
  o_kept:: "kept";
  o_repaired:: "repaired";
  o_failed:: "failed";
  o_denied:: "denied";
  o_timeout:: "timeout";
}}
body classes o {{ promise_kept => {{ "o_kept" }}; promise_repaired => {{ "o_repaired" }};
  repair_failed => {{ "o_failed" }}; repair_denied => {{ "o_denied" }};
  repair_timeout => {{ "o_timeout" }}; }}
body action warn {{ action_policy => "warn"; }}
{bodies}
"""

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []
for _family, (_attrs, _bodies) in ATTRS.items():
    for _target, _promiser in TARGETS.items():
        for _mode, (_args, _extra) in MODES.items():
            CASES.append((f"{_family}_{_target}_{_mode}",
                          {"promises.cf": _TEMPLATE.format(target=_promiser, attrs=_attrs,
                                                           extra=_extra, bodies=_bodies)},
                          ("-I", *_args)))
NAMES = [name for name, _, _ in CASES]

# Not matched yet (open work, not deliberate): each reason says what cf-agent does.
EXPECTED_DIFFERENCES: dict[str, str] = {}


# --- the tree each case starts from ------------------------------------------------------

_FIXED_TIME = 1_600_000_000


def make_tree(t: Path) -> None:
    """The scratch tree under a work directory, the same for both agents: a directory
    with a file in it, a regular file, links to each and a dangling one, the sources of
    copies and links and a template.  The source directory of the recursive copy has no
    subdirectory: cf-agent 3.21 makes a recursive copy's subdirectories even under -n
    and warn (SourceSearchAndCopy's mkdir asks no MakingChanges), which cf-lite only says
    it should do -- another family than this one."""
    t.mkdir(mode=0o755)
    for directory in ("d", "d2", "srcdir"):
        (t / directory).mkdir(mode=0o755)
    for name, text in (("d/inner", "inner\n"), ("d2/inner", "inner2\n"), ("f", "old\n"),
                       ("f2", "old2\n"), ("src", "source\n"), ("srcdir/a", "a\n"),
                       ("srcdir/b", "b\n"), ("tmpl", "templated\n")):
        (t / name).write_text(text)
        (t / name).chmod(0o644)
    os.symlink(t / "d2", t / "ld")
    os.symlink(t / "f2", t / "lf")
    os.symlink(t / "nowhere", t / "dl")
    for top, dirs, files in os.walk(t):
        for name in dirs + files:
            os.utime(os.path.join(top, name), (_FIXED_TIME, _FIXED_TIME), follow_symlinks=False)
    os.utime(t, (_FIXED_TIME, _FIXED_TIME))


def snapshot(t: Path, workdir: str) -> list[str]:
    """What the tree holds: each entry with its kind, its mode (or where a link points)
    and a plain file's text."""
    seen: list[str] = []
    for top, dirs, files in os.walk(t):
        dirs.sort()
        for name in sorted(dirs + files):
            path = os.path.join(top, name)
            rel = os.path.relpath(path, t)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                seen.append(f"{rel} -> {os.readlink(path).replace(workdir, 'WORKDIR')}")
            elif stat.S_ISDIR(st.st_mode):
                seen.append(f"{rel}/ {stat.S_IMODE(st.st_mode):04o}")
            else:
                with open(path, "rb") as f:
                    text = f.read(200)
                seen.append(f"{rel} {stat.S_IMODE(st.st_mode):04o} {text!r}")
    return [_stamps(line) for line in seen]


_STAMP = re.compile(r"_\d{9,}_[A-Za-z]{3}_[A-Za-z]{3}_+\d+_\d\d_\d\d_\d\d_\d{4}")


def _stamps(text: str) -> str:
    """A backup's time stamp (``_1600000000_Sun_Sep_13_12_26_40_2020``) as ``_STAMP``."""
    return _STAMP.sub("_STAMP", text)


def _said(output: str, workdir: str, root: str) -> list[str]:
    return [_stamps(line.rstrip()).replace(workdir, "WORKDIR").replace(root, "ROOT")
            for line in output.splitlines()]


def run_cases(root: Path, cases: list[tuple[str, dict[str, str], tuple[str, ...]]],
              make: Callable[[Path], None] = make_tree) -> dict[str, tuple[Any, Any]]:
    """Each case run twice under each agent (two processes at a time), each agent on its
    own copy of the tree (``make``): name -> (cf-agent's, cf-lite's), each a tuple of
    (exit code, output lines, error-stream lines, tree) for the first run and the
    second."""
    from tests.differential import harness
    jobs = []
    for name, files, args in cases:
        tree = root / name
        tree.mkdir()
        for rel, text in files.items():
            harness.write_policy(tree / rel, text)
        for workdir in (root / f"ref-workdir-{name}", root / f"lite-workdir-{name}"):
            workdir.mkdir()
            make(workdir / "t")
        jobs.append((name, tree / "promises.cf", list(args)))
    seen: dict[str, tuple[list[Any], list[Any]]] = {name: ([], []) for name, _, _ in cases}
    for _ in range(2):
        for name, runs in harness.run_many(jobs, root).items():
            for which, proc in zip(("ref", "lite"), runs):
                workdir = str(root / f"{which}-workdir-{name}")
                seen[name][which == "lite"].append(
                    (proc.returncode, _said(proc.stdout, workdir, str(root)),
                     _said(proc.stderr, workdir, str(root)),
                     snapshot(Path(workdir) / "t", workdir)))
    return {name: (tuple(ref), tuple(lite)) for name, (ref, lite) in seen.items()}
