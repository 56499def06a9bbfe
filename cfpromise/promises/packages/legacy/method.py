"""A legacy ``packages`` promise read into one value, and cf-agent 3.21's sanity checks.

:class:`Method` gathers what the promise says (``package_policy``,
``package_version``, ``package_architectures``, ``package_select``) and what its
``package_method`` body says (commands, regexes, conventions).  An attribute
the body does not set is None; one set to ``""`` is set (cf-agent's checks
treat an empty regex as defined, which the ``dependency-checks-*`` acceptance
tests rely on).

:data:`CHECKS` is 3.21's PackageSanityCheck as a table, in its order: the
first check that fails makes the promise not kept with its message.
"""
from __future__ import annotations

from typing import Any, Callable

import attrs

from cfpromise.promises.api import PromiseRun

POLICIES = ("add", "delete", "reinstall", "update", "addupdate", "patch", "verify")
SELECTS = ("==", "!=", "<", ">", "<=", ">=")

# the package_method attributes that are plain strings, by field name
_STRINGS = (
    "add_command", "delete_command", "update_command", "verify_command", "patch_command",
    "list_command", "list_name_regex", "list_version_regex", "list_arch_regex",
    "installed_regex", "list_update_command", "default_arch_command",
    "name_regex", "version_regex", "arch_regex",
    "name_convention", "delete_convention",
    "patch_list_command", "patch_name_regex", "patch_version_regex", "patch_arch_regex",
    "patch_installed_regex", "multiline_start", "noverify_regex",
    "version_less_command", "version_equal_command",
)


@attrs.define(slots=True)
class Method:
    """Everything a legacy package promise needs, from the promise and its body."""

    promiser: str
    policy: str = "add"
    version: str | None = None
    architectures: list[str] | None = None
    select: str | None = None            # None: not given (cf-agent's COMPARATOR_NONE)
    changes: str = "individual"
    useshell: bool = True
    file_repositories: list[str] | None = None
    noverify_returncode: int | None = None
    list_update_ifelapsed: int | None = None
    add_command: str | None = None
    delete_command: str | None = None
    update_command: str | None = None
    verify_command: str | None = None
    patch_command: str | None = None
    list_command: str | None = None
    list_name_regex: str | None = None
    list_version_regex: str | None = None
    list_arch_regex: str | None = None
    installed_regex: str | None = None
    list_update_command: str | None = None
    default_arch_command: str | None = None
    name_regex: str | None = None
    version_regex: str | None = None
    arch_regex: str | None = None
    name_convention: str | None = None
    delete_convention: str | None = None
    patch_list_command: str | None = None
    patch_name_regex: str | None = None
    patch_version_regex: str | None = None
    patch_arch_regex: str | None = None
    patch_installed_regex: str | None = None
    multiline_start: str | None = None
    noverify_regex: str | None = None
    version_less_command: str | None = None
    version_equal_command: str | None = None

    @property
    def manager(self) -> str:
        """The key of the installed-package list: the list command as written."""
        return self.list_command or ""


class MethodError(Exception):
    """An attribute value cf-lite cannot use (names the attribute)."""


def _int(name: str, value: Any) -> int | None:
    if value is None or value == "":
        return None
    try:
        return int(str(value).strip())
    except ValueError:
        raise MethodError(f"attribute '{name}' must be an integer, not '{value}'") from None


def _bool(value: Any) -> bool:
    return str(value).strip().lower() in ("true", "yes", "on", "1")


def _list(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, list):
        return [str(v) for v in value if v is not None and str(v) != "cf_null"]
    return [str(value)]


def read_method(run: PromiseRun, body: dict[str, Any] | None = None) -> Method:
    """The promise's attributes and its package_method body (or ``body``, e.g. the
    policy's ``generic`` one when the promise names none) as a :class:`Method`."""
    attrs_ = run.attributes
    body = run.body("package_method") if body is None else body
    policy = attrs_.get("package_policy") or "add"
    if policy not in POLICIES:
        raise MethodError(f"attribute 'package_policy' must be one of {', '.join(POLICIES)}, "
                          f"not '{policy}'")
    select = attrs_.get("package_select") or None
    if select is not None and select not in SELECTS:
        raise MethodError(f"attribute 'package_select' must be one of {' '.join(SELECTS)}, "
                          f"not '{select}'")
    version = attrs_.get("package_version")
    changes = body.get("package_changes") or "individual"
    if changes not in ("individual", "bulk"):
        raise MethodError(f"attribute 'package_changes' must be individual or bulk, "
                          f"not '{changes}'")
    method = Method(
        promiser=run.promiser, policy=policy,
        version=None if version is None else str(version),
        architectures=_list(attrs_.get("package_architectures")) or None,
        select=select, changes=changes,
        useshell=True if body.get("package_commands_useshell") is None
        else _bool(body["package_commands_useshell"]),
        file_repositories=_list(body.get("package_file_repositories")) or None,
        noverify_returncode=_int("package_noverify_returncode",
                                 body.get("package_noverify_returncode")),
        list_update_ifelapsed=_int("package_list_update_ifelapsed",
                                   body.get("package_list_update_ifelapsed")),
    )
    for field in _STRINGS:
        value = body.get("package_" + field)
        if value is not None:
            setattr(method, field, str(value))
    return method


def executable(command: str) -> bool:
    """cf-agent's IsExecutable(CommandArg0(command))."""
    import os
    from cfpromise.promises.module_protocol import command_arg0
    arg0 = command_arg0(command)
    return os.path.isfile(arg0) and os.access(arg0, os.X_OK)


def _need(cond: Callable[[Method], bool], message: str, attribute: str
          ) -> tuple[Callable[[Method], bool], str, str]:
    """A check: ``cond`` true means the promise is wrong, with ``message`` (about
    ``attribute``)."""
    return cond, message, attribute


_ALL_THREE = "You must either supply all regexs for (name,version,arch) or a separate version " \
             "number and architecture"

# PackageSanityCheck, in cf-agent 3.21's order (on Unix).
CHECKS: tuple[tuple[Callable[[Method], bool], str, str], ...] = (
    _need(lambda m: m.list_name_regex is None,
          "You must supply a method for determining the name of existing packages e.g. use "
          "the standard library generic package_method", "package_list_name_regex"),
    _need(lambda m: m.list_version_regex is None,
          "You must supply a method for determining the version of existing packages e.g. "
          "use the standard library generic package_method", "package_list_version_regex"),
    _need(lambda m: not m.useshell and m.list_command is not None
          and not executable(m.list_command),
          "The proposed package list command was not executable", "package_list_command"),
    _need(lambda m: m.list_command is None and m.file_repositories is None,
          "You must supply a method for determining the list of existing packages (a command "
          "or repository list) e.g. use the standard library generic package_method", "package_list_command"),
    _need(lambda m: any(len(r) > 1023 for r in m.file_repositories or ()),
          "A repository path in 'package_file_repositories' is too long", "package_file_repositories"),
    _need(lambda m: m.name_regex is None and (m.version_regex is not None
                                               or m.arch_regex is not None),
          "You must supply name regex if you supplied version or arch regex for parsing "
          "promiser string", "package_name_regex"),
    _need(lambda m: m.name_regex is not None and m.version_regex is not None
          and m.arch_regex is not None
          and (m.version is not None or m.architectures is not None), _ALL_THREE, "package_version"),
    _need(lambda m: m.name_regex is not None
          and not (m.version_regex is not None and m.arch_regex is not None)
          and m.version is not None and m.architectures is not None, _ALL_THREE, "package_version"),
    _need(lambda m: m.name_regex is not None and m.version_regex is not None
          and m.version is not None,
          "You must either supply version regex or a separate version number", "package_version_regex"),
    _need(lambda m: m.name_regex is not None and m.arch_regex is not None
          and m.architectures is not None,
          "You must either supply arch regex or a separate architecture", "package_arch_regex"),
    _need(lambda m: m.installed_regex is None, "!! Package installed regex undefined", "package_installed_regex"),
    _need(lambda m: m.policy == "verify" and m.verify_command is None,
          "!! Package verify policy is used, but no package_verify_command is defined", "package_verify_command"),
    _need(lambda m: m.policy == "verify" and m.noverify_returncode is None
          and m.noverify_regex is None,
          "!! Package verify policy is used, but no definition of verification failiure is "
          "set (package_noverify_returncode or packages.package_noverify_regex)", "package_noverify_returncode"),
    _need(lambda m: m.noverify_returncode is not None and m.noverify_regex is not None,
          "!! Both package_noverify_returncode and package_noverify_regex are defined, pick "
          "one of them", "package_noverify_regex"),
    _need(lambda m: m.delete_command is None and m.delete_convention is not None,
          "!! Dependency conflict: package_delete_command is not used, but "
          "package_delete_convention is defined.", "package_delete_convention"),
    _need(lambda m: m.list_command is None and m.installed_regex is not None,
          "!! Dependency conflict: package_list_command is not used, but "
          "package_installed_regex is defined.", "package_installed_regex"),
    _need(lambda m: m.list_command is None and m.list_arch_regex is not None,
          "!! Dependency conflict: package_list_command is not used, but package_arch_regex "
          "is defined.", "package_list_arch_regex"),
    _need(lambda m: m.list_command is None and m.list_name_regex is not None,
          "!! Dependency conflict: package_list_command is not used, but package_name_regex "
          "is defined.", "package_list_name_regex"),
    _need(lambda m: m.list_command is None and m.list_version_regex is not None,
          "!! Dependency conflict: package_list_command is not used, but "
          "package_version_regex is defined.", "package_list_version_regex"),
    _need(lambda m: m.patch_command is None and m.patch_arch_regex is not None,
          "!! Dependency conflict: package_patch_command is not used, but "
          "package_patch_arch_regex is defined.", "package_patch_arch_regex"),
    _need(lambda m: m.patch_command is None and m.patch_name_regex is not None,
          "!! Dependency conflict: package_patch_command is not used, but "
          "package_patch_name_regex is defined.", "package_patch_name_regex"),
    _need(lambda m: m.patch_command is None and m.patch_version_regex is not None,
          "!! Dependency conflict: package_patch_command is not used, but "
          "package_patch_version_regex is defined.", "package_patch_version_regex"),
    _need(lambda m: m.patch_list_command is None and m.patch_installed_regex is not None,
          "!! Dependency conflict: package_patch_list_command is not used, but "
          "package_patch_installed_regex is defined.", "package_patch_installed_regex"),
    _need(lambda m: m.verify_command is None and m.noverify_regex is not None,
          "!! Dependency conflict: package_verify_command is not used, but "
          "package_noverify_regex is defined.", "package_noverify_regex"),
    _need(lambda m: m.verify_command is None and m.noverify_returncode is not None,
          "!! Dependency conflict: package_verify_command is not used, but "
          "package_noverify_returncode is defined.", "package_noverify_returncode"),
)


REGEXES = ("list_name_regex", "list_version_regex", "list_arch_regex", "installed_regex",
           "name_regex", "version_regex", "arch_regex", "patch_name_regex",
           "patch_version_regex", "patch_arch_regex", "patch_installed_regex",
           "multiline_start", "noverify_regex")


def sanity_error(method: Method) -> tuple[str, str] | None:
    """(message, attribute) of the first failed check, or None when the promise is
    sound (cf-agent's checks, then every regex must compile)."""
    for failed, message, attribute in CHECKS:
        if failed(method):
            return message, attribute
    from cfpromise.eval.functions import pcre
    for field in REGEXES:
        pattern = getattr(method, field)
        if pattern is None:
            continue
        try:
            pcre.compile_regex(pattern)
        except pcre.RegexError as exc:
            return f"Invalid regular expression: {exc}", f"package_{field}"
    return None
