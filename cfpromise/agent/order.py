"""CFEngine's normal order: the promise types of each bundle type, in evaluation order."""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NORMAL_ORDER: dict[str, tuple[str, ...]] = {
    "agent": ("meta", "vars", "defaults", "classes", "users", "files", "packages",
              "guest_environments", "methods", "processes", "services", "commands", "storage",
              "databases", "reports"),
    "common": ("meta", "vars", "defaults", "classes", "reports"),
    "edit_line": ("meta", "vars", "defaults", "classes", "delete_lines", "field_edits",
                  "insert_lines", "replace_patterns", "reports"),
    "edit_xml": ("meta", "vars", "defaults", "classes", "build_xpath", "delete_tree",
                 "insert_tree", "delete_attribute", "set_attribute", "delete_text", "set_text",
                 "insert_text", "reports"),
    "server": ("meta", "vars", "defaults", "classes", "access", "roles", "reports"),
    "monitor": ("meta", "vars", "defaults", "classes", "measurements", "reports"),
}

# promise types whose verifier makes checks before its lock (api.BEFORE_LOCK, filled as
# their modules load): a promise of these is met again in every pass, also once done --
# always (None), or when it has the constraint named (files: what reading a perms body
# says, cf-agent's GetFilesAttributes); every edit_xml type (its XPath built and selected)
BEFORE_LOCK_TYPES: dict[str, str | None] = {
    "processes": None, "commands": None, "files": "perms", "services": "service_dependencies",
    "delete_lines": None, "insert_lines": None, "replace_patterns": None, "field_edits": None,
    "packages": None, **dict.fromkeys(NORMAL_ORDER["edit_xml"][4:-1])}

# Promise types evaluated when common bundles are read before the run (and to find inputs).
PRE_EVALUATION: tuple[str, ...] = ("meta", "vars", "defaults", "classes")
# ... of them, those evaluated while the policy loads (PolicyResolve): the meta tags wait
# for the preliminary convergence (Agent.preliminary_convergence)
LOAD_EVALUATION: tuple[str, ...] = ("vars", "defaults", "classes")
# ... in the order of one round (cf-agent's BundleResolve in each PolicyResolve: vars,
# classes, vars; cf-lite's defaults after each vars, as in a pass)
LOAD_ROUND: tuple[str, ...] = ("vars", "defaults", "classes", "vars", "defaults")
# ... what cf-agent evaluates again after each pass's classes section (BundleResolve,
# then the defaults), and before a bundle a methods promise calls runs (BundleResolve)
RESOLVE: tuple[str, ...] = ("vars", "defaults")
RESOLVE_COMMON: tuple[str, ...] = ("vars", "classes", "vars", "defaults")
CALL: tuple[str, ...] = ("vars",)
CALL_COMMON: tuple[str, ...] = ("vars", "classes", "vars")

PASSES = 3


def order_for(bundle_type: str, custom_types: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The normal order of ``bundle_type``; custom promise types run at the end of each
    pass, after reports, as cf-agent 3.21 does (``custom_types`` in the order given: the
    order of the bundle's sections; built-in names among them are ignored)."""
    base = NORMAL_ORDER.get(bundle_type, NORMAL_ORDER["agent"])
    if not custom_types:
        return base
    extra = tuple(dict.fromkeys(t for t in custom_types if t not in base))
    return base + extra


def bundle_order(bundle: Any) -> tuple[str, ...]:
    """The promise types of ``bundle`` in evaluation order: its normal order, then (in
    an agent bundle) its other sections -- custom promise types, or undefined ones --
    in the order they appear in the bundle, as cf-agent's custom sections."""
    custom = tuple(s.name for s in bundle.sections) if bundle.type == "agent" else ()
    return order_for(bundle.type, custom)
