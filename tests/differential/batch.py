"""Many small cases in one policy, run under cf-agent 3.21 and cf-lite, observed alike.

A :class:`Case` is one agent bundle (``case_<name>``, plus whatever bundles and bodies it
needs) that works on files in the agent's own work directory (``$(sys.workdir)/<name>.<key>``,
copied from start files placed beside the policy), and names the classes and variables
that tell what it did.  :func:`policy_text` puts cases in one policy: ``mfx_init`` copies
the start files, each case bundle runs in turn, then ``mfx_observe`` reports
``@@<name>@@<what>@@<value>`` for every class it finds defined and every variable's value.
:func:`observe` reads those lines and the files back: what each case did, comparable
between the two agents (classes as a sorted list, so cf-agent's hash order plays no part).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.differential import harness

STDLIB_MASTERFILES = "/work/shared/conformance/masterfiles-3.21.0/lib/stdlib.cf"
STDLIB_CF_LITE = str(Path(__file__).resolve().parents[2] / "bundles" / "stdlib.cf")

_BODIES = """
body copy_from mfx_cp(from) { source => "$(from)"; compare => "digest"; }
body classes mfx_outcome(p)
{
  promise_kept => { "$(p)_kept", "$(p)_reached" };
  promise_repaired => { "$(p)_repaired", "$(p)_reached" };
  repair_failed => { "$(p)_failed", "$(p)_reached" };
  repair_denied => { "$(p)_denied", "$(p)_reached" };
  repair_timeout => { "$(p)_timeout", "$(p)_reached" };
}
"""

OUTCOMES = ("kept", "repaired", "failed", "denied", "timeout", "reached")


@dataclass
class Case:
    name: str
    bundle: str                               # the body of "bundle agent case_<name>"
    extra: str = ""                           # other bundles and bodies it needs
    files: dict[str, str | None] = field(default_factory=dict)   # key -> start text
    classes: tuple[str, ...] = ()             # classes to look for
    variables: tuple[str, ...] = ()           # qualified variables to report
    note: str = ""                            # what the case is about (shown on failure)

    def path(self, key: str) -> str:
        return f"$(sys.workdir)/{self.name}.{key}"


def outcome_classes(prefix: str) -> tuple[str, ...]:
    return tuple(f"{prefix}_{o}" for o in OUTCOMES)


def policy_text(cases: list[Case], inputs: tuple[str, ...] = (), preamble: str = "") -> str:
    seq = ", ".join(['"mfx_init"'] + [f'"case_{c.name}"' for c in cases] + ['"mfx_observe"'])
    inp = ", ".join(f'"{i}"' for i in inputs)
    init, observe, bundles = [], [], []
    for c in cases:
        for key, text in c.files.items():
            if text is not None:
                init.append(f'    "{c.path(key)}" copy_from => '
                            f'mfx_cp("$(this.promise_dirname)/{c.name}.{key}.start");')
        for cls in c.classes:
            observe.append(f'    "@@{c.name}@@class@@{cls}" if => "{cls}";')
        for var in c.variables:
            observe.append(f'    "@@{c.name}@@var@@{var}=$({var})";')
        bundles.append(f"bundle agent case_{c.name}\n{{\n{c.bundle}\n}}\n{c.extra}\n")
    return (f"body common control\n{{\n  bundlesequence => {{ {seq} }};\n"
            + (f"  inputs => {{ {inp} }};\n" if inputs else "") + "}\n"
            + _BODIES + preamble
            + "bundle agent mfx_init\n{\n  files:\n    !mfx_again::\n" + "\n".join(init)
            + "\n}\n"
            + "bundle agent mfx_observe\n{\n  reports:\n" + "\n".join(observe) + "\n}\n"
            + "".join(bundles))


def write(root: Path, stem: str, cases: list[Case], inputs: tuple[str, ...] = (),
          preamble: str = "") -> Path:
    for c in cases:
        for key, text in c.files.items():
            if text is not None:
                (root / f"{c.name}.{key}.start").write_text(text)
    return harness.write_policy(root / f"{stem}.cf", policy_text(cases, inputs, preamble))


_MESSAGE = re.compile(r"^(?:\S+\s+)?\s*(error|warning):\s*(.*)$")


def messages(run: Any, workdir: Path) -> list[str]:
    """The error and warning lines of a run, the work directory's path made neutral."""
    out = []
    for line in (run.stdout + run.stderr).splitlines():
        m = _MESSAGE.match(line)
        if m:
            out.append(f"{m.group(1)}: {m.group(2)}".replace(str(workdir), "WORKDIR"))
    return out


def observe(cases: list[Case], run: Any, workdir: Path) -> dict[str, dict[str, Any]]:
    """name -> {"classes": sorted, "vars": {...}, "files": {key: text or None}}."""
    out: dict[str, dict[str, Any]] = {
        c.name: {"classes": [], "vars": {}, "files": {}, "said": []} for c in cases}
    for line in run.stdout.splitlines():
        at = line.find("R: @@")
        if at < 0:
            continue
        parts = line[at + 3:].split("@@", 3)
        if len(parts) < 4 or parts[1] not in out:
            continue
        _, name, what, value = parts
        if what == "class":
            out[name]["classes"].append(value)
        elif what == "var":
            var, _, val = value.partition("=")
            out[name]["vars"][var] = val
        else:
            out[name]["said"].append(f"{what}@@{value}")
    for c in cases:
        out[c.name]["classes"].sort()
        out[c.name]["said"].sort()
        for key in c.files:
            p = workdir / f"{c.name}.{key}"
            out[c.name]["files"][key] = p.read_text(errors="replace") if p.exists() else None
    return out


def run_cases(root: Path, stem: str, cases: list[Case], inputs_ref: tuple[str, ...] = (),
              inputs_lite: tuple[str, ...] | None = None, preamble: str = "",
              again: bool = False
              ) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]], Any, Any]:
    """Both agents on one policy of ``cases`` (cf-lite may read other ``inputs``):
    (cf-agent's observations, cf-lite's, cf-agent's run, cf-lite's run).  ``again``: each
    agent then runs the policy a second time on the files its first run left (class
    ``mfx_again``), and that second run is what is observed."""
    if inputs_lite is None:
        inputs_lite = inputs_ref
    ref_policy = write(root, f"{stem}-ref", cases, inputs_ref, preamble)
    lite_policy = ref_policy if inputs_lite == inputs_ref else \
        write(root, f"{stem}-lite", cases, inputs_lite, preamble)
    harness.check_policy(ref_policy)
    ref_wd = harness.reference_workdir(root, f"ref-workdir-{stem}")
    lite_wd = root / f"lite-workdir-{stem}"
    ref = harness.run_reference(ref_policy, [], ref_wd)
    lite = harness.run_lite(lite_policy, [], lite_wd)
    if again:
        ref = harness.run_reference(ref_policy, ["-D", "mfx_again"], ref_wd)
        lite = harness.run_lite(lite_policy, ["-D", "mfx_again"], lite_wd)
    assert "Traceback" not in lite.stderr, lite.stderr
    return observe(cases, ref, ref_wd), observe(cases, lite, lite_wd), ref, lite
