"""The verdict on a policy others may write, found without evaluating it.

cf-agent refuses a policy file writable by group or others (the security exception), but
only after the cf-promises it validates with, which reads such files, has accepted the
policy: an invalid policy goes to the failsafe (which may fetch a good one from the
server), a valid one stops at the security exception (exit 1).  cf-lite gives the same
verdicts while evaluating nothing another user may have written: it parses and checks
the files, follows the inputs named as plain text or with what the agent itself defines
(``$(sys.libdir)``, ``$(const.t)``, ``$(this.promise_dirname)``: no policy is evaluated
for those), and checks the bundlesequence as written.  An input named with a variable a
policy file defines is known only once the policy is evaluated: then the policy is not
all read, and only what is evident from the files read is said.
"""
from __future__ import annotations

import os
import re

from cfpromise.agent.policyfile import LoadError, _control_flag, _coord, unread
from cfpromise.promises.api import inputs_directory
from cfpromise.syntax import ast
from cfpromise.syntax.errors import Diagnostic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

# a reference the agent resolves from its own variables, and any reference at all
_OWN_REFERENCE = re.compile(r"\$(?:\((?:sys|const)\.\w+\)|\{(?:sys|const)\.\w+\})")
_REFERENCE = re.compile(r"[$@][({]")


def validated_first(agent: Any, exc: Exception) -> Exception:
    """``exc`` (a security exception), or -- when the validating cf-promises would refuse
    the policy -- its errors as a LoadError (not fatal: the failsafe follows)."""
    if not getattr(exc, "fatal", False):
        return exc
    from cfpromise.agent.augments import validating
    if not validating(agent):
        return exc
    from cfpromise.syntax.errors import PolicyError
    from cfpromise.syntax.loader import load
    expand, left_out = _own_inputs(agent)
    try:
        loaded = load(agent.options.file, expand, ignore_missing=True, first_errors=True,
                      base=inputs_directory(agent.options.file))
    except PolicyError as error:
        return LoadError(error.diagnostics, parse_time=True)
    if loaded.errors:
        return LoadError(loaded.errors, parse_time=True)
    for line in unread(list(left_out)):     # (cf-promises reads on without them)
        agent.out.log("error", line)
    found = _evident(agent, loaded, expand)
    return LoadError(found) if found else exc


def _own_inputs(agent: Any) -> tuple[Callable[..., list[str] | None], list[Any]]:
    """An expander of ``inputs`` lists (:func:`cfpromise.syntax.loader.load`'s) that
    resolves the agent's own variables, and the items it leaves out (a function call, a
    reference to a variable the agent does not define: :func:`cfpromise.agent.policyfile.unread`)."""
    from cfpromise.eval.rvals import RvalEvaluator
    from cfpromise.syntax.loader import literal_inputs
    left_out: list[Any] = []        # (policyfile.unread's)
    evaluator = RvalEvaluator(agent.ctx)

    def expand(rval: ast.Rval, directory: str, filename: str) -> list[str] | None:
        items = rval.items if isinstance(rval, ast.List) else (rval,)
        out: list[str] = []
        for item in items:
            if isinstance(item, ast.FnCall):
                left_out.append(item)
                continue
            if not isinstance(item, ast.Scalar):
                return None
            named = literal_inputs(ast.Scalar(_OWN_REFERENCE.sub("", item.value), item.coord),
                                   directory, filename)
            if named is None:       # a variable some policy file defines
                return None
            text = literal_inputs(item, directory, filename)
            if text is not None:
                out += text
                continue
            # (``this.promise_dirname`` beside another reference is not resolved either)
            resolved = evaluator.text(item.value)
            if _REFERENCE.search(resolved):
                left_out.append(resolved)
            else:
                out.append(resolved)
        return out
    return expand, left_out


def _evident(agent: Any, loaded: Any, expand: Callable[..., list[str] | None]
             ) -> list[Diagnostic]:
    """What makes cf-promises refuse the policy that needs no evaluation to see: an input
    that is not there (unless ``ignore_missing_inputs``), and -- when every input is
    known, the whole policy read -- a body no file defines, a bundlesequence naming no
    bundle (said as cf-promises says them, its fatal line too)."""
    from cfpromise.schema.check import policy_diagnostics
    from cfpromise.syntax.loader import input_rvals, resolve_path
    if not _control_flag(loaded.policy, "ignore_missing_inputs"):
        base = inputs_directory(agent.options.file)
        for rval in input_rvals(loaded.policy):
            naming = rval.coord.file
            for name in expand(rval, os.path.dirname(os.path.abspath(naming)), naming) or ():
                path = resolve_path(name, base)
                if not os.path.isfile(path):
                    return [Diagnostic(_coord(naming), f"Can't stat file '{path}' for "
                                       "parsing. (stat: No such file or directory)")]
    if loaded.unresolved:
        return []
    found = policy_diagnostics(loaded.policy, full=True)
    gaps = [] if found else _sequence_gaps(agent, loaded.policy)
    if gaps:
        at = _coord(agent.options.file)
        found = [Diagnostic(at, f"Bundle '{name}' listed in the bundlesequence is not a "
                                "defined bundle") for name in gaps]
        found.append(Diagnostic(at, "Fatal CFEngine error: Errors in promise bundles: could "
                                    "not verify bundlesequence"))
    return found


def _sequence_gaps(agent: Any, policy: ast.Policy) -> list[str]:
    """The bundlesequence's names no bundle has, as the validating cf-promises checks
    them (:func:`cfpromise.agent.sequence.unverified`): a bundle of any type counts, in
    any namespace; the body's bundlesequence in effect (its class guard), else ``main``;
    none with ``-b`` (the agent checks those) or ``ignore_missing_bundles``; none either
    when a name holds a variable (known once the policy is evaluated)."""
    if agent.options.bundlesequence or _control_flag(policy, "ignore_missing_bundles"):
        return []
    sequence: ast.Rval | None = None
    for body in policy.bodies:
        if body.type == "common" and body.name == "control":
            for c in body.constraints:
                if c.lval == "bundlesequence" and (c.classes == "any" or
                                                    agent.ctx.eval_class_expr(c.classes)):
                    sequence = c.rval
    wanted = ["main"]
    if sequence is not None:
        items = sequence.items if isinstance(sequence, ast.List) else (sequence,)
        names = [item.name if isinstance(item, ast.FnCall) else getattr(item, "value", "$")
                 for item in items]
        if any(_REFERENCE.search(name) or name.startswith("@") for name in names):
            return []
        wanted = names or wanted
    entry = os.path.abspath(agent.options.file)
    have = {"main" if b.name == "__main__" and os.path.abspath(b.coord.file) == entry
            else b.name for b in policy.bundles}
    return [name for name in wanted
            if name not in have and name.partition(":")[2] not in have]
