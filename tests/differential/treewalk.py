"""Generated cases for the outcome of a files promise over a tree (``depth_search``) and of
``acl`` promises, for the differential test against cf-agent 3.21.

cf-agent reports each result of a files promise as it reaches it (the promise's classes
for that result: kept, repaired, failed...) and, at the end, the merged result once more;
over a tree walk that is one report per file checked, per owner/group found right, per
directory created, per recursion limit reached.  Which of them a walk reports decides
the promise's classes, which policy builds on.  Each case here is one promise working
inside its own scratch directory ``@D@``, with a classes body for every outcome; the
shapes vary what a walk meets: depths (1, 2, inf, with the base directory), files
already right / wrong / mixed, dangling links, missing and non-directory promisers,
``file_select`` filters, directories versus files, ``rmdirs``, copies into missing /
stale / complete / extra-laden destinations, and ACLs (``acl_method``, ``acl_type``,
``acl_default``, masks, named users, errors).

:func:`snapshot` adds each file's POSIX ACLs (read from the ``system.posix_acl_*``
extended attributes) to what :func:`tests.differential.stdlib.snapshot` compares.
"""
from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tests.differential import stdlib as sd

Setup = Callable[[Path], None]


@dataclass
class Case:
    name: str
    promise: str                 # promise text with @D@ for the case directory
    setup: Setup | None = None


# -- trees ----------------------------------------------------------------------------------
FILES = ("top", "sub/f1", "sub/f2.log", "sub/deep/f3", "skip/f4")
DIRS = ("sub", "sub/deep", "skip", "empty")


def tree(file_mode: int = 0o644, dir_mode: int = 0o755, odd: int | None = None,
         links: bool = False, base: str = "t", fresh: bool = False) -> Setup:
    """``@D@/<base>``: FILES and DIRS with these modes (``odd``: sub/f1 and skip/ get
    that mode instead, for trees partly right); ``links``: a link to a file and a
    dangling one."""
    def setup(d: Path) -> None:
        root = d / base
        for rel in DIRS:
            (root / rel).mkdir(parents=True, exist_ok=True)
        for rel in FILES:
            (root / rel).write_text(rel + "\n")
            (root / rel).chmod(file_mode)
        for rel in DIRS:
            (root / rel).chmod(dir_mode)
        root.chmod(dir_mode)
        if odd is not None:
            (root / "sub/f1").chmod(odd)
            (root / "skip").chmod(odd | 0o100)
        if links:
            os.symlink(str(root / "top"), root / "sub/link")
            os.symlink(str(root / "nothing"), root / "sub/dead")
        if fresh:
            return
        for p in sorted(root.rglob("*"), reverse=True):
            if not p.is_symlink():
                os.utime(p, (sd.OLD, sd.OLD))
        os.utime(root, (sd.OLD, sd.OLD))
    return setup


def file_at(rel: str, mode: int = 0o644) -> Setup:
    def setup(d: Path) -> None:
        (d / rel).write_text("x\n")
        (d / rel).chmod(mode)
    return setup


def both(*setups: Setup) -> Setup:
    def setup(d: Path) -> None:
        for s in setups:
            s(d)
    return setup


def dst_state(state: str) -> Setup:
    """The destination of a copy of tree ``t`` into ``dst``."""
    def setup(d: Path) -> None:
        if state == "absent":
            return
        if state == "file":
            (d / "dst").write_text("in the way\n")
            return
        tree(base="dst")(d)
        if state == "stale":
            (d / "dst/top").write_text("stale\n")
            os.utime(d / "dst/top", (sd.OLD - 10, sd.OLD - 10))
            (d / "dst/sub/f1").unlink()
        if state == "extra":
            (d / "dst/extra").write_text("extra\n")
            (d / "dst/sub/deep/x").mkdir()
        if state == "same":
            for p in (d / "dst").rglob("*"):
                if p.is_file():
                    os.utime(p, (sd.OLD + 10, sd.OLD + 10))
    return setup


# -- bodies ---------------------------------------------------------------------------------
BODIES = r"""
body classes tw(p)
{
  promise_kept => { "tw_$(p)_kept" };
  promise_repaired => { "tw_$(p)_repaired" };
  repair_failed => { "tw_$(p)_failed" };
  repair_denied => { "tw_$(p)_denied" };
  repair_timeout => { "tw_$(p)_timeout" };
}
body perms tw_m(m) { mode => "$(m)"; }
body perms tw_mrx(m) { mode => "$(m)"; rxdirs => "true"; }
body perms tw_o(o) { owners => { "$(o)" }; }
body perms tw_og(o, g) { owners => { "$(o)" }; groups => { "$(g)" }; }
body perms tw_mog(m, o, g) { mode => "$(m)"; owners => { "$(o)" }; groups => { "$(g)" }; }
body perms tw_nouser { owners => { "tw_no_such_user_4711" }; }
body depth_search tw_d(d) { depth => "$(d)"; }
body depth_search tw_db(d) { depth => "$(d)"; include_basedir => "true"; }
body depth_search tw_base { include_basedir => "true"; }
body depth_search tw_ex(d) { depth => "$(d)"; exclude_dirs => { "skip", "deep" }; }
body depth_search tw_in(d) { depth => "$(d)"; include_dirs => { "sub" }; }
body depth_search tw_dead(d) { depth => "$(d)"; rmdeadlinks => "true"; }
body file_select tw_plain { file_types => { "plain" }; file_result => "file_types"; }
body file_select tw_dirs { file_types => { "dir" }; file_result => "file_types"; }
body file_select tw_name(n) { leaf_name => { "$(n)" }; file_result => "leaf_name"; }
body file_select tw_notname(n) { leaf_name => { "$(n)" }; file_result => "!leaf_name"; }
body file_select tw_all { leaf_name => { ".*" }; file_result => "leaf_name"; }
body file_select tw_none { leaf_name => { "nomatch" }; file_result => "leaf_name"; }
body file_select tw_old { mtime => irange(0, ago(1, 0, 0, 0, 0, 0)); file_result => "mtime"; }
body rename tw_disable { disable => "true"; }
body rename tw_rotate { rotate => "2"; }
body changes tw_changes { hash => "md5"; report_changes => "all"; update_hashes => "yes"; }
body action tw_warn { action_policy => "warn"; }
body delete tw_rm { dirlinks => "delete"; rmdirs => "true"; }
body delete tw_keepdirs { dirlinks => "delete"; rmdirs => "false"; }
body copy_from tw_cp(s) { source => "$(s)"; compare => "digest"; }
body copy_from tw_sync(s) { source => "$(s)"; compare => "digest"; purge => "true"; }
body copy_from tw_preserve(s) { source => "$(s)"; preserve => "true"; }
body copy_from tw_collapse(s) { source => "$(s)"; compare => "digest"; collapse_destination_dir => "true"; }
body copy_from tw_links(s) { source => "$(s)"; compare => "digest"; copylink_patterns => { "link" }; }
body copy_from tw_typecheck(s) { source => "$(s)"; compare => "digest"; type_check => "true"; }
body acl tw_acl(m, t, a) { acl_method => "$(m)"; acl_type => "$(t)"; aces => { @(a) }; }
body acl tw_acl2(m, a) { acl_method => "$(m)"; aces => { @(a) }; }
body acl tw_acld(m, a, d, da)
{ acl_method => "$(m)"; aces => { @(a) }; acl_default => "$(d)"; specify_default_aces => { @(da) }; }

bundle common tw_acls
{
  vars:
      "generic" slist => { "user:*:rw", "group:*:r", "all:r" };
      "same" slist => { "user:*:rw", "group:*:r", "all:r", "mask:r" };
      "root" slist => { "user:root:rwx" };
      "named" slist => { "user:*:rw", "group:*:r", "all:", "user:nobody:r", "group:root:rw" };
      "plus" slist => { "user:nobody:+r", "all:-r" };
      "masked" slist => { "user:*:rwx", "group:*:rx", "all:", "mask:rx", "user:nobody:rwx" };
      "badnative" slist => { "user:*:r(d)", "group:*:r", "all:" };
      "maskonly" slist => { "user:*:rw", "group:*:r", "all:", "mask:rw" };
      "nouser" slist => { "user:tw_no_such_user_4711:r", "user:*:rw", "group:*:r", "all:" };
      "deny" slist => { "user:*:rw:deny" };
      "native" slist => { "user:*:(rw)", "group:*:r", "all:r" };
      "empty" slist => { "user:*:", "group:*:", "all:" };
      "dflt" slist => { "user:*:rwx", "group:*:rx", "all:rx" };
}
"""

PERMS = {"m644": 'tw_m("644")', "m600": 'tw_m("600")', "ux": 'tw_m("u+x")',
         "rx755": 'tw_mrx("644")', "o_root": 'tw_o("root")', "og_root": 'tw_og("root", "root")',
         "mog": 'tw_mog("644", "root", "root")', "nouser": "tw_nouser"}
DEPTHS = {"d1": 'tw_d("1")', "d2": 'tw_d("2")', "inf": 'tw_d("inf")', "b1": 'tw_db("1")',
          "binf": 'tw_db("inf")', "base": "tw_base", "ex": 'tw_ex("inf")', "in": 'tw_in("inf")'}
TREES = {"right": tree(0o644), "wrong": tree(0o600, 0o700), "mixed": tree(0o644, odd=0o600),
         "links": tree(0o644, links=True)}
SELECTS = {"none": None, "plain": "tw_plain", "dirs": "tw_dirs", "name": 'tw_name("f.*")',
           "notname": 'tw_notname("f1")', "all": "tw_all", "nomatch": "tw_none", "old": "tw_old"}


def _perm_cases() -> list[Case]:
    out = []
    for pname, perms in PERMS.items():
        for dname, depth in DEPTHS.items():
            for tname, setup in TREES.items():
                if pname in ("o_root", "og_root", "nouser") and tname != "mixed":
                    continue
                out.append(Case(f"p_{pname}_{dname}_{tname}",
                                f'"@D@/t" perms => {perms}, depth_search => {depth}', setup))
    for sname, sel in SELECTS.items():
        if sel is None:
            continue
        for dname in ("d1", "inf", "binf"):
            out.append(Case(f"ps_{sname}_{dname}", f'"@D@/t" perms => tw_m("600"), '
                            f'depth_search => {DEPTHS[dname]}, file_select => {sel}',
                            TREES["mixed"]))
    for dname, depth in (("d0", 'tw_d("0")'), ("inf", DEPTHS["inf"]), ("binf", DEPTHS["binf"])):
        out.append(Case(f"p_slash_{dname}", f'"@D@/t/" perms => tw_m("600"), '
                        f'depth_search => {depth}', TREES["mixed"]))
        out.append(Case(f"p_regex_{dname}", f'"@D@/t/s.*" perms => tw_m("600"), '
                        f'depth_search => {depth}', TREES["mixed"]))
        out.append(Case(f"p_owner_{dname}", f'"@D@/t" perms => tw_og("nobody", "root"), '
                        f'depth_search => {depth}', TREES["links"]))
        out.append(Case(f"del_slash_{dname}", f'"@D@/t/" delete => tw_rm, '
                        f'depth_search => {depth}, file_select => tw_all', TREES["right"]))
    for dname in ("inf", "binf"):
        out.append(Case(f"p_warn_{dname}", f'"@D@/t" perms => tw_mog("644", "root", "root"), '
                        f'depth_search => {DEPTHS[dname]}, action => tw_warn', TREES["mixed"]))
    out.append(Case("p_create_inf", '"@D@/new/." create => "true", perms => tw_m("700"), '
                    'depth_search => tw_d("inf")', None))
    out.append(Case("p_create_binf", '"@D@/new/." create => "true", perms => tw_m("700"), '
                    'depth_search => tw_db("inf")', None))
    out.append(Case("p_unselected", '"@D@/f" perms => tw_m("644"), file_select => tw_none',
                    file_at("f", 0o600)))
    out.append(Case("p_selected", '"@D@/f" perms => tw_m("644"), file_select => tw_all',
                    file_at("f", 0o600)))
    out.append(Case("p_dead_inf", '"@D@/t" perms => tw_m("644"), depth_search => tw_dead("inf")',
                    TREES["links"]))
    out.append(Case("p_missing", '"@D@/nothing" perms => tw_m("644"), '
                    'depth_search => tw_d("inf")', None))
    out.append(Case("p_notdir", '"@D@/f" perms => tw_m("644"), depth_search => tw_d("inf")',
                    file_at("f", 0o600)))
    out.append(Case("p_notdir_base", '"@D@/f" perms => tw_m("644"), '
                    'depth_search => tw_db("inf")', file_at("f", 0o600)))
    return out


def _delete_cases() -> list[Case]:
    out = []
    for body in ("tw_rm", "tw_keepdirs"):
        for sname, sel in SELECTS.items():
            if sel is None:
                continue
            for dname in ("d1", "inf", "binf", "base"):
                for tname in ("right", "links"):
                    out.append(Case(f"del_{body[3:]}_{sname}_{dname}_{tname}",
                                    f'"@D@/t" delete => {body}, depth_search => {DEPTHS[dname]}, '
                                    f'file_select => {sel}', TREES[tname]))
        out.append(Case(f"del_{body[3:]}_file", f'"@D@/f" delete => {body}', file_at("f")))
        out.append(Case(f"del_{body[3:]}_dir", f'"@D@/t/empty" delete => {body}', TREES["right"]))
        out.append(Case(f"del_{body[3:]}_fulldir", f'"@D@/t/sub" delete => {body}',
                        TREES["right"]))
        out.append(Case(f"del_{body[3:]}_missing", f'"@D@/nothing" delete => {body}', None))
        out.append(Case(f"del_{body[3:]}_dot", f'"@D@/t/empty/." delete => {body}',
                        TREES["right"]))
    for sname in ("old", "all", "plain"):
        out.append(Case(f"del_fresh_{sname}", f'"@D@/t" delete => tw_rm, depth_search => '
                        f'tw_d("inf"), file_select => {SELECTS[sname]}', tree(fresh=True)))
    out.append(Case("del_regex", r'"@D@/t/sub/.*\.log" delete => tw_rm', TREES["right"]))
    out.append(Case("del_regex_none", r'"@D@/t/sub/.*\.txt" delete => tw_rm', TREES["right"]))
    out.append(Case("del_regex_dirs", '"@D@/t/.*" delete => tw_keepdirs, file_select => tw_dirs',
                    TREES["right"]))
    out.append(Case("del_warn_inf", '"@D@/t" delete => tw_rm, depth_search => tw_d("inf"), '
                    'file_select => tw_all, action => tw_warn', TREES["links"]))
    for rname, body in (("disable", "tw_disable"), ("rotate", "tw_rotate")):
        for dname in ("d1", "inf", "binf"):
            out.append(Case(f"ren_{rname}_{dname}", f'"@D@/t" rename => {body}, '
                            f'depth_search => {DEPTHS[dname]}, file_select => tw_name("f.*")',
                            TREES["right"]))
    for dname in ("inf", "binf"):
        out.append(Case(f"chg_{dname}", f'"@D@/t" changes => tw_changes, '
                        f'depth_search => {DEPTHS[dname]}', TREES["mixed"]))
        out.append(Case(f"touch_{dname}", f'"@D@/t" touch => "true", '
                        f'depth_search => {DEPTHS[dname]}, file_select => tw_plain',
                        TREES["right"]))
    out.append(Case("del_perms_plain_inf", '"@D@/t" delete => tw_rm, perms => tw_m("600"), '
                    'depth_search => tw_d("inf"), file_select => tw_name("f1")', TREES["right"]))
    return out


def _copy_cases() -> list[Case]:
    out = []
    for cname, body in (("cp", "tw_cp"), ("sync", "tw_sync"), ("pres", "tw_preserve")):
        for dname in ("d1", "d2", "inf", "binf", "base"):
            for state in ("absent", "stale", "same", "extra"):
                if cname == "pres" and state not in ("absent", "same"):
                    continue
                out.append(Case(f"cp_{cname}_{dname}_{state}",
                                f'"@D@/dst" copy_from => {body}("@D@/t"), '
                                f'depth_search => {DEPTHS[dname]}',
                                both(tree(0o640), dst_state(state))))
        out.append(Case(f"cp_{cname}_nodepth", f'"@D@/dst" copy_from => {body}("@D@/t")',
                        both(tree(0o640), dst_state("absent"))))
    for cname, body in (("collapse", "tw_collapse"), ("links", "tw_links"),
                        ("cp", "tw_cp")):
        out.append(Case(f"cp_{cname}_inf_linktree", f'"@D@/dst" copy_from => {body}("@D@/t"), '
                        'depth_search => tw_d("inf")', both(tree(links=True), dst_state("absent"))))
    out.append(Case("cp_typecheck_inf", '"@D@/dst" copy_from => tw_typecheck("@D@/t"), '
                    'depth_search => tw_d("inf")', both(tree(), dst_state("stale"),
                                                        lambda d: (d / "dst/sub/f1").mkdir())))
    out.append(Case("cp_obstructed_inf", '"@D@/dst" copy_from => tw_cp("@D@/t"), '
                    'depth_search => tw_d("inf")', both(tree(), dst_state("absent"),
                                                        lambda d: (d / "dst").mkdir(),
                                                        lambda d: (d / "dst/sub").write_text("f\n"))))
    out.append(Case("cp_warn_inf", '"@D@/dst" copy_from => tw_sync("@D@/t"), '
                    'depth_search => tw_d("inf"), action => tw_warn',
                    both(tree(0o640), dst_state("extra"))))
    out.append(Case("cp_cp_inf_file", '"@D@/dst" copy_from => tw_cp("@D@/t"), '
                    'depth_search => tw_d("inf")', both(tree(), dst_state("file"))))
    out.append(Case("cp_cp_inf_nosource", '"@D@/dst" copy_from => tw_cp("@D@/nothing"), '
                    'depth_search => tw_d("inf")', None))
    out.append(Case("cp_perms_inf", '"@D@/dst" copy_from => tw_cp("@D@/t"), perms => '
                    'tw_m("600"), depth_search => tw_d("inf")', both(tree(), dst_state("same"))))
    return out


ACES = ("generic", "same", "root", "named", "plus", "masked", "badnative", "maskonly", "nouser",
        "deny", "native", "empty")


def _acl_cases() -> list[Case]:
    out = []
    for aces in ACES:
        for method in ("overwrite", "append"):
            for atype in ("posix", "generic"):
                out.append(Case(f"acl_{aces}_{method}_{atype}",
                                f'"@D@/f" acl => tw_acl("{method}", "{atype}", '
                                f'@(tw_acls.{aces}))', file_at("f")))
        out.append(Case(f"acl_{aces}_default", f'"@D@/f" acl => tw_acl2("overwrite", '
                        f'@(tw_acls.{aces}))', file_at("f", 0o600)))
        out.append(Case(f"acl_{aces}_dir", f'"@D@/t" acl => tw_acl("append", "posix", '
                        f'@(tw_acls.{aces}))', TREES["right"]))
    for d in ("nochange", "access", "specify", "clear"):
        for target, setup in (("dir", TREES["right"]), ("file", file_at("t"))):
            out.append(Case(f"acld_{d}_{target}", f'"@D@/t" acl => tw_acld("overwrite", '
                            f'@(tw_acls.generic), "{d}", @(tw_acls.dflt))', setup))
    out.append(Case("acl_tree_inf", '"@D@/t" acl => tw_acl("overwrite", "posix", '
                    '@(tw_acls.named)), depth_search => tw_d("inf")', TREES["mixed"]))
    out.append(Case("acl_tree_links", '"@D@/t" acl => tw_acl("append", "posix", '
                    '@(tw_acls.named)), depth_search => tw_d("inf")', TREES["links"]))
    out.append(Case("acl_tree_select", '"@D@/t" acl => tw_acl("overwrite", "generic", '
                    '@(tw_acls.generic)), depth_search => tw_d("inf"), file_select => tw_plain',
                    TREES["mixed"]))
    out.append(Case("acl_tree_base", '"@D@/t" acl => tw_acl("append", "posix", '
                    '@(tw_acls.plus)), depth_search => tw_db("1")', TREES["right"]))
    out.append(Case("acl_warn", '"@D@/t" acl => tw_acld("overwrite", @(tw_acls.generic), '
                    '"specify", @(tw_acls.dflt)), action => tw_warn', TREES["right"]))
    out.append(Case("acl_perms", '"@D@/f" perms => tw_m("600"), acl => tw_acl("overwrite", '
                    '"posix", @(tw_acls.generic))', file_at("f")))
    # a file system without ACL support (proc): the ACL cannot be read, the promise fails
    out.append(Case("acl_nosupport", '"/proc/version" acl => tw_acl("overwrite", "posix", '
                    '@(tw_acls.generic))', None))
    out.append(Case("acl_missing", '"@D@/nothing" acl => tw_acl("overwrite", "posix", '
                    '@(tw_acls.generic))', None))
    out.append(Case("acl_create", '"@D@/new" create => "true", acl => tw_acl("overwrite", '
                    '"posix", @(tw_acls.named))', None))
    return out


def cases(family: str) -> list[Case]:
    return {"perms": _perm_cases, "delete": _delete_cases, "copy": _copy_cases,
            "acl": _acl_cases}[family]()


FAMILIES = ("perms", "delete", "copy", "acl")


def policy_text(cases_: list[Case], root: Path) -> str:
    lines = []
    for case in cases_:
        text = case.promise.replace("@D@", str(root / case.name))
        lines.append(f'      {text},\n        classes => tw("{case.name}");')
    return ('body common control\n{\n  bundlesequence => { "main", "tw_report" };\n}\n\n'
            'bundle agent main\n{\n  files:\n' + "\n".join(lines) + "\n}\n\n"
            'bundle agent tw_report\n{\n  vars:\n      "cl" slist => sort(classesmatching('
            '"tw_.*"), "lex");\n  reports:\n      "tw-class $(cl)";\n}\n' + BODIES)


def prepare(cases_: list[Case], root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for case in cases_:
        d = root / case.name
        d.mkdir()
        if case.setup is not None:
            case.setup(d)


def classes(stdout: str) -> set[str]:
    return {line[len("R: tw-class "):].strip() for line in stdout.splitlines()
            if line.startswith("R: tw-class ")}


def classes_of(found: set[str], case: str) -> list[str]:
    return sorted(c for c in found if c.startswith(f"tw_{case}_")
                  and c[len(f"tw_{case}_"):] in ("kept", "repaired", "failed", "denied",
                                                 "timeout"))


def should_lines(output: str, root: Path) -> dict[str, list[str]]:
    """case -> the sorted "Should ..." warnings of a -n run that name its files."""
    out: dict[str, list[str]] = {}
    prefix = f"{root}/"
    for line in output.splitlines():
        text = line.strip()
        if not text.startswith("warning: Should") or prefix not in text:
            continue
        case = text.split(prefix, 1)[1].split("/", 1)[0].split("'", 1)[0]
        out.setdefault(case, []).append(text.replace(prefix, "@T@/"))
    return {case: sorted(lines) for case, lines in out.items()}


_TAGS = {1: "user_obj", 2: "user", 4: "group_obj", 8: "group", 0x10: "mask", 0x20: "other"}


def acl_of(path: Path, kind: str) -> tuple[str, ...] | None:
    """The POSIX ACL of ``path`` (``access`` or ``default``) as sorted entries; None for
    none stored."""
    try:
        data = os.getxattr(path, f"system.posix_acl_{kind}", follow_symlinks=False)
    except OSError:
        return None
    out = []
    for off in range(4, len(data) - 7, 8):
        tag, perm, qid = struct.unpack_from("<HHI", data, off)
        who = str(qid) if tag in (2, 8) else ""
        out.append(f"{_TAGS.get(tag, tag)}:{who}:{perm:o}")
    return tuple(sorted(out))


def snapshot(root: Path, case: str) -> dict[str, tuple]:
    out = sd.snapshot(root, case)
    for dirpath, dirnames, filenames in os.walk(root / case):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            if path.is_symlink():
                continue
            rel = str(path.relative_to(root / case))
            acls = (acl_of(path, "access"), acl_of(path, "default"))
            if acls != (None, None) and rel in out:
                out[rel] = out[rel] + acls
    return out
