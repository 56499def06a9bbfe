"""A small in-memory FunctionContext for testing the built-in functions.

Variables live in a dict keyed by their qualified name (``default:t.x``,
``default:t.a[k]``), classes in a dict of tags; ``expand`` handles
``$(name)``/``${name}`` (innermost first, data containers indexed with
``[key]``), ``evaluate`` takes plain text, AST scalars and nested calls, so lazy
built-ins (maplist, mapdata...) can be driven the way the engine drives them.
"""
from __future__ import annotations

from cfpromise.eval.functions import REGISTRY
from cfpromise.eval.functions.api import FunctionError, Unresolved, Variable
from cfpromise.eval.functions.common import split_ref
from cfpromise.syntax import ast, classexpr

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterable, Sequence

    from cfpromise.eval.functions.api import Value


def _closing(text: str, open_at: int) -> int:
    """Index of the bracket closing the one at ``open_at`` (-1 if none)."""
    pair = {"(": ")", "{": "}"}[text[open_at]]
    depth = 0
    for j in range(open_at, len(text)):
        if text[j] == text[open_at]:
            depth += 1
        elif text[j] == pair:
            depth -= 1
            if depth == 0:
                return j
    return -1

_LIST_TYPES = ("slist", "ilist", "rlist")


def type_of(value: Any) -> str:
    if isinstance(value, (dict, bool, int, float)) or value is None:
        return "data"
    if isinstance(value, list):
        return "slist" if all(isinstance(v, str) for v in value) else "data"
    return "string"


class FakeContext:
    """Implements :class:`cfpromise.eval.functions.api.FunctionContext`."""

    def __init__(self, namespace: str = "default", bundle: str = "t",
                 workdir: str = "/tmp", dry_run: bool = False, simulate: bool = False) -> None:
        self.simulate = simulate
        self.ns = namespace
        self.bundle = bundle
        self.vars: dict[str, Variable] = {}
        self.class_table: dict[str, tuple[str, ...]] = {"any": ()}
        self._workdir = workdir
        self._cache: dict[Any, Any] = {}
        self._dry_run = dry_run
        self.bundle_list: list[tuple[str, str, str, tuple[str, ...]]] = []
        self.stack: list[dict[str, Any]] = []
        self.logs: list[tuple[str, str]] = []

    # -- setting up ---------------------------------------------------------------
    def qualify(self, name: str) -> str:
        ns, scope, lval, indices = split_ref(name)
        if scope is None:
            ns, scope = ns or self.ns, self.bundle
        elif ns is None:
            ns = "default"
        return f"{ns}:{scope}.{lval}" + "".join(f"[{i}]" for i in indices)

    def set(self, name: str, value: Any, type: str | None = None,
            tags: Sequence[str] = ()) -> None:
        self.vars[self.qualify(name)] = Variable(type or type_of(value), value, tuple(tags))

    def define(self, *names: str, tags: Sequence[str] = ()) -> None:
        for n in names:
            self.class_table[n] = tuple(tags)

    # -- FunctionContext: variables ----------------------------------------------------
    def lookup(self, name: str) -> Variable | None:
        name = name.strip()
        full = self.qualify(name)
        if full in self.vars:
            return self.vars[full]
        ns, scope, lval, indices = split_ref(full)
        base = f"{ns}:{scope}.{lval}"
        for cut in range(len(indices), -1, -1):
            key = base + "".join(f"[{i}]" for i in indices[:cut])
            var = self.vars.get(key)
            if var is None or var.type != "data":
                continue
            value: Any = var.value
            for index in indices[cut:]:
                if isinstance(value, dict) and index in value:
                    value = value[index]
                elif isinstance(value, list) and index.isdigit() and int(index) < len(value):
                    value = value[int(index)]
                else:
                    return None
            if isinstance(value, (dict, list)):
                return Variable("data", value)
            if value is None:
                return None
            from cfpromise.eval.functions.jsondata import prim_text
            return Variable("string", prim_text(value))
        return None

    def variables(self) -> Iterable[tuple[str, Variable]]:
        return list(self.vars.items())

    def _resolve(self, name: str, extra: dict[str, Value] | None) -> Any:
        if extra is not None and name in extra:
            return extra[name]
        var = self.lookup(name)
        return None if var is None else var.value

    def expand(self, text: str, extra: dict[str, Value] | None = None) -> str | None:
        """``$(...)``/``${...}`` replaced, inner references first; values are
        not expanded again.  None if a reference does not resolve."""
        out: list[str] = []
        i = 0
        while i < len(text):
            if text[i] == "$" and text[i + 1:i + 2] in ("(", "{"):
                end = _closing(text, i + 1)
                if end < 0:
                    out.append(text[i:])
                    break
                name = self.expand(text[i + 2:end], extra)
                if name is None:
                    return None
                value = self._resolve(name, extra)
                if value is None or isinstance(value, list):
                    return None
                if isinstance(value, dict):
                    from cfpromise.eval.functions.jsondata import dumps
                    value = dumps(value, pretty=False)
                out.append(str(value))
                i = end + 1
                continue
            out.append(text[i])
            i += 1
        return "".join(out)

    def expand_list(self, name: str) -> list[str] | None:
        var = self.lookup(name)
        return list(var.value) if var is not None and isinstance(var.value, list) else None

    def evaluate(self, arg: Any, extra: dict[str, Value] | None = None) -> Value:
        if isinstance(arg, str):
            return self.expand(arg, extra)
        if isinstance(arg, ast.Scalar):
            if arg.kind == ast.NAKED and arg.value.startswith("@"):
                return self.expand_list(arg.value[2:-1])
            return self.expand(arg.value, extra)
        if isinstance(arg, ast.List):
            return [self.evaluate(i, extra) for i in arg.items]
        if isinstance(arg, ast.FnCall):
            builtin = REGISTRY.get(arg.name)
            assert builtin is not None, arg.name
            if builtin.lazy:
                return builtin.impl(self, list(arg.args))
            values = [self.evaluate(a, extra) for a in arg.args]
            if any(v is None for v in values):
                return None
            return builtin.impl(self, values)
        raise TypeError(f"cannot evaluate {arg!r}")

    def define_variable(self, name: str, type: str, value: Any,
                        tags: tuple[str, ...] = ()) -> None:
        self.vars[self.qualify(name)] = Variable(type, value, tuple(tags))

    # -- classes ---------------------------------------------------------------------------
    def class_defined(self, name: str) -> bool:
        return name in self.class_table

    def eval_class_expr(self, expr: str) -> bool:
        # (as EvalContext's: a text that is no class expression, ``$(x)``, never holds)
        try:
            return classexpr.evaluate(classexpr.parse(expr), self.class_defined)
        except classexpr.ClassExprError:
            return False

    def classes(self) -> Iterable[tuple[str, tuple[str, ...]]]:
        return list(self.class_table.items())

    def define_class(self, name: str, tags: tuple[str, ...] = (),
                     scope: str = "namespace") -> None:
        self.class_table[name] = tuple(tags)

    def undefine_class(self, name: str) -> None:
        self.class_table.pop(name, None)

    # -- the run ---------------------------------------------------------------------------
    @property
    def namespace(self) -> str:
        return self.ns

    @property
    def bundle_name(self) -> str:
        return self.bundle

    @property
    def workdir(self) -> str:
        return self._workdir

    @property
    def policy_file(self) -> str:
        return "/tmp/policy.cf"

    @property
    def cache(self) -> dict[Any, Any]:
        return self._cache

    @property
    def dry_run(self) -> bool:
        return self._dry_run

    def bundles(self) -> Iterable[tuple[str, str, str, tuple[str, ...]]]:
        return list(self.bundle_list)

    def callstack(self) -> list[dict[str, Any]]:
        return list(self.stack)

    def log(self, level: str, message: str) -> None:
        self.logs.append((level, message))

    # -- calling ---------------------------------------------------------------------------
    def call(self, name: str, *args: Any) -> Value:
        """Call the built-in ``name`` as the evaluator would (arguments given
        already expanded, or as written for lazy built-ins)."""
        builtin = REGISTRY.get(name)
        if builtin is None:
            raise KeyError(name)
        return builtin.impl(self, list(args))


__all__ = ["FakeContext", "FunctionError", "Unresolved"]
