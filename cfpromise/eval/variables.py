"""Variable storage and CFEngine's reference rules.

Every variable lives under a fully qualified key ``ns:scope.name`` where the
scope is a bundle name or a special scope (sys, const, this, match, mon, def,
edit).  Array elements are variables too: ``paths[bin]`` is stored as the key
``ns:scope.paths[bin]``; an index remembers the elements of each array so that
``getindices("paths")`` is cheap.

A reference as policy writes it (``x``, ``b.x``, ``ns:b.x``, ``a[k]``,
``d[k][0]``) resolves relative to the current namespace and bundle.  An indexed
reference is tried as an array element first, then as a walk into a data
container (``d[k][0]`` on ``data`` d), so both classic arrays and containers work.
"""
from __future__ import annotations

from cfpromise.eval.cmap import CMap, varref_hash
from cfpromise.eval.functions.api import Variable
from cfpromise.fast.memo import lru_cache  # (functools is not on the start path)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterator, Sequence

SPECIAL_SCOPES = frozenset({"sys", "const", "this", "match", "mon", "def", "edit", "connection"})
# scopes cf-agent keeps out of its global variable table (a promise's, a bundle's or a
# body's own table, or the match table): they take no part in its order
_LOCAL_SCOPES = frozenset({"this", "match", "edit", "body", "connection"})


def split_indices(name: str) -> tuple[str, list[str]]:
    """``a[k1][k2]`` -> (``a``, [k1, k2]); brackets inside an index are balanced."""
    pos = name.find("[")
    if pos < 0 or not name.endswith("]"):
        return name, []
    base, rest = name[:pos], name[pos:]
    indices: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(rest):
        if ch == "[":
            if depth == 0:
                start = i + 1
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                indices.append(rest[start:i])
            if depth < 0:
                return name, []
        elif depth == 0:
            return name, []          # text between ] and [: not an index chain
    if depth != 0:
        return name, []
    return base, indices


@lru_cache(maxsize=16384)
def split_index_tuple(name: str) -> tuple[str, tuple[str, ...]]:
    """:func:`split_indices` with the indices as a tuple, remembered per name: a run
    stores and looks up the same array element names thousands of times."""
    base, indices = split_indices(name)
    return base, tuple(indices)


def json_copy(value: Any) -> Any:
    """libntech's JsonCopy (also :func:`cfpromise.eval.functions.jsondata.copy`; it lives
    here because jsondata imports re, kept off the start path): a deep copy whose reals
    (jsondata.Real keeps its source text) are plain doubles again and whose integers
    keep 32 bits; an integer written with an exponent (jsondata.ExpInteger) exits."""
    if isinstance(value, dict):
        return {k: json_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_copy(v) for v in value]
    if isinstance(value, float):
        if getattr(value, "integer", False):      # (1e3: an integer to libntech)
            from cfpromise.agent.abort import ConversionExit
            raise ConversionExit(value.text)     # type: ignore[attr-defined]
        return float(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return (value + 2**31) % 2**32 - 2**31
    return value


def join_indices(base: str, indices: Sequence[str]) -> str:
    return base + "".join(f"[{i}]" for i in indices)


def brackets_balance(ref: str) -> bool:
    """Whether the index brackets of a reference balance, counted from its first ``[``
    to its end (cf-agent 3.21's IndexBracketsBalance, reached by every VarRefParse):
    when they do not, cf-agent says "Broken variable expression, index brackets do not
    balance" and the reference names its variable without any index (``$(a[x)`` is
    ``$(a)``, ``$(a]x[)`` is the variable ``a]x``)."""
    at = ref.find("[")
    return at < 0 or ref.count("[", at) == ref.count("]", at)


def parse_ref(ref: str, namespace: str, bundle: str) -> tuple[str, str, str]:
    """(namespace, scope, name) of a reference written in ``namespace:bundle`` (a name
    whose index brackets do not balance is its variable's: :func:`brackets_balance`)."""
    if not brackets_balance(ref):
        # (a wheel's name as the iteration engine mangles it, ``ns*scope#name[``, is
        # read with its own separators)
        head = ref[:ref.index("[")]
        if "#" in head:
            head = head.replace("*", ":", 1).replace("#", ".", 1)
        return parse_ref(head, namespace, bundle)
    ns, head, explicit = namespace, ref, False
    bracket = ref.find("[")
    colon = ref.find(":")
    if colon > 0 and (bracket < 0 or colon < bracket):
        ns, head, explicit = ref[:colon], ref[colon + 1:], True
    bracket = head.find("[")
    dot = head.find(".")
    if dot > 0 and (bracket < 0 or dot < bracket):
        scope, name = head[:dot], head[dot + 1:]
        if scope in SPECIAL_SCOPES and not explicit:
            ns = "default"
        return ns, scope, name
    return ns, bundle, head


def index_data(value: Any, indices: Sequence[str]) -> Any:
    """Walk ``indices`` into a data container; KeyError when a step is missing."""
    for idx in indices:
        if isinstance(value, dict):
            value = value[idx]
        elif isinstance(value, list):
            try:
                value = value[int(idx)]
            except (ValueError, IndexError):
                raise KeyError(idx) from None
        else:
            raise KeyError(idx)
    return value


def data_type_of(value: Any) -> str:
    return "data"


def same_variable(old: Variable, new: Variable) -> bool:
    """Whether storing ``new`` over ``old`` changes nothing anyone could see: same type,
    tags and value, down to the Python types and the key order of containers (a
    data container's order shows in its JSON)."""
    return old.type == new.type and old.tags == new.tags and _same(old.value, new.value)


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    # a == b first (fast, in C); then what it does not see: 1 == True == 1.0, key order
    # (a str equal to something is a str)
    if isinstance(a, dict):
        return a == b and list(a) == list(b) and all(
            type(v) is str or _same(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return a == b and all(type(x) is str or _same(x, y) for x, y in zip(a, b))
    return bool(a == b)


class VariableStore:
    """All variables of a run."""

    def __init__(self) -> None:
        self.vars: dict[str, Variable] = {}
        # "ns:scope.base" -> {index-path tuple: None}, in definition order
        self.arrays: dict[str, dict[tuple[str, ...], None]] = {}
        # names holding "[" that are not an index chain (a[x]y): the arrays index does
        # not cover them, so array_entries() leaves such a store to a full scan
        self.irregular: set[str] = set()
        # bumped by every change (a new variable, a different value, type or tags, one
        # removed): the engine's fixed-point test (cfpromise.agent.settle) compares it
        self.changes = 0
        # cf-agent's global variable table as a libntech map of the same keys, inserted
        # and removed in the same order: the order functions walking it return
        self.table = CMap()

    def _table_insert(self, key: str, ns: str, scope: str, name: str) -> None:
        if scope in _LOCAL_SCOPES:
            return
        base, indices = split_index_tuple(name)
        self.table.insert(key, varref_hash(ns, scope, base, indices))

    def table_order(self, keys: Sequence[str]) -> list[str]:
        """``keys`` (qualified names) in cf-agent's variable table order; keys it does not
        hold keep their order, after the others."""
        held = [k for k in keys if k in self.table]
        if len(held) == len(keys):
            return self.table.order(keys)  # type: ignore[return-value]
        rest = [k for k in keys if k not in self.table]
        return self.table.order(held) + rest  # type: ignore[operator]

    def table_keys(self) -> list[str]:
        """Every variable of cf-agent's global table, in its order."""
        return list(self.table)  # type: ignore[arg-type]

    @staticmethod
    def key(ns: str, scope: str, name: str) -> str:
        return f"{ns}:{scope}.{name}"

    def set(self, ns: str, scope: str, name: str, var: Variable) -> None:
        if var.type == "data" and isinstance(var.value, (dict, list)):
            # cf-agent stores a copy of every container (EvalContextVariablePut's
            # RvalCopy, libntech's JsonCopy): a real read from JSON text is a double
            # again ("$(d[r])" of 2.5 is 2.50), an integer is cut to 32 bits
            var = Variable("data", json_copy(var.value), var.tags)
        key = self.key(ns, scope, name)
        old = self.vars.get(key)
        if old is None or not same_variable(old, var):
            self.changes += 1
            if old is None:
                self._table_insert(key, ns, scope, name)
        self.vars[key] = var
        if "[" in name:
            base, indices = split_index_tuple(name)
            if indices:
                self.arrays.setdefault(self.key(ns, scope, base), {})[indices] = None
            else:
                self.irregular.add(key)

    def array_entries(self, qualified: str, itself: bool = False
                      ) -> list[tuple[str, Variable]] | None:
        """The variables under ``qualified[`` (``ns:scope.name`` or ``ns:scope.name[i]``),
        and with ``itself`` ``qualified`` too when it is a variable, in cf-agent's table
        order, as a scan of every variable for that prefix finds them;
        None when only such a scan can tell.  getindices(), getvalues() and the
        collecting functions ask this for classic arrays: masterfiles calls them a
        few hundred times over some ten thousand variables."""
        if self.irregular:
            return None
        base, lead = split_indices(qualified)
        if "[" in qualified and not lead:
            return None
        paths = self.arrays.get(base)
        found: list[str] = [qualified] if itself and qualified in self.vars else []
        if not paths:
            return [(full, self.vars[full]) for full in found]
        n = len(lead)
        lead_t = tuple(lead)
        for path in paths:
            if len(path) > n and path[:n] == lead_t:
                full = base + "".join([f"[{i}]" for i in path])
                if full in self.vars:
                    found.append(full)
        # in cf-agent's table order (the order its functions walk an array in)
        return [(full, self.vars[full]) for full in self.table_order(found)]

    def remove(self, ns: str, scope: str, name: str) -> None:
        key = self.key(ns, scope, name)
        removed = self.vars.pop(key, None) is not None
        if removed:
            self.changes += 1
            self.table.remove(key)
        if removed and "[" in name:
            base, indices = split_indices(name)
            if indices:
                self.arrays.get(self.key(ns, scope, base), {}).pop(tuple(indices), None)
            else:
                self.irregular.discard(key)

    def clear_arrays(self, ns: str, scope: str) -> None:
        """Forget the classic array elements (``name[k]``) of a scope: cf-agent does this
        each time a bundle is called (a methods call); its other variables stay.  It
        removes them as it walks its table, and a removal that shrinks the table makes
        the walk miss some, which stay defined (:meth:`CMap.sweep`): so here too."""
        prefix = f"{ns}:{scope}."
        doomed: dict[str, tuple[str, tuple[str, ...]]] = {}
        for base in [k for k in self.arrays if k.startswith(prefix)]:
            for path in self.arrays[base]:
                doomed[self.key(ns, scope, join_indices(base[len(prefix):], list(path)))] = \
                    (base, path)
        if not doomed:
            return
        held = {k for k in doomed if k in self.table}
        gone = self.table.sweep(held) if held else []   # type: ignore[arg-type]
        gone += [k for k in doomed if k not in held]
        for key in gone:
            base, path = doomed[key]  # type: ignore[index]
            if self.vars.pop(key, None) is not None:  # type: ignore[arg-type]
                self.changes += 1
            paths = self.arrays.get(base)
            if paths is not None:
                paths.pop(path, None)
                if not paths:
                    del self.arrays[base]

    def get(self, ns: str, scope: str, name: str) -> Variable | None:
        """A variable or an element reached through array elements / data indices."""
        found = self.vars.get(self.key(ns, scope, name))
        if found is not None:
            return found
        base, indices = split_index_tuple(name)
        if not indices:
            return None
        for cut in range(len(indices) - 1, -1, -1):
            holder = self.vars.get(self.key(ns, scope, join_indices(base, indices[:cut])))
            if holder is None:
                continue
            if holder.type != "data":
                return None
            try:
                value = index_data(holder.value, indices[cut:])
            except KeyError:
                return None
            return Variable("data", value, holder.tags)
        return None

    def array_indices(self, ns: str, scope: str, name: str) -> list[str] | None:
        """First-level indices of the classic array ``name`` (maybe itself indexed)."""
        base, indices = split_indices(name)
        entries = self.arrays.get(self.key(ns, scope, base))
        if not entries:
            return None
        depth = len(indices)
        out: dict[str, None] = {}
        for path in entries:
            if len(path) > depth and list(path[:depth]) == indices:
                out[path[depth]] = None
        return list(out) if out else None

    def items(self) -> Iterator[tuple[str, Variable]]:
        return iter(self.vars.items())

    def ordered_items(self) -> list[tuple[str, Variable]]:
        """Every variable, those of cf-agent's global table first in its order."""
        vars_ = self.vars
        out = [(k, vars_[k]) for k in self.table]  # type: ignore[index]
        if len(out) < len(vars_):
            out.extend((k, v) for k, v in vars_.items() if k not in self.table)
        return out  # type: ignore[return-value]

    def scope_items(self, ns: str, scope: str) -> Iterator[tuple[str, Variable]]:
        prefix = f"{ns}:{scope}."
        for key, var in self.vars.items():
            if key.startswith(prefix):
                yield key[len(prefix):], var
