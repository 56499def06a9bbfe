"""Variable expansion in strings, and implicit list iteration ("wheels").

Expansion walks the text left to right.  At ``$(`` or ``${`` it finds the
matching close (counting nested brackets of both kinds, as cf-agent's ReferenceEnd
does), expands the inside first (so ``$(a_$(b))`` and ``$(paths[$(i)])`` work), then
resolves the reference.  A reference with no close (``a ${x``), a close of the other
kind inside (``$(a ${b)``) or nothing inside (``${}``) is broken: cf-agent's
ExpandScalar logs an error naming the rest of the text, writes an empty reference
(``${}``/``$()``) and goes on after the character that followed the bracket, so
``a ${x b`` is ``a ${} b`` (a value read at run time -- readfile(), execresult() --
is expanded so by its vars promise; :func:`segments`).  Otherwise:

* a scalar (string, int, real) or a data primitive other than null is substituted;
* a list (slist/ilist/rlist, or the primitives of a data array or object) is
  taken from the iteration bindings; if it is not bound yet and iteration is
  allowed, the expansion stops with :class:`NeedIteration` naming the list and
  its values (nulls and nested containers are skipped);
* anything undefined, or a data container outside iteration, stays as written
  and the result is marked unresolved -- except, while iterating, a reference whose
  name holds another reference (``$(a[$(k)])``, ``$($(n))``): cf-agent iterates over
  it like a list, and when its expanded name names no variable (or cannot be
  expanded) that iteration of the promise is skipped, as over an empty list;
* a JSON null is no value: while iterating it is an empty list (the promise is
  skipped), otherwise it stays as written like an undefined reference;
* a name whose index brackets do not balance (``$(a[x)``) names its variable, said
  each time it is looked up (VarRefParse, :mod:`cfpromise.eval.variables`); where the
  iteration engine ends a reference sooner than the expansion (an own bracket after an
  inner reference: ``$(sys.ipv4[canonify($(nic))])``) the engine's shorter name is the
  wheel, said and looked up mangled (``sys#ipv4[canonify(eth0``: :func:`broken_wheels`);
* a substituted value that itself holds references is substituted as it is, and
  the result is unresolved, as in cf-agent (whose vars promises expand their own
  value once more: :mod:`cfpromise.promises.vars`).

Iteration (:func:`combinations`) repeatedly "probes" a promise: each
:class:`NeedIteration` forks the bindings once per value of that list, the
first list met being the outermost loop.  Lists that depend on other lists
(``$(a[$(k)])`` where each ``a[...]`` is a list) resolve because inner
references are bound before outer ones are looked up.  An empty list yields no
combination, so a promise over an empty list does nothing, as in CFEngine.
"""
from __future__ import annotations

from cfpromise.eval.functions.api import Variable
from cfpromise.eval.variables import brackets_balance
from cfpromise.fast.memo import lru_cache  # (functools is not on the start path)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator

    # (reference text) -> (binding key, Variable) or None
    Resolver = Callable[[str], tuple[str, Variable] | None]

LIST_TYPES = frozenset({"slist", "ilist", "rlist"})


# the references maplist()/maparray()/mapdata() bind, in both bracket styles (plain text:
# a module-level re would put re on every run's start path, tests/agent/test_startup.py)
_SPECIAL = tuple(f"${o}this{name}{c}" for o, c in (("(", ")"), ("{", "}"))
                 for name in ("", ".k", ".v", ".k[1]", ".this"))


def holds_special(inner: str) -> bool:
    """Whether a reference's name holds $(this), $(this.k), $(this.v), $(this.k[1]) or
    $(this.this): the names maplist()/maparray()/mapdata() bind.  cf-agent's iteration
    engine never skips a promise for such a wheel (VarIsSpecial), so a reference
    built on one (``$(a[$(this.k)])``) stays as written instead."""
    return "$" in inner and any(ref in inner for ref in _SPECIAL)


class NeedIteration(Exception):
    def __init__(self, key: str, values: list[str]) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


def scalar_text(value: Any) -> str | None:
    """A data primitive as CFEngine prints it inside a string; None for containers
    and for JSON null, which expands to nothing (the reference stays as written and an
    iteration over a data array passes its nulls by, as cf-agent does)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        # JsonPrimitiveToString: a real as %.2f (a stored container's reals are
        # doubles: see VariableStore.set)
        return "%.2f" % value
    return None


def iterable_values(var: Variable) -> list[str] | None:
    """The values a reference to ``var`` iterates over, or None if it is not iterable."""
    if var.type in LIST_TYPES:
        # "cf_null" is an ordinary element here (CFEngine >= 3.10 iterates over it)
        return [v if isinstance(v, str) else str(v) for v in var.value]
    if var.type == "data" and isinstance(var.value, (list, dict)):
        out = []       # an object iterates over its values, as an array over its items
        items = var.value.values() if isinstance(var.value, dict) else var.value
        for item in items:
            text = scalar_text(item)
            if text is not None:
                out.append(text)
        return out
    return None


def _close(text: str, start: int, opening: str) -> int:
    """Index of the bracket closing the one at ``start``; -1 if none.  (str.find
    from bracket to bracket: most references hold no nested one.)"""
    closing = ")" if opening == "(" else "}"
    depth = 1
    i = start + 1
    find = text.find
    while True:
        close = find(closing, i)
        if close < 0:
            return -1
        nested = find(opening, i, close)
        if nested < 0:
            depth -= 1
            if depth == 0:
                return close
            i = close + 1
        else:
            depth += 1
            i = nested + 1


def naked_reference(text: str, sigil: str = "@") -> str | None:
    """The inside of ``text`` when it is exactly one reference ``@(...)``/``@{...}``
    (inner references allowed: ``@(a[$(k)])``); None otherwise."""
    if len(text) < 4 or text[0] != sigil or text[1] not in "({":
        return None
    if _close(text, 1, text[1]) != len(text) - 1:
        return None
    return text[2:-1]


_LEVELS = 10        # cf-agent's MAX_VARIABLE_REFERENCE_LEVELS


def unbalanced_message(name: str) -> str:
    """What cf-agent's VarRefParse says of a reference whose index brackets do not
    balance (:func:`cfpromise.eval.variables.brackets_balance`)."""
    return f"Broken variable expression, index brackets do not balance, in '{name}'"


def reference_end(text: str, start: int) -> tuple[int, str | None]:
    """The index of the bracket closing the reference at ``text[start]`` (``$(`` or
    ``${``), brackets of both kinds nested (cf-agent's ReferenceEnd); -1 when there is
    none, with the error cf-agent logs on the way (a close of the other kind, too deep)."""
    opening = text[start + 1]
    end = _close(text, start + 1, opening)
    other = "{}" if opening == "(" else "()"
    if end > 0 and other[0] not in text[start:end] and other[1] not in text[start:end]:
        return end, None            # (the usual case: one kind of bracket)
    stack = [opening]
    for i in range(start + 2, len(text)):
        char = text[i]
        if char in "({":
            if len(stack) >= _LEVELS - 1:
                return -1, ("Stack overflow in variable reference parsing. More than "
                            f"{_LEVELS} levels")
            stack.append(char)
        elif char in ")}":
            if stack[-1] != ("(" if char == ")" else "{"):
                return -1, f"Variable reference bracket mismatch '{text[start:]}'"
            stack.pop()
            if not stack:
                return i, None
    return -1, None


@lru_cache(maxsize=16384)
def segments(text: str) -> tuple[str, tuple[tuple[str, str, str], ...], tuple[str, ...]]:
    """``text`` cut where :meth:`Expander.expand` substitutes: (the text before the first
    reference, then for each top-level reference its inside, its opening bracket and the
    plain text up to the next one), and the errors cf-agent logs for its broken references
    (each written as an empty one, the character after its bracket dropped: see the
    module docstring).  The same few thousand strings are expanded tens of thousands of
    times in a run (iteration probes, passes), so the cut is made once per string.  A
    ``$`` not followed by a bracket is plain text."""
    pieces: list[str] = []
    refs: list[tuple[str, str, str]] = []
    errors: list[str] = []
    head: str | None = None
    i, n = 0, len(text)
    while i < n:
        j = text.find("$", i)
        if j < 0 or j + 1 >= n:
            pieces.append(text[i:])
            break
        opening = text[j + 1]
        if opening not in "({":
            pieces.append(text[i:j + 1])
            i = j + 1
            continue
        end, problem = reference_end(text, j)
        if end < 0 or end - j <= 2:
            if problem:
                errors.append(problem)
            errors.append(f"{'Empty variable' if end > 0 else 'Variable'} reference close "
                          f"mismatch '{text[j:]}'")
            pieces.append(text[i:j] + ("$()" if opening == "(" else "${}"))
            i = j + 3
            continue
        pieces.append(text[i:j])
        if head is None:
            head = "".join(pieces)
        else:
            refs[-1] = (refs[-1][0], refs[-1][1], "".join(pieces))
        pieces = []
        refs.append((text[j + 2:end], opening, ""))
        i = end + 1
    rest = "".join(pieces)
    if head is None:
        return rest, (), tuple(errors)
    refs[-1] = (refs[-1][0], refs[-1][1], rest)
    return head, tuple(refs), tuple(errors)


def holds_broken(text: str) -> bool:
    """Whether expanding ``text`` meets a broken reference, at its top or inside a
    reference's name (``$(a ${})``)."""
    if "$" not in text:
        return False
    _head, refs, broken = segments(text)
    return bool(broken) or any(holds_broken(inner) for inner, _o, _t in refs)


def _dollar_paren(text: str, start: int, stop: int) -> int:
    """The first ``$(``/``${`` in text[start:stop] (its bracket may be at ``stop``), else
    ``stop`` (cf-agent's FindDollarParen)."""
    while True:
        j = text.find("$", start, stop)
        if j < 0:
            return stop
        if text[j + 1:j + 2] in ("(", "{"):
            return j
        start = j + 1


def _open_variable(text: str, start: int, opening: str, out: list[str],
                   wheels: list[str], broken: list[str]) -> int:
    """cf-agent's ProcessVar: where the reference whose name starts at ``start`` ends --
    the first close of its kind after its nested references -- or len(text), said once.
    A name that closes although a reference inside it does not (``$(a ${b)``), or whose
    inner reference is broken (``$(a ${})``), goes to ``wheels``; a name holding a reference whose index brackets do not balance goes to
    ``broken``, as the iteration engine looks it up (:func:`broken_wheels`)."""
    closing = ")" if opening == "(" else "}"
    n = len(text)
    end = text.find(closing, start)
    end = n if end < 0 else end
    nested = _dollar_paren(text, start, end)
    left_open = False
    while nested < end:
        inner_end = _open_variable(text, nested + 2, text[nested + 1], out, wheels,
                                   broken)
        if inner_end >= n:
            left_open = True
            break           # (its own first close still ends it, or nothing does)
        end = text.find(closing, inner_end + 1)
        end = n if end < 0 else end
        nested = _dollar_paren(text, inner_end + 1, end)
    if end >= n:
        out.append(f"No closing '{closing}' found for variable: {text[start:]}")
        return end
    name = text[start:end]
    if "[" in name and not brackets_balance(name):
        out.append(unbalanced_message(name))   # (ShouldAddVariableAsIterationWheel's look)
        if _dollar_paren(name, 0, len(name)) < len(name):
            broken.append(_mangled(name))
    if left_open or "$" in name and _dollar_paren(name, 0, len(name)) < len(name) \
            and segments(name)[2]:
        wheels.append(name)     # (or a name whose inner reference is broken: ``$(a ${})``)
    return end


def _mangled(name: str) -> str:
    """cf-agent's MangleVarRefString: in the part of a wheel's name before its first
    ``[`` or reference, a namespace's ``:`` is ``*`` and a scope's ``.`` is ``#``
    (unless the scope part starts with ``this``)."""
    upto = min(_dollar_paren(name, 0, len(name)), len(name))
    bracket = name.find("[", 0, upto)
    upto = upto if bracket < 0 else bracket
    colon = name.find(":", 0, upto)
    rest = 0
    if colon >= 0:
        name, rest = f"{name[:colon]}*{name[colon + 1:]}", colon + 1
    dot = name.find(".", rest, upto)
    if dot >= 0 and not name.startswith("this", rest):
        name = f"{name[:dot]}#{name[dot + 1:]}"
    return name


@lru_cache(maxsize=4096)
def _wheel_end(inner: str, opening: str) -> int:
    """Where the iteration engine's ProcessVar ends a reference whose expansion reads
    ``inner`` (the first close of its kind after its inner references), or -1 when it
    ends where the expansion does."""
    end = _open_variable(inner + (")" if opening == "(" else "}"), 0, opening, [], [], [])
    return end if end < len(inner) and "$" in inner[:end] else -1


@lru_cache(maxsize=4096)
def _iteration_scan(texts: tuple[str, ...]
                    ) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    errors: list[str] = []
    wheels: list[str] = []
    broken: list[str] = []
    for text in texts:
        n = len(text)
        start = _dollar_paren(text, 0, n)
        while start < n:
            end = _open_variable(text, start + 2, text[start + 1], errors, wheels, broken)
            if end >= n:
                break
            start = _dollar_paren(text, end, n)
    for name in wheels:         # (ExpandAndPutWheelVariablesAfter expands each name)
        errors.extend(segments(name)[2])
    return tuple(errors), tuple(wheels), tuple(dict.fromkeys(broken))


def broken_wheels(texts: tuple[str, ...]) -> tuple[str, ...]:
    """The names holding a reference whose index brackets do not balance in a promise's
    texts (``$(sys.ipv4[canonify($(nic))])`` names ``sys.ipv4[canonify($(nic)`` to the
    iteration engine), mangled: cf-agent expands each with every iteration's bindings
    and looks it up so (IterVariableGet), saying "Broken variable expression" of the
    expanded, mangled name (``sys#ipv4[canonify(eth0``)."""
    return _iteration_scan(texts)[2]


def empty_wheel(texts: tuple[str, ...]) -> bool:
    """Whether the iteration engine skips a promise with these texts whatever the
    variables hold (a wheel whose name holds a reference left open: see
    :func:`prepare_iteration`), saying nothing."""
    return bool(_iteration_scan(texts)[1])


def prepare_iteration(texts: tuple[str, ...], log: Callable[[str, str], None]) -> bool:
    """What cf-agent's iteration engine says of the references left open in a promise's
    texts each time the promise is evaluated, and whether it goes on (False: nothing of
    the promise is done).  PromiseIteratorPrepare looks for the first close of the same
    kind only, so ``$(a ${b)`` is "No closing '}' found for variable: b)"; a name that
    closes although a reference inside it does not (``a ${b``), or holding a broken one
    (``a ${}``), is a wheel, as a name holding a reference, whose expansion ("Variable
    reference close mismatch '${b'") names no variable, so the promise is not done at all (IteratorHasEmptyWheel)."""
    errors, wheels, _broken = _iteration_scan(texts)
    for message in errors:
        log("error", message)
    return not wheels


class Expander:
    """Expands strings against a resolver and the current iteration bindings; ``log``
    (level, message), when given, hears of broken references."""

    __slots__ = ("resolve", "bindings", "iterate", "unresolved", "active", "log", "broken")

    def __init__(self, resolve: Resolver, bindings: dict[str, str] | None = None,
                 iterate: bool = False, log: Callable[[str, str], None] | None = None) -> None:
        self.resolve = resolve
        self.bindings = bindings or {}
        self.iterate = iterate
        self.unresolved = False
        self.active: set[str] = set()     # variables being expanded (self-reference guard)
        self.log = log
        self.broken = False     # a broken reference was written as an empty one

    def expand(self, text: str) -> str:
        if "$" not in text:
            return text
        head, refs, broken = segments(text)
        if broken:
            self.unresolved = True          # (an empty reference written in its place)
            self.broken = True
            if self.log is not None:
                for message in broken:
                    self.log("error", message)
        if not refs:
            return head
        out = [head]
        for inner, opening, tail in refs:
            out.append(self._reference(inner, opening))
            out.append(tail)
        return "".join(out)

    def _shorter_wheel(self, inner: str, opening: str) -> str | None:
        """For a reference whose name holds another one and a bracket of its own kind
        (``$(sys.ipv4[canonify($(nic))])``), where cf-agent's iteration engine ends it
        sooner than its expansion does: the engine's wheel (``sys.ipv4[canonify($(nic)``)
        is expanded and looked up -- while iterating, the promise is skipped when it
        names no variable -- and the name the expansion reads, its scope mangled in
        place by the engine (``sys#ipv4[canonify(eth0)]``), is no wheel; None when
        the two end alike."""
        end = _wheel_end(inner, opening)
        if end < 0:
            return None
        before = self.unresolved
        name = self.expand(_mangled(inner[:end]))
        self.unresolved = before
        if self.resolve(name) is None and self.iterate and not holds_special(inner):
            closing = ")" if opening == "(" else "}"
            raise NeedIteration(f"${opening}{inner}{closing}", [])   # names no variable
        return _mangled(inner)

    def _reference(self, inner: str, opening: str) -> str:
        closing = ")" if opening == "(" else "}"
        before = self.unresolved
        wheel = "$" in inner
        if wheel:
            shorter = self._shorter_wheel(inner, opening)
            if shorter is not None:
                inner, wheel = shorter, False
        name = self.expand(inner) if "$" in inner else inner
        if self.unresolved and not before:
            if self.iterate and wheel and not holds_special(inner):
                raise NeedIteration(f"${opening}{inner}{closing}", [])   # no such name
            return f"${opening}{name}{closing}"
        if wheel and "[" in name and not brackets_balance(name):
            name = _mangled(name)       # (a wheel's name: see broken_wheels)
        found = self.resolve(name)
        if found is None:
            if self.iterate and wheel and not holds_special(inner):
                raise NeedIteration(f"${opening}{inner}{closing}", [])   # names no variable
            self.unresolved = True
            return f"${opening}{name}{closing}"
        key, var = found
        if var.type in LIST_TYPES or (var.type == "data" and isinstance(var.value, (list, dict))):
            if key in self.bindings:
                return self.bindings[key]
            values = iterable_values(var)
            if values is not None and self.iterate:
                raise NeedIteration(key, values)
            source = getattr(var.value, "source", None)    # a body's @(list) argument
            if source:
                return source
            if var.type == "data":
                self.unresolved = True
                return f"${opening}{name}{closing}"
            self.unresolved = True
            return f"${opening}{name}{closing}"
        if var.type == "data":
            if var.value is None and self.iterate:
                # cf-agent iterates over a data reference; a null gives no value at
                # all, so the promise is skipped (as over an empty list)
                raise NeedIteration(key, [])
            text = scalar_text(var.value)
            if text is None or ("$(" in text or "${" in text) and not holds_special(text):
                self.unresolved = True          # (a value holding references: as is)
                if text is None:
                    return f"${opening}{name}{closing}"
            return text
        value = var.value
        if not isinstance(value, str):
            return str(value)
        if "$(" in value or "${" in value:
            if not holds_special(value):
                # cf-agent substitutes a value as it is: a reference it holds is not
                # expanded where the value is used (only a vars promise's own value is
                # expanded once more, promises/vars.py), and leaves the text unresolved
                self.unresolved = True
            elif key not in self.active and len(self.active) < 20:
                # a template of maplist()/maparray()/mapdata() ("key = $(this.k)"):
                # expanded where the function binds $(this...), what does not resolve
                # there staying as written, no list inside starting an iteration
                self.active.add(key)
                unresolved, iterate = self.unresolved, self.iterate
                self.iterate = False
                try:
                    value = self.expand(value)
                finally:
                    self.active.discard(key)
                    self.unresolved, self.iterate = unresolved, iterate
        return value

    def scan(self, text: str) -> None:
        """What :meth:`expand` of ``text`` does to this expander -- the same
        :class:`NeedIteration` for the same list, ``unresolved`` set alike -- without
        building the text: iteration probes ask only which lists a promise meets
        (:func:`combinations`).  Inner references (``$(a[$(k)])``) are expanded as usual."""
        if "$" not in text:
            return
        _head, refs, broken = segments(text)
        if broken:
            self.unresolved = True
        for inner, opening, _tail in refs:
            self._scan_reference(inner, opening)

    def _scan_reference(self, inner: str, opening: str) -> None:
        """:meth:`_reference` for :meth:`scan`, step for step, less the text it returns."""
        before = self.unresolved
        wheel = "$" in inner
        if wheel:
            shorter = self._shorter_wheel(inner, opening)
            if shorter is not None:
                inner, wheel = shorter, False
        name = self.expand(inner) if "$" in inner else inner
        if self.unresolved and not before:
            if self.iterate and wheel and not holds_special(inner):
                raise NeedIteration(f"$({inner})", [])      # no such name: skipped
            return
        if wheel and "[" in name and not brackets_balance(name):
            name = _mangled(name)
        found = self.resolve(name)
        if found is None:
            if self.iterate and wheel and not holds_special(inner):
                raise NeedIteration(f"$({inner})", [])      # names no variable: skipped
            self.unresolved = True
            return
        key, var = found
        if var.type in LIST_TYPES or (var.type == "data" and isinstance(var.value, (list, dict))):
            if key in self.bindings:
                return
            values = iterable_values(var)
            if values is not None and self.iterate:
                raise NeedIteration(key, values)
            if not getattr(var.value, "source", None):
                self.unresolved = True
            return
        if var.type == "data":
            if var.value is None and self.iterate:
                raise NeedIteration(key, [])
            text = scalar_text(var.value)
            if text is None or ("$(" in text or "${" in text) and not holds_special(text):
                self.unresolved = True
        elif isinstance(var.value, str) and ("$(" in var.value or "${" in var.value) \
                and not holds_special(var.value):
            self.unresolved = True


def promise_probe(texts: tuple[str, ...], expander: Callable[..., Expander],
                  log: Callable[[str, str], None]) -> Callable[[dict[str, str]], None]:
    """The probe :func:`combinations` runs over a promise's texts: each scanned by an
    iterating ``expander(bindings, iterate=True)``; once an iteration's lists are all
    bound (it goes on, or is skipped), each of :func:`broken_wheels` is said as cf-agent's
    iteration engine looks it up, expanded with those bindings."""
    broken = broken_wheels(texts)

    def say(bindings: dict[str, str]) -> None:
        exp = expander(bindings)
        for name in broken:
            log("error", unbalanced_message(exp.expand(name)))

    def probe(bindings: dict[str, str]) -> None:
        exp = expander(bindings, iterate=True)
        if not broken:
            for text in texts:
                exp.scan(text)
            return
        try:
            for text in texts:
                exp.scan(text)
        except NeedIteration as need:
            if need.values:
                raise           # (not yet one iteration: its lists are not all bound)
            say(bindings)
            raise
        say(bindings)
    return probe


def combinations(probe: Callable[[dict[str, str]], None]) -> Iterator[dict[str, str]]:
    """Every binding of the lists ``probe`` meets (see the module docstring)."""
    stack: list[dict[str, str]] = [{}]
    while stack:
        bindings = stack.pop()
        try:
            probe(bindings)
        except NeedIteration as need:
            for value in reversed(need.values):
                child = dict(bindings)
                child[need.key] = value
                stack.append(child)
            continue
        yield bindings
