"""The bundlesequence: which bundles a run starts with, and cf-agent 3.21's two checks of it.

cf-agent checks the sequence twice, and the two checks differ:

* while it loads a policy run without ``-b`` (VerifyBundleSequence, by the cf-promises it
  validates with and by itself; with ``-b`` neither checks), the policy's own
  ``bundlesequence`` is looked up leniently: a name matches a bundle of that name of
  any type in any namespace, the name's namespace stripped.  A name no bundle has
  fails validation (the failsafe runs), or, when the agent does not validate, is fatal;
* before it runs the sequence (KeepPromiseBundles), each name, ``-b``'s included, must
  name an agent or common bundle as the namespace rules resolve it; if one does not,
  the run stops with a fatal error (exit 1) before any bundle runs, and no failsafe.

So ``-b typo`` never sends the agent to its failsafe, and a ``main`` that is defined
only in another namespace passes validation but is not run.
"""
from __future__ import annotations


from cfpromise.agent.abort import FatalError
from cfpromise.agent.output import say
from cfpromise.eval.rvals import UNRESOLVED, RvalEvaluator
from cfpromise.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def bundlesequence(agent: Any) -> list[tuple[str, list[Any]]]:
    """(name, arguments) of each bundle the run starts with: ``-b``'s, else the common
    control body's, else ``main``."""
    if agent.options.bundlesequence:
        out: list[tuple[str, list[Any]]] = []
        for item in agent.options.bundlesequence:
            out += [(name, []) for name in item.split(",") if name]
        return out
    body = agent.bodies.get(("default", "control", "common"))
    seq_c = None
    if body is not None:
        for c in body.constraints:
            if c.lval == "bundlesequence" and (c.classes == "any" or
                                                agent.ctx.eval_class_expr(c.classes)):
                seq_c = c
    if seq_c is None:
        return [("main", [])]
    ev = RvalEvaluator(agent.ctx)
    items = seq_c.rval.items if isinstance(seq_c.rval, ast.List) else (seq_c.rval,)
    out = []
    for item in items:
        if isinstance(item, ast.FnCall):
            args = [ev.value(a, want_list=True) for a in item.args]
            out.append((ev.text(item.name), [a if a is not UNRESOLVED else "" for a in args]))
        elif isinstance(item, ast.Scalar) and item.value.startswith("@"):
            value = ev.value(item, want_list=True)
            if value is UNRESOLVED:
                out.append((item.value, []))      # reported as an undefined bundle
            else:
                out += [(v, []) for v in (value if isinstance(value, list) else [])]
        elif isinstance(item, ast.Scalar):
            out.append((ev.text(item.value), []))
    return out or [("main", [])]       # an empty bundlesequence: cf-agent runs main


def unverified(agent: Any, own: bool = False) -> list[str]:
    """The names of the policy's bundlesequence that VerifyBundleSequence refuses:
    no bundle of any type, in any namespace, has that name (its namespace stripped).
    As cf-promises sees the policy, or (``own``) as the agent's own parser keeps it,
    without the bundles a removed body hid (cfpromise.schema.deprecations)."""
    if agent.control_flag("ignore_missing_bundles"):
        return []
    seen = agent
    if agent.options.define:            # without the -D classes cf-promises is not given
        from cfpromise.agent.promisesview import sequence_view
        seen = sequence_view(agent)
    names = {b.name for b in seen.policy.bundles}
    if not own:
        names |= getattr(agent, "hidden_bundles", None) or set()
    out = []
    for name, _ in bundlesequence(seen):
        if name not in names and name.partition(":")[2] not in names:
            out.append(name)
    return out


def say_unverified(names: list[str]) -> None:
    """What cf-promises says of them (its Fatal error follows)."""
    for name in names:
        say("error", f"Bundle '{name}' listed in the bundlesequence is not a defined bundle")


def verified(agent: Any) -> bool:
    """The validating cf-promises' check: False (said as it says it) when the policy fails
    validation for its bundlesequence.  cf-agent's own check of its policy follows the
    preliminary walk (:func:`check_own`)."""
    if agent.options.bundlesequence:    # cf-agent validates with `cf-promises FILE -b ..`
        return True
    from cfpromise.agent.augments import validating
    if not validating(agent):
        return True
    missing = unverified(agent)
    if not missing:
        return True
    say_unverified(missing)
    say("error", "Fatal CFEngine error: Errors in promise bundles: could not verify "
        "bundlesequence")
    return False


def check_own(agent: Any) -> None:
    """cf-agent's own load-time check, once its preliminary walk is done: fatal when a
    name of the bundlesequence is not in its policy (which holds no bundle of a type it
    does not run, nor one a removed body hid: cfpromise.agent.leftout)."""
    if agent.options.bundlesequence:
        return
    missing = unverified(agent, own=True)
    if not missing:
        return
    say_unverified(missing)
    fatal = FatalError("")
    fatal.final = "Errors in promise bundles: could not verify bundlesequence"
    raise fatal


def check_found(agent: Any, sequence: list[tuple[str, list[Any]]]) -> None:
    """KeepPromiseBundles: each name must be an agent or common bundle (namespace rules,
    ``-b``'s names too); else a fatal error before any bundle runs."""
    missing = [name for name, _ in sequence if agent.find_bundle(name, "default") is None]
    if not missing:
        return
    if agent.control_flag("ignore_missing_bundles"):
        for name in missing:
            agent.out.log("verbose", f"Ignoring missing bundle '{name}'")
        return
    for name in missing:
        agent.out.log("error", f"Bundle '{name}' listed in the bundlesequence was not found")
    fatal = FatalError("")
    fatal.final = "Errors in agent bundles"
    raise fatal
