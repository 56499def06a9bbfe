"""The evaluation context: variables, classes, the bundle call stack.

One :class:`EvalContext` lives for a whole agent run.  Bundles are entered and
left through :meth:`push`/:meth:`pop`; each :class:`Frame` carries the bundle's
namespace and name, its local classes (bundle-scoped classes vanish when the
bundle ends) and the promise being evaluated (for ``this``).

Class names: a class defined in the default namespace is stored bare, one in
another namespace as ``ns:name``.  An unqualified name is looked up among the
bundle's local classes (and those of callers that passed ``inherit``), then in
the bundle's namespace, then in ``default``.  Classes negated with ``-N`` can
never be defined.

The context is also the built-in functions' :class:`FunctionContext`.
"""
from __future__ import annotations

import os

from cfpromise.eval.cmap import CMap, string_hash
from cfpromise.fast import precompiled
from cfpromise.eval.expand import Expander, holds_broken, unbalanced_message
from cfpromise.eval.functions.api import Variable
from cfpromise.eval.variables import VariableStore, brackets_balance, parse_ref
from cfpromise.syntax import classexpr
from cfpromise.syntax.ast import Bundle

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable

    from cfpromise.eval.functions.api import Value


class Frame:
    """One bundle being evaluated: its local classes, ``this`` and the promise at hand.
    A plain slotted class, not attrs: it is on every run's start path (see ast.py)."""

    __slots__ = ("namespace", "bundle", "node", "local_classes", "inherits", "this",
                 "promiser", "ptype", "promise", "edit", "extra", "refs")

    def __init__(self, namespace: str, bundle: str, node: Bundle | None = None,
                 local_classes: dict[str, tuple[str, ...]] | None = None,
                 inherits: "Frame | None" = None, this: dict[str, Any] | None = None,
                 promiser: str = "", ptype: str = "", promise: Any = None, edit: Any = None,
                 extra: dict[str, Variable] | None = None) -> None:
        self.namespace = namespace
        self.bundle = bundle
        self.node = node
        self.local_classes: dict[str, tuple[str, ...]] = {} if local_classes is None else local_classes
        self.inherits = inherits          # caller frame whose local classes are visible
        self.this: dict[str, Any] = {} if this is None else this
        self.promiser = promiser
        self.ptype = ptype                # the promise type being evaluated
        self.promise = promise            # the promise being evaluated (ast.Promise)
        self.edit = edit                  # the buffer an edit_line/edit_xml bundle works on
        self.extra: dict[str, Variable] = {} if extra is None else extra   # names a built-in binds
        # the parsed references of this namespace and bundle (_scope_refs), on first use
        self.refs: dict[str, tuple[str, str, str, str]] | None = None


# (namespace, bundle) -> reference -> (namespace, scope, name, store key): a run resolves
# the same few thousand references some 20,000 times (masterfiles).  Each frame keeps
# its scope's table, so a lookup is one dict probe by the reference string.
_SCOPE_REFS: dict[tuple[str, str], dict[str, tuple[str, str, str, str]]] = {}


def _scope_refs(namespace: str, bundle: str) -> dict[str, tuple[str, str, str, str]]:
    found = _SCOPE_REFS.get((namespace, bundle))
    if found is None:
        if len(_SCOPE_REFS) > 4096:
            _SCOPE_REFS.clear()
        found = _SCOPE_REFS[(namespace, bundle)] = {}
    return found


class EvalContext:
    def __init__(self, workdir: str, policy_file: str, *, dry_run: bool = False,
                 log: Callable[[str, str], None] | None = None, simulate: bool = False) -> None:
        self.vars = VariableStore()
        self.class_table: dict[str, tuple[str, ...]] = {}
        # cf-agent's global class table as a libntech map of "ns:name" keys: the order
        # classesmatching() walks it in (kept in step with class_table, see _class_order)
        self.class_map = CMap()
        self.negated: set[str] = set()
        self.frames: list[Frame] = [Frame("default", "")]
        self._workdir = workdir
        self._policy_file = policy_file
        self._dry_run = dry_run
        self._simulate = simulate
        self._cache: dict[Any, Any] = {}
        self._log = log or (lambda level, msg: None)
        self.bundle_index: list[Bundle] = []
        self.persistent: dict[str, tuple[str, ...]] = {}
        self.last_defined = ""
        self.defined_log: list[str] = []  # every define_class key, in order (abort checks)
        self.inform = False               # -I or more verbose: some built-ins show output
        self.current_bindings: dict[str, str] = {}   # the iteration a built-in runs in
        # the promise at hand has ifelapsed 0 (action => immediate): cached functions are
        # called again rather than answered from the cache (ENT-7478; set by the engine)
        self.fresh_calls = False
        # calls made with no calling promise (a body's argument, a control body: cf-agent's
        # fp->caller is NULL): True, or the name of the function being called then
        # (cfpromise.eval.functions.common.calling)
        self.no_caller: bool | str = False
        # CFE-1915 (a vars promise naming another bundle's scope, "b.x"): the names of
        # the policy's bundles, known from the preliminary convergence on (before it,
        # none: any scope may be written), and what was written into each scope before
        # its bundle ran (removed when it runs: remove_injected)
        self.bundle_names: frozenset[str] = frozenset()
        self.injected: dict[tuple[str, str], dict[str, None]] = {}   # ordered sets
        # the function-made variables whose value holds a broken reference, by scope
        # (ordered sets): expanded again each time their bundle is entered (expand_scope)
        self.broken_values: dict[tuple[str, str], dict[str, None]] = {}
        self.comments: dict[str, str] = {}   # class name or variable key -> its promise's comment
        # bumped by every class defined anew (or with other tags) or undefined: the
        # engine's fixed-point test (cfpromise.agent.settle) compares it
        self.class_changes = 0
        # class_tree_holds' verdicts while class_changes stays as it was:
        # (id(tree), namespace) -> (tree, verdict)
        self._holds: dict[tuple[int, str], tuple[Any, bool]] = {}
        self._holds_at = 0

    # -- frames ----------------------------------------------------------------
    @property
    def frame(self) -> Frame:
        return self.frames[-1]

    def push(self, frame: Frame) -> None:
        self.frames.append(frame)

    def pop(self) -> Frame:
        return self.frames.pop()

    # -- classes ---------------------------------------------------------------
    @staticmethod
    def class_key(name: str, namespace: str) -> str:
        if ":" in name:
            ns, _, short = name.partition(":")
            return short if ns == "default" else name
        return name if namespace == "default" else f"{namespace}:{name}"

    def define_class(self, name: str, tags: tuple[str, ...] = (), scope: str = "namespace",
                     namespace: str | None = None) -> bool:
        """Define a class; False when it is negated with -N."""
        ns = namespace or self.frame.namespace
        key = self.class_key(name, ns)
        if key in self.negated or name in self.negated:
            return False
        table = self.frame.local_classes if scope == "bundle" and len(self.frames) > 1 \
            else self.class_table
        if table.get(key) != tags:
            self.class_changes += 1
        table[key] = tags
        if table is self.class_table and key not in self.class_map:
            if len(self.class_map) == len(table) - 1:
                self.class_map.insert(key, string_hash(key if ":" in key else "default:" + key))
            else:
                self._class_order()
        self.last_defined = key
        self.defined_log.append(key)
        return True

    def undefine_class(self, name: str, namespace: str | None = None) -> None:
        key = self.class_key(name, namespace or self.frame.namespace)
        if "hardclass" in self.class_table.get(key, ()):
            self._log("error", f"You cannot cancel a reserved hard class '{name}' in post-condition "
                               "classes")
            return
        if self.class_table.pop(key, None) is not None:
            self.class_changes += 1
            self.class_map.remove(key)
        for frame in self.frames:
            if frame.local_classes.pop(key, None) is not None:
                self.class_changes += 1

    def has_class_key(self, key: str) -> bool:
        """Whether the class of this exact key (as :meth:`classes_items` yields) is defined."""
        return key in self.class_table or any(key in f.local_classes for f in self.frames)

    def class_defined(self, name: str) -> bool:
        if name == "any":
            return True
        frame = self.frames[-1]
        if ":" in name:
            key = self.class_key(name, "default")
            candidates = (key,)
        elif frame.namespace == "default":
            candidates = (name,)
        else:
            candidates = (f"{frame.namespace}:{name}", name)
        walker: Frame | None = frame
        while walker is not None:
            for key in candidates:
                if key in walker.local_classes:
                    return True
            walker = walker.inherits
        for key in candidates:
            if key in self.class_table:
                return True
        return False

    def eval_class_expr(self, expr: str) -> bool:
        tree = class_tree(expr)
        if tree is None:
            # CheckClassExpression's errors (a false expression): names apart with blanks
            # only, or no expression at all where its parser starts (not "a-b": that is
            # the expression "a", nor a reference: cf-agent evaluates those to false)
            key = "class.whitespace" if spaced_names(expr) else "class.unparsable" \
                if unparsable(expr) else None
            if key is not None:
                from cfpromise.eval.functions.messages import say
                say(self, key, expr=expr)
            return False
        return classexpr.evaluate(tree, self.class_defined)

    def holds_quietly(self, expr: str) -> bool:
        """:meth:`eval_class_expr` saying nothing of an ``expr`` that is no class
        expression (an abort pattern may be a regex: cfpromise.agent.abort)."""
        tree = class_tree(expr)
        return tree is not None and classexpr.evaluate(tree, self.class_defined)

    def class_tree_holds(self, tree: classexpr.Tree | None) -> bool:
        """:meth:`eval_class_expr` of an expression already read by :func:`class_tree`.
        A promise's guard is asked again and again (each pass, the load-time walks) while
        no class changes: the verdict is kept until one does (only in a frame that sees
        no bundle-scoped class, the common case)."""
        if tree is None:
            return False
        frame = self.frames[-1]
        if frame.local_classes or frame.inherits is not None:
            return classexpr.evaluate(tree, self.class_defined)
        holds = self._holds
        if self._holds_at != self.class_changes:
            holds.clear()
            self._holds_at = self.class_changes
        key = (id(tree), frame.namespace)
        found = holds.get(key)
        if found is not None and found[0] is tree:
            return found[1]
        verdict = classexpr.evaluate(tree, self.class_defined)
        holds[key] = (tree, verdict)
        return verdict

    def classes_items(self) -> Iterable[tuple[str, tuple[str, ...]]]:
        seen: set[str] = set()
        walker: Frame | None = self.frame
        while walker is not None:
            for key, tags in walker.local_classes.items():
                if key not in seen:
                    seen.add(key)
                    yield key, tags
            walker = walker.inherits
        for key, tags in self.class_table.items():
            if key not in seen:
                yield key, tags

    # -- variables -------------------------------------------------------------
    def resolve_ref(self, ref: str) -> tuple[str, Variable] | None:
        """A reference as written in the current bundle -> (key, variable)."""
        frame = self.frames[-1]
        extra = frame.extra.get(ref) if frame.extra else None
        if extra is not None:
            return f"extra:{ref}", extra
        refs = frame.refs
        if refs is None:
            refs = frame.refs = _scope_refs(frame.namespace, frame.bundle)
        parsed = refs.get(ref)
        if parsed is None:
            if len(refs) > 65536:
                refs.clear()
            ns, scope, name = parse_ref(ref, frame.namespace, frame.bundle)
            parsed = refs[ref] = (ns, scope, name, VariableStore.key(ns, scope, name))
        ns, scope, name, key = parsed
        if "[" in ref and not brackets_balance(ref):
            self._log("error", unbalanced_message(ref))
        if scope == "this" and ns == "default":
            value = frame.this.get(name)
            if value is not None:
                return f"this.{name}", value if isinstance(value, Variable) else \
                    Variable("string", value)
            # $(this.x) that is not a promise variable is the bundle's own x (cf-agent)
            ns, scope = frame.namespace, frame.bundle
            key = VariableStore.key(ns, scope, name)
        var = self.vars.vars.get(key)
        if var is None:
            var = self.vars.get(ns, scope, name)     # array elements, data indices
            if var is None:
                return None
        return key, var

    def expander(self, bindings: dict[str, str] | None = None, iterate: bool = False) -> Expander:
        """An expander; without explicit bindings it sees those of the promise iteration
        being evaluated (so built-ins expanding their own arguments see the wheels)."""
        return Expander(self.resolve_ref, self.current_bindings if bindings is None else bindings,
                        iterate, self._log)

    def set_var(self, ns: str, scope: str, name: str, type_: str, value: Any,
                tags: tuple[str, ...] = ()) -> None:
        self.vars.set(ns, scope, name, Variable(type_, value, tags))

    def remove_injected(self, ns: str, bundle: str) -> None:
        """RemoveRemotelyInjectedVars: a bundle about to run drops the variables other
        bundles' vars promises wrote into its scope (cf-agent says so, as an error)."""
        names = self.injected.get((ns, bundle))
        if names:
            for name in names:
                if self.vars.get(ns, bundle, name) is not None:
                    # (an array element is named as its array, as cf-agent names it)
                    self._log("error", "Ignoring remotely-injected variable "
                                       f"'{name.split('[', 1)[0]}'")
                    self.vars.remove(ns, bundle, name)

    # -- FunctionContext -------------------------------------------------------
    def lookup(self, name: str) -> Variable | None:
        found = self.resolve_ref(name)
        return found[1] if found else None

    def variables(self) -> Iterable[tuple[str, Variable]]:
        """Every variable, in cf-agent's variable table order (variablesmatching())."""
        return self.vars.ordered_items()

    def array_entries(self, qualified: str, itself: bool = False
                      ) -> list[tuple[str, Variable]] | None:
        """The variables under ``qualified[`` (see VariableStore.array_entries)."""
        return self.vars.array_entries(qualified, itself)

    def _bind_extra(self, extra: dict[str, Value] | None) -> dict[str, Variable]:
        frame = self.frame
        saved = frame.extra
        if extra:
            frame.extra = dict(saved)
            for key, value in extra.items():
                frame.extra[key] = value if isinstance(value, Variable) else Variable(
                    "slist" if isinstance(value, list) else
                    "data" if isinstance(value, dict) else "string", value)
        return saved

    def expand(self, text: str, extra: dict[str, Value] | None = None) -> str | None:
        saved = self._bind_extra(extra)
        try:
            exp = self.expander()
            result = exp.expand(text)
        finally:
            self.frame.extra = saved
        return None if exp.unresolved else result

    def evaluate(self, arg: Any, extra: dict[str, Value] | None = None) -> Value:
        """A lazy built-in's argument evaluated as a normal one (None if unresolved).
        Plain values (a nested call's result) come back as they are; text is expanded."""
        from cfpromise.eval.rvals import UNRESOLVED, RvalEvaluator
        from cfpromise.syntax import ast
        if isinstance(arg, str):
            return self.expand(arg, extra)
        if not isinstance(arg, (ast.Scalar, ast.List, ast.FnCall, ast.Data)):
            return arg
        saved = self._bind_extra(extra)
        try:
            ev = RvalEvaluator(self, self.current_bindings)
            value = ev.nested(arg) if type(arg) is ast.FnCall else ev.value(arg, want_list=True)
        finally:
            self.frame.extra = saved
        return None if value is UNRESOLVED or ev.unresolved else value

    def define_variable(self, name: str, type: str, value: Any,
                        tags: tuple[str, ...] = ()) -> None:
        frame = self.frame
        ns, scope, short = parse_ref(name, frame.namespace, frame.bundle)
        self.vars.set(ns, scope, short, Variable(type, value, tags))
        self.note_broken(ns, scope, short, value)

    def note_broken(self, ns: str, scope: str, short: str, value: Any) -> None:
        """A value holding a broken reference is expanded again as its bundle is entered
        (:meth:`expand_scope`): a function's, a bundle's parameter."""
        if isinstance(value, str) and holds_broken(value):
            self.broken_values.setdefault((ns, scope), {})[short] = None

    def expand_scope(self, ns: str, scope: str, again: bool = False) -> None:
        """Entering a bundle (cf-agent's EvalContextStackPushBundleFrame, once its frame
        is pushed): each variable of its scope is expanded again and stored so -- which
        cf-lite does for the function-made values and parameters holding a broken reference only (a
        readstringarray() field ``${x``: "Variable reference close mismatch '${x'" each
        time, "Empty variable reference close mismatch '${}'" when it is entered again
        before the function makes it anew).  ``again``: as the cf-promises that validates
        the policy enters them last, twice, the value kept as it is."""
        names = self.broken_values.get((ns, scope))
        if not names:
            return
        for short in list(names):
            var = self.vars.get(ns, scope, short)
            if var is None or type(var.value) is not str or not holds_broken(var.value):
                del names[short]
                continue
            expanded = Expander(self.resolve_ref, {}, False, self._log).expand(var.value)
            if again:
                Expander(self.resolve_ref, {}, False, self._log).expand(expanded)
            else:
                self.vars.set(ns, scope, short, Variable(var.type, expanded, var.tags))

    @property
    def simulate(self) -> bool:
        return self._simulate

    def expand_list(self, name: str) -> list[str] | None:
        var = self.lookup(name)
        if var is None:
            return None
        if isinstance(var.value, list):
            return [v if isinstance(v, str) else str(v) for v in var.value]
        return None

    def classes(self) -> Iterable[tuple[str, tuple[str, ...]]]:
        return self.classes_items()

    def _class_order(self) -> CMap:
        """The class map, given the classes class_table got without define_class (the
        hard classes, in one go) in the table's order."""
        order = self.class_map
        if len(order) != len(self.class_table):
            for key in [k for k in order if k not in self.class_table]:
                order.remove(key)
            for key in self.class_table:
                if key not in order:
                    order.insert(key, string_hash(key if ":" in key else "default:" + key))
        return order

    def classes_by_table(self) -> tuple[list[tuple[str, tuple[str, ...]]],
                                        list[tuple[str, tuple[str, ...]]]]:
        """(the bundle's local classes, the global ones), each in cf-agent's class table
        order (a bundle's own table is a map too, of the classes in definition order)."""
        local: dict[str, tuple[str, ...]] = {}
        walker: Frame | None = self.frame
        while walker is not None:
            for key, tags in walker.local_classes.items():
                local.setdefault(key, tags)
            walker = walker.inherits
        shadow = CMap()
        for key in local:
            shadow.insert(key, string_hash(key if ":" in key else "default:" + key))
        table = self.class_table
        return ([(k, local[k]) for k in shadow],  # type: ignore[index]
                [(k, table[k]) for k in self._class_order()])  # type: ignore[index]

    @property
    def namespace(self) -> str:
        return self.frame.namespace

    @property
    def bundle_name(self) -> str:
        return self.frame.bundle

    @property
    def workdir(self) -> str:
        return self._workdir

    @property
    def policy_file(self) -> str:
        return self._policy_file

    @property
    def cache(self) -> dict[Any, Any]:
        return self._cache

    @property
    def dry_run(self) -> bool:
        return self._dry_run

    def bundles(self) -> Iterable[tuple[str, str, str, tuple[str, ...]]]:
        for b in self.bundle_index:
            tags: tuple[str, ...] = ()
            meta = self.vars.get(b.namespace, b.name + "_meta", "tags")
            if meta is not None and isinstance(meta.value, list):
                tags = tuple(meta.value)
            yield b.namespace, b.name, b.type, tags

    def callstack(self) -> list[dict[str, Any]]:
        """The call stack as cf-agent shows it (outermost first): for each bundle a
        ``bundle`` frame (the bundle as -p json prints it), then ``promise_type``,
        ``promise`` and, for callers, ``iteration`` frames; ``frame`` counts down to 1."""
        from cfpromise.syntax.jsonout import bundle_json
        frames: list[dict[str, Any]] = []
        current = self.frame
        for f in self.frames[1:]:
            if f.node is None:
                continue
            frames.append({"bundle": bundle_json(f.node, f.node.coord.file),
                           "depth": len(frames), "type": "bundle"})
            if f.ptype:
                frames.append({"depth": len(frames), "promise_type": f.ptype,
                               "type": "promise_type"})
            if f.promise is not None:
                comment = f.promise.get("comment")
                frames.append({"depth": len(frames), "promise_classes": f.promise.classes,
                               "promise_comment": getattr(comment.rval, "value", "")
                               if comment is not None else "",
                               "promise_type": f.ptype, "promiser": f.promiser,
                               "type": "promise"})
                if f is not current:
                    frames.append({"depth": len(frames), "iteration_index": 0,
                                   "type": "iteration"})
        for index, entry in enumerate(frames):
            entry["frame"] = len(frames) - index
        return frames

    def log(self, level: str, message: str) -> None:
        self._log(level, message)


def class_tree(expr: str) -> classexpr.Tree | None:
    """The tree of a class expression as :meth:`EvalContext.eval_class_expr` reads it
    (None: never holds): surrounding blanks ignored, a guard that does not parse read
    as its longest complete prefix (see :func:`_prefix_tree`)."""
    expr = expr.strip()
    if not expr:
        return None
    try:
        tree = classexpr.parse(expr)
    except classexpr.ClassExprError:
        pass
    else:
        # ("!!a": cf-lite's grammar reads it, cf-agent's ParseNotExpression wants a
        # primary after "!": no expression)
        return None if "!!" in expr and unparsable(expr) else tree
    if spaced_names(expr):
        return None
    # cf-agent takes every blank out before it parses (CheckClassExpression)
    condensed = "".join(expr.split())
    if condensed != expr:
        try:
            return classexpr.parse(condensed)
        except classexpr.ClassExprError:
            pass
    return _prefix_tree(condensed)


def refused(expr: str) -> bool:
    """Whether cf-agent says an error of ``expr`` when it evaluates it as a class
    expression (either of :meth:`EvalContext.eval_class_expr`'s)."""
    return spaced_names(expr) or unparsable(expr)


def unparsable(expr: str) -> bool:
    """Whether cf-agent's parser of class expressions gives nothing for ``expr``, its
    blanks taken out first (CheckClassExpression: "Unable to parse class expression")."""
    return classexpr.literal_failure("".join(expr.split())) is not None


def spaced_names(expr: str) -> bool:
    """Whether two names stand apart with only blanks between them (``a b``), which
    cf-agent refuses at run time (CFENGINE_REGEX_WHITESPACE_IN_CONTEXTS, matched
    against the whole expression: a newline ends its ``.*``)."""
    if " " not in expr and "\t" not in expr:
        return False
    import re                   # (a rare path: only an expression that did not parse)
    return re.fullmatch(r".*[_A-Za-z0-9][ \t]+[_A-Za-z0-9].*", expr) is not None


def _prefix_tree(expr: str) -> classexpr.Tree | None:
    """CFEngine reads a guard like ``a.!b)`` as its complete prefix ``a.!b``: its parser
    stops where the text cannot go on.  A prefix followed by a binary operator is no such
    stop (cf-agent's parser takes the operator, then fails on what follows it), so
    ``any.$(nosuch)`` is no class expression at all, not ``any``."""
    for end in range(len(expr) - 1, 0, -1):
        try:
            tree = classexpr.parse(expr[:end])
        except classexpr.ClassExprError:
            continue
        return None if expr[end] in ".&|" else tree
    return None


def workdir_paths(workdir: str) -> dict[str, str]:
    return {"inputs": os.path.join(workdir, "inputs"), "state": os.path.join(workdir, "state")}


_CANON = precompiled.compile(r"[^a-zA-Z0-9_]")
