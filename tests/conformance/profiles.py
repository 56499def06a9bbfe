"""The acceptance suites the conformance runner plays, and how upstream runs each.

Two suites share one runner and one verdict logic (the test framework, ``dcs``, is
the same code); they differ in how upstream's ``testall`` is invoked:

- **core**: CFEngine core's ``tests/acceptance`` (``../shared/conformance/cfengine-acceptance``),
  run from its top folder with the classes ``AUTO,DEBUG``.
- **masterfiles**: masterfiles 3.21.0's ``tests/acceptance``
  (``../shared/conformance/masterfiles-3.21.0/tests/acceptance``).  Its ``testall`` calls
  core's with ``--baseclasses=AUTO,DEBUG,EXTRA,testing_masterfiles_policy_framework``
  (so ``default.cf.sub`` loads the tree's own ``../../lib/stdlib.cf`` instead of
  ``plucked.cf.sub``) and ``--include=../../modules`` (the tree's ``modules/`` is linked
  into every work directory, file by file, as ``$WORKDIR/modules``).  The tests reach
  ``../../lib``, ``../../modules`` and ``promises.cf.in`` of the tree, so the private
  copy is of the whole masterfiles tree (:attr:`Profile.copy_up` levels above the suite)
  and the tests run from ``<copy>/tests/acceptance``.

Upstream's ``make copy`` puts core's framework files (``default.cf.sub``, ``dcs.cf.sub``,
``plucked.cf.sub``, ``run_with_server.cf.sub``) beside the masterfiles tests.  When the
tree at hand does not have them, :func:`provide_framework` writes them into the private
copy from the core suite's own framework (newer core names them ``*.sub.cf``; the
include names inside are rewritten to the ``.cf.sub`` spelling masterfiles' tests use).
Between core 3.21.0 and that core copy the framework changed in formatting and Windows
paths only (``git diff 3.21.0 b14a380d0 -- tests/acceptance/dcs.*``).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import attrs

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]


def _shared() -> Path:
    """``shared/conformance`` beside the checkout, or beside one of its ancestors (a
    worktree under ``wt/`` finds the same corpus as the main checkout)."""
    for folder in REPO_ROOT.parents:
        if (folder / "shared" / "conformance").is_dir():
            return folder / "shared" / "conformance"
    return REPO_ROOT.parent / "shared" / "conformance"


SHARED = _shared()
CORE_SUITE = SHARED / "cfengine-acceptance"
MASTERFILES_SUITE = SHARED / "masterfiles-3.21.0" / "tests" / "acceptance"

# masterfiles' framework file -> the core suite's file it is made from.
FRAMEWORK_FILES = {
    "default.cf.sub": ("default.sub.cf", "default.cf.sub"),
    "dcs.cf.sub": ("dcs.sub.cf", "dcs.cf.sub"),
    "plucked.cf.sub": ("plucked.sub.cf", "plucked.cf.sub"),
    "run_with_server.cf.sub": ("run_with_server.cf.sub", "run_with_server.sub.cf"),
}
_RENAMES = {"dcs.sub.cf": "dcs.cf.sub", "plucked.sub.cf": "plucked.cf.sub",
            "default.sub.cf": "default.cf.sub"}


@attrs.frozen
class Profile:
    """One suite: where it is, how its tests are invoked, and its ratchet files."""

    name: str
    suite: Path  # the folder the tests run from (paths are relative to it)
    env: str  # environment variable that overrides ``suite``
    classes: tuple[str, ...]  # testall's base and extra classes, after test_pass_N
    expected_pass: Path
    reference_pass: Path
    reference_table: Path
    copy_up: int = 0  # copy this many folders above the suite (the tests reach up there)
    includes: tuple[str, ...] = ()  # folders (relative to the suite) linked into $WORKDIR
    framework: bool = False  # provide core's framework files when the suite lacks them
    ratchet_unsafe: bool = False  # unsafe tests may enter the ratchet (run as root only)
    # What unsafe tests change on the host: paths saved before the first unsafe test and
    # put back after the run, then shell commands that undo the rest (run as root).
    unsafe_paths: tuple[str, ...] = ()
    unsafe_cleanup: tuple[str, ...] = ()
    # Shell commands run in the private copy's root before any test (the tree's own build)
    build: tuple[str, ...] = ()

    def find_suite(self, explicit: str | None = None) -> Path:
        return Path(explicit or os.environ.get(self.env) or self.suite).resolve()


CORE = Profile(
    name="core", suite=CORE_SUITE, env="CF_LITE_CONFORMANCE_SUITE", classes=("AUTO", "DEBUG"),
    expected_pass=HERE / "expected-pass.txt", reference_pass=HERE / "reference-pass.txt",
    reference_table=HERE / "reference-3.21.txt")

MASTERFILES = Profile(
    name="masterfiles", suite=MASTERFILES_SUITE, env="CF_LITE_MASTERFILES_SUITE",
    classes=("AUTO", "DEBUG", "EXTRA", "testing_masterfiles_policy_framework"),
    expected_pass=HERE / "masterfiles-expected-pass.txt",
    reference_pass=HERE / "masterfiles-reference-pass.txt",
    reference_table=HERE / "masterfiles-reference-3.21.txt",
    copy_up=2, includes=("../../modules",), framework=True, ratchet_unsafe=True,
    # upstream's make check runs in a configured tree: promises.cf, controls/update_def.cf
    # and the Makefile (promises/ tests `make install` it) come from configure
    build=("NO_CONFIGURE=1 ./autogen.sh", "./configure"),
    # 17_packages/01_init/unsafe/timed/001-prepare-repositories.cf replaces the package
    # sources with local repositories under /test-repos and adds their signing key; the
    # package tests install test-package-{alpha,beta,charlie}; 09_services stops and
    # starts a service (it skips itself: test_skip_needs_work).
    unsafe_paths=("/etc/apt/sources.list", "/etc/apt/sources.list.d", "/etc/apt/trusted.gpg",
                  "/etc/apt/apt.conf.d", "/etc/yum.repos.d", "/etc/zypp/repos.d", "/test-repos"),
    unsafe_cleanup=(
        "command -v dpkg-query >/dev/null && dpkg-query -W -f '${Package}:${Architecture}\\n' "
        "'test-package-*' 2>/dev/null | xargs -r dpkg --purge >/dev/null 2>&1",
        "command -v rpm >/dev/null && rpm -qa 'test-package-*' | xargs -r rpm -e --allmatches "
        ">/dev/null 2>&1",
        "command -v apt-get >/dev/null && apt-get update -qq >/dev/null 2>&1",
    ))

PROFILES = {p.name: p for p in (CORE, MASTERFILES)}


class BuildError(Exception):
    """The tree's build (autogen.sh, configure) failed or its tools are missing."""


def build_tree(root: Path, profile: Profile, timeout: float = 600.0) -> None:
    """Run the profile's build commands in ``root`` (a private copy)."""
    for command in profile.build:
        proc = subprocess.run(["sh", "-c", command], cwd=root, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=timeout)
        if proc.returncode != 0:
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
            raise BuildError(f"cannot build the {profile.name} tree for its tests "
                             f"({command!r} exited {proc.returncode}; autoconf, automake and "
                             f"make are needed): " + " | ".join(tail))


def copy_root(suite: Path, profile: Profile) -> Path:
    """The folder to copy privately: the suite, or the tree ``copy_up`` levels above it."""
    root = suite
    for _ in range(profile.copy_up):
        root = root.parent
    return root


def provide_framework(suite_copy: Path, core_suite: Path = CORE_SUITE) -> list[str]:
    """Write the framework files missing from ``suite_copy`` (a private copy), made
    from ``core_suite``'s; return the names written."""
    written: list[str] = []
    old = os.umask(0o022)
    try:
        for name, candidates in FRAMEWORK_FILES.items():
            if (suite_copy / name).exists():
                continue
            source = next((core_suite / c for c in candidates if (core_suite / c).is_file()), None)
            if source is None:
                continue
            text = source.read_text()
            text = re.sub("|".join(map(re.escape, _RENAMES)), lambda m: _RENAMES[m.group(0)], text)
            (suite_copy / name).write_text(text)
            written.append(name)
    finally:
        os.umask(old)
    return written


def link_includes(suite_copy: Path, includes: tuple[str, ...], workdir: Path) -> None:
    """testall's ``--include``: each folder's tree is made in ``workdir/<basename>`` with
    a symbolic link per file (so a test may add files there)."""
    for inc in includes:
        source = (suite_copy / inc).resolve()
        if not source.is_dir():
            continue
        base = workdir / source.name
        for dirpath, _dirnames, filenames in os.walk(source):
            target = base / Path(dirpath).relative_to(source)
            target.mkdir(parents=True, exist_ok=True)
            for name in filenames:
                os.symlink(Path(dirpath) / name, target / name)


def _foreign_archs() -> set[str] | None:
    """dpkg's foreign architectures (None without dpkg)."""
    try:
        out = subprocess.run(["dpkg", "--print-foreign-architectures"], capture_output=True,
                             text=True, timeout=60, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return set(out.split())


class HostState:
    """The host paths unsafe tests change, saved in ``store`` and put back by :meth:`restore`
    (a path that did not exist is removed), followed by the profile's cleanup commands."""

    def __init__(self, profile: Profile, store: Path) -> None:
        self.profile = profile
        self.store = store
        self.saved: dict[str, bool] = {}  # path -> existed
        self.foreign_archs: set[str] | None = None   # dpkg's, before (tests add i386)

    def save(self) -> None:
        self.foreign_archs = _foreign_archs()
        for index, path in enumerate(self.profile.unsafe_paths):
            source = Path(path)
            existed = source.exists() or source.is_symlink()
            self.saved[path] = existed
            if existed:
                target = self.store / str(index)
                if source.is_dir() and not source.is_symlink():
                    shutil.copytree(source, target, symlinks=True)
                else:
                    shutil.copy2(source, target, follow_symlinks=False)

    def restore(self) -> None:
        for index, path in enumerate(self.profile.unsafe_paths):
            if path not in self.saved:
                continue
            target = Path(path)
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target, ignore_errors=True)
            elif target.exists() or target.is_symlink():
                target.unlink()
            if self.saved[path]:
                copy = self.store / str(index)
                if copy.is_dir() and not copy.is_symlink():
                    shutil.copytree(copy, target, symlinks=True)
                else:
                    shutil.copy2(copy, target, follow_symlinks=False)
        self.saved.clear()
        for command in self.profile.unsafe_cleanup:
            subprocess.run(["sh", "-c", command], check=False, stdin=subprocess.DEVNULL,
                           timeout=600)
        # after the purge: dpkg keeps an architecture while packages of it are installed
        if self.foreign_archs is not None:
            for arch in sorted((_foreign_archs() or set()) - self.foreign_archs):
                subprocess.run(["dpkg", "--remove-architecture", arch], check=False,
                               stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
            self.foreign_archs = None
