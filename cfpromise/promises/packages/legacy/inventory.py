"""What a legacy package manager says is installed, read as cf-agent 3.21 reads it.

One list per ``package_list_command`` (the "manager") and section pass:

1. ``package_list_update_command`` runs first when
   WORKDIR/state/software_update_timestamp_<manager> is older than
   ``package_list_update_ifelapsed`` minutes (default a day); the file is
   touched afterwards.
2. The software cache WORKDIR/state/software_packages.csv
   (``name,version,arch,manager``, manager being the list command's program
   name) answers instead of the list command while it is younger than
   ``package_list_update_ifelapsed``; a package operation marks it stale.
3. Otherwise each line of the list command's output that fully matches
   ``package_installed_regex`` gives a package: name, version and arch are
   the first capture group of ``package_list_name_regex``,
   ``package_list_version_regex`` and ``package_list_arch_regex`` (its first
   word; a regex without a group matches nothing, as in 3.21), the arch
   being the default architecture without an arch regex.  With
   ``package_multiline_start`` a package spans the lines from one matching
   line to the next, each regex read from whichever line matches it.
4. ``package_patch_list_command`` lists patches: lines matching
   ``package_patch_installed_regex`` are installed patches, others available.
"""
from __future__ import annotations

import csv
import functools
import os
import re
import time
from typing import Callable

from cfpromise.promises.packages.legacy.method import Method
from cfpromise.fast.records import record


@record
class Package:
    name: str
    version: str
    arch: str


NOMATCH = "CF_NOMATCH"
CACHE_NAME = "software_packages.csv"
DAY_MINUTES = 24 * 60


class ListError(Exception):
    """The list of installed packages could not be obtained (the message says why)."""


@functools.lru_cache(maxsize=256)
def compile_regex(pattern: str) -> re.Pattern[bytes] | None:
    """A PCRE regex as cf-agent compiles it (multiline, dotall); None when invalid."""
    from cfpromise.eval.functions import pcre
    try:
        return pcre.compile_regex(pattern)
    except pcre.RegexError:
        return None


def full_match(pattern: str, text: str) -> bool:
    """cf-agent's FullTextMatch: the first match found must span the whole text."""
    rx = compile_regex(pattern)
    if rx is None:
        return False
    data = text.encode("utf-8", "surrogateescape")
    m = rx.search(data)
    return m is not None and m.start() == 0 and m.end() == len(data)


def first_reference(pattern: str | None, text: str) -> str:
    """cf-agent's ExtractFirstReference: the first capture group of the first match;
    CF_NOMATCH when nothing matched, the group is empty or the regex has no group
    (3.21 with PCRE2 gives CF_NOMATCH for a regex without a group too)."""
    if pattern is None:
        return ""
    rx = compile_regex(pattern)
    if rx is None:
        return ""
    m = rx.search(text.encode("utf-8", "surrogateescape"))
    if m is None or not rx.groups:
        return NOMATCH
    value = m.group(1)
    return value.decode("utf-8", "surrogateescape") if value else NOMATCH


def _word(value: str) -> str:
    """sscanf("%s"): the first whitespace-separated word ("" for none)."""
    parts = value.split()
    return parts[0] if parts else ""


def manager_name(command: str) -> str:
    """The program name a manager is known by in the software cache (the method column
    packagesmatching() reads): the command's program, past an ``env`` and its
    ``VAR=value`` words (cf-agent's RealPackageManager), e.g. ``dpkg`` for
    ``/usr/bin/env LC_ALL=C /usr/bin/dpkg -l``."""
    from cfpromise.promises.module_protocol import command_arg0
    words = command.split()
    if words and (words[0] == "env" or words[0].endswith("/env")):
        rest = [w for w in words[1:] if "=" not in w]
        if rest:
            return os.path.basename(rest[0].rstrip("/")) or command
    return os.path.basename(command_arg0(command.strip()).rstrip("/")) or command


def parse_line(method: Method, line: str, default_arch: str) -> Package | None:
    name = _word(first_reference(method.list_name_regex, line))
    version = _word(first_reference(method.list_version_regex, line))
    if method.list_arch_regex is not None:
        arch = _word(first_reference(method.list_arch_regex, line))
    else:
        arch = default_arch
    if NOMATCH in (name, version, arch) or not (name and version and arch):
        return None
    return Package(name, version, arch)


def parse_listing(method: Method, lines: list[str], default_arch: str,
                  verbose: Callable[[str], None]) -> list[Package]:
    """The packages in a list command's output (see the module docstring)."""
    found: list[Package] = []
    if method.multiline_start is not None:
        current: list[str] | None = None

        def flush() -> None:
            if current is None:
                return
            name, version, arch = current
            if NOMATCH not in (name, version) and (name or version) and name and version \
                    and arch:
                found.append(Package(name, version, arch))

        for line in lines:
            if full_match(method.multiline_start, line):
                flush()
                current = [NOMATCH, NOMATCH, default_arch]
            if current is None:
                continue
            if full_match(method.list_name_regex or "", line):
                current[0] = _word(first_reference(method.list_name_regex, line))
            if full_match(method.list_version_regex or "", line):
                current[1] = _word(first_reference(method.list_version_regex, line))
            if method.list_arch_regex is not None and full_match(method.list_arch_regex, line):
                current[2] = _word(first_reference(method.list_arch_regex, line))
        flush()
        return found
    for line in lines:
        if not full_match(method.installed_regex or "", line):
            verbose(f"Package line '{line}' did not match the package_installed_regex pattern")
            continue
        package = parse_line(method, line, default_arch)
        if package is None:
            verbose(f"Package line '{line}' did not match one of the "
                    "package_list_(name|version|arch)_regex patterns")
            continue
        verbose(f"Package ({package.name},{package.version},{package.arch}) "
                "[name,version,arch] found")
        found.append(package)
    return found


def parse_patches(method: Method, lines: list[str], default_arch: str
                  ) -> tuple[list[Package], list[Package]]:
    """(installed patches, available patches) from the patch list command's output."""
    installed: list[Package] = []
    available: list[Package] = []
    for line in lines:
        name = _word(first_reference(method.patch_name_regex, line))
        version = _word(first_reference(method.patch_version_regex, line))
        arch = _word(first_reference(method.patch_arch_regex, line)) \
            if method.patch_arch_regex is not None else default_arch
        if NOMATCH in (name, version, arch) or not (name and version and arch):
            continue
        patch = Package(name, version, arch)
        is_installed = method.patch_installed_regex is not None and \
            full_match(method.patch_installed_regex, line)
        if patch in installed:
            continue                # "appears to be installed already"
        (installed if is_installed else available).append(patch)
    return installed, available


# -- the software cache -------------------------------------------------------------

def cache_path(state_dir: str) -> str:
    return os.path.join(state_dir, CACHE_NAME)


def read_cache(path: str, manager: str, horizon_minutes: int, default_arch: str,
               now: float | None = None) -> list[Package] | None:
    """The cached packages of ``manager`` while the cache is fresh, else None."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    now = time.time() if now is None else now
    if now - st.st_mtime >= horizon_minutes * 60:
        return None
    found: list[Package] = []
    try:
        with open(path, newline="", encoding="utf-8", errors="replace") as fh:
            for row in csv.reader(fh):
                if len(row) != 4:
                    continue
                name, version, arch, mgr = row
                if arch == "default":
                    arch = default_arch
                if mgr == manager:
                    found.append(Package(name, version, arch))
    except OSError:
        return None
    return found or None


def write_cache(path: str, lists: dict[str, list[Package]]) -> None:
    """Write every manager's list (manager name -> packages), atomically, mode 0600."""
    import io
    from cfpromise.atomic import write_atomically
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")   # CsvWriter: RFC 4180 records
    for manager, packages in lists.items():
        for p in packages:
            writer.writerow([p.name, p.version, p.arch, manager])
    write_atomically(path, buffer.getvalue(), newline="")


def invalidate_cache(path: str) -> None:
    """A package operation ran: the cache no longer tells the truth."""
    try:
        os.utime(path, (0, 0))
    except OSError:
        pass


def update_due(stamp: str, horizon_minutes: int, now: float | None = None) -> bool:
    try:
        st = os.stat(stamp)
    except OSError:
        return True
    now = time.time() if now is None else now
    return now - st.st_mtime >= horizon_minutes * 60


def touch(path: str) -> None:
    try:
        os.utime(path, None)
    except FileNotFoundError:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
