"""Version comparison for legacy package promises, as cf-agent 3.21 does it.

``compare(v1, select, v2)`` asks "is installed version v1 <select> v2?" and
answers MATCH, NO_MATCH or ERROR.  With ``package_version_less_command`` /
``package_version_equal_command`` the question goes to those commands
(``$(v1)``/``$(v2)`` substituted; exit 0 means yes); "equal" falls back to
"neither is less" when only the less command is given.  Otherwise the
built-in comparison (3.21's ComparePackageVersionsInternal) applies:

* each version is cut into alphanumeric runs and the single separators
  between them (``1.2-3`` -> ``1 2 3`` and ``. -``);
* the separator sequences must agree as far as both go, else the versions
  are "incompatible" (ERROR);
* ``==``/``!=`` compare the whole strings; the ordered operators walk the runs
  left to right comparing them as *strings* (so ``10`` < ``9``, as in 3.21),
  deciding at the first difference; when one version runs out first, the
  longer one counts as greater.
"""
from __future__ import annotations

import enum
import re
from typing import Callable


class Cmp(enum.Enum):
    MATCH = "yes"
    NO_MATCH = "no"
    ERROR = "Incompatible version format. Can't decide"


_RUN = re.compile(r"[0-9A-Za-z]*")


def _parse(version: str) -> tuple[list[str], list[str]]:
    numbers: list[str] = []
    seps: list[str] = []
    i, n = 0, len(version)
    while i < n:
        run = _RUN.match(version, i)
        token = run.group(0)[:29] if run else ""
        i += len(token)
        numbers.append(token)
        if i >= n:
            break
        seps.append(version[i])
        i += 1
    return numbers, seps


def builtin(v1: str, v2: str, select: str) -> Cmp:
    """3.21's built-in comparison of ``v1`` against ``v2`` (see the module docstring)."""
    v1, v2 = v1.replace(",", "_"), v2.replace(",", "_")
    n1, s1 = _parse(v1)
    n2, s2 = _parse(v2)
    for a, b in zip(s1, s2):
        if a != b:
            return Cmp.ERROR
    equal = v1 == v2
    matched = False
    decided = False
    i = 0
    for i, (a, b) in enumerate(zip(n1, n2)):
        diff = (a > b) - (a < b)
        stop = False
        if select == "==":
            matched = equal
        elif select == "!=":
            matched = not equal
        elif select == ">":
            matched, stop = diff > 0, diff < 0
        elif select == "<":
            matched, stop = diff < 0, diff > 0
        elif select == ">=":
            matched, stop = diff > 0 or equal, diff < 0
        elif select == "<=":
            matched, stop = diff < 0 or equal, diff > 0
        if matched or stop:
            decided = True
            break
    if not decided:
        common = min(len(n1), len(n2))
        if len(n1) > common and select in (">", ">="):
            matched = True
        if len(n2) > common and select in ("<", "<="):
            matched = True
    return Cmp.MATCH if matched else Cmp.NO_MATCH


def _invert(result: Cmp) -> Cmp:
    if result is Cmp.ERROR:
        return result
    return Cmp.NO_MATCH if result is Cmp.MATCH else Cmp.MATCH


class Comparator:
    """Compares versions for one promise: its custom commands, else the built-in rules.

    ``run_command(cmdline) -> exit code | None`` runs a comparison command
    (None: it could not be started)."""

    def __init__(self, less_command: str | None, equal_command: str | None,
                 run_command: Callable[[str], int | None]) -> None:
        self.less_command = less_command
        self.equal_command = equal_command
        self.run_command = run_command

    def _ask(self, command: str, v1: str, v2: str) -> Cmp:
        line = _substitute(command, {"v1": v1, "v2": v2})
        code = self.run_command(line)
        if code is None:
            return Cmp.ERROR
        return Cmp.MATCH if code == 0 else Cmp.NO_MATCH

    def less(self, v1: str, v2: str) -> Cmp:
        if self.less_command is not None:
            return self._ask(self.less_command, v1, v2)
        return builtin(v1, v2, "<")

    def equal(self, v1: str, v2: str) -> Cmp:
        if self.equal_command is not None:
            return self._ask(self.equal_command, v1, v2)
        if self.less_command is not None:
            a, b = _invert(self.less(v1, v2)), _invert(self.less(v2, v1))
            if Cmp.ERROR in (a, b):
                return Cmp.ERROR
            return Cmp.MATCH if a is Cmp.MATCH and b is Cmp.MATCH else Cmp.NO_MATCH
        return builtin(v1, v2, "==")

    def compare(self, v1: str, select: str | None, v2: str) -> Cmp:
        """Is ``v1 <select> v2``?  A missing select means ``==``."""
        if select in (None, "=="):
            return self.equal(v1, v2)
        if select == "!=":
            return _invert(self.equal(v1, v2))
        if select == "<":
            return self.less(v1, v2)
        if select == ">":
            return self.less(v2, v1)
        if select == ">=":
            return _invert(self.less(v1, v2))
        return _invert(self.less(v2, v1))           # <=


_VAR = re.compile(r"\$(?:\(([A-Za-z0-9_.]+)\)|\{([A-Za-z0-9_.]+)\})")


def _substitute(text: str, values: dict[str, str]) -> str:
    """Replace ``$(name)``/``${name}`` (also ``this.name``) for the names in ``values``;
    other references stay as they are."""
    def repl(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        short = name[5:] if name.startswith("this.") else name
        return values.get(short, m.group(0))
    return _VAR.sub(repl, text)


substitute = _substitute
