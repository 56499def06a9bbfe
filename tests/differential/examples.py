"""CFEngine core's documented examples (``examples/*.cf`` of cfengine/core 3.21.0), run as
upstream's ``examples/remake_outputs.pl`` runs them, under cf-agent 3.21 and cf-lite.

Each example holds a ``#+begin_src cfengine3`` block (the policy), maybe a
``#+begin_src prep`` block (shell commands run first, ``FILE`` standing for the
policy's path) and a ``#+begin_src example_output`` block: what 3.21's documentation
says the run prints.  The policy is written to a scratch directory and run as
``cf-agent -D_cfe_output_testing -Kf FILE`` with ``EXAMPLE`` and ``CFENGINE_COLOR=0``
in the environment.  Outputs are compared as remake_outputs.pl compares them: the
``#@`` prefixes and the ````` lines dropped, a leading timestamp and leading blanks
removed from each line, any line holding ``RANDOM`` ignored.

The examples are not in cf-lite's repository (they are CFEngine's, GPL): the test
reads them from ``$CF_LITE_CORE_EXAMPLES`` (a checkout's ``examples/``) and skips
without it.  Only the safe ones run: no promise type that changes the host outside
``/tmp`` (commands, packages, services, users, storage, processes, databases,
guest_environments), files promises and prep commands only under ``/tmp``.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ENV_VAR = "CF_LITE_CORE_EXAMPLES"

_BLOCK = r"#\+begin_src {kind}( no_check)?\n(.*?)\n?#\+end_src"
_UNSAFE_TYPES = ("commands", "packages", "services", "users", "storage", "processes",
                 "databases", "guest_environments")
_UNSAFE_TYPE = re.compile(r"^\s*(" + "|".join(_UNSAFE_TYPES) + r")\s*:(?!:)", re.M)
_FILES_SECTION = re.compile(r"^\s*files\s*:(?!:)(.*?)(?=^\s*[a-z_]+\s*:(?!:)|^\s*\}\s*$)",
                            re.M | re.S)
_PROMISER = re.compile(r'^\s*"([^"]+)"', re.M)


@dataclass(frozen=True)
class Example:
    name: str
    policy: str
    prep: tuple[str, ...]
    expected: str
    no_check: bool


def directory() -> Path | None:
    value = os.environ.get(ENV_VAR)
    if value and (Path(value) / "inline-yaml.cf").is_file():
        return Path(value)
    return None


def parse(path: Path) -> Example | None:
    text = path.read_text(errors="surrogateescape")
    code = re.search(_BLOCK.format(kind="cfengine3"), text, re.S)
    output = re.search(_BLOCK.format(kind="example_output"), text, re.S)
    if code is None or output is None:
        return None
    prep = re.search(_BLOCK.format(kind="prep"), text, re.S)
    commands = []
    for line in (prep.group(2).splitlines() if prep else []):
        line = re.sub(r"^#@ ", "", line)
        if re.match(r"^\w", line):
            commands.append(line)
    return Example(path.stem, code.group(2) + "\n", tuple(commands), output.group(2),
                   output.group(1) is not None)


def discover(root: Path) -> list[Example]:
    out = []
    for path in sorted(root.glob("*.cf")):
        example = parse(path)
        if example is not None:
            out.append(example)
    return out


def unsafe(example: Example) -> str | None:
    """Why the example must not run here (None: it may)."""
    found = _UNSAFE_TYPE.search(example.policy)
    if found:
        return f"has {found.group(1)} promises"
    for section in _FILES_SECTION.finditer(example.policy):
        for promiser in _PROMISER.findall(section.group(1)):
            if promiser.startswith("/") and not promiser.startswith("/tmp/"):
                return f"files promise on {promiser}"
    for command in example.prep:
        for word in command.split():
            word = word.strip("'\"")
            if word.startswith("/") and not word.startswith(("/tmp/", "/tmp")):
                return f"prep touches {word}"
    return None


def normalize(text: str) -> str:
    """remake_outputs.pl's equal_outputs, applied to one side."""
    text = re.sub(r"^#@ ```[ \t]*(\n|$)", "", text, flags=re.M)
    text = re.sub(r"^(#@ )", "", text, flags=re.M)
    text = re.sub(r"^[-0-9T:+]+\s+", "", text, flags=re.M)
    text = re.sub(r".*RANDOM.*", "", text, flags=re.M)
    text = re.sub(r"^ *", "", text, flags=re.M)
    return text.strip("\n") + "\n" if text.strip("\n") else ""


def run(example: Example, workdir: Path, scratch: Path, agent: str) -> str:
    """Prep, then the agent on the example (``agent``: "ref" or "lite")."""
    scratch.mkdir(parents=True, exist_ok=True)
    policy = scratch / f"{example.name}.cf"
    policy.write_text(example.policy, errors="surrogateescape")
    policy.chmod(0o600)
    for command in example.prep:
        subprocess.run(command.replace("FILE", str(policy)), shell=True, timeout=60,
                       capture_output=True)
    env = dict(os.environ, EXAMPLE=policy.name, CFENGINE_COLOR="0")
    workdir.mkdir(parents=True, exist_ok=True)
    if agent == "ref":
        (workdir / "bin").mkdir(exist_ok=True)
        if not (workdir / "bin" / "cf-promises").exists():
            os.symlink("/usr/bin/cf-promises", workdir / "bin" / "cf-promises")
        env["CFENGINE_TEST_OVERRIDE_WORKDIR"] = str(workdir)
        argv = ["cf-agent", "-D_cfe_output_testing", "-Kf", str(policy)]
    else:
        env.pop("CFENGINE_TEST_OVERRIDE_WORKDIR", None)
        argv = [sys.executable, "-m", "cfpromise.cli.agent", "-D_cfe_output_testing", "-K",
                "-f", str(policy), "-w", str(workdir)]
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                          cwd=scratch, timeout=120, text=True, errors="surrogateescape")
    return proc.stdout


def read_known(path: Path) -> dict[str, str]:
    """The ratchet: ``name: reason`` lines (the examples cf-lite does not match yet)."""
    out = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.partition(":")
            out[name.strip()] = reason.strip()
    return out
