"""cf-agent 3.21's IsCf3VarString, as one walk giving both of its verdicts.

cf-agent asks one function two questions of a text: does it hold a variable reference
(a report waits for the last pass, a vars promise whose name holds one makes nothing,
an int or a range that holds one is not checked), and is a reference left open (the
parser's "Broken variable syntax or bracket mismatch in string (TEXT)", at parse time
against the constraint's position, at run time at ``FILE:1:1``).  cf-lite asked them of
two walks (the run-time error's in cfpromise.agent.yyerrors, the report's in
cfpromise.promises.reports) and of a plain ``"$(" in text`` at parse time; they are
answered here, once, so that every place decides alike.

The walk, as cf-agent's: a ``$``/``@`` followed by ``(``/``{`` starts counting
brackets, of both kinds alike; a ``/`` while a bracket is open (``$(/bin/cat f)``, a
shell's) makes the text no reference and nothing broken.  When the count is back at
nought and the last opening and the last closing bracket are of one kind, a reference is
whole.  Its state then never changes again -- the next ``$(`` counts as whole at once,
brackets after it are not counted -- so ``$(a) ${b`` is a reference and nothing is
broken, while ``$(a} ${b`` (no whole reference first) is broken.  Broken: a reference
started and its brackets not closed at the end (``$(a``, ``${a $(b)``, ``$(a ${b)``);
brackets closed but mismatched (``$(a}``, ``${a $(b)}``) are neither broken nor a
reference.

:func:`broken_scalar` is IsCf3Scalar's verdict, the same walk started by ``$`` only,
which cf-agent asks of each argument of a function call once expanded (RlistIsUnresolved):
``FILE:1:1: error: Broken scalar variable syntax or bracket mismatch in 'TEXT'``.

:func:`expandable` is IsExpandable's walk, a third one (``$`` only, either bracket, whole
when the count is back at nought): whether a text is to be expanded at all.

:func:`naked` is the question cf-agent asks before it, where one whole reference is
all a value may be (IsNakedVar): ``${a $(b)}`` is one, ``$(a}`` is not.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    Verdict = tuple[bool, bool]

BROKEN = "Broken variable syntax or bracket mismatch in string ({})"
BROKEN_SCALAR = "Broken scalar variable syntax or bracket mismatch in '{}'"

# (a plain pair, not a NamedTuple: typing imports re, which the start path never does)
_NONE = (False, False)
_WHOLE = (True, False)
_MARKS = ("$(", "${", "@(", "@{")
_SCALAR_MARKS = ("$(", "${")        # (IsCf3Scalar's)


def _first_mark(text: str, marks: tuple[str, ...] = _MARKS) -> int:
    """Where the walk starts counting: the first of ``marks``, -1: none."""
    start = -1
    for mark in marks:
        at = text.find(mark)
        if at >= 0 and (start < 0 or at < start):
            start = at
    return start


def walk(text: str, marks: tuple[str, ...] = _MARKS) -> Verdict:
    """Both verdicts of IsCf3VarString on ``text`` (see the module docstring): whether
    it holds a whole reference (its result), and whether it says :data:`BROKEN` (a
    reference left open); never both.  ``marks``: those that start the walk."""
    start = _first_mark(text, marks)
    if start < 0:
        return _NONE        # (most texts: nothing is counted before the first mark)
    depth = 0
    left = right = ""
    for char in text[start + 1:]:
        if char in "({":
            left = char
            depth += 1
        elif char in ")}":
            depth -= 1
            right = char
        elif char == "/" and depth > 0:
            return _NONE
        if depth == 0 and left + right in ("()", "{}"):
            return _WHOLE           # whole: nothing after it changes the walk
    return (False, depth != 0)


def references(text: str) -> bool:
    """IsCf3VarString's result: ``text`` holds a whole ``$(...)``/``${...}``/``@(...)``."""
    if "$" not in text and "@" not in text:
        return False        # (every vars promise's name asks: most hold neither)
    return walk(text)[0]


def broken(text: str, marks: tuple[str, ...] = _MARKS) -> bool:
    """Whether IsCf3VarString says :data:`BROKEN` of ``text`` (``marks``: as
    :func:`walk`)."""
    if "$" not in text and "@" not in text:
        return False
    start = _first_mark(text, marks)
    if start < 0:
        return False
    # the walk counts every bracket after the first mark; when as many close as open
    # there, it cannot end with one open (most values read at run time: no walk)
    rest = text[start:]
    if rest.count("(") + rest.count("{") == rest.count(")") + rest.count("}"):
        return False
    return walk(text, marks)[1]


def scalar_references(text: str) -> bool:
    """IsCf3Scalar's result: ``text`` holds a whole ``$(...)``/``${...}`` (``@`` starts
    nothing); what RlistIsUnresolved asks of a call's expanded argument."""
    return "$" in text and walk(text, _SCALAR_MARKS)[0]


def broken_scalar(text: str) -> bool:
    """Whether IsCf3Scalar says :data:`BROKEN_SCALAR` of ``text``."""
    return "$" in text and broken(text, _SCALAR_MARKS)


_CLOSING = {"(": ")", "{": "}"}


def naked(text: str, marks: str = "$@") -> bool:
    """IsNakedVar: ``text`` is one reference and nothing else -- a mark of ``marks``, a
    bracket, the matching bracket last, and no bracket count back at nought before it
    (of both kinds alike: ``${a $(b)}`` is one, ``$(a)$(b)`` and ``$(a}`` are not)."""
    if len(text) < 3 or text[0] not in marks or text[-1] != _CLOSING.get(text[1]):
        return False
    depth = 0
    last = len(text) - 1
    for at, char in enumerate(text):
        if char in "({":
            depth += 1
        elif char in ")}":
            depth -= 1
            if depth == 0 and at != last:
                return False
    return depth == 0


def expandable(text: str) -> bool:
    """cf-agent's IsExpandable: ``text`` holds a balanced ``$(...)`` or ``${...}``
    (an ``@(list)`` does not count: select_class canonifies and defines it, and an input
    written so is no reason for LoadPolicyInputFiles to resolve the policy first)."""
    left = right = "x"
    dollar, bracks, found = False, 0, 0
    for i, ch in enumerate(text):
        if ch == "$":
            if text[i + 1:i + 2] in ("(", "{"):
                dollar = True
        elif ch in "({":
            if dollar:
                left, bracks = ch, bracks + 1
        elif ch in ")}":
            if dollar:
                bracks, right = bracks - 1, ch
        if dollar and bracks == 0 and (left, right) in (("(", ")"), ("{", "}")):
            found, dollar = found + 1, False
    return bracks == 0 and found > 0
