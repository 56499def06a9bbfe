"""Differential test: the bundlesequence as cf-agent 3.21 checks it
(:mod:`cfpromise.agent.sequence`), generated over what the policy's sequence names
(a bundle, none, an edit_line bundle, a common bundle, a bundle only in another
namespace, a namespaced name, a name whose namespace is wrong), what ``-b`` names,
and ``ignore_missing_bundles``: the exit code, whether validation failed (the
failsafe then runs), and the lines each agent prints must agree.  Found running
cfengine/modules' policies: cf-lite sent ``-b typo`` to the failsafe (exit 0) where
cf-agent stops with a fatal error (exit 1)."""
from __future__ import annotations

import pytest

from tests.differential import agentmisc, harness

pytestmark = harness.needs_cf_agent

# the policy's files: main and a common bundle in default, an edit_line bundle, and a
# bundle "other" (and, in MAIN_ELSEWHERE, main itself) only in namespace x
_DEFAULT = ('bundle agent main\n{\n  reports:\n    "main ran";\n}\n'
            'bundle common cm\n{\n  reports:\n    "cm ran";\n}\n'
            'bundle edit_line el\n{\n  insert_lines:\n    "l";\n}\n')
_X = ('body file control\n{\n  namespace => "x";\n}\n'
      'bundle agent other\n{\n  reports:\n    "x:other ran";\n}\n')
_X_MAIN = _X + 'bundle agent main\n{\n  reports:\n    "x:main ran";\n}\n'

SEQUENCES = {"none": None, "main": ["main"], "nosuch": ["nosuch"], "edit_line": ["el"],
             "common": ["cm"], "ns_qualified": ["x:other"], "ns_unqualified": ["other"],
             "ns_wrong": ["y:main"], "default_qualified": ["default:main"],
             "one_missing": ["main", "nosuch"]}
COMMAND_LINE = {"no_b": None, "b_nosuch": "nosuch", "b_other": "other",
                "b_main_nosuch": "main,nosuch", "b_edit_line": "el"}


def _files(sequence: list[str] | None, elsewhere: bool = False, ignore: bool = False) -> dict:
    control = ['inputs => { "x.cf" };']
    if sequence is not None:
        control.append("bundlesequence => { %s };" % ", ".join(f'"{n}"' for n in sequence))
    if ignore:
        control.append('ignore_missing_bundles => "true";')
    promises = "body common control\n{\n  %s\n}\n" % "\n  ".join(control)
    if elsewhere:
        return {"promises.cf": promises, "x.cf": _X_MAIN}
    return {"promises.cf": promises + _DEFAULT, "x.cf": _X}


def _cases() -> list[tuple[str, dict, list[str]]]:
    out = []
    for seq_name, seq in SEQUENCES.items():
        for b_name, b in COMMAND_LINE.items():
            out.append((f"{seq_name}-{b_name}", _files(seq), ["-b", b] if b else []))
    for seq_name in ("none", "main", "ns_wrong"):
        for b in (None, "main", "x:main"):
            out.append((f"elsewhere-{seq_name}-{b or 'no_b'}",
                        _files(SEQUENCES[seq_name], elsewhere=True), ["-b", b] if b else []))
    for seq_name in ("nosuch", "edit_line", "one_missing"):
        for b in (None, "nosuch"):
            out.append((f"ignore-{seq_name}-{b or 'no_b'}", _files(SEQUENCES[seq_name],
                                                                  ignore=True),
                        ["-b", b] if b else []))
    return out


CASES = _cases()


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    return agentmisc.run_observed(tmp_path_factory.mktemp("sequence"), CASES)


@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_same_run_as_cf_agent(results: dict[str, tuple], name: str) -> None:
    reference, ours = results[name]
    assert ours == reference
