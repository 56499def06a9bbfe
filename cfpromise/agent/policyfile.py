"""Reading one policy file, and the errors that stop a policy from loading.

The agent's loading (:mod:`cfpromise.agent.loading`) and the bundle path's
autoloading (:mod:`cfpromise.agent.autoload`) read files the same way: a file
writable by group or others is refused (cf-agent's security exception), a parsed
file is kept in the policy cache, each file is validated on its own, and errors
are printed with their source line.  Here, below both, so neither imports the other.
"""
from __future__ import annotations

import os
import stat

from cfpromise.agent import yyerrors
from cfpromise.fast.policycache import content_digest
from cfpromise.syntax import ast
from cfpromise.syntax.errors import Diagnostic, file_lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class LoadError(Exception):
    def __init__(self, diagnostics: list[Diagnostic], parse_time: bool = False,
                 fatal: bool = False) -> None:
        super().__init__("policy failed validation")
        self.diagnostics = diagnostics
        self.parse_time = parse_time     # found while reading a file: cf-agent says "syntax errors"
        self.fatal = fatal               # a security exception: exit 1, no failsafe (as cf-agent)


def too_many(diagnostics: list[Diagnostic]) -> LoadError:
    """The errors so far, when a file read through ``inputs`` holds more than the
    parser takes: cf-promises says "Too many errors" and exits, reading no other file."""
    exc = LoadError(diagnostics, parse_time=True)
    exc.too_many = True       # type: ignore[attr-defined]
    return exc


def insecure(path: str) -> bool:
    """Policy writable by group or others is refused, as cf-agent refuses it."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return bool(mode & (stat.S_IWGRP | stat.S_IWOTH))


def read(agent: Any, path: str, entry: bool = False) -> ast.Policy | None:
    """The policy file ``path`` parsed (``entry``: as the entry file) and validated on its
    own; LoadError when it is insecure or has errors, PolicyError for a syntax error.
    None when a file of the same content was read already: cf-agent loads a text once,
    whatever its name (LoadPolicyFile's "duplicate (detected by hash)"), so two copies of
    a module do not define its bundles twice."""
    if getattr(agent, "check_not_writable", True) and insecure(path):
        # (cf-promises reads it: its check_not_writable_by_others is off)
        from cfpromise.promises.api import shown_path
        shown = shown_path(path, getattr(agent.options, "start_dir", ""))
        owner = os.stat(path).st_uid
        raise LoadError([Diagnostic(_coord(path), f"File {shown} (owner {owner}) is writable "
                                                  "by others (security exception)")],
                        fatal=True)
    cache = agent.policy_cache
    cached = digest = None
    if cache is not None:
        cached, digest = cache.get(path, entry)
    else:
        digest = content_digest(path)
    if digest is not None:
        if digest in agent.policy_digests:
            agent.out.log("debug", f"Skipping loading of duplicate (detected by hash) policy "
                                   f"file {path}")
            return None
        agent.policy_digests.add(digest)
    from cfpromise.promises.api import shown_path
    agent.parsed_last = shown_path(path, getattr(agent.options, "start_dir", ""))
    yyerrors.file_parsed(agent)             # (the parser's count starts again)
    if cached is not None:
        return _as_parsed(agent, cached)
    # The parser (and PLY, which imports inspect) and the parse-time checks load only
    # when a file is not cached.
    from cfpromise.schema.validate import diagnostics
    from cfpromise.syntax.parser import as_entry, parse_file
    policy = parse_file(path)
    if entry:
        policy = as_entry(policy)
    problems = diagnostics(policy, entry=entry)
    if problems:
        from cfpromise.schema.deprecations import interleaved
        from cfpromise.syntax.recovery import capped
        problems, stopped = capped(problems)    # (its parser's count: "Too many errors")
        # (said as its parser reads the file: each warning among the parser's errors, none
        # past the error it stopped at)
        warned = _warn(policy, agent, say=False)
        if stopped:
            end = problems[-1].coord
            warned = [w for w in warned if (w.coord.line, w.coord.col) < (end.line, end.col)]
        problems = interleaved(warned, problems)
        raise too_many(problems) if stopped else LoadError(problems, parse_time=True)
    _warn(policy, agent)
    if cache is not None:
        cache.put(path, entry, policy, digest)
    return _as_parsed(agent, policy, warned=True)


def _as_parsed(agent: Any, policy: ast.Policy, warned: bool = False) -> ast.Policy:
    """The file's policy as the program's parser keeps it: its warnings said (at every
    read, cached or not), without the removed attributes and promise types it drops
    (cfpromise.schema.deprecations.installed) and, for cf-agent, without the bundles of
    types it does not install and the agent bundles a removed body hides
    (irrelevant_bundles, skipped_bundles; cf-promises keeps every bundle)."""
    from cfpromise.schema import schema
    from cfpromise.schema.deprecations import has_removed, installed, irrelevant_bundles, \
        skipped_bundles
    parsing_as = getattr(agent, "parsing_as", "agent")
    skipped = irrelevant_bundles(policy, parsing_as)
    if has_removed(policy, schema()):
        if not warned:
            _warn(policy, agent)
        skipped |= skipped_bundles(policy, parsing_as)
        policy = installed(policy, schema())
    if not skipped:
        return policy
    # (the validating cf-promises still sees them: cfpromise.agent.sequence.verified)
    hidden = getattr(agent, "hidden_bundles", None)
    if hidden is None:
        hidden = agent.hidden_bundles = set()
    hidden.update(b.name for i, b in enumerate(policy.bundles) if i in skipped)
    kept = ast.evolve(policy, bundles=tuple(b for i, b in enumerate(policy.bundles)
                                            if i not in skipped))
    from cfpromise.agent.leftout import remember
    remember(agent, policy, kept)
    return kept


def _warn(policy: ast.Policy, agent: Any, say: bool = True) -> list[Diagnostic]:
    """The parser's warnings of deprecated and removed language, at every read of the
    file (cached or not), as cf-promises and cf-agent print them (``say``: printed here;
    a file with errors has them said among its errors)."""
    from cfpromise.schema import schema
    from cfpromise.schema.deprecations import has_removed, warnings
    if not has_removed(policy, schema()):
        return []
    found = warnings(policy, schema())
    if found:
        if say:
            report_errors(found, getattr(agent.options, "start_dir", ""))
        agent.parser_warnings = getattr(agent, "parser_warnings", ()) + tuple(found)
    return found


def _control_flag(policy: ast.Policy, lval: str) -> bool:
    """A ``body common control`` flag as written (true, yes, on)."""
    for body in policy.bodies:
        if body.type == "common" and body.name == "control":
            for c in body.constraints:
                if c.lval == lval and isinstance(c.rval, ast.Scalar):
                    return c.rval.value in ("true", "yes", "on")
    return False


def _coord(path: str) -> Any:
    from cfpromise.syntax.errors import Coord
    return Coord(path, 0, 0)


def report_errors(diags: list[Diagnostic], start_dir: str = "") -> None:
    """Print diagnostics as cf-promises does: one with a place in the policy with its
    source line, on standard error; one without, as a log line (cfpromise.agent.output).
    ``start_dir``: an agent's, whose files are named as given (promises.api.shown_path),
    as the cf-promises cf-agent validates with names them."""
    from cfpromise.agent.output import diagnose, say
    cache: dict[str, list[str] | None] = {}
    for d in diags:
        if d.source_line is None and d.coord.line > 0 and not d.bare:
            lines = file_lines(d.coord.file, cache)
            if lines is not None and d.coord.line <= len(lines):
                d = d._replace(source_line=lines[d.coord.line - 1].rstrip("\r"))
        if d.coord.line > 0:
            if start_dir:
                from cfpromise.promises.api import shown_path
                shown = shown_path(d.coord.file, start_dir)
                if shown != d.coord.file:
                    d = d._replace(coord=d.coord._replace(file=shown))
            diagnose(d.render())
        else:
            say(d.severity if d.severity in ("error", "warning") else "error", d.message)


def say_verdict(exc: Exception) -> None:
    """cf-promises' last word on a file's errors: "There are syntax errors in policy
    files" (when its parser or its parse-time checks found them), or past twelve parser
    errors "Too many errors" on standard error (it exits there, with no verdict)."""
    from cfpromise.agent.output import say
    if getattr(exc, "too_many", False):
        import sys
        print("Too many errors", file=sys.stderr)
    elif getattr(exc, "parse_time", True):
        say("error", "There are syntax errors in policy files")


def unread(left_out: list[Any]) -> list[str]:
    """What cf-agent and cf-promises say of the ``inputs`` items they leave out, and go on:
    a function call (an ``ast.FnCall``) is a "Non-file object" (an inputs list's calls are
    never made), said as each file's inputs are read, before the references that never
    resolved (each a text: as far as it expanded)."""
    lines = ["Non-file object in inputs list" for item in left_out if not isinstance(item, str)]
    return lines + [f"Unresolved variable '{item}' in input list, cannot parse"
                    for item in left_out if isinstance(item, str)]
