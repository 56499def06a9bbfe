"""Generated cases: packages promises whose package_module body is odd or whose module
cannot be run (issue #26).

cf-agent 3.21 checks the body before the promise's lock (HandleNewPackagePromiseType's
sanity check: no body, a missing or non-number ``query_*_ifelapsed``), then starts the
module: one it cannot find or run is "Cannot find package module at location 'P' or
access to file is restricted: <errno>" and "Some error occurred while contacting package
module for promise 'x'", and the promise fails (its classes say so). The shapes: the
body's attributes present, missing, empty or not numbers, a ``module_path`` or an
``interpreter`` that do not exist, the body named by the promise or by body common
control, policy present and absent, with and without ``-n``, two promises on one body.
"""
from __future__ import annotations

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []

_POLICY = """
%(control)s
bundle agent main {
packages:
  "cflite_nosuch_pkg"
    policy => "%(policy)s",%(ref)s
    classes => c;
%(second)s
reports:
  "ran";
  "failed" if => "pf";
  "kept" if => "pk";
  "repaired" if => "pr";
}
body classes c { repair_failed => { "pf" }; promise_kept => { "pk" }; promise_repaired => { "pr" }; }
body package_module cflite_pm {
%(body)s
}
"""
_BODIES = {
    "both": 'query_installed_ifelapsed => "60"; query_updates_ifelapsed => "60";',
    "no_installed": 'query_updates_ifelapsed => "60";',
    "no_updates": 'query_installed_ifelapsed => "60";',
    "empty": '',
    "zero": 'query_installed_ifelapsed => "0"; query_updates_ifelapsed => "0";',
    "options": 'query_installed_ifelapsed => "1"; query_updates_ifelapsed => "1"; '
               'default_options => { "a=b" };',
    "module_path": 'query_installed_ifelapsed => "1"; query_updates_ifelapsed => "1"; '
                   'module_path => "/nonexistent/cflite_pm";',
    "var_value": 'query_installed_ifelapsed => "$(g.n)"; query_updates_ifelapsed => "$(g.n)";',
    "undefined_var": 'query_installed_ifelapsed => "$(g.nosuch)"; '
                     'query_updates_ifelapsed => "1";',
}
_COMMON = 'bundle common g { vars: "n" string => "5"; }'
for bname, body in _BODIES.items():
    for policy in ("present", "absent"):
        for args in ((), ("-n",)):
            label = f"pkgmodule_{bname}_{policy}{'_dry' if args else ''}"
            CASES.append((label, {"promises.cf": _POLICY % {
                "control": _COMMON, "policy": policy, "ref": "\n    package_module => cflite_pm,",
                "second": "", "body": body}}, args))
    CASES.append((f"pkgmodule_{bname}_control", {"promises.cf": _POLICY % {
        "control": _COMMON + '\nbody common control { package_module => cflite_pm; }',
        "policy": "present", "ref": "", "second": "", "body": body}}, ()))
    CASES.append((f"pkgmodule_{bname}_two", {"promises.cf": _POLICY % {
        "control": _COMMON, "policy": "present", "ref": "\n    package_module => cflite_pm,",
        "second": '  "cflite_other_pkg" policy => "absent", package_module => cflite_pm;',
        "body": body}}, ()))

NAMES = [c[0] for c in CASES]
EXPECTED_DIFFERENCES: dict[str, str] = {}
