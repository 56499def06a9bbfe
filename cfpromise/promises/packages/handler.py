"""The ``packages`` promise: which interface, then package modules (policy present/absent).

Which interface a promise uses (cf-agent's GetPackagePromiseVersion):

* any of ``policy``, ``version``, ``architecture``, ``options``: package
  modules; a ``policy`` is then required ("New package promise failed sanity
  check");
* any of ``package_policy``, ``package_version``, ``package_architectures``,
  ``package_select`` as well: "Mixed old and new package promise attributes";
* none of them, no ``package_method`` and a ``package_module`` in ``body
  common control``: package modules with ``policy => "present"`` (CFE-4408,
  CFEngine 3.23; 3.21 fails such a promise);
* else the legacy ``package_method`` interface (:mod:`.legacy`), which needs a
  ``package_method`` body (or a ``body package_method generic``).

A package-module promise (HandleNewPackagePromiseType): the module is the
``package_module`` body (or common control's default); ``get-package-data``
says whether the promiser is a repository package or a file; the installed
cache (see :mod:`.inventory`) says whether it is there (name, and version and
architecture when the policy gives them).  ``present`` installs what is
missing (``version => "latest"`` also installs the updates the updates cache
lists for it), ``absent`` removes what is there; after a change both caches
are refreshed and the result is checked against them.  ``-n`` and
``action_policy => "warn"`` only say what would change.
"""
from __future__ import annotations

from typing import Any

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.api import PromiseRun, again, handler
from cfpromise.promises.packages.inventory import INSTALLED, UPDATES, Inventory, inventories
from cfpromise.promises.packages.protocol import (
    ModuleBody, ModuleError, PackageData, PackageModule, locate)

NEW_ATTRIBUTES = ("policy", "version", "architecture", "options")
LEGACY_ATTRIBUTES = ("package_policy", "package_version", "package_architectures",
                     "package_select")


def _kinds(a: dict[str, Any]) -> tuple[bool, bool]:
    return (any(a.get(k) not in (None, [], "") for k in NEW_ATTRIBUTES),
            any(a.get(k) not in (None, [], "") for k in LEGACY_ATTRIBUTES))


@again("packages")
def sanity(run: PromiseRun) -> Outcome | None:
    """The checks cf-agent makes before the promise's lock (VerifyPackagesPromise,
    NewPackagePromiseSanityCheck): made, said and failed in every pass, so again for a
    promise failed in an earlier one; None when they pass (a legacy promise's are its own)."""
    a = run.attributes
    new, legacy = _kinds(a)
    if new and legacy:
        return _fail(run, "Mixed old and new package promise attributes inside one package "
                          "promise.")
    if new:
        if a.get("policy") not in ("present", "absent"):
            return _fail(run, "New package promise failed sanity check.",
                         "Unsupported package policy in package promise.")
        return _body_problem(run, module_body(run))
    return None


@handler("packages")
def packages(run: PromiseRun) -> Outcome:
    a = run.attributes
    failed = sanity(run)
    if failed is not None:
        return failed
    new, legacy = _kinds(a)
    if new:
        return ModulePromise(run, a["policy"]).actuate()
    if "package_method" not in a and not legacy:
        default = run.agent.common_control("package_module")
        if isinstance(default, str) and default and \
                run.agent.resolve_body("package_module", default) is not None:
            run.agent.log("verbose", f"Package promise has no policy: using the common control "
                                     f"package_module '{default}' with policy 'present'")
            return ModulePromise(run, "present").actuate()
    if "package_method" not in a and run.agent.resolve_body("package_method", "generic") is None:
        return _fail(run, "Old package promise failed sanity check.")
    return _legacy(run)


def _legacy(run: PromiseRun) -> Outcome:
    try:
        from cfpromise.promises.packages import legacy
    except ModuleNotFoundError as exc:
        if exc.name != "cfpromise.promises.packages.legacy":
            raise
        return _fail(run, "The legacy package_method interface is not supported by this "
                          "cf-lite; use package_module (policy => \"present\"/\"absent\").")
    run.agent.log("verbose", "Using old package promise.")
    result: Outcome = legacy.handle(run)
    return result


def _fail(run: PromiseRun, message: str, detail: str | None = None) -> Outcome:
    if detail:
        run.agent.log("error", detail)
    run.agent.log("error", message)         # (cfPS: the promise at verbose only)
    return Outcome.FAILED


def module_body(run: PromiseRun) -> ModuleBody | None:
    """The promise's package_module body, else body common control's; None when none."""
    agent = run.agent
    if "package_module" in run.attributes:
        name = agent.body_name(run, "package_module")
        attributes = run.attributes.get("package_module")
    else:
        name = agent.common_control("package_module")
        attributes = agent.resolve_body("package_module", name) if name else None
    if not name or not isinstance(attributes, dict):
        return None
    return ModuleBody.from_attributes(name, attributes)


def _body_problem(run: PromiseRun, body: ModuleBody | None) -> Outcome | None:
    if body is None:
        return _fail(run, "New package promise failed sanity check.",
                     "Can not find package module body in policy.")
    if body.installed_ifelapsed is None or body.updates_ifelapsed is None:
        return _fail(run, "New package promise failed sanity check.",
                     f"Invalid or missing arguments in package_module body '{body.name}':  "
                     f"query_installed_ifelapsed = {_noint(body.installed_ifelapsed)} "
                     f"query_updates_ifelapsed = {_noint(body.updates_ifelapsed)}")
    return None


def _no_module(agent: Any, problem: str) -> None:
    """NewPackageModuleWrapper's error for a module it cannot run, as cf-agent 3.21 says
    it: the path and the errno's text."""
    import os
    import re
    found = re.match(r"Cannot find package module at location '(.*)' or access to file is "
                     r"restricted \(", problem)
    if found is None:
        agent.log("error", problem)
        return
    path = found.group(1)
    errno_text = "No such file or directory" if not os.path.exists(path) else "Permission denied"
    agent.log("error", f"Cannot find package module at location '{path}' or access to file "
                       f"is restricted: {errno_text}")


class ModulePromise:
    """One package-module promise being actuated."""

    def __init__(self, run: PromiseRun, policy: str) -> None:
        self.run = run
        self.agent = run.agent
        self.policy = policy
        a = run.attributes
        self.version: str | None = a.get("version") or None
        self.arch: str | None = a.get("architecture") or None
        self.promise_options = tuple(a.get("options") or ())
        self.inventories = inventories(self.agent)
        # --simulate: operations are recorded for the report, never made (3.21's
        # RecordPkgOperationInChroot), unless the promise itself is warn-only
        self.sim = getattr(self.agent, "simulation", None)

    # -- set-up -------------------------------------------------------------------

    def module(self, body: ModuleBody) -> PackageModule:
        """The module, started once per run to agree on the API version."""
        modules: dict[Any, PackageModule] = self.agent.run_state("packages.modules")
        key = (body.name, body.interpreter, body.module_path)
        found = modules.get(key)
        if found is None:
            found = locate(body, self.agent.workdir)
            found.api_version()
            modules[key] = found
        return found

    def actuate(self) -> Outcome:
        body = module_body(self.run)
        failed = _body_problem(self.run, body)
        if failed is not None or body is None:
            return failed or Outcome.FAILED
        self.body_ = body
        self.options = self.promise_options or body.default_options
        try:
            self.mod = self.module(body)
        except ModuleError as exc:
            # HandleNewPackagePromiseType when NewPackageModuleWrapper fails: its words
            # (the path and errno), then the promise's, and the promise fails
            _no_module(self.agent, str(exc))
            self.agent.log("error", "Some error occurred while contacting package module "
                                    f"for promise '{self.run.promiser}'")
            return Outcome.FAILED
        try:
            outcome = self.present() if self.policy == "present" else self.absent()
        except ModuleError as exc:
            self.agent.log("error", f"{exc} ({self.run.where()})")
            outcome = Outcome.FAILED
        name = self.run.promiser
        if outcome is Outcome.REPAIRED:
            verb = "installed" if self.policy == "present" else "removed"
            self.agent.log("info", f"Successfully {verb} package '{name}'")
        elif outcome is Outcome.FAILED:
            verb = "installing" if self.policy == "present" else "removing"
            self.agent.log("error", f"Error {verb} package '{name}' ({self.run.where()})")
        elif outcome is Outcome.KEPT:
            self.agent.log("verbose", f"Package '{name}' already "
                                      f"{'installed' if self.policy == 'present' else 'absent'}")
        return outcome

    # -- the caches ------------------------------------------------------------------
    def installed(self) -> Inventory:
        return self.inventories.get(self.mod, self.body_, INSTALLED, repairs=self.agent.repairs)

    def updates(self) -> Inventory:
        return self.inventories.get(self.mod, self.body_, UPDATES, repairs=self.agent.repairs)

    def revalidate(self) -> Inventory:
        """After a change: both caches again (ValidateChangedPackage)."""
        installed = self.inventories.refresh(self.mod, self.options, INSTALLED,
                                             repairs=self.agent.repairs)
        self.inventories.refresh(self.mod, self.options, UPDATES, repairs=self.agent.repairs,
                                 local=True)
        return installed

    def warn(self, what: str) -> bool:
        """True when changes are not to be made (dry run, warn): says what would change."""
        policy_warn = self.run.body("action").get("action_policy") in ("warn", "nop")
        if not self.run.warn_only or (self.sim is not None and not policy_warn):
            return False
        only = ", but only warning promised" if policy_warn or not self.agent.dry_run else ""
        self.agent.log("warning", f"Should {what}{only} ({self.run.where()})")
        return True

    # -- present -----------------------------------------------------------------------
    def present(self) -> Outcome:
        data = self.mod.package_data(self.run.promiser, self.version, self.arch, self.options)
        if data.type == "file":
            if not self._file_matches(data):
                self.agent.log("error", "Package data and policy doesn't match")
                return Outcome.FAILED
        else:
            data = PackageData("repo", data.name)   # only the name counts for a repo package
        version = data.version or self.version
        arch = data.arch or self.arch
        installed = self.installed()
        wanted_version = None if version == "latest" else version
        if not installed.has(data.name, wanted_version, arch):
            return self._install(data, version, arch, installed)
        if version != "latest" or data.type == "file":
            self._record("present", self.run.promiser if data.type == "file" else data.name,
                         None if data.type == "file" else version,
                         None if data.type == "file" else arch)
            return Outcome.KEPT
        return self._upgrade(data.name, arch, installed)

    def _file_matches(self, data: PackageData) -> bool:
        if self.version == "latest":
            self.agent.log("warning", "Unsupported 'latest' version for package promise of "
                                      "type file.")
            return False
        if data.arch and self.arch and data.arch != self.arch:
            self.agent.log("warning", f"Package arch and one specified in policy doesn't match: "
                                      f"{data.arch} -> {self.arch}")
            return False
        if data.version and self.version and data.version != self.version:
            self.agent.log("warning", f"Package version and one specified in policy doesn't "
                                      f"match: {data.version} -> {self.version}")
            return False
        return True

    def _install(self, data: PackageData, version: str | None, arch: str | None,
                 before: Inventory) -> Outcome:
        if data.type == "repo" and not self.run.warn_only:
            self.updates()      # RepoInstall refreshes the updates cache first when due
        send_version = None if version == "latest" else version
        target = self.run.promiser if data.type == "file" else data.name
        what = f"install {data.type} type package: {target}"
        if self.warn(what):
            return Outcome.WARN
        if self.sim is not None:
            if data.type == "file":
                self._record("install", self.run.promiser)
            else:
                self._record("install", data.name, version, arch)
            return Outcome.REPAIRED
        if data.type == "file":
            request, entries = "file-install", [f"File={self.run.promiser}"]
        else:
            request = "repo-install"
            entries = [f"Name={data.name}"]
            entries += [f"Version={send_version}"] if send_version else []
            entries += [f"Architecture={arch}"] if arch else []
        self.mod.change(request, entries, self.options)
        after = self.revalidate()
        if not after.has(data.name, send_version, arch):
            self.agent.log("error", f"Package '{data.name}' is not installed after "
                                    f"'{request}' (package module '{self.mod.name}')")
            return Outcome.FAILED
        self._note(data.name, before, after, "install")
        return Outcome.REPAIRED

    def _upgrade(self, name: str, arch: str | None, installed: Inventory) -> Outcome:
        """version => "latest" with the package installed: install the updates listed."""
        entries: list[str] = []
        wanted: list[tuple[str, str, str]] = []
        for pname, version, parch in self.updates().of(name):
            if arch and parch != arch:
                continue
            if installed.has(pname, version, parch):
                continue
            wanted.append((pname, version, parch))
            entries += [f"Name={pname}", f"Version={version}", f"Architecture={parch}"]
        if not wanted:
            self._record("present", name, "latest", arch)
            self.agent.log("verbose", f"Package '{name}' is already in the latest version.")
            return Outcome.KEPT
        if self.warn(f"install repo type package: {name}"):
            return Outcome.WARN
        if self.sim is not None:
            for pname, version, parch in wanted:
                self._record("install", pname, version, parch)
            return Outcome.REPAIRED
        self.mod.change("repo-install", entries, self.options)
        after = self.revalidate()
        missing = [w for w in wanted if not after.has(*w)]
        if missing:
            self.agent.log("error", f"Package '{name}' is not at version {missing[0][1]} "
                                    f"({missing[0][2]}) after 'repo-install'")
            return Outcome.FAILED
        self._note(name, installed, after, "upgrade")
        return Outcome.REPAIRED

    # -- absent --------------------------------------------------------------------------
    def absent(self) -> Outcome:
        name = self.run.promiser
        if self.version == "latest":
            self.agent.log("error", "Package version 'latest' not supported for absent package "
                                    "promise")
            return Outcome.FAILED
        installed = self.installed()
        if not installed.has(name, self.version, self.arch):
            self._record("absent", name, self.version, self.arch)
            return Outcome.KEPT
        if self.warn(f"remove package '{name}'"):
            return Outcome.WARN
        if self.sim is not None:
            self._record("remove", name, self.version, self.arch)
            return Outcome.REPAIRED
        entries = [f"Name={name}"] + ([f"Version={self.version}"] if self.version else []) \
            + ([f"Architecture={self.arch}"] if self.arch else [])
        self.mod.change("remove", entries, self.options)
        after = self.revalidate()
        if after.has(name, self.version, self.arch):
            self.agent.log("error", f"Package '{name}' is still installed after 'remove' "
                                    f"(package module '{self.mod.name}')")
            return Outcome.FAILED
        self._note(name, installed, after, "remove")
        return Outcome.REPAIRED

    def _record(self, op: str, name: str, version: str | None = None,
                arch: str | None = None) -> None:
        if self.sim is not None:
            self.sim.record_package(op, name, version or "", arch or "")

    def _note(self, name: str, before: Inventory, after: Inventory, action: str) -> None:
        old = sorted(f"{v} ({a})" for _, v, a in before.of(name))
        new = sorted(f"{v} ({a})" for _, v, a in after.of(name))
        self.agent.note_change(self.run, kind="package", action=action, package=name,
                               module=self.mod.name, old_version=", ".join(old) or None,
                               new_version=", ".join(new) or None)


def _noint(value: int | None) -> str:
    return "-678" if value is None else str(value)   # CF_NOINT, as cf-agent prints it
