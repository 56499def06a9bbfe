"""The standard library's index for autoloading: which of its files defines each block.

:class:`cfpromise.agent.autoload.Autoloader` looks a name that no policy file or bundle
path directory defines up here (names in the default namespace only).  The index is made
once per run from the library's files (``bundles/*.cf`` but ``stdlib.cf``, in name order,
the first file defining a block wins).
"""
from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re


def stdlib_index(block: re.Pattern[str]) -> dict[tuple[str, str, str], str]:
    """(kind, type, default-namespace name) -> the standard library file defining it;
    ``block`` is autoload's regex of a line opening a block (kind, type, name)."""
    from cfpromise.resources import share_dir
    index: dict[tuple[str, str, str], str] = {}
    root = share_dir("bundles")
    for entry in sorted(os.listdir(root)) if os.path.isdir(root) else ():
        if not entry.endswith(".cf") or entry == "stdlib.cf":
            continue
        path = os.path.join(root, entry)
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError:
            continue
        for kind, type_, name in blocks(text, block):
            index.setdefault((kind, type_, name), path)
    return index


def blocks(text: str, block: re.Pattern[str]) -> list[tuple[str, str, str]]:
    """``block.findall(text)``: (kind, type, name) of each block the text opens.  The
    regex is tried only at the starts of the lines where ``body`` or ``bundle`` comes
    first after blanks (found with ``str.find``: a match can start nowhere else, and a
    line of blanks before one only leads to that line, where the same match is tried),
    instead of at every character: findall over the 236 K of the standard library was
    about 8 M instructions of a masterfiles run, more than the rest of its index."""
    starts = set()
    for keyword in ("body", "bundle"):
        k = text.find(keyword)
        while k >= 0:
            line = text.rfind("\n", 0, k) + 1
            if line == k or text[line:k].isspace():
                starts.add(line)
            k = text.find(keyword, k + 1)
    out = []
    end = 0
    for start in sorted(starts):
        if start < end:
            continue                # inside the last match (the same as findall)
        m = block.match(text, start)
        if m is not None:
            out.append(m.groups())
            end = m.end()
    return out
