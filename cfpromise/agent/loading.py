"""One agent run from start to end: set-up, policy loading, validation, the bundlesequence.

Loading follows CFEngine: the entry file is parsed, its common bundles are
evaluated (one round each: vars, classes, vars) so that ``inputs`` holding variables
resolve, then each input is read depth first -- parsed, its common bundles evaluated,
its own inputs read -- before the next (the order of bundles and bodies:
bundlesmatching(), -p json-full); before an input written with a variable, the files
its list has read so far get one more round (LoadPolicyInputFiles' PolicyResolve).
These are cf-agent's rounds, no more: a common bundle's classes promise says its
errors as often as cf-agent's does (tests/differential/classerrors.py).  A relative
input is looked up beside the file naming it.  A file is read once however often it
is named.  Any syntax or validation error stops the run before anything is actuated:
the errors are printed and the failsafe runs as cf-agent's does
(:mod:`cfpromise.agent.failsafe`).
"""
from __future__ import annotations

import os
import sys

from cfpromise import fast
from cfpromise.fast import oneshot
from cfpromise.agent import augments, commoneval, leftout, lockwarn, policyfile, yyerrors
from cfpromise.agent.output import say
from cfpromise.agent.abort import Exits
from cfpromise.agent.controls import (control_bodies, control_log_level, file_control,
                                       output_prefix)
from cfpromise.agent.policyfile import LoadError, _coord, read as _read, report_errors
from cfpromise.agent.programs import own_programs, validation_failed
from cfpromise.agent.sequence import bundlesequence, check_found, check_own, verified
from cfpromise.agent.workdir import check_workdir, prepare_workdir  # (prepare_workdir: others')
from cfpromise.eval.functions.api import FatalFunctionError
from cfpromise.eval.functions.messages import Sink
from cfpromise.eval.rvals import UNRESOLVED, RvalEvaluator
from cfpromise.promises.api import inputs_directory
from cfpromise.schema.check import policy_diagnostics
from cfpromise.syntax import ast
from cfpromise.syntax.errors import Diagnostic, PolicyError
from cfpromise.syntax.varstring import expandable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EXIT_OK, EXIT_FATAL, EXIT_ABORTED = 0, 1, 6


def install_facts(agent: Any) -> None:
    from cfpromise.eval.hardclasses import discover
    facts = discover(agent.options.workdir, policy_file=agent.options.file,
                     component_paths=own_programs(agent.options.workdir))
    for warning in facts.warnings:
        agent.out.log("warning", warning)
    ctx = agent.ctx
    ctx.class_table.update(facts.classes)
    ctx.class_changes += 1
    for scope, table in (("sys", facts.sys_vars), ("const", facts.const_vars),
                         ("def", facts.def_vars), ("mon", facts.mon_vars)):
        for name, (type_, value, tags) in table.items():
            ctx.set_var("default", scope, name, type_, value, tags)
    # -N keeps persistent classes of those names from being loaded (cf-agent 3.21's
    # only effect of it: classes defined by -D or by promises are not affected)
    negated = {c for item in agent.options.negate for c in item.split(",") if c}
    agent.persistent.load(ctx, agent.out, skip=negated)
    # cf-agent's own classes for its switches
    out = agent.out
    for cls, on, source in (("inform_mode", out.enabled("info"), "agent"),
                            ("verbose_mode", out.enabled("verbose"), "agent"),
                            ("debug_mode", out.enabled("debug"), "agent"),
                            ("opt_debug", out.enabled("debug"), "agent"),
                            ("opt_dry_run", agent.options.dry_run, "environment")):
        if on:   # as cf-agent 3.21 tags them
            ctx.define_class(cls, ("cfe_internal", f"source={source}", "hardclass"))
    from cfpromise.eval.canon import canonify
    for name in agent.options.define:
        for cls in name.split(","):
            if cls:   # canonified as cf-agent does (a namespace prefix kept)
                cls = ":".join(canonify(part) for part in cls.split(":"))
                ctx.define_class(cls, tags=("source=environment",))
    augments.load(agent, agent.options.file)    # host-specific data, def.json: before the policy


def load(agent: Any) -> None:
    """Parse the entry file and everything it includes into ``agent``.

    Relative inputs are looked up in the entry file's directory (as cf-agent does,
    whichever file names them).  An input that does not resolve yet is retried
    after more files (and their common bundles) are loaded; one that never
    resolves is reported as an error and left out, as cf-agent does.  In a one-shot
    program the cyclic collector is off meanwhile, and what is loaded is frozen
    (:mod:`cfpromise.fast.oneshot`)."""
    common = bool(getattr(agent, "warn_locking", False))      # cf-lite-promises
    if agent.options.define:    # cf-promises' view (without -D) may be wanted: its loading
        from cfpromise.agent import promisesview
        promisesview.load_view = evaluated_agent
    sink = Sink.install(agent.ctx, common or augments.validating(agent), common)
    # the validating cf-promises' rounds are the agent's own (the same PolicyResolves of
    # the same files): what a common bundle's classes promise says in a round, it says
    # too (cfpromise.promises.classes); on until the agent's last round (_run)
    agent.validation_echo = not common and sink.validating
    try:
        with oneshot.loading():
            _load(agent)
    finally:
        sink.end_loading(failed=sys.exc_info()[0] is not None)   # what functions said
    fast.report(agent.out.log)     # -v: each speed mechanism that was not used, and why


def _load(agent: Any) -> None:
    entry = agent.options.file
    base = inputs_directory(entry)
    first = _read(agent, entry, entry=True)
    agent.add_policy(first)
    control_bodies(agent)         # ignore_missing_inputs is needed while loading
    seen = {os.path.realpath(entry)}
    queue: list[ast.Policy] = [first]
    pending: list[Any] = []     # inputs left out: calls, references (as they expanded)
    missing: list[Diagnostic] = []
    broken: list[Diagnostic] = []       # the errors of input files that failed to load
    from cfpromise.agent.autoload import Autoloader
    autoloader = agent.autoloader = Autoloader(agent)
    while True:
        _load_inputs(agent, base, seen, queue, pending, missing, broken)
        # bundles and bodies named but defined nowhere: from the bundle path, whose files
        # may have inputs and references of their own
        queue = autoloader.static_pass()
        if not queue:
            break
        seen.update(os.path.realpath(p.path) for p in queue if p.path)
    # cf-promises says them; cf-agent again as it loads the policy cf-promises passed (_run)
    agent.unread = policyfile.unread(pending)
    for line in agent.unread:
        agent.out.log("error", line)
    if broken:
        raise LoadError(broken + missing, parse_time=True)
    if missing:
        raise LoadError(missing)
    # cf-promises checks bodies only for a runnable policy (one with body common control)
    # or under -c; cf-agent always validates fully.
    full = agent.options.full_check or any(b.name == "control" and b.type == "common"
                                           for b in agent.policy.bodies)
    problems = policy_diagnostics(agent.policy, full=full)
    if problems:
        raise LoadError(problems)
    commoneval.loaded(agent)        # what cf-promises says of the common attributes
    agent.autoload = autoloader.bundle_hook       # names only known at run time
    agent.resolver.missing = autoloader.body_hook
    lockwarn.finish(agent)


def _guarded_inputs(agent: Any, policy: ast.Policy) -> list[ast.Rval]:
    """The ``inputs`` of the file's control bodies whose class guard holds now
    (``!linux:: inputs => { "x.cf" }`` reads nothing on Linux, as in cf-agent)."""
    out = []
    for body in policy.bodies:
        if body.name == "control" and body.type in ("common", "file"):
            for c in body.constraints:
                if c.lval == "inputs" and (c.classes == "any"
                                           or agent.ctx.eval_class_expr(c.classes)):
                    out.append(c.rval)
    return out


# an error after which cf-promises only parses the inputs still listed (plain lines said)
# ("Promise type 'x' not supported by 'y' bundle type", "Duplicate promise handle h found")
_STOPS = ("bundle type", "Duplicate promise handle")


def _load_inputs(agent: Any, base: str, seen: set[str], queue: list[ast.Policy],
                 pending: list[Any], missing: list[Diagnostic],
                 broken: list[Diagnostic]) -> None:
    """Read ``queue``'s files and the inputs they name, depth first as cf-agent's
    LoadPolicyFile does (a file's common bundles evaluated, then each input it names read
    with all of its own inputs before the next one), so bundles and bodies are in
    cf-agent's order; an input that does not resolve when its turn comes is not read
    (``pending``: reported once the policy is loaded)."""
    # (the last two: a stop's error; the policies each inputs list being read has loaded,
    # innermost last)
    state = (base, seen, pending, missing, broken, [], [])
    for policy in queue:
        _file_and_inputs(agent, policy, state)
    if state[5]:
        raise LoadError(broken, parse_time=True)


def _file_and_inputs(agent: Any, policy: ast.Policy, state: tuple) -> None:
    rounds = lockwarn.for_file(agent, policy)
    if rounds is not None:
        _file_round(agent, policy, rounds)
    else:
        _common_bundles(agent, policy, None)
        leftout.pre_evaluate(agent, policy)     # (those cf-agent leaves out too)
    file_control(agent, policy)
    for rval in _guarded_inputs(agent, policy):
        _input_list(agent, rval.items if isinstance(rval, ast.List) else (rval,),
                    policy.path, state)


def _input_list(agent: Any, items: Any, naming: str, state: tuple) -> None:
    """One inputs list (as written, or the value of an item that is a list), item by
    item (LoadPolicyInputFiles): before an item written with a variable, one more round
    of the files this list has read so far."""
    lists = state[6]
    if len(lists) > 50:         # (a list holding itself)
        return
    lists.append([])
    try:
        for item in items:
            if isinstance(item, ast.Scalar) and expandable(item.value):
                _policy_resolve(agent, lists[-1])
            _input(agent, item, naming, state)
    finally:
        lists.pop()


def _policy_resolve(agent: Any, loaded: list[ast.Policy]) -> None:
    """LoadPolicyInputFiles' PolicyResolve before an input written with a variable: a
    round of the files its list has loaded so far (with their own inputs'), common
    bundles first, then the vars of the others."""
    bundles = [b for policy in loaded for b in policy.bundles]
    with yyerrors.phase(agent, 2, 2):
        for bundle in bundles:
            if bundle.type == "common":
                agent.load_round(bundle)
    agent.pre_evaluate_vars([b for b in bundles if b.type != "common"])


def _input(agent: Any, rval: ast.Rval, naming: str, state: tuple) -> None:
    """One item of an ``inputs`` list: each file it names read, then its own inputs;
    what does not resolve is not read (``pending``: cf-agent says so and goes on)."""
    pending = state[2]
    if isinstance(rval, ast.FnCall):    # never called: a "Non-file object" (policyfile.unread)
        pending.append(rval)
        return
    ev = RvalEvaluator(agent.ctx)
    value = ev.value(rval, want_list=True)
    if value is UNRESOLVED:
        pending.append(ev.text(rval.value) if isinstance(rval, ast.Scalar) else _written(rval))
        return
    if isinstance(value, list):     # each of its items in turn, evaluated again then
        _input_list(agent, [ast.Scalar(v) for v in value if isinstance(v, str)], naming,
                    state)
        return
    if not isinstance(value, str):
        return
    if "$(" in value or "${" in value or "@(" in value:
        pending.append(value)
        return
    _read_input(agent, value, naming, state)


def _read_input(agent: Any, name: str, naming: str, state: tuple) -> None:
    """The input file ``name`` (resolved), unless read already: parsed, added, then its
    own inputs read."""
    base, seen, _pending, missing, broken, stopped, lists = state
    full = name if os.path.isabs(name) else os.path.join(base, name)
    real = os.path.realpath(full)
    if real in seen:
        return
    seen.add(real)
    if not os.path.isfile(full):
        if not agent.control_flag("ignore_missing_inputs"):
            # cf-promises says it (a plain log line) and reads no other file
            missing.append(Diagnostic(_coord(naming), f"Can't stat file '{full}' for "
                                      "parsing. (stat: No such file or directory)"))
            raise LoadError(broken + missing, parse_time=bool(broken))
        return
    try:
        included = _read(agent, full)
    except (LoadError, PolicyError) as exc:
        if getattr(exc, "fatal", False):
            raise
        # cf-promises says what is wrong with it and reads the other files
        # (not the inputs this one names): every file's errors, then the verdict
        # -- after a stop, only its parser's plain lines (line 0: no FILE:LINE)
        broken.extend(d for d in exc.diagnostics if not stopped or not d.coord.line)
        if getattr(exc, "too_many", False):     # its parser exits the process there
            raise policyfile.too_many(broken)
        if any(s in d.message for d in exc.diagnostics for s in _STOPS):
            stopped.append(True)
        return
    if included is None or stopped:     # (read already; or read for nothing)
        return
    agent.add_policy(included)
    for loaded in lists:
        loaded.append(included)
    lockwarn.named(agent, included, naming)
    _file_and_inputs(agent, included, state)


def _common_bundles(agent: Any, policy: ast.Policy, rounds: Any) -> None:
    """A file's common bundles evaluated as it loads, one round each (LoadPolicyFile's
    PolicyResolve; beside cf-promises' ``rounds``)."""
    with yyerrors.phase(agent, 2, 2):     # (PolicyResolve: vars, classes, vars)
        for bundle in (b for b in policy.bundles if b.type == "common"):
            run = (lambda b=bundle: agent.load_round(b))
            rounds.load_bundle(bundle, run) if rounds is not None else run()


def _file_round(agent: Any, policy: ast.Policy, rounds: Any) -> None:
    """A file's loading, bundle by bundle, with cf-promises' round for that file
    (:mod:`cfpromise.agent.lockwarn`) beside it."""
    _common_bundles(agent, policy, rounds)
    kept = {id(b) for b in policy.bundles}
    for bundle in leftout.every_bundle(agent, policy):     # (cf-promises has them all)
        if bundle.type != "common":
            rounds.load_bundle(bundle, lambda b=bundle: agent.pre_evaluate_vars((b,))
                               if id(b) in kept else leftout.evaluate_for_cf_promises(agent, b))


def evaluated_policy(path: str, workdir: str) -> ast.Policy:
    """The whole policy as the agent would load it (common bundles evaluated to resolve
    inputs), without running anything: for checks and plans.  Raises LoadError or
    PolicyError like the agent's own loading."""
    return evaluated_agent(path, workdir).policy


def evaluated_agent(path: str, workdir: str, out: Any = None, define: Any = (),
                    full_check: bool = True, cache: bool = False,
                    bundle_path: Any = (), warn_locking: bool = False,
                    check_writable: bool = True, converge: bool = False, **options: Any) -> Any:
    """An Agent with the policy loaded, its common bundles evaluated (``converge``: then
    the preliminary convergence, as cf-promises makes it), nothing actuated.  ``out``
    (default: silent) receives what loading logs.  A missing ``path`` loads nothing but
    the host data (discovery and augments), as cf-promises does before it looks for it.
    ``options``: more of the run's (AgentOptions: negate, ignore_preferred_augments)."""
    from cfpromise.agent.engine import Agent, AgentOptions
    from cfpromise.agent.output import Output
    import io
    agent = Agent(AgentOptions(file=path, workdir=workdir, define=list(define),
                               full_check=full_check, bundle_path=list(bundle_path), **options),
                  out or Output("critical", stream=io.StringIO()))
    if cache:                   # the agent's cache of parsed, validated files (cf-lite-promises)
        agent.policy_cache = _policy_cache(agent)
    # cf-lite-promises says what cf-promises says of promise locking (cfpromise.agent.lockwarn)
    agent.warn_locking = warn_locking
    agent.check_not_writable = check_writable     # (cf-promises reads writable policy)
    agent.parsing_as = "common"         # cf-promises' parser installs every bundle
    install_facts(agent)
    if os.path.isfile(path):
        load(agent)             # evaluates the common bundles as it loads their files
        output_prefix(agent)
        if converge:            # cf-promises': vars and meta again, no walk
            yyerrors.cf_promises_converges(agent)
    return agent


def _policy_cache(agent: Any) -> Any:
    if fast.PLAIN:              # CF_LITE_PLAIN: every file parsed afresh
        return None
    from cfpromise.fast.policycache import PolicyCache
    return PolicyCache(os.path.join(agent.options.workdir, "state", "policy_cache"),
                       agent.options.workdir, agent.out.log)


def _written(rval: ast.Rval) -> str:
    if isinstance(rval, ast.List):
        return ", ".join(_written(i) for i in rval.items)
    if isinstance(rval, ast.Scalar):
        return rval.value
    if isinstance(rval, ast.FnCall):
        return f"{rval.name}(...)"
    return ""


def run_agent(agent: Any) -> int:
    """The whole run of ``agent`` (cf-lite-agent's, the failsafe's); fatal errors and aborts end it the same way wherever they happen
    (common bundles are already evaluated while the policy loads)."""
    try:
        return _run_agent(agent)
    finally:                # files promises move the agent about (cf-agent's safe_chdir)
        try:
            os.chdir(agent.options.start_dir)
        except OSError:
            pass


def _run_agent(agent: Any) -> int:
    from cfpromise.agent.abort import AbortBundle, AbortRun, FatalError
    prepare_workdir(agent.options.workdir)
    agent.policy_cache = _policy_cache(agent)
    install_facts(agent)
    try:
        return _run(agent)
    except AbortRun as exc:
        agent.out.log("notice", f"cf-agent aborted on defined class '{exc}'")
        return finish(agent, EXIT_ABORTED)
    except AbortBundle as exc:            # an abortbundleclasses class outside any bundle
        agent.out.log("verbose", f"Aborted on defined class '{exc}'")
        return finish(agent, EXIT_OK)
    except FatalError as exc:
        # cf-agent logs the cause, then FatalError(ctx, ...) exits: no --show-evaluated-*
        # tables after it.  The final words are the exception's ``final`` when it has them.
        for message in getattr(exc, "messages", (str(exc),)):
            if message:
                agent.out.log("error", message)
        final = getattr(exc, "final", "Cannot continue")
        if final:
            agent.out.log("error", "Fatal CFEngine error: " + final)
        return finish(agent, EXIT_FATAL, tables=False)
    except FatalFunctionError as exc:
        agent.out.log("error", f"Fatal CFEngine error: {exc}")
        return finish(agent, EXIT_ABORTED, tables=False)


def _run(agent: Any) -> int:
    check_workdir(agent.options.workdir, agent.out.log)     # (UNTRUSTED directories)
    try:
        load(agent)
    except Exits as exc:
        if not augments.validating(agent):
            raise
        for message in exc.messages:        # what the validating cf-promises says
            say("error", message)
        validation_failed(agent.options)
        return failsafe(agent)
    except FatalFunctionError as exc:
        # a literal argument a built-in refuses, met while the policy's variables are
        # evaluated: the validating cf-promises evaluates them too, and exits there
        if not augments.validating(agent):
            raise
        say("error", f"Fatal CFEngine error: {exc}")
        validation_failed(agent.options)
        return failsafe(agent)
    except (PolicyError, LoadError) as refused:
        from cfpromise.agent.untrusted import validated_first     # (uses re: not at start)
        exc = validated_first(agent, refused)    # (an insecure file: validity)
        report_errors(exc.diagnostics, agent.options.start_dir)
        if getattr(exc, "fatal", False):
            return EXIT_FATAL
        # cf-agent shows what the cf-promises it validates with says of a file's errors,
        # then its own verdict on that cf-promises
        policyfile.say_verdict(exc)
        validation_failed(agent.options)
        return failsafe(agent)
    if augments.validating(agent) and not yyerrors.validated(agent):    # ("Too many errors")
        validation_failed(agent.options)
        return failsafe(agent)
    control_bodies(agent)
    output_prefix(agent)
    if agent.options.simulate:
        start_simulation(agent)
    if agent.trace is not None:
        agent.trace.legend(agent.ctx)
    from cfpromise.schema.depends import check_dependencies
    for d in check_dependencies(agent.policy, severity="warning"):
        agent.out.log("warning", f"{d.coord.file}:{d.coord.line}: {d.message}")
    sequence = bundlesequence(agent)
    if not verified(agent):
        validation_failed(agent.options)
        return failsafe(agent)
    if augments.validating(agent):      # (cf-agent's own load, after cf-promises': _load)
        for line in agent.unread:
            agent.out.log("error", line)
    for observer in agent.observers:
        observer.run_started(agent)
    for bundle in list(agent.policy.bundles):
        if bundle.type == "common":     # LoadPolicy's last PolicyResolve (before the walk)
            with yyerrors.phase(agent, 3, 3):     # (the walk's, PolicyResolve's two)
                agent.load_round(bundle)
        elif agent.ctx.injected:        # BundleResolve's first step (CFE-1915)
            agent.ctx.remove_injected(bundle.namespace, bundle.name)
    agent.validation_echo = False
    agent.preliminary_convergence()     # every promise expanded, vars evaluated
    commoneval.check_policy(agent, validated_only=False)   # (cf-agent's: every promise)
    check_own(agent)                    # its bundlesequence, in its own policy
    from cfpromise.agent.precheck import check_policy
    check_policy(agent)                 # cf-agent's type check of every promise at load
    # body agent control's inform/verbose take effect now, once the policy is loaded
    # (KeepControlPromises): what loading said, it said at the command line's level
    control_log_level(agent)
    if agent.trace is not None:
        agent.trace.evaluation()
    if agent.options.bundlesequence:    # (KeepPromiseBundles)
        agent.out.log("info", "Using command line specified bundlesequence")
    if agent.trace is not None:
        agent.trace.sequence(sequence)
    check_found(agent, sequence)            # KeepPromiseBundles: fatal when one is not
    for name, args in sequence:
        bundle = agent.find_bundle(name, "default")
        if bundle is None:
            continue
        if args and len(bundle.args) != len(args):
            agent.scope_mismatch(bundle, args)      # (none at all: parameters undefined)
        agent.run_bundle(bundle, args, keep_arrays=True)
    return finish(agent, EXIT_OK)


def start_simulation(agent: Any) -> None:
    """--simulate: the changes chroot WORKDIR/state/PID.changes (agent/simulate.py)."""
    from cfpromise.agent.simulate import Simulation
    sim = Simulation(agent.options.simulate, os.path.join(agent.options.workdir, "state"))
    agent.simulation = sim
    agent.out.log("warning", f"All changes in files will be made in the '{sim.root}' chroot")
    agent.out.rewrite = sim.untranslate


def failsafe(agent: Any) -> int:
    """The policy failed validation: cf-agent's fallback (cfpromise.agent.failsafe)."""
    from cfpromise.agent.failsafe import fall_back
    return fall_back(agent, run_agent)


def finish(agent: Any, exit_code: int = EXIT_OK, tables: bool = True) -> int:
    """The end of a run; ``tables`` False after a fatal error, where cf-agent exits
    without printing --show-evaluated-classes/vars."""
    from cfpromise.promises.api import END_OF_RUN_MODULES
    for name in END_OF_RUN_MODULES:      # (not importlib: it and warnings cost 2.3 M)
        __import__(name)
        sys.modules[name].end_of_run(agent.services)
    if agent.locks is not None:
        agent.locks.close()
    if agent.simulation is not None:
        agent.out.flush()
        agent.simulation.finish(agent.out.stream.write, agent.out.log)
        agent.simulation = None
    if not agent.options.dry_run:
        try:
            agent.persistent.save()
        except OSError as exc:
            agent.out.log("error", f"Could not save the persistent classes: {exc.strerror}")
    if agent.trace is not None:
        agent.trace.total(agent.control.get("version"))
    elif agent.out.enabled("verbose"):       # verbose from body agent control, not -v
        from cfpromise.agent.outcome import Outcome
        from cfpromise.agent.trace import total_compliance
        counts = agent.counts
        agent.out.log("verbose", total_compliance(
            agent.control.get("version"), counts.get(Outcome.KEPT, 0),
            counts.get(Outcome.REPAIRED, 0),
            sum(n for o, n in counts.items()
                if o not in (Outcome.KEPT, Outcome.REPAIRED, Outcome.SKIPPED))))
    if tables and agent.options.show_classes is not None:
        show_classes(agent, agent.options.show_classes)
    if tables and agent.options.show_vars is not None:
        show_vars(agent, agent.options.show_vars)
    for observer in agent.observers:
        exit_code = observer.run_finished(agent, exit_code)
    agent.out.flush()
    return exit_code


def show_classes(agent: Any, pattern: str) -> None:
    """The table cf-agent prints for --show-evaluated-classes (cfpromise.agent.showeval)."""
    from cfpromise.agent.showeval import show_classes as show
    show(agent, pattern)


def show_vars(agent: Any, pattern: str) -> None:
    """The table cf-agent prints for --show-evaluated-vars (cfpromise.agent.showeval)."""
    from cfpromise.agent.showeval import show_vars as show
    show(agent, pattern)
