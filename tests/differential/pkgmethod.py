"""Generated cases: legacy ``packages`` promises (a ``package_method`` body, cf-agent's old
implementation) whose commands are harmless (``/bin/true``, ``/bin/false``, a path that
does not exist), under ``-n`` and not (issue #26): what cf-agent 3.21 says at the default
level (under ``-n``: nothing but its errors) and the outcome classes each promise gets
(under ``-n``: none for an operation it would have run).  The installed list is one
package, ``bash``, listed by ``/bin/echo``.  cf-lite's errors end with the promise and its
attribute (``(packages promise 'x' in bundle 'main' (FILE:LINE), attribute '...')``, and
the command's result after a ``:``): what :func:`bare` leaves out before comparing.
"""
from __future__ import annotations

import re

_WHERE = re.compile(r"(: returned \d+)? \(packages promise '[^']*' in bundle '[^']*' "
                    r"\([^)]*\)(, attribute '[^']*')?\)$")


def bare(line: str) -> str:
    """An error line of cf-lite's without the promise it names (cf-agent's words only)."""
    return _WHERE.sub("", line)

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []

_POLICY = """
bundle agent main
{{
packages:
  "cflitepkg_a" package_policy => "add", package_method => m, classes => r("add_new");
  "bash" package_policy => "add", package_method => m, classes => r("add_installed");
  "cflitepkg_b" package_policy => "delete", package_method => m, classes => r("del_missing");
  "bash" package_policy => "delete", package_method => m, classes => r("del_installed");
  "cflitepkg_c" package_policy => "update", package_method => m, classes => r("upd_missing");
  "bash" package_policy => "update", package_method => m, classes => r("upd_installed");
  "bash" package_policy => "verify", package_method => m, classes => r("verify_installed");
reports:
  "class $(with)" with => join(" ", classesmatching("(add|del|upd|verify)_.*"));
}}
body package_method m
{{
  package_changes => "{changes}";
  package_list_command => "/bin/echo bash-5.1-1";
  package_list_name_regex => "^(\\S+)-\\S+-\\S+$";
  package_list_version_regex => "^\\S+-(\\S+-\\S+)$";
  package_installed_regex => ".*";
  package_add_command => "{cmd}";
  package_delete_command => "{cmd}";
  package_update_command => "{cmd}";
  package_verify_command => "{cmd}";
  package_name_convention => "$(name)";
}}
body classes r(p)
{{
  promise_repaired => {{ "$(p)_repaired" }};
  promise_kept => {{ "$(p)_kept" }};
  repair_failed => {{ "$(p)_failed" }};
  repair_denied => {{ "$(p)_denied" }};
  repair_timeout => {{ "$(p)_timeout" }};
}}
"""
for cname, cmd in (("true", "/bin/true"), ("false", "/bin/false"),
                   ("missing", "/nonexistent/cflite-pkg")):
    for changes in ("individual", "bulk"):
        for dry in (True, False):
            CASES.append((f"errors_once_pkgmethod_{cname}_{changes}{'_dry' if dry else ''}",
                          {"promises.cf": _POLICY.format(cmd=cmd, changes=changes)},
                          ("-n",) if dry else ()))
NAMES = [c[0] for c in CASES]

EXPECTED_DIFFERENCES: dict[str, str] = {}
