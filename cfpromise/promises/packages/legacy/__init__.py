"""Legacy ``packages`` promises (``package_method`` bodies), as cf-agent 3.21 keeps them.

:func:`handle` is called by the packages handler for a promise that uses the
legacy interface.  For one promise:

1. read the promise and its body (:mod:`.method`) and run 3.21's sanity
   checks: the first that fails makes the promise not kept, with its message;
2. find the default architecture (``package_default_arch_command``, else
   ``default``) and the installed packages of the promise's list command
   (:mod:`.inventory`; shared by the promises of the section pass);
3. work out name, version and architecture(s) wanted: from the promiser with
   ``package_name_regex``/``package_version_regex``/``package_arch_regex``, or
   the promiser with ``package_version`` (else any version) for each of
   ``package_architectures`` (else any);
4. for each, is a package of that name (and arch) installed, and does one
   match the version exactly ("matches")?  ``package_policy`` then decides:
   add (when not installed), delete (matched, or installed and no version
   given), reinstall (delete then add), update (installed and older than the
   wanted -- or the newest version in ``package_file_repositories`` by
   ``package_select``; without an update command: delete then add),
   addupdate (add or update), patch, verify (as in 3.21: an installed package
   that matches is kept before anything is scheduled, a missing one "cannot be
   verified", so the verify command never runs).  The name handed to the
   manager follows ``package_name_convention`` (``package_delete_convention``
   for deletions), ``$(name)``, ``$(version)`` and ``$(arch)`` substituted;
5. the operation joins the section's batch (:mod:`.schedule`), which runs
   when the ``packages`` section ends; its result becomes the promise's
   outcome then.  With ``action_policy => "warn"`` nothing is scheduled: the
   promise is warned ("Need to repair promise ... by installing package
   ...").

Version comparisons (:mod:`.versions`) use the body's compare commands or
3.21's built-in rules.  The returned outcome covers what was decided at
once (kept, failed, warned); a promise whose operations were all scheduled
returns SKIPPED and gets its outcome when the batch runs.
"""
from __future__ import annotations

import re
from typing import Any, Callable

from cfpromise.agent.outcome import Outcome, merge
from cfpromise.promises.api import PromiseRun
from cfpromise.promises.packages.legacy import inventory
from cfpromise.promises.packages.legacy.inventory import Package, first_reference, full_match
from cfpromise.promises.packages.legacy.method import Method, MethodError, read_method, \
    sanity_error
from cfpromise.promises.packages.legacy.schedule import ACTION_WORD, Batch, ManagerList, Op, \
    run_command
from cfpromise.promises.packages.legacy.versions import Cmp, Comparator, substitute

SECTION_KEY = "packages:legacy"
IN_RANGE = (None, "==", ">=", "<=")


def handle(run: PromiseRun) -> Outcome:
    """Evaluate one legacy package promise (see the module docstring)."""
    agent = run.agent
    body = None
    if "package_method" not in run.attributes:
        resolve = getattr(agent, "resolve_body", None)
        body = (resolve("package_method", "generic") if resolve is not None else None) or {}
        agent.log("verbose", "Package promise had no package_method attribute so it's being "
                             "assigned a value of 'generic' as default.")
    try:
        method = read_method(run, body)
    except MethodError as exc:
        agent.log("error", f"{run.where()}: {exc}")
        return Outcome.FAILED
    problem = sanity_error(method)
    if problem is not None:
        message, attribute = problem
        agent.log("error", f"{message} ({run.where()}, attribute '{attribute}')")
        return Outcome.FAILED
    cache_file = inventory.cache_path(agent.state_path(inventory.CACHE_NAME).rsplit("/", 1)[0])
    hook = getattr(agent, "at_section_end", None)
    batch: Batch | None = hook(SECTION_KEY, lambda: Batch(agent, cache_file)) \
        if hook is not None else None
    immediate = batch is None
    if batch is None:                  # outside a bundle section: run at once
        batch = Batch(agent, cache_file)
    promise = _Promise(run, method, batch, cache_file)
    outcome = promise.evaluate()
    if promise.scheduled or outcome is Outcome.FAILED:
        # 3.21: a legacy promise that changed (scheduled) or failed refreshes the package
        # modules' caches, for policy that mixes both interfaces (UpdatePackagesCache)
        from cfpromise.promises.packages.inventory import update_packages_cache
        if getattr(agent, "common_control", None) is not None:
            update_packages_cache(agent)
    if immediate:
        batch()
        if promise.results:
            outcome = merge(promise.results)
    return outcome


class _Promise:
    """One promise's evaluation: its results so far and how to schedule its operations."""

    def __init__(self, run: PromiseRun, method: Method, batch: Batch, cache_file: str) -> None:
        self.run = run
        self.agent = run.agent
        self.method = method
        self.batch = batch
        self.cache_file = cache_file
        self.results: list[Outcome] = []
        self.scheduled = 0
        self._finish: Callable[[Outcome, list[dict[str, Any]]], None] | None = None
        self.cmp = Comparator(method.version_less_command, method.version_equal_command,
                              self._compare_command)
        self.packages: list[Package] = []
        self.patches: list[Package] = []

    # -- results ---------------------------------------------------------------------
    def result(self, outcome: Outcome, level: str, message: str) -> None:
        if message:
            where = f" ({self.run.where()})" if outcome.not_kept else ""
            self.agent.log(level, message + where)
        self.results.append(outcome)

    def fail(self, message: str) -> Outcome:
        self.result(Outcome.FAILED, "error", message)
        return Outcome.FAILED

    # -- the steps ---------------------------------------------------------------------
    def evaluate(self) -> Outcome:
        method = self.method
        default_arch = self._default_arch()
        if default_arch is None:
            self.fail("Unable to obtain default architecture for package manager - aborting "
                      f"(attribute 'package_default_arch_command')")
            return Outcome.FAILED
        self.agent.log("verbose", f"Default package architecture for promise "
                                  f"{self.run.promiser} is '{default_arch}'")
        listed = self._installed(default_arch)
        if listed is None:
            return Outcome.FAILED
        self.packages = list(reversed(listed.packages))     # newest first, as cf-agent
        self.patches = list(reversed(listed.patches))
        if method.policy == "patch":
            self._verify_patch()
        else:
            self._verify_package()
        if not self.results:
            return Outcome.SKIPPED if self.scheduled else Outcome.KEPT
        return merge(self.results)

    def _default_arch(self) -> str | None:
        command = self.method.default_arch_command
        if command is None:
            return "default"
        code, lines, _ = run_command(command, True)
        if code is None or not lines:
            return None
        return lines[0]

    def _installed(self, default_arch: str) -> ManagerList | None:
        method, batch, agent = self.method, self.batch, self.agent
        key = method.manager
        found = batch.lists.get(key)
        if found is not None:
            if method.patch_list_command is not None and method.policy == "patch" and \
                    not found.patches_listed and not self._list_patches(found, default_arch):
                return None
            return found
        horizon = method.list_update_ifelapsed if method.list_update_ifelapsed is not None \
            else inventory.DAY_MINUTES
        name = inventory.manager_name(method.list_command) if method.list_command else ""
        cached = inventory.read_cache(self.cache_file, name, horizon, default_arch) \
            if name and not _untrusted(agent, self.cache_file) else None
        if cached is not None:
            agent.log("verbose", f"Cache file '{self.cache_file}' exists and is sufficiently "
                                 "fresh according to (package_list_update_ifelapsed)")
            listed = ManagerList(cached)
        else:
            packages = self._list(default_arch, horizon)
            if packages is None:
                return None
            listed = ManagerList(packages)
        batch.lists[key] = listed
        if cached is None and method.list_command is not None:
            self._write_cache(default_arch)
        # cf-agent lists patches for every promise, but only package_policy "patch" reads
        # them (its patch report is an Enterprise feature): cf-lite lists them when needed
        if method.patch_list_command is not None and method.policy == "patch" and \
                not listed.patches_listed:
            if not self._list_patches(listed, default_arch):
                return None
        return listed

    def _list(self, default_arch: str, horizon: int) -> list[Package] | None:
        method, agent = self.method, self.agent
        if method.list_command is None:
            return []
        if method.list_update_command is not None:
            if method.add_command is None:
                self.fail("package_add_command missing while trying to generate list of "
                          "installed packages (attribute 'package_list_update_command')")
                return None
            stamp = agent.state_path(
                "software_update_timestamp_" + inventory.manager_name(method.add_command))
            if inventory.update_due(stamp, horizon) and not agent.dry_run:
                agent.log("verbose", "Calling package list update command: "
                                     f"'{method.list_update_command}'")
                code, lines, error = run_command(method.list_update_command, method.useshell)
                if code != 0:
                    agent.log("error", f"Package list update command "
                                       f"'{method.list_update_command}' failed: "
                                       f"{error or 'returned ' + str(code)}")
                inventory.touch(stamp)
        agent.log("verbose", f"Reading package list from '{method.list_command}'")
        code, lines, error = run_command(method.list_command, method.useshell)
        if code != 0:
            why = error or f"returned {code}"
            last = f": {lines[-1]}" if lines else ""
            self.fail(f"Unable to obtain a list of installed packages - aborting: "
                      f"'{method.list_command}' {why}{last} (attribute 'package_list_command')")
            return None
        return inventory.parse_listing(method, lines, default_arch,
                                       lambda text: agent.log("verbose", text))

    def _list_patches(self, listed: ManagerList, default_arch: str) -> bool:
        method = self.method
        command = method.patch_list_command or ""
        if not method.useshell:
            from cfpromise.promises.packages.legacy.method import executable
            if not executable(command):
                self.fail(f"The proposed patch list command '{command}' was not executable "
                          "(attribute 'package_patch_list_command')")
                return False
        code, lines, error = run_command(command, method.useshell)
        if code is None:
            self.fail(f"Couldn't open the patch list with command '{command}': {error}")
            return False
        listed.patches, listed.patches_available = inventory.parse_patches(method, lines,
                                                                           default_arch)
        listed.patches_listed = True
        return True

    def _write_cache(self, default_arch: str) -> None:
        lists: dict[str, list[Package]] = {}
        for command, listed in self.batch.lists.items():
            if command:
                lists.setdefault(inventory.manager_name(command), []).extend(listed.packages)
        try:
            inventory.write_cache(self.cache_file, lists)
        except OSError as exc:
            self.agent.log("error", f"Cannot write the software cache '{self.cache_file}': "
                                    f"{exc.strerror or exc}")

    # -- what is wanted ------------------------------------------------------------------
    def _wanted(self) -> tuple[list[tuple[str, str, str]], bool]:
        """(name, version, arch) triples to check, and whether no version was given."""
        m, promiser = self.method, self.run.promiser
        if m.version is not None:
            return [(promiser, m.version, a) for a in m.architectures or ["*"]], False
        if m.version_regex is not None:
            version = first_reference(m.version_regex, promiser)
            name = first_reference(m.name_regex, promiser)
            arch = first_reference(m.arch_regex, promiser) if m.arch_regex is not None else ""
            if not arch or arch == inventory.NOMATCH:
                arch = "*"
            return [(name, version, arch)], False
        return [(promiser, "*", a) for a in m.architectures or ["*"]], True

    def _verify_package(self) -> None:
        triples, no_version = self._wanted()
        for name, version, arch in triples:
            self._check_state(name, version, arch, no_version)

    def _verify_patch(self) -> None:
        installed = matches = 0
        triples, no_version = self._wanted()
        name = version = arch = ""
        for name, version, arch in triples:
            got_installed = self._patch_match(name, "*", "*")
            got_match = self._patch_match(name, version, arch)
            if Cmp.ERROR in (got_installed, got_match):
                self.fail("Failure trying to compare package versions")
                return
            installed += got_installed is Cmp.MATCH
            matches += got_match is Cmp.MATCH
        self._schedule_op(name, version, arch, installed > 0, matches > 0, no_version)

    # -- matching ------------------------------------------------------------------------
    def _compare(self, installed_version: str, select: str | None, wanted: str) -> Cmp:
        result = self.cmp.compare(installed_version, select, wanted)
        self.agent.log("verbose", f"CompareVersions: Checked whether package version "
                                  f"{installed_version} {select or '=='} {wanted}: {result.value}")
        return result

    def _compare_command(self, line: str) -> int | None:
        code, _, error = run_command(line, self.method.useshell)
        if code is None:
            self.fail(f"Can not start package version comparison command '{line}': {error}")
        return code

    def _compare_package(self, n: str, v: str, arch: str, item: Package) -> Cmp:
        if n.replace(",", "_") != item.name.replace(",", "_"):
            return Cmp.NO_MATCH
        if arch != "*" and arch != item.arch:
            return Cmp.NO_MATCH
        if v == "*":
            return Cmp.MATCH
        return self._compare(item.version, "==", v)

    def _package_match(self, n: str, v: str, arch: str) -> Cmp:
        for item in self.packages:
            result = self._compare_package(n, v, arch, item)
            if result is not Cmp.NO_MATCH:
                return result
        return Cmp.NO_MATCH

    def _patch_match(self, n: str, v: str, arch: str) -> Cmp:
        for item in self.patches:
            if full_match(n, item.name):
                return Cmp.MATCH
            result = self._compare_package(n, v, arch, item)
            if result is not Cmp.NO_MATCH:
                return result
        return Cmp.NO_MATCH

    def _check_state(self, name: str, version: str, arch: str, no_version: bool) -> None:
        installed = self._package_match(name, "*", arch)
        if installed is Cmp.ERROR:
            self.fail("Failure trying to compare installed package versions")
            return
        matches = self._package_match(name, version, arch)
        if matches is Cmp.ERROR:
            self.fail("Failure trying to compare available package versions")
            return
        is_installed, is_matched = installed is Cmp.MATCH, matches is Cmp.MATCH
        policy = self.method.policy
        if policy in ("delete", "reinstall"):
            if not (is_matched and is_installed):
                message = (f"Package {self.run.promiser} to be deleted does not exist anywhere"
                           if policy == "delete" else
                           f"Package '{self.run.promiser}' already installed and matches "
                           "criteria")
                self.result(Outcome.KEPT, "verbose", message)
                return
        elif is_matched and is_installed:
            self.result(Outcome.KEPT, "verbose", f"Package '{self.run.promiser}' already "
                                                 "installed and matches criteria")
            return
        self._schedule_op(name, version, arch, is_installed, is_matched, no_version)

    # -- scheduling ------------------------------------------------------------------------
    def _convention(self, template: str, name: str, version: str, arch: str) -> str:
        return substitute(template, {"name": name, "version": version, "arch": arch})

    def _schedule_op(self, name: str, version: str, arch: str, installed: bool,
                     matched: bool, no_version: bool) -> None:
        m = self.method
        ident = name
        if m.delete_convention is not None and m.policy == "delete":
            ident = self._convention(m.delete_convention, name, version, arch)
        elif m.name_convention is not None:
            ident = self._convention(m.name_convention, name, version, arch)
        self.agent.log("verbose", f"Package promises to refer to itself as '{ident}' to the "
                                  "manager")
        in_range = m.select in IN_RANGE
        policy = m.policy
        if policy == "addupdate":
            policy = "update" if installed else "add"
        old = self._installed_version(name, arch)
        if policy == "add":
            if installed:
                self.result(Outcome.KEPT, "verbose", f"Package '{self.run.promiser}' already "
                                                     "installed, so we never add it again")
                return
            if m.file_repositories:
                found = self._largest_in_repositories(name, version, arch)
                if found is None:
                    self.fail("No package in the file repositories (attribute "
                              "'package_file_repositories') satisfies the version constraint")
                    return
                ident = found[0]
            if m.add_command is None:
                self.fail("Package add command undefined (attribute 'package_add_command')")
                return
            self._add_to_schedule("add", m.add_command, ident, None, version)
        elif policy == "delete":
            if not ((matched and in_range) or (installed and no_version)):
                self.result(Outcome.KEPT, "verbose", "Package deletion is as promised -- "
                                                     "no match")
                return
            if m.delete_command is None:
                self.fail("Package delete command undefined (attribute "
                          "'package_delete_command')")
                return
            if m.file_repositories and ident.startswith("$(firstrepo)"):
                from cfpromise.promises.packages.legacy.schedule import repository_path
                path = repository_path(m.file_repositories, ident[12:])
                if path is None:
                    self.agent.log("error", f"Package '{ident[12:]}' can't be found in any of "
                                            "the listed repositories")
                else:
                    ident = path
            self._add_to_schedule("delete", m.delete_command, ident, old, None)
        elif policy == "reinstall":
            if m.delete_command is None:
                self.fail("Package delete command undefined (attribute "
                          "'package_delete_command')")
                return
            if no_version:
                self.fail("Package reinstallation cannot be promised -- insufficient version "
                          "info or no match")
                return
            if m.add_command is None:
                self.fail("Package add command undefined (attribute 'package_add_command')")
                return
            if matched and in_range:
                self._add_to_schedule("delete", m.delete_command, ident, old, None)
            self._add_to_schedule("add", m.add_command, ident, None, version)
        elif policy == "update":
            self._update(name, version, arch, ident, installed, matched, no_version, in_range)
        elif policy == "patch":
            if matched and not installed:
                if m.patch_command is None:
                    self.fail("Package patch command undefined (attribute "
                              "'package_patch_command')")
                    return
                self._add_to_schedule("patch", m.patch_command, ident, old, version)
            else:
                self.result(Outcome.KEPT, "verbose", f"Package patch state of "
                                                     f"'{self.run.promiser}' is as promised -- "
                                                     "already installed")
        elif policy == "verify":
            if (matched and in_range) or (installed and no_version):
                self._add_to_schedule("verify", m.verify_command or "", ident, old, old)
            else:
                self.result(Outcome.FAILED, "info", f"Package '{self.run.promiser}' cannot be "
                                                    "verified -- no match")

    def _update(self, name: str, version: str, arch: str, ident: str, installed: bool,
                matched: bool, no_version: bool, in_range: bool) -> None:
        m = self.method
        largest = version
        if m.file_repositories:
            found = self._largest_in_repositories(name, version, arch)
            if found is None:
                self.fail("No package in the file repositories (attribute "
                          "'package_file_repositories') satisfies the version constraint")
                return
            ident, largest = found
        inst_version = inst_arch = ""
        if installed:
            newer = self._newer_than_installed(name, largest, arch)
            if newer is None:
                self.result(Outcome.KEPT, "verbose", f"Installed packaged '{self.run.promiser}'"
                                                     " is up to date, not updating")
                return
            inst_version, inst_arch = newer
        if not (installed or (matched and in_range and not no_version)):
            self.fail(f"Package '{self.run.promiser}' cannot be updated -- no match or not "
                      "installed")
            return
        if m.update_command is not None:
            self._add_to_schedule("update", m.update_command, ident, inst_version or None,
                                  largest)
            return
        self.agent.log("verbose", "Package update command undefined - failing over to delete "
                                  "then add")
        ident_del = ident
        if m.delete_convention is not None:
            ident_del = self._convention(m.delete_convention, name, inst_version or "*",
                                         inst_arch or "*")
        if m.add_command is None:
            self.fail("Package add command undefined (attribute 'package_add_command')")
            return
        if m.delete_command is None:
            self.fail("Package delete command undefined (attribute 'package_delete_command')")
            return
        self._add_to_schedule("delete", m.delete_command, ident_del, inst_version or None, None)
        self._add_to_schedule("add", m.add_command, ident, None, largest)

    def _installed_version(self, name: str, arch: str) -> str | None:
        for item in self.packages:
            if item.name == name and (arch == "*" or arch == item.arch):
                return item.version
        return None

    def _newer_than_installed(self, name: str, version: str, arch: str
                              ) -> tuple[str, str] | None:
        """(installed version, arch) when ``version`` is newer than the installed one."""
        for item in self.packages:
            if item.name == name and (arch == "*" or arch == item.arch):
                if self._compare(item.version, "<", version) is Cmp.MATCH:
                    return item.version, item.arch
                return None
        return None

    def _largest_in_repositories(self, name: str, version: str, arch: str
                                 ) -> tuple[str, str] | None:
        """(file name, version) of the newest package in the file repositories that fits
        ``version`` by ``package_select`` (cf-agent's FindLargestVersionAvail)."""
        import os
        template = self._convention(self.method.name_convention or "", name, "\0", arch)
        pattern = "(.*)".join(re.escape(part) for part in template.split("\0"))
        best_version = "" if version in ("", "*") else version
        best: tuple[str, str] | None = None
        for repo in self.method.file_repositories or ():
            try:
                entries = sorted(os.listdir(repo))
            except OSError as exc:
                self.agent.log("error", f"Can't open local directory '{repo}': "
                                        f"{exc.strerror or exc}")
                continue
            for entry in entries:
                if not full_match(pattern, entry):
                    continue
                found = first_reference(pattern, entry)
                if self._compare(found, self.method.select, best_version) is Cmp.MATCH:
                    best_version, best = found, (entry, found)
        return best

    def _add_to_schedule(self, action: str, command: str, ident: str, old: str | None,
                         new: str | None) -> None:
        run = self.run
        change = {"kind": "package", "action": action, "package": ident,
                  "old_version": old, "new_version": None if new in (None, "*") else new,
                  "method": "package_method"}
        if run.warn_only and not self.agent.dry_run:
            self.result(Outcome.WARN, "warning", f"Need to repair promise '{run.promiser}' by "
                                                 f"'{ACTION_WORD[action]}' package '{ident}'")
            self.agent.note_change(run, **change, outcome=Outcome.WARN.value)
            return
        self.batch.schedule(action, command, Op(ident, self.method, run, self.finisher(),
                                                change))
        self.scheduled += 1

    def finisher(self) -> Callable[[Outcome, list[dict[str, Any]]], None]:
        if self._finish is None:
            defer = getattr(self.agent, "defer", None)
            self._finish = defer(self.run) if defer is not None else None
            if self._finish is None:
                self._finish = self._record_now
        return self._finish

    def _record_now(self, outcome: Outcome, changes: list[dict[str, Any]]) -> None:
        """Without the engine's deferred results the batch runs before handle() returns:
        the outcome joins the promise's own."""
        for change in changes:
            self.agent.note_change(self.run, **change)
        self.results.append(outcome)


def _untrusted(agent: Any, path: str) -> bool:
    """The software cache is read back only when cfpromise.agent.trust trusts it; else
    one warning per run, and the package list is taken afresh (and the cache rewritten)."""
    from cfpromise.agent.trust import ignored, warned_set
    warned = warned_set(agent.run_cache) if hasattr(agent, "run_cache") else None
    return ignored(path, agent.workdir, agent.log, "Software cache", warned)
