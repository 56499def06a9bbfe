"""Generated cases: the order in which a policy's files are read, which is the order of
its bundles and bodies -- what ``bundlesmatching()`` walks (last read first) and what
``cf-promises -p json-full`` prints.

cf-agent 3.21 reads depth first (LoadPolicyFile): a file is parsed, its common bundles
evaluated, then each input its ``body common control`` names and then each its ``body
file control`` names is read with all of its own inputs before the next one; a file
named again is not read again.  Each case is a tree of files (seeded, so the same every
run): every file defines a bundle ``b_<file>_x`` and a body, names up to three others
-- written out, through a list of one of its common bundles, or both -- and may name
one it was named by (a cycle) or one named elsewhere (read once).
"""
from __future__ import annotations

import random

CASES: list[tuple[str, dict[str, str]]] = []


def _tree(seed: int) -> dict[str, str]:
    rng = random.Random(seed)
    names = [f"f{i}" for i in range(rng.randint(3, 9))]
    files: dict[str, list[str]] = {"promises": []}
    for name in names:
        files[name] = []
    order = ["promises"] + names
    for i, name in enumerate(order):
        later = order[i + 1:]
        picks = rng.sample(later, min(len(later), rng.randint(0, 3)))
        if rng.random() < 0.2 and i > 0:
            picks.append(rng.choice(order[:i]))        # a cycle, or a file named again
        files[name] = picks
    text: dict[str, str] = {}
    for name, picks in files.items():
        listed = [f'"{p}.cf"' for p in picks]
        via_var = rng.random() < 0.4 and picks
        if name == "promises":
            inputs = f'@(g_promises.in)' if via_var else ", ".join(listed)
            head = (f'body common control {{ bundlesequence => {{ "main" }}; '
                    f'inputs => {{ {inputs} }}; }}\n'
                    'bundle agent main {\n  vars:\n    "b" slist => bundlesmatching(".*_x");\n'
                    '    "c" slist => bundlesmatching(".*");\n'
                    '  reports:\n    "$(b)";\n    "all $(c)";\n}\n')
        else:
            inputs = f'@(g_{name}.in)' if via_var else ", ".join(listed)
            head = f'body file control {{ inputs => {{ {inputs} }}; }}\n' if picks else ""
        common = (f'bundle common g_{name}\n{{\n  vars:\n    "in" slist => {{ '
                  f'{", ".join(listed)} }};\n}}\n') if via_var else ""
        text[f"{name}.cf"] = (head + common + f"bundle agent b_{name}_x {{ }}\n"
                              f"body classes k_{name} {{ promise_kept => {{ \"x\" }}; }}\n")
    return text


for seed in range(40):
    CASES.append((f"tree_{seed}", _tree(seed)))

NAMES = [c[0] for c in CASES]
