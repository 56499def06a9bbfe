"""The contract between the evaluator and the built-in functions.

Values, as the evaluator holds them:

* string, int and real values are ``str`` (CFEngine keeps numbers as text:
  ``"12"``, ``"1.500000"``);
* slist, ilist and rlist values are ``list[str]``;
* data containers are plain JSON values (dict, list, str, int, float, bool, None);
* a class-returning function (return type ``context``) returns ``bool``.

A built-in is a plain function registered with :func:`builtin`::

    @builtin("canonify")
    def canonify(ctx: FunctionContext, args: Sequence[Value]) -> Value: ...

Before the call the evaluator expands every argument: variable references are
replaced, ``@(list)`` arguments arrive as ``list[str]``, nested calls as their
results.  If an argument still holds an unresolved reference the evaluator does
not call the function (the promise waits for a later pass), unless the
function is registered with ``unresolved_ok=True`` (``isvariable``, ...) or
``lazy=True`` (its arguments arrive unexpanded, as written: ``maplist``,
``ifelse``...; it expands them itself through :meth:`FunctionContext.expand`).

Errors: raise :class:`FunctionError` with CFEngine's message; the evaluator
logs it against the promise and leaves the variable/class undefined.
:class:`Unresolved` (a FunctionError) means "not yet": a lazy or
``unresolved_ok`` built-in met a reference that does not resolve, so the
promise should simply wait for a later pass, as with an unresolved argument.

Text is ``str``; byte-oriented built-ins (string_reverse of ``"é"``...) may
return text that is not valid UTF-8, carried as ``surrogateescape``
surrogates: write such values out with ``errors="surrogateescape"``.  Data
containers parsed from text keep a real number's text (a float subclass,
:class:`cfpromise.eval.functions.jsondata.Real`); built-ins that read a data
*variable* copy it first (``jsondata.copy``), as CFEngine does, after which
reals print as ``%.4f``.  A container in a string context is
``jsondata.dumps(value, pretty=False)``.
Signatures (argument count and types, return type) come from the schema
(``cfpromise/data/syntax.json``); the registry must cover every function there.

``Value`` and :class:`FunctionContext` are for type checkers only: they are defined
under ``if TYPE_CHECKING:`` (typing is not imported at run time, a one-shot program's
start-up does not pay for it), so a family module imports them the same way.
"""
from __future__ import annotations

from cfpromise.fast.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Protocol, Sequence, Union

    Value = Union[str, bool, list, dict, int, float, None]


class DataArray(list):
    """A data container's array given whole (``@(d)``) where a list may go: a list
    that remembers it is data, so that a bundle or body parameter bound to it is a
    data container (as in cf-agent), not an slist, and a collecting function reads it
    as the container it is (``storejson(@(d))``)."""


class FunctionError(Exception):
    """A built-in function failed; the message is shown against the promise."""


class FatalFunctionError(Exception):
    """An argument outside the range the function declares: cf-agent stops the run
    ("Fatal CFEngine error: In function ...")."""


class Unresolved(FunctionError):
    """The arguments cannot be resolved yet (a lazy built-in met an unresolved
    reference): like an unresolved argument, the promise waits for a later pass;
    the evaluator should not report it as an error before the last pass."""


@record
class Variable:
    """A defined variable as the evaluator stores it (a NamedTuple: made very often)."""

    type: str                      # string, int, real, slist, ilist, rlist, data
    value: Any
    tags: tuple[str, ...] = ()


if TYPE_CHECKING:
    class FunctionContext(Protocol):
        """What a built-in may ask of the evaluator (the engine implements it)."""

        # -- variables --------------------------------------------------------
        def lookup(self, name: str) -> Variable | None:
            """A variable by reference as policy writes it: ``x``, ``bundle.x``,
            ``ns:bundle.x``, ``x[key]``; relative names resolve in the calling bundle."""

        def variables(self) -> Iterable[tuple[str, Variable]]:
            """Every defined variable, named ``ns:bundle.name`` (for variablesmatching...)."""

        def expand(self, text: str, extra: dict[str, Value] | None = None) -> str | None:
            """Expand ``$(...)`` references in ``text``, ``extra`` binding names like
            ``this`` first; None if something stays unresolved."""

        def expand_list(self, name: str) -> list[str] | None:
            """``@(name)`` as a list, or None."""

        def evaluate(self, arg: Any, extra: dict[str, Value] | None = None) -> Value:
            """Evaluate one argument of a lazy built-in as the evaluator would have
            done for a normal one: ``arg`` is the argument as written (an AST rval:
            ``Scalar`` text to expand, a naked ``@(list)``, a nested ``FnCall`` to
            call, a ``List``), ``extra`` binds names such as ``this``, ``this.k``,
            ``this.v`` first.  Returns the value, or None if something stays
            unresolved.  (Plain ``str`` arguments need not come here: built-ins
            expand those with :meth:`expand`.)"""

        def define_variable(self, name: str, type: str, value: Any,
                            tags: tuple[str, ...] = ()) -> None:
            """Define or overwrite a variable on behalf of a built-in, as CFEngine's
            EvalContextVariablePut does: ``name`` as policy writes it (``x``,
            ``bundle.x``, ``ns:bundle.x``, classic array entries ``a[k]``,
            ``a[k][0]``); an unqualified name goes into the calling bundle.  ``type``
            is string, int, real, slist, ilist, rlist or data; ``tags`` are the meta
            tags (``source=function,function=regextract`` is given as
            ``("source=function", "function=regextract")``).  Used by regextract,
            getfields, read*array, parse*array, selectservers and the module
            protocol (usemodule, read_module_protocol)."""

        def define_class(self, name: str, tags: tuple[str, ...] = (),
                         scope: str = "namespace") -> None:
            """Define a soft class on behalf of a built-in (module protocol ``+``
            lines): ``name`` already canonified, ``scope`` namespace or bundle."""

        def undefine_class(self, name: str) -> None:
            """Remove a soft class (module protocol ``-`` lines); hard classes
            must be refused by the engine with an error."""

        # -- classes ----------------------------------------------------------
        def class_defined(self, name: str) -> bool: ...

        def eval_class_expr(self, expr: str) -> bool: ...

        def classes(self) -> Iterable[tuple[str, tuple[str, ...]]]:
            """Every defined class as (name, tags); namespaced classes as ``ns:name``."""

        # -- the run ----------------------------------------------------------
        @property
        def namespace(self) -> str: ...

        @property
        def bundle_name(self) -> str: ...

        @property
        def workdir(self) -> str: ...

        @property
        def policy_file(self) -> str: ...

        @property
        def cache(self) -> dict[Any, Any]:
            """Per-run cache for expensive calls (execresult, returnszero, file readers)."""

        @property
        def dry_run(self) -> bool:
            """``-n``: functions with side effects on the host must not act."""

        @property
        def simulate(self) -> bool:
            """``--simulate=diff|manifest``: cf-agent 3.21 does not call the unsafe
            functions (execresult, execresult_as_data, returnszero, usemodule) at
            all in this mode, while under ``-n`` (dry_run) it does call them.
            Built-ins read it with ``getattr(ctx, "simulate", False)``."""

        def bundles(self) -> Iterable[tuple[str, str, str, tuple[str, ...]]]:
            """Every bundle as (namespace, name, type, meta tags) for bundlesmatching."""

        def callstack(self) -> list[dict[str, Any]]:
            """Frames for callstack_callers/promisers, innermost last."""

        def log(self, level: str, message: str) -> None:
            """level: error, warning, notice, info, verbose, debug."""


@record
class Builtin:
    name: str
    impl: Callable[[FunctionContext, Sequence[Value]], Value]
    lazy: bool = False
    unresolved_ok: bool = False
    # Called at most once per run with the same arguments (CFEngine's caching).
    cached: bool = False


class Registry:
    """Name -> Builtin.  Filled by the family modules as they are imported; with an
    ``index`` (function name -> family module) a family is imported the first time
    one of its functions is asked for, so a run pays only for what its policy calls."""

    def __init__(self) -> None:
        self.table: dict[str, Builtin] = {}
        self.index: dict[str, str] = {}

    def add(self, fn: Builtin) -> None:
        if fn.name in self.table:
            raise ValueError(f"built-in {fn.name} registered twice")
        self.table[fn.name] = fn

    def get(self, name: str) -> Builtin | None:
        found = self.table.get(name)
        if found is None and name in self.index:
            import importlib
            importlib.import_module(self.index[name])
            found = self.table.get(name)
        return found


REGISTRY = Registry()


def builtin(name: str, *, lazy: bool = False, unresolved_ok: bool = False,
            cached: bool = False) -> Callable[[Callable[..., Value]], Callable[..., Value]]:
    """Register the decorated function as the built-in ``name``."""
    def register(impl: Callable[..., Value]) -> Callable[..., Value]:
        REGISTRY.add(Builtin(name, impl, lazy, unresolved_ok, cached))
        return impl
    return register


def system_functions_cached(ctx: Any) -> bool:
    """Whether system functions' results are cached for the run: yes unless ``body common
    control`` says ``cache_system_functions => "false"`` (cf-agent's switch)."""
    control = getattr(ctx, "common_control", None)
    return not (isinstance(control, dict)
                and control.get("cache_system_functions") in ("false", "no", "off"))
