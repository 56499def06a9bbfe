"""Generated cases: the order in which a policy's files are read, which is the order of
its bundles and bodies -- what ``bundlesmatching()`` walks (last read first) and what
``cf-promises -p json-full`` prints.

cf-agent 3.21 reads depth first (LoadPolicyFile): a file is parsed, its common bundles
evaluated, then each input its ``body common control`` names and then each its ``body
file control`` names is read with all of its own inputs before the next one; a file
named again is not read again.  Each case is a tree of files (seeded, so the same every
run): every file defines a bundle ``b_<file>_x`` and a body, names up to three others
-- written out, through a list of one of its common bundles, or both -- and may name
one it was named by (a cycle) or one named elsewhere (read once).  The ``rounds_*``
trees name inputs through variables whose values change as files are read (below).
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

# Inputs written with a variable (``"$(g_f1.next)"``): before reading one, cf-agent
# resolves the files its list has read so far (LoadPolicyInputFiles' PolicyResolve: one
# more round of their common bundles), so a value may have changed since the file that
# defines it was read -- here by a class a file read after it defines.  Each file's
# common bundle picks the next file by such a class; a list names a file written out,
# then maybe the variable of a file it named before it.


def _rounds(seed: int) -> dict[str, str]:
    rng = random.Random(1000 + seed)
    names = [f"f{i}" for i in range(rng.randint(4, 8))]
    order = ["promises"] + names
    lists: dict[str, list[str]] = {}
    flags: dict[str, str] = {}      # file -> the file whose class changes its next file
    for i, name in enumerate(order):
        later = order[i + 1:]
        picks = rng.sample(later, min(len(later), rng.randint(1, 3)))
        items: list[str] = []
        for j, pick in enumerate(picks):
            items.append(f'"{pick}.cf"')
            if j and rng.random() < 0.7:
                # the variable of a file named before, once the file after it is read
                before = picks[j - 1]
                flags.setdefault(before, pick)
                items.append(f'"$(g_{before}.next)"')
        lists[name] = items
    text: dict[str, str] = {"promises.cf": (
        'body common control { bundlesequence => { "main" }; '
        f'inputs => {{ {", ".join(lists["promises"])} }}; }}\n'
        'bundle agent main {\n  vars:\n    "b" slist => bundlesmatching(".*_x");\n'
        '  reports:\n    "$(b)";\n}\n')}
    for i, name in enumerate(names):
        items = lists[name]
        head = f'body file control {{ inputs => {{ {", ".join(items)} }}; }}\n' if items else ""
        first, second = (rng.choice(names) for _ in range(2))
        flag = flags.get(name, rng.choice(names))
        text[f"{name}.cf"] = (
            head + f'bundle common g_{name}\n{{\n  vars:\n    "next" string => "{first}.cf";\n'
            f'  k_{flag}::\n    "next" string => "{second}.cf";\n  classes:\n'
            f'    "k_{name}" expression => "any";\n}}\n'
            f"bundle agent b_{name}_x {{ }}\n")
    return text


for seed in range(30):
    CASES.append((f"rounds_{seed}", _rounds(seed)))

NAMES = [c[0] for c in CASES]
