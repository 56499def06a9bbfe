"""Generated cases for ``changes`` (file change monitoring, cf-agent's files_changes.c)
over a sequence of runs, for the differential test against cf-agent 3.21.

What a changes promise says depends on what its database already holds, so each case
is played over a history: a dry run on an empty database, a real run, changes to the
files (content, mode, mtime, files added and removed, a directory emptied), dry runs and
real runs in between.  Each case watches its own scratch tree ``@D@``; the shapes vary the
``changes`` body (``hash`` md5/sha256/best, ``report_changes`` all/content/stats,
``update_hashes`` yes/no), what is watched (a tree searched to any depth, to depth 2 with
its base directory, one file) and ``action_policy`` (fix or warn).  Under ``-n`` and warn,
cf-agent says what it would record ("Should record change of hash...", "Should write stat
information...", "Should record directory listing..."), each a warning result.

Mutations keep inodes (files are rewritten in place) and set every mtime to a fixed time
afterwards, so both agents' trees give the same messages.
"""
from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

HASHES = ("md5", "sha256", "best")
REPORTS = ("all", "content", "stats")
TARGETS = {
    "inf": ('"@D@/t"', 'depth_search => ch_d("inf")'),
    "base2": ('"@D@/t"', "depth_search => ch_db"),
    "file": ('"@D@/t/f1"', ""),
}
# (run, args): "m1"/"m2" change the trees between runs
STEPS = (("n0", ["-n"]), ("r1", []), ("m1", None), ("n2", ["-n"]), ("r3", []), ("r4", []),
         ("m2", None), ("n5", ["-n"]), ("r6", []), ("n7", ["-n"]))


@dataclass(frozen=True)
class Case:
    name: str
    promise: str


def cases() -> list[Case]:
    out = []
    n = 0
    for report in REPORTS:
        for update in ("yes", "no"):
            for target, (promiser, extra) in TARGETS.items():
                for action in ("fix", "warn"):
                    if action == "warn" and update == "no":
                        continue
                    hash_ = HASHES[n % len(HASHES)]
                    n += 1
                    name = f"ch_{report}_{update}_{target}_{action}_{hash_}"
                    attrs = [f'changes => ch_c("{hash_}", "{report}", "{update}")',
                             f'classes => ch_cl("{name}")']
                    if extra:
                        attrs.append(extra)
                    if action == "warn":
                        attrs.append("action => ch_warn")
                    out.append(Case(name, f"{promiser} {', '.join(attrs)}"))
    return out


BODIES = """
body changes ch_c(h, r, u) { hash => "$(h)"; report_changes => "$(r)"; update_hashes => "$(u)"; }
body depth_search ch_d(d) { depth => "$(d)"; }
body depth_search ch_db { depth => "2"; include_basedir => "true"; }
body action ch_warn { action_policy => "warn"; }
body classes ch_cl(x) {
  promise_kept => { "$(x)_kept" }; promise_repaired => { "$(x)_repaired" };
  repair_failed => { "$(x)_failed" }; repair_denied => { "$(x)_denied" };
  repair_timeout => { "$(x)_timeout" };
}
"""


def policy_text(items: list[Case], root: Path) -> str:
    promises = "\n".join(f"  {c.promise.replace('@D@', str(root / c.name))};" for c in items)
    return (f'body common control {{ bundlesequence => {{ "main" }}; }}\n'
            f"bundle agent main {{\nfiles:\n{promises}\n"
            f'vars:\n  "cls" slist => classesmatching("ch_.*_(kept|repaired|failed|denied|timeout)");\n'
            f'reports:\n  "class $(cls)";\n}}\n{BODIES}')


FILES = {"t/f1": "one\n", "t/f2": "two\n", "t/sub/g": "gee\n", "t/sub/deep/h": "aitch\n",
         "t/b/x": "ex\n", "t/b/y": "why\n"}


def _settle(d: Path, when: int) -> None:
    """Every mtime of the case's tree set to ``when``."""
    for dirpath, dirnames, filenames in os.walk(d, topdown=False):
        for name in filenames + dirnames:
            os.utime(os.path.join(dirpath, name), (when, when), follow_symlinks=False)
        os.utime(dirpath, (when, when))


def prepare(items: list[Case], root: Path) -> None:
    if root.exists():
        shutil.rmtree(root)
    for c in items:
        for rel, text in FILES.items():
            path = root / c.name / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            path.chmod(0o644)
        _settle(root / c.name, 1577836800)          # 2020-01-01


def mutate(items: list[Case], root: Path, step: str) -> None:
    """m1: f1's content changes, f2's mode, sub/g goes, f3 comes, sub/deep is emptied;
    m2: b/ is emptied (its listing then a prefix of the stored one: cf-agent's "no
    change"), sub/ goes (a directory gone), f2's content and mode change again."""
    for c in items:
        t = root / c.name / "t"
        if step == "m1":
            with open(t / "f1", "r+") as fh:            # in place: the inode stays
                fh.truncate(0)
                fh.write("changed\n")
            (t / "f2").chmod(0o600)
            (t / "sub/g").unlink()
            (t / "sub/deep/h").unlink()
            (t / "f3").write_text("three\n")
            _settle(t.parent, 1609459200)               # 2021-01-01
        else:
            (t / "b/y").unlink()
            shutil.rmtree(t / "sub")
            with open(t / "f2", "a") as fh:
                fh.write("more\n")
            (t / "f2").chmod(0o640)
            _settle(t.parent, 1640995200)               # 2022-01-01


_CLASS = re.compile(r"(?:R: class |Need to repair reports promise: class )(\S+)")


def split(output: str, root: Path, items: list[Case]) -> dict[str, tuple[list[str], list[str]]]:
    """case -> (its messages in order, paths as @T@/..., its outcome classes sorted)."""
    names = {c.name for c in items}
    out: dict[str, tuple[list[str], list[str]]] = {c.name: ([], []) for c in items}
    prefix = f"{root}/"
    for line in output.splitlines():
        text = line.strip()
        found = _CLASS.search(text)
        if found:
            cls = found.group(1)
            case = re.sub(r"_(kept|repaired|failed|denied|timeout)$", "", cls)
            if case in names:
                out[case][1].append(cls)
            continue
        if prefix not in text:
            continue
        case = text.split(prefix, 1)[1].split("/", 1)[0].split("'", 1)[0]
        if case in names:
            out[case][0].append(text.replace(prefix + case, "@T@"))
    for msgs, classes in out.values():
        classes.sort()
    return out
