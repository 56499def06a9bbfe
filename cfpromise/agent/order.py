"""CFEngine's normal order: the promise types of each bundle type, in evaluation order."""
from __future__ import annotations

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

# Promise types evaluated when common bundles are read before the run (and to find inputs).
PRE_EVALUATION: tuple[str, ...] = ("meta", "vars", "defaults", "classes")

PASSES = 3


def order_for(bundle_type: str, custom_types: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The normal order of ``bundle_type``; custom promise types run after the built-in ones
    (before reports), in the order the policy declares them."""
    base = NORMAL_ORDER.get(bundle_type, NORMAL_ORDER["agent"])
    if not custom_types:
        return base
    return base[:-1] + tuple(t for t in custom_types if t not in base) + base[-1:]
