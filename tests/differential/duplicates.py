"""Generated policies for cf-promises' verdict on blocks defined twice (issue #26 item 10):
cf-promises 3.21 checks each file as it reads it and the whole policy once every input
is read (PolicyCheckPartial), naming every bundle or body that shares its type,
namespace and name with another, each at its own place.  A policy that defines the
same body in two input files (a module's copy of a standard-library body, say) is
refused; cf-lite used to take whichever came last.

Each case is a set of files: ``e.cf`` (the entry, which names the others as inputs)
and ``i1.cf``, ``i2.cf``; a case maps each file to the blocks written into it, in order.
"""
from __future__ import annotations

from pathlib import Path

# one definition of a block named "dup" of each kind
KINDS = {
    "agent": 'bundle agent dup\n{\n  reports:\n    "d";\n}\n',
    "edit_line": 'bundle edit_line dup\n{\n  insert_lines:\n    "d";\n}\n',
    "common": 'bundle common dup\n{\n  vars:\n    "v" string => "d";\n}\n',
    "perms": 'body perms dup\n{\n  mode => "644";\n}\n',
    "classes": 'body classes dup\n{\n  promise_kept => { "k" };\n}\n',
    "agent_control": 'body agent control\n{\n  ifelapsed => "1";\n}\n',
    "monitor_control": 'body monitor control\n{\n  forgetrate => "0.7";\n}\n',
}

# where each copy goes
PLACES = {
    "same_file": ("e", "e"),
    "three_same_file": ("e", "e", "e"),
    "entry_input": ("e", "i1"),
    "input_entry": ("i1", "e"),
    "two_inputs": ("i1", "i2"),
    "same_input": ("i1", "i1"),
    "three_files": ("e", "i1", "i2"),
}

MAIN = 'bundle agent main\n{\n  reports:\n    "x";\n}\n'
NS = 'body file control\n{\n  namespace => "n";\n}\n'
FILE_CONTROL = 'body file control\n{\n  inputs => { };\n}\n'


def _named(text: str, name: str) -> str:
    return text.replace(" dup\n", f" {name}\n", 1)


# neighbours: shapes that are, or are not, duplicates
OTHERS: dict[str, dict[str, list[str]]] = {
    "namespace_differs": {"i1": [KINDS["perms"]], "i2": [NS, KINDS["perms"]]},
    "namespace_same": {"i1": [NS, KINDS["perms"]], "i2": [NS, KINDS["perms"]]},
    "namespace_bundle_same": {"i1": [NS, KINDS["agent"]], "i2": [NS, KINDS["agent"]]},
    "namespace_then_default": {"e": [KINDS["agent"]], "i1": [NS, KINDS["agent"]]},
    "bundle_types_differ": {"e": [KINDS["agent"], KINDS["edit_line"], KINDS["common"]]},
    "body_types_differ": {"e": [KINDS["perms"]], "i1": [KINDS["classes"]]},
    "bundle_and_body": {"e": [KINDS["agent"], KINDS["perms"]]},
    "file_control_twice": {"i1": [FILE_CONTROL, FILE_CONTROL, KINDS["perms"]]},
    "file_control_each": {"i1": [FILE_CONTROL], "i2": [FILE_CONTROL]},
    "main_in_two_inputs": {"i1": ['bundle agent __main__\n{\n  reports:\n    "1";\n}\n'],
                           "i2": ['bundle agent __main__\n{\n  reports:\n    "2";\n}\n']},
    "entry_main_and_main": {"e": ['bundle agent __main__\n{\n  reports:\n    "1";\n}\n', "MAIN"]},
    "entry_main_input_main": {"e": ['bundle agent __main__\n{\n  reports:\n    "1";\n}\n'],
                              "i1": ["MAIN"]},
    "interleaved": {"e": [_named(KINDS["agent"], "a"), _named(KINDS["agent"], "b"),
                          _named(KINDS["agent"], "a"), _named(KINDS["agent"], "b")]},
    "interleaved_files": {"i1": [_named(KINDS["perms"], "a"), _named(KINDS["perms"], "b")],
                          "i2": [_named(KINDS["perms"], "b"), _named(KINDS["perms"], "a")]},
    "bundle_and_body_files": {"i1": [KINDS["agent"], KINDS["perms"]],
                              "i2": [KINDS["perms"], KINDS["agent"]]},
}


# files of the same text, the entry's included: read once
SAME_TEXT: dict[str, dict] = {
    "same_text_inputs": {"i1": [KINDS["perms"]], "i2": "SAME"},
    "same_text_inputs_bundle": {"i1": [KINDS["agent"], KINDS["classes"]], "i2": "SAME"},
    "same_text_as_entry": {"e": [KINDS["perms"]], "i1": "ENTRY"},
    "same_text_and_other": {"e": [KINDS["perms"]], "i1": [KINDS["agent"]], "i2": "SAME"},
}


def cases() -> dict[str, dict[str, list[str]]]:
    out: dict[str, dict[str, list[str]]] = {}
    for kind, text in KINDS.items():
        for place, files in PLACES.items():
            case: dict[str, list[str]] = {}
            for name in files:
                case.setdefault(name, []).append(text)
            out[f"{kind}_{place}"] = case
    out.update(OTHERS)
    out.update(SAME_TEXT)
    return out


def write(root: Path, case: dict[str, list[str]]) -> Path:
    """The case's files under ``root`` (mode 0600); the entry's path."""
    root.mkdir(parents=True, exist_ok=True)
    inputs = [f for f in ("i1", "i2") if f in case]
    entry = [MAIN if b == "MAIN" else b for b in case.get("e", [])]
    if not any(b.startswith(("bundle agent __main__", "bundle agent main")) for b in entry):
        entry.append(MAIN)
    head = ""
    if inputs:
        listed = ", ".join(f'"{f}.cf"' for f in inputs)
        head = f"body common control\n{{\n  inputs => {{ {listed} }};\n}}\n"
    files = {"e": head + "".join(entry)}
    for name in inputs:
        blocks = case[name]
        if blocks in ("SAME", "ENTRY"):    # the same text as i1 (the entry): read once
            files[name] = files["i1" if blocks == "SAME" else "e"]
            continue
        # each file its own text (cf-agent reads a text once, whatever its name)
        files[name] = f"# {name}\n" + "".join(MAIN if b == "MAIN" else b for b in blocks)
    for name, text in files.items():
        path = root / f"{name}.cf"
        path.write_text(text)
        path.chmod(0o600)
    return root / "e.cf"
