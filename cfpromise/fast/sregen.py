"""Making ``_sretab.py``, the SRE code of the start path's regexes (``make tables``).

Why apart from :mod:`.precompiled`: that module is on every start and imports
nothing of cf-lite's; the table is made by importing the start path's modules
(the scanner, the schema's checks...) so that they ask for their patterns, and
those modules import :mod:`.precompiled`.  Kept there, the generator made an
import cycle of the speed machinery with the modules it serves.
``python -m cfpromise.fast.sregen [OTHER_PYTHON...]`` rewrites the table.
"""
from __future__ import annotations

import sys

from cfpromise.fast import precompiled


def sre_entry(pattern: str, flags: int) -> tuple:
    """What ``re.compile`` hands ``_sre.compile`` for ``pattern`` (the table's row)."""
    import warnings
    from re import _compiler, _parser    # type: ignore[attr-defined]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # as when the pattern is compiled at run time
        parsed = _parser.parse(pattern, flags)
    code = [int(op) for op in _compiler._code(parsed, flags)]   # named opcodes to plain ints
    groupindex = dict(parsed.state.groupdict)
    indexgroup = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return (int(flags | parsed.state.flags), tuple(code), parsed.state.groups - 1, groupindex,
            tuple(indexgroup))


# The modules whose import-time patterns the table holds, with the scanner's (built
# on first use) and the schema's string ranges (compiled when validating a literal):
# what cf-lite-promises and the agent compile on every start.
START_PATH = ("cfpromise.syntax.scanner", "cfpromise.syntax.lexer", "cfpromise.syntax.classexpr",
              "cfpromise.syntax.cfjson", "cfpromise.syntax.convert", "cfpromise.agent.autoload",
              "cfpromise.agent.augments", "cfpromise.promises.classes", "cfpromise.eval.context",
              "cfpromise.schema.values", "cfpromise.schema.depends", "cfpromise.schema.validate")


def requested_on_start() -> list[tuple[str, int]]:
    """The (pattern, flags) the START_PATH modules ask for, in order."""
    import importlib
    for name in START_PATH:
        importlib.import_module(name)
    from cfpromise.schema import schema
    from cfpromise.schema.typematch import compiled_range
    from cfpromise.schema.validate import ABSPATH_RANGE
    from cfpromise.schema.values import _regex
    from cfpromise.syntax.scanner import _scanner
    _scanner()
    sch = schema()
    for table in (sch.promise_types, sch.body_types):
        for attributes in table.values():
            for attr in attributes.values():
                if attr.type in ("string", "slist") and attr.range not in (None, "", ".*",
                                                                            ABSPATH_RANGE):
                    compiled_range(attr.range)
                elif attr.type in ("context", "clist") and attr.range:
                    _regex(attr.range)      # check_context's (else a cold check imports re)
    return list(precompiled.REQUESTED)


def rows() -> dict[tuple[str, int], tuple]:
    """This interpreter's table rows: (pattern, flags) -> (flags, code as the bytes of its
    words, groups, groupindex, indexgroup), for the start path's patterns re accepts."""
    import re
    import _sre
    table = {}
    for pattern, flags in requested_on_start():
        try:
            flags_, code, groups, groupindex, indexgroup = sre_entry(pattern, flags)
        except re.error:          # a schema range re rejects: compile() reports it each time
            continue
        # the code as its machine words: one bytes constant to load, not thousands of ints
        words = b"".join(n.to_bytes(_sre.CODESIZE, sys.byteorder) for n in code)
        table[(pattern, int(flags))] = (flags_, words, groups, groupindex, indexgroup)
    return table


def _rows_of(python: str) -> tuple[int, tuple, dict]:
    """(SRE magic, (word size, byte order), rows) as the interpreter ``python`` makes them
    from this checkout."""
    import ast
    import os
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    script = ("import _sre, sys\nfrom cfpromise.fast import sregen\n"
              "print(repr((_sre.MAGIC, (_sre.CODESIZE, sys.byteorder), sregen.rows())))\n")
    env = dict(os.environ, PYTHONPATH=root, CF_LITE_PLAIN="1", PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run([python, "-W", "ignore", "-c", script], capture_output=True,
                          text=True, env=env, cwd=root, check=True)
    return ast.literal_eval(proc.stdout)


def write_table(path: str, others: list[str] = ()) -> str:
    """Regenerate ``_sretab.py`` at ``path`` from this interpreter's rows, listing the SRE
    engine of each interpreter in ``others`` whose rows are the same; returns a summary."""
    import _sre
    table = rows()
    code = (_sre.CODESIZE, sys.byteorder)
    magics = {_sre.MAGIC}
    notes = []
    for python in others:
        magic, their_code, theirs = _rows_of(python)
        if (their_code, theirs) == (code, table):
            magics.add(magic)
        else:
            notes.append(f"{python}: SRE engine {magic} makes other code, not listed")
    lines = [f"    ({p!r}, {f!r}): {row!r}," for (p, f), row in table.items()]
    text = ("# _sretab.py: made by `python -m cfpromise.fast.sregen`, do not edit (see\n"
            "# cfpromise/fast/sregen.py).  SRE code of the start path's regexes, the same\n"
            "# for every SRE engine in MAGICS (_sre.MAGIC), with words of CODE's size and order.\n"
            f"MAGICS = {tuple(sorted(magics))!r}\nCODE = {code!r}\n"
            "PATTERNS = {\n" + "\n".join(lines) + "\n}\n")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return "; ".join([f"{len(table)} patterns, SRE engines {sorted(magics)}", *notes])


if __name__ == "__main__":
    import os

    target = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_sretab.py")
    print(f"{target}: {write_table(target, sys.argv[1:])}")
