"""Differential test: cf-promises 3.21 judges the arity of an ``edit_line`` bundle call
only from the default namespace to an unqualified name; a namespaced caller or a
qualified name (``ns:ed("a")``, ``default:ed("a")``) validates and runs.  cf-lite
refused design-center's namespaced sketches (security/limits) for it."""
from __future__ import annotations

import pytest

from tests.differential import agentmisc, harness

pytestmark = harness.needs_cf_agent

_NS = ('body file control\n{\n  namespace => "ns";\n}\n'
       'bundle edit_line ed(a, b)\n{\n  insert_lines:\n    "$(a) $(b)";\n}\n'
       'bundle agent go\n{\n  files:\n    "$(this.promise_dirname)/g.txt"\n'
       '      create => "true", edit_line => {CALL};\n  reports:\n    "go ran";\n}\n')
_DEF = 'bundle edit_line ed(a, b)\n{\n  insert_lines:\n    "$(a) $(b)";\n}\n'


def _case(call_in_ns: str | None, call_in_main: str | None) -> dict[str, str]:
    main = ('body common control\n{\n  bundlesequence => { "main" };\n'
            '  inputs => { "$(sys.policy_entry_dirname)/ns.cf" };\n}\n'
            'bundle agent main\n{\n  files:\n')
    if call_in_main:
        main += (f'    "$(this.promise_dirname)/m.txt"\n      create => "true",'
                 f' edit_line => {call_in_main};\n')
    main += '  methods:\n    "g" usebundle => ns:go;\n  reports:\n    "main ran";\n}\n' + _DEF
    return {"promises.cf": main, "ns.cf": _NS.replace("{CALL}", call_in_ns or 'ed("x", "y")')}


CASES = {
    "ns_unqualified_short": _case('ed("a")', None),
    "ns_qualified_short": _case('ns:ed("a")', None),
    "ns_qualified_long": _case('ns:ed("a", "b", "c")', None),
    "ns_to_default_short": _case('default:ed("a")', None),
    "ns_right": _case('ed("a", "b")', None),
    "default_to_ns_short": _case(None, 'ns:ed("a")'),
    "default_qualified_short": _case(None, 'default:ed("a")'),
    "default_unqualified_short": _case(None, 'ed("a")'),
    "default_unqualified_long": _case(None, 'ed("a", "b", "c")'),
}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    return agentmisc.run_observed(tmp_path_factory.mktemp("nsarity"),
                                  [(name, files, []) for name, files in CASES.items()])


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_run_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    assert ours == reference


# Validation only (users/services promises must not run): cf-promises' verdict.
_VAL_TAIL = ('bundle agent sb(a, b)\n{\n  reports:\n    "sb";\n}\n'
             'bundle edit_xml ex(a, b)\n{\n}\n'
             'bundle edit_line el(a, b)\n{\n}\n'
             'body service_method sm\n{\n  service_bundle => sb("a");\n}\n')
VALIDATION = {
    "home_bundle_short": 'users:\n    "nouser" policy => "present", home_bundle => sb("a");',
    "home_bundle_long": 'users:\n    "nouser" policy => "present", home_bundle => sb("a", "b", "c");',
    "service_bundle_short": 'services:\n    "x" service_policy => "start", service_method => sm;',
    "edit_xml_short": 'files:\n    "/nonexistent/x" edit_xml => ex("a");',
    "edit_line_long": 'files:\n    "/nonexistent/x" edit_line => el("a", "b", "c");',
    "usebundle_short": 'methods:\n    "m" usebundle => sb("a");',
    "usebundle_right": 'methods:\n    "m" usebundle => sb("a", "b");',
}


@pytest.mark.parametrize("name", sorted(VALIDATION))
def test_same_verdict_as_cf_promises(tmp_path, name: str) -> None:
    import os
    import subprocess
    import sys
    policy = tmp_path / "promises.cf"
    policy.write_text('body common control\n{\n  bundlesequence => { "main" };\n}\n'
                      f'bundle agent main\n{{\n  {VALIDATION[name]}\n}}\n' + _VAL_TAIL)
    os.chmod(policy, 0o600)
    ref = subprocess.run(["cf-promises", "-f", str(policy)], capture_output=True, text=True)
    lite = subprocess.run([os.path.join(os.path.dirname(sys.executable), "cf-lite-promises"),
                           "-f", str(policy)], capture_output=True, text=True)
    assert ("arity" in lite.stdout + lite.stderr, lite.returncode) == \
        ("arity" in ref.stdout + ref.stderr, ref.returncode)
