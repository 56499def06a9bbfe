"""Unified diffs of would-be changes, for ``-n`` and ``action_policy => "warn"``.

cf-agent only says ``Should edit file '...'``; cf-lite also shows what would
change as a unified diff at info level (``-I``), one message per diff.  Also
here: cf-agent's own per-line warnings of an edit that was only warned about
(ItemListsEqual with warnings on).
"""
from __future__ import annotations

import difflib
from typing import Callable


def unified(path: str, old: list[str], new: list[str], context: int = 3) -> str:
    """A unified diff of two line lists (lines without newlines); empty if equal."""
    lines = difflib.unified_diff(old, new, fromfile=path, tofile=f"{path} (promised)",
                                 lineterm="", n=context)
    return "\n".join(lines)


def unified_text(path: str, old: str, new: str) -> str:
    return unified(path, old.split("\n"), new.split("\n"))


def report(log: Callable[[str, str], None], path: str, old: list[str], new: list[str]) -> None:
    text = unified(path, old, new)
    if text:
        log("info", f"Would change '{path}':\n{text}")


def item_warnings(old: list[str], new: list[str]) -> list[str]:
    """ItemListsEqual(file, edited, warnings=true): cf-agent's warning lines."""
    out: list[str] = []
    i = 0
    while True:
        a = old[i] if i < len(old) else None
        b = new[i] if i < len(new) else None
        if a is None and b is None:
            return out
        if a is None or b is None:
            if i == 0:
                out.append("File content wants to change from from/to full/empty but only a "
                           "warning promised")
            else:
                if a is not None:
                    out.append(f" ! edit_line change warning promised: (remove) {a}")
                if b is not None:
                    out.append(f" ! edit_line change warning promised: (add) {b}")
        elif a != b:
            out.append(f"edit_line warning promised: - {a}")
        i += 1
