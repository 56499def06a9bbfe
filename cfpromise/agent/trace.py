"""cf-agent 3.21's verbose trace (``-v``): bundle, pass, promise and accounting lines.

cf-agent's users debug policy with this trace, so it is reproduced line for line
where cf-lite does what cf-agent does::

    B: BEGIN bundle main                      (bundle banners, parameters)
    V: BEGIN variables (pass 1)               (section banners, vars computed)
    C: BEGIN classes / conditions (pass 1)
    P: BEGIN promise 'h' of type "files" (pass 1)  (promise banner: promiser,
    P:    Stack path: /default/main/files/'/x'[1]   bundle, context, stack path)
    A: Promise REPAIRED                       (outcome, then P: END ...)
    Skipping promise 'x' because constraint 'if => c' is not met
    A: Bundle Accounting Summary for 'main' in namespace default

The engine calls a :class:`Trace` from a few hooks (bundle start/end, section
start, promise start/end, skips, and promises already done in an earlier pass);
it exists only at ``-v``, so a normal run pays one ``is None`` test per hook.

What cf-agent prints where, and what the trace mirrors:

* the promise banner of commands, methods, reports, processes and services
  comes after the promise's lock is taken (a promise done in an earlier pass, or
  locked, prints none): the banner is held back and printed with the first line
  the promise prints or with its outcome, and dropped when it is skipped;
* files, packages, users, storage and databases print it before the lock, so in
  every pass, as do the promises of edit bundles (with the calling pass number,
  no outcome lines);
* vars (and meta) print ``V:     Computing value of 'x'`` in every pass; meta,
  defaults and custom types print no banner but the outcome lines;
* a promise cf-lite finishes in pass 1 is not evaluated again; the lines
  cf-agent prints for it in passes 2 and 3 are replayed (:meth:`Trace.again`).
"""
from __future__ import annotations

from typing import Any

from cfpromise.agent.outcome import Outcome

# promise types whose verifier prints the banner before its lock (so in every pass)
_EVERY_PASS = frozenset({"files", "packages", "users", "storage", "databases"})
# promise types whose verifier prints the banner after its lock (once per run)
_AFTER_LOCK = frozenset({"commands", "methods", "reports", "processes", "services",
                         "guest_environments"})
_NO_OUTCOME = frozenset({"vars", "classes"})        # BannerStatus prints nothing for them
_UNCOUNTED = frozenset({"vars", "classes"})

_STATUS = {
    Outcome.REPAIRED: "A: Promise REPAIRED",
    Outcome.TIMEOUT: "A: Promise TIMED-OUT",
    Outcome.WARN: "A: Promise NOT KEPT!",
    Outcome.FAILED: "A: Promise NOT KEPT!",
    Outcome.INTERRUPTED: "A: Promise NOT KEPT!",
    Outcome.DENIED: "A: Promise NOT KEPT - denied",
    Outcome.KEPT: "A: Promise was KEPT",
}
_FRAGMENT = 19                                     # cf-agent's CF_MAXFRAGMENT
_DOTS = "........................................................."
_STARS = "B: *****************************************************************"


def abbreviated(text: str) -> str:
    """A promiser with newlines as cf-agent shows it: first and last 19 characters."""
    nl = text.find("\n")
    if nl < 0:
        return text
    head = text[:min(nl, _FRAGMENT)]
    last = text[text.rfind("\n") + 1:]
    return head + "..." + (last[-_FRAGMENT:] if len(last) > _FRAGMENT else last)


def quoted(value: Any) -> str:
    """An argument as cf-agent's RlistWrite/RvalWriteQuoted write it."""
    if isinstance(value, list):
        return "{" + ",".join(quoted(v) for v in value) + "}"
    if isinstance(value, dict):
        import json
        return json.dumps(value, separators=(",", ":"))
    return '"' + str(value).replace('"', '\\"') + '"'


def rval_text(rval: Any) -> str:
    """An rval as written in the policy (cf-agent's RvalToString)."""
    from cfpromise.syntax import ast
    if isinstance(rval, ast.Scalar):
        return rval.value
    if isinstance(rval, ast.FnCall):
        return rval.name + "(" + ",".join(
            rval_text(a) if isinstance(a, ast.FnCall) else
            '"' + (a.value if isinstance(a, ast.Scalar) else rval_text(a)).replace('"', '\\"') + '"'
            for a in rval.args) + ")"
    if isinstance(rval, ast.List):
        return " {" + ",".join('"' + rval_text(i) + '"' if isinstance(i, ast.Scalar)
                               else rval_text(i) for i in rval.items) + "}"
    return str(getattr(rval, "text", "") or rval)


def _param_type(value: Any) -> str:
    return "l" if isinstance(value, list) else "c" if isinstance(value, dict) else "s"


class Trace:
    """The verbose trace of one agent run (see the module docstring)."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.out = agent.out
        self.pass_no = 0               # cf-agent's EvalContextGetPass: the outer pass
        self.path: list[str] = []      # the stack path's segments
        self.bundle_args: list[Any] | None = None
        self.counts = [0, 0, 0]        # kept, repaired, not kept (cf-agent's PR_*)
        self.muted = 0                 # > 0: vars evaluated again silently (BundleResolve)
        self.calls: list[Any] = []     # the promise steps running (innermost last)
        self.bundles: list[tuple[Any, int, list[int], bool]] = []
        self.pending: list[str] | None = None
        self.debug = self.out.enabled("debug")
        self.closing: tuple[Any, Outcome, Any] | None = None     # see end() and close()
        self.replay: dict[int, dict[Any, list[str]]] = {}   # by id(BundleRun), then key

    # -- output ----------------------------------------------------------------------
    def log(self, line: str) -> None:
        self.out.log("verbose", line)

    def _hold(self, lines: list[str]) -> None:
        """Print ``lines`` before the next line anything prints (or drop them)."""
        self.pending = lines
        self.out.before_write = self.flush

    def flush(self) -> None:
        lines, self.pending = self.pending, None
        self.out.before_write = None
        for line in lines or ():
            self.log(line)

    def drop(self) -> None:
        """The promise is skipped (locked, or already done): no banner."""
        if self.pending is not None:
            self._drop()

    def _drop(self) -> None:
        self.pending = None
        self.out.before_write = None

    # -- bundles -------------------------------------------------------------------
    def legend(self, ctx: Any) -> None:
        """The policy is loaded: cf-agent's prefix legend and the discovered hard classes."""
        rule = "----------------------------------------------------------------"
        for line in (rule, "PREFIX LEGEND:", " V: variable or parameter new definition in scope",
                     " C: class/context new definition ", " B: bundle start/end execution marker",
                     " P: promise execution output ", " A: accounting output ",
                     " T: time measurement for stated object (promise or bundle)", rule, rule,
                     "BEGIN Discovered hard classes:"):
            self.log(line)
        names = sorted(key.rsplit(":", 1)[-1] for key, tags in ctx.class_table.items()
                       if "hardclass" in tags)
        for name in names:
            self.log(f"C: discovered hard class {name}")
        self.log("END Discovered hard classes")
        self.log(rule)

    def evaluation(self) -> None:
        """The policy is loaded: its evaluation begins."""
        rule = "----------------------------------------------------------------"
        self.log(rule)
        self.log(" Begin policy/promise evaluation ")
        self.log(rule)

    def sequence(self, sequence: list[tuple[str, list[Any]]]) -> None:
        """The bundlesequence is about to run."""
        items = [f"{name}({','.join(quoted(a) for a in args)})" if args else quoted(name)
                 for name, args in sequence]
        self.log("Using bundlesequence =>  {" + ",".join(items) + "}")

    def bundle_begin(self, run: Any, args: list[Any]) -> None:
        bundle = run.bundle
        edit = run.frame.edit is not None
        if not edit:
            self.bundle_args = list(args) if args else None
            self.log(_STARS)
            self.log(f"B: BEGIN bundle {bundle.name}"
                     + (f"({self._args()})" if args else ""))
            self.log(_STARS)
        self.bundles.append((run, len(self.path), list(self.counts), edit))
        self.path.append(f"/{bundle.namespace}/{bundle.name}")
        for param, value in zip(bundle.args, args):
            self.log(f"V:     +  Private parameter: '{param}' in scope '{bundle.name}' "
                     f"(type: {_param_type(value)}) in pass {self.pass_no}")

    def _args(self) -> str:
        return " {" + ",".join(quoted(a) for a in self.bundle_args or ()) + "}"

    def bundle_end(self, run: Any) -> None:
        if not self.bundles or self.bundles[-1][0] is not run:
            return
        _, depth, saved, edit = self.bundles.pop()
        del self.path[depth:]
        self.replay.pop(id(run), None)
        if edit:
            return
        self._drop()
        name = run.bundle.name
        kept, repaired, notkept = (now - before for now, before in zip(self.counts, saved))
        self.log("A: ...................................................")
        self.log(f"A: Bundle Accounting Summary for '{name}' in namespace {run.bundle.namespace}")
        if kept + repaired + notkept <= 0:
            self.log(f"A: Zero promises executed for bundle '{name}'")
        else:
            self.log(f"A: Promises kept in '{name}' = {kept}")
            self.log(f"A: Promises not kept in '{name}' = {notkept}")
            self.log(f"A: Promises repaired in '{name}' = {repaired}")
            self.log(f"A: Aggregate compliance (promises kept/repaired) for bundle '{name}' = "
                     f"{(kept + repaired) * 100.0 / (kept + repaired + notkept):.1f}%")
        self.log("A: ...................................................")
        if self.calls:                 # called by a promise (methods, services, users)
            self.bundle_args = None
            from cfpromise.agent.outcome import merge
            outcome = merge(run.outcomes)
            if outcome in (Outcome.SKIPPED, Outcome.KEPT):
                self.log(f"Method '{name}' verified")
            elif outcome is Outcome.REPAIRED:
                self.log(f"Method '{name}' invoked repairs")
        self.log(_STARS)
        self.log(f"B: END bundle {name}")
        self.log(_STARS)

    def section(self, run: Any, ptype: str, section: Any) -> None:
        if run.frame.edit is not None or not section.promises:
            return
        self.pass_no = run.pass_no
        if ptype == "classes":
            self.log("C: " + _DOTS)
            self.log(f"C: BEGIN classes / conditions (pass {run.pass_no})")
        elif ptype == "vars":
            self.log("V: " + _DOTS)
            self.log(f"V: BEGIN variables (pass {run.pass_no})")

    # -- promises ------------------------------------------------------------------
    def _banner(self, step: Any, index: int) -> list[str]:
        promise = step.promise
        handle = step.handle
        if not handle:
            from cfpromise.agent.promiseinfo import default_handle
            handle = default_handle(promise)
        shown = abbreviated(step.promiser)[:2 * _FRAGMENT + 2]
        lines = ["P: " + _DOTS,
                 f"P: BEGIN promise '{handle}' of type \"{step.ptype}\" (pass {self.pass_no})",
                 f"P:    Promiser/affected object: '{shown}'"]
        if self.bundle_args:
            lines.append(f"P:    From parameterized bundle: {step.run.bundle.name}({self._args()})")
        else:
            lines.append(f"P:    Part of bundle: {step.run.bundle.name}")
        lines.append(f"P:    Base context class: {'any' if promise.varclass else promise.classes}")
        for lval, word in (("if", "if"), ("ifvarclass", "if"), ("unless", "unless")):
            c = promise.get(lval)
            if c is None and lval == "ifvarclass" and promise.varclass:
                # a quoted guard ("$(x)"::) is an ifvarclass constraint to cf-agent
                lines.append(f"P:    \"if\" class condition: {step.ev.text(promise.varclass)}")
                break
            if c is not None:
                from cfpromise.syntax import ast
                if isinstance(c.rval, ast.Scalar):
                    text = step.ev.text(c.rval.value)
                else:                         # cf-agent shows the function's result
                    from cfpromise.eval.rvals import as_text
                    value = step.ev.value(c.rval)
                    text = "any" if value is True else "!any" if value is False \
                        else as_text(value)
                lines.append(f"P:    \"{word}\" class condition: {text}")
                break
        lines.append(f"P:    Stack path: {''.join(self.path)}/{step.ptype}/"
                     f"'{abbreviated(step.promiser)}'[{index}]")
        comment = promise.get("comment")
        if comment is not None:
            from cfpromise.syntax import ast
            if isinstance(comment.rval, ast.Scalar):
                lines += ["P:", f"P:    Comment:  {step.ev.text(comment.rval.value)}"]
        return lines

    def begin(self, step: Any, index: int, key: Any) -> None:
        """``step`` is about to be evaluated (its conditions hold)."""
        run = step.run
        edit = run.frame.edit is not None
        if not edit:
            self.pass_no = run.pass_no
        ptype = step.ptype
        if ptype in ("vars", "meta"):
            if not self.muted:
                self.log(f"V:     Computing value of '{step.promiser}'")
        elif edit or ptype in _EVERY_PASS:
            lines = self._banner(step, index)
            for line in lines:
                self.log(line)
            self._remember(run, key, lines)
        elif ptype in _AFTER_LOCK:
            self._hold(self._banner(step, index))
        self.calls.append(step)
        self.path.append(f"/{ptype}/'{abbreviated(step.promiser)}'")

    def end(self, step: Any, outcome: Outcome | None, key: Any) -> None:
        """``step`` was evaluated: ``outcome`` (None: it waits for a later pass)."""
        if self.calls and self.calls[-1] is step:
            self.calls.pop()
            self.path.pop()
        ptype = step.ptype
        if outcome is None or outcome is Outcome.SKIPPED or step.run.frame.edit is not None \
                or ptype in _NO_OUTCOME:
            if self.pending is not None:
                self._drop()
            if ptype in ("vars", "meta") and outcome is not None:
                lines = [f"V:     Computing value of '{step.promiser}'"]
                if self.debug and outcome is not Outcome.FAILED:
                    lines.append(self.value(step))
                    if not self.muted:
                        self.out.log("debug", lines[-1])
                self._remember(step.run, key, lines)
            return
        self.flush()
        self.closing = (step, outcome, key)

    def close(self, step: Any) -> None:
        """The outcome of ``step`` is recorded (its outcome classes set): print it."""
        if self.closing is None or self.closing[0] is not step:
            return
        _, outcome, key = self.closing
        self.closing = None
        ptype = step.ptype
        status = _STATUS.get(outcome)
        if status is None:
            return
        name = step.promiser
        if ptype == "files" and name.endswith("/."):
            name = name[:-2]                  # cf-agent strips it from the promiser
        lines = [status, f"P: END {ptype} promise ({name[:30]}{'...' if len(name) > 30 else ''})"]
        for line in lines:
            self.log(line)
        self.count(outcome)
        if ptype == "meta":
            self.count(outcome)               # cf-agent counts a meta promise twice                   # evaluated again in every pass
            self._remember(step.run, key, [f"V:     Computing value of '{step.promiser}'", *lines])
        elif ptype == "defaults":
            self._remember(step.run, key, lines)

    def value(self, step: Any) -> str:
        """-d: the value a vars promise gave its variable (cf-agent's LogVariableValue)."""
        bundle = step.run.bundle
        found = step.ctx.lookup(f"{bundle.namespace}:{bundle.name}.{step.promiser}")
        if found is None:
            text = "NONE"
        elif isinstance(found.value, list):
            text = ", ".join(str(v) for v in found.value)
        elif isinstance(found.value, (dict, bool)) or found.type == "data":
            import json
            text = json.dumps(found.value, separators=(",", ":"))
        else:
            text = str(found.value)
        return f"V: '{step.promiser}' => '{text}'"

    def total(self, version: Any) -> None:
        """The run's compliance, as cf-agent's EndAudit logs it."""
        self.log(total_compliance(version, *self.counts))

    def _remember(self, run: Any, key: Any, lines: list[str]) -> None:
        self.replay.setdefault(id(run), {})[key] = lines

    def count(self, outcome: Outcome) -> None:
        slot = 0 if outcome is Outcome.KEPT else 1 if outcome is Outcome.REPAIRED else 2
        self.counts[slot] += 1

    def again(self, run: Any, key: Any) -> None:
        """The promise iteration ``key`` finished in an earlier pass of ``run``: print
        what cf-agent prints when it meets it again in this pass."""
        lines = self.replay.get(id(run), {}).get(key)
        if not lines or self.muted:
            return
        if run.frame.edit is None:
            self.pass_no = run.pass_no
        for line in lines:
            if line.startswith("V: '"):
                self.out.log("debug", line)
                continue
            if line.startswith("P: BEGIN promise "):
                line = line[:line.rfind("(pass ")] + f"(pass {self.pass_no})"
            self.log(line)
        if _STATUS[Outcome.KEPT] in lines and lines[0].startswith("V:"):
            self.count(Outcome.KEPT)          # meta: kept again in every pass, counted twice
            self.count(Outcome.KEPT)          # (defaults count once: when they set the value)

    def skipped(self, run: Any, promise: Any, lval: str, key: Any, done: bool) -> None:
        """The promise's ``if``/``ifvarclass``/``unless`` constraint does not hold."""
        c = promise.get(lval)
        line = (f"Skipping promise '{promise.promiser}' because constraint "
                f"'{lval} => {rval_text(c.rval) if c is not None else ''}' is not met")
        self.log(line)
        if done:
            self._remember(run, key, [line])

    def skipped_guard(self, promise: Any) -> None:
        """A quoted class guard (``"$(x)"::``) does not hold: cf-agent makes it an
        ``ifvarclass`` constraint and says so."""
        self.log(f"Skipping promise '{promise.promiser}' because constraint "
                 f"'ifvarclass => {promise.varclass}' is not met")

    def not_skipped(self, ptype: str, promise: Any, lval: str) -> None:
        c = promise.get(lval)
        self.log(f"Not skipping {ptype} promise '{promise.promiser}' with constraint "
                 f"'{lval} => {rval_text(c.rval) if c is not None else ''}' in last "
                 "evaluation pass (since if would skip)")

    def waiting(self, run: Any, promiser: str, handle: str, key: Any, done: bool) -> None:
        """The promise depends on ``handle``, not kept (yet)."""
        line = (f"Skipping promise '{promiser}', as promise dependency '{handle}' has not "
                "yet been kept")
        self.log(line)
        if done:
            self._remember(run, key, [line])

    def outcome_class(self, name: str) -> None:
        self.log(f"C:    + promise outcome class '{name}'")

    def defined_class(self, name: str, scope: str) -> None:
        kind = "Global" if scope == "namespace" else "Private"
        self.log(f"C:     +  {kind} class: {name}")


def total_compliance(version: Any, kept: int, repaired: int, notkept: int) -> str:
    """cf-agent's EndAudit line (logged at verbose, with or without the trace)."""
    shown = version if isinstance(version, str) and version else "(not specified)"
    total = (kept + repaired + notkept) / 100.0
    if not total:
        return f"Outcome of version '{shown}', no checks were scheduled"
    return (f"Logging total compliance, total 'Outcome of version {shown} (agent-0): "
            f"Promises observed to be kept {kept / total:.2f}%, Promises repaired "
            f"{repaired / total:.2f}%, Promises not repaired {notkept / total:.2f}%'")
