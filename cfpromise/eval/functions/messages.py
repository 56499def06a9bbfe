"""What a built-in function says when it fails at run time, as cf-agent 3.21 says it.

cf-agent's functions log their errors themselves (``Log(LOG_LEVEL_ERR, ...)`` in
libpromises/evalfunction.c and the helpers it calls), so they show at the default log
level, while cf-lite's evaluator shows a failed call's :class:`FunctionError` against
the promise at verbose only.  The messages a user sees are therefore data here:
:data:`MESSAGES` maps a key to the level cf-agent logs it at, its text, and the text
cf-promises prints instead where it differs (CfReadFile logs another message when the
agent type is "common").  A built-in says one with :func:`say` (the call goes on) or
raises :func:`fail` (the call fails; the evaluator says it, :mod:`cfpromise.eval.rvals`),
and :func:`emit` is the one place that decides how it is printed.

How often: cf-agent prints a line each time it calls the function, and a failed call
stays a call in the promise, so every later evaluation calls it again (two calls per
vars promise per PolicyResolve round, three per agent pass, and the cf-promises run
that validates the policy does its rounds too: a readfile() of a missing file in
``main`` is printed 19 times).  cf-lite's passes are not cf-agent's evaluation by
evaluation, so it prints each distinct line once per run, in the order cf-agent first
prints it: what cf-promises would say first (while the policy loads, when the agent
validates it), then the agent's (docs/language.md, "Function errors").
"""
from __future__ import annotations

from cfpromise.eval.functions.api import FunctionError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# key -> (level, text, text as cf-promises prints it or None: the same)
MESSAGES: dict[str, tuple[str, str, str | None]] = {
    # CheckClassExpression (ifelse(), and(), or(), not(), if/unless at run time)
    "class.unparsable": ("error", "Unable to parse class expression '{expr}'", None),
    "class.whitespace": ("error", "class expressions can't be separated by whitespace "
                         "without an intervening operator in expression '{expr}'", None),
    # CfReadFile (readfile, read*list, read*array, data_readstringarray*)
    "file.stat": ("error", "CfReadFile: Could not examine file '{path}' (stat: {err})",
                  "Could not examine file '{path}'"),
    "file.read": ("error", "CfReadFile: Error while reading file '{path}' ({err})", None),
    "file.negative_size": ("error", "{fn}: requested max size {size} is less than 0", None),
    "file.data_array": ("error", "{fn}: error reading from file '{path}'", None),
    "list.int": ("error", "Presumed int value '{item}' read from file '{path}' has no "
                 "recognizable value", None),
    "list.real": ("error", "Presumed real value '{item}' read from file '{path}' has no "
                  "recognizable value", None),
    # FnCallEvaluate: a call of no function (a nested one: the parser rejects the rest)
    "call.unknown": ("error", "No such FnCall '{name}' in promise '{file}' near line {line}",
                     None),
    "number.int": ("error", "Failed to parse integer number: {item}", None),
    "number.real": ("error", "Failed to parse real number: {item}", None),
    "number.ending": ("error", "Anomalous ending '{ending}' while parsing {kind} number: "
                      "{item}", None),
    # JsonReadDataFile (readjson, readyaml, readdata; readcsv and readenvfile say nothing)
    "data.open": ("error", "{fn}: data error parsing {mode} file '{path}': {err}", None),
    "data.parse": ("error", "{fn}: error parsing {mode} file '{path}': {err}", None),
    "data.open_csv": ("verbose", "{fn}: cannot open the {kind} file '{path}' ({err})", None),
    "data.non_container": ("error", "{fn}: non-container from parsing {mode} file "
                           "'{path}'", None),
    "data.mergedata_no_args": ("error", "mergedata needs at least one argument, a reference "
                               "to a container variable", None),
    "data.parse_expression": ("error", "Error parsing {mode} expression '{text}': {err}", None),
    "data.expression_non_container": ("error", "Non-container from parsing {mode} expression "
                                      "'{text}'", None),
    "csv.classfilter_read": ("error", "classfiltercsv: Failed to read file {path}: {err}", None),
    "csv.classfilter_index": ("error", "classfiltercsv: Class expression index is out of "
                              "bounds. Row length {columns}, index {index}", None),
    "csv.classfilter_parse": ("warning", "classfiltercsv: Failed to parse line {line}, line "
                              "ignored.", None),
    "csv.classfilter_columns": ("warning", "classfiltercsv: Line {line} has incorrect amount "
                                "of elements, {have} instead of {want}. Line ignored.", None),
    "csv.classfilter_sort_same": ("warning", "classfiltercsv: sorting column ({index}) is the "
                                  "same as class expression column ({cls}). Not sorting data "
                                  "container.", None),
    "csv.classfilter_sort_range": ("warning", "classfiltercsv: sorting index {index} out of "
                                   "bounds. Not sorting data container.", None),
    "packages.inventory_line": ("error", "Line from package inventory '{line}' did not yield "
                                "correct number of elements.", None),
    # files read line by line
    "lines.countlinesmatching": ("error", "File '{path}' could not be read in "
                                 "countlinesmatching(). (fopen: {err})", None),
    "lines.getfields": ("error", "File '{path}' could not be read in getfields(). "
                        "(fopen: {err})", None),
    "dir.lsdir": ("error", "Directory '{path}' could not be accessed in lsdir(), "
                  "(opendir: {err})", None),
    "findfiles_up.relative": ("error", "Function {fn}, not an absolute path '{path}'", None),
    "findfiles_up.not_dir": ("error", "Function {fn}, path '{path}' is not a directory", None),
    "findfiles_up.absolute_glob": ("error", "Function {fn}, glob '{glob}' cannot be an "
                                   "absolute path", None),
    # versions
    "version.format": ("error", "{fn}: Format of {which}version comparison string "
                       "'{version}' is incorrect", None),
    "findfiles.relative": ("warning", "Non-absolute path in findfiles(), skipping: {pattern}",
                           None),
    "makerule.target": ("warning", "Function 'makerule' target-file '{target}' exists and is "
                        "not a plain file", None),
    # hashing an unreadable file: cf-agent hashes nothing and says so at verbose only
    "hash.unreadable": ("verbose", "{message}", None),
    # regular expressions (CompileRegex) and regex_replace's own
    "regex.compile": ("error", "{message}", None),
    "regex.comment_empty": ("warning", "Comment regex '{pattern}' matched empty string in "
                            "'{where}'", None),
    "regex.replace": ("error", "{fn}: couldn't use regex '{regex}', replacement "
                      "'{replacement}', and options '{options}': error=(pcre_wrap:) "
                      "Everything's just fine. Thanks for asking.", None),
    # commands
    "exec.missing": ("error", "Proposed executable file '{arg0}' doesn't exist", None),
    "exec.refused": ("error", "{message}", None),
    # hostswithclass() and the LDAP functions in the community agent
    "enterprise.hosts": ("error", "Host class counting is only available in CFEngine "
                                  "Enterprise", None),
    "enterprise.ldap": ("error", "LDAP support only available in CFEngine Enterprise", None),
    # getuid(), getgid() of a name the system does not know
    "user.unknown": ("error", "Could not get UID for user '{name}', (getpwnam: not found)",
                     None),
    "group.unknown": ("error", "Could not get GID for group '{name}', (getgrnam: not found)",
                      None),
    "module.missing": ("error", "Plug-in module '\"{path}\"' not found", None),
    "module.refused": ("error", "{message}", None),
    "peers.group_size": ("warning", "Function {fn}: called with a nonsensical group size of "
                         "{size}, failing", None),
    # Mustache (libntech's renderer logs its own errors)
    "mustache.render": ("error", "{message}", None),
    # a call with no calling promise (a body's argument, a control body): fp->caller
    "caller.must": ("error", "Function '{fn}' must be called from a promise", None),
    "caller.only": ("error", "Function '{fn}' can only be called from a promise", None),
    "caller.unqualified": ("warning", "Function '{fn}' was not called from a promise; the "
                           "unqualified variable reference {name} cannot be qualified "
                           "automatically.", None),
    "caller.fields": ("warning", "Function '{fn}' was given an unqualified variable reference, "
                      "and it was not called from a promise. No way to automatically qualify "
                      "the reference '{name}'.", None),
    "caller.array": ("error", "Function '{fn}' called with an unqualifed array reference "
                     "'{name}', and the reference could not be automatically qualified as the "
                     "function was not called from a promise.", None),
    # format()
    "format.short": ("error", "format() didn't have enough parameters", None),
    "format.not_list": ("error", "Function 'format' expected a list variable, got variable "
                        "of type '{type}'", None),
    "format.modifier": ("error", "format() does not allow modifier character '{char}' in "
                        "format specifier '{spec}'.", None),
}

# functions that fail at once without a calling promise (FnCallMapData, ReadArray,
# ParseArray, FnCallLDAPArray): the message they say
NEEDS_PROMISE: dict[str, str] = {
    "mapdata": "caller.must", "maparray": "caller.must", "ldaparray": "caller.only",
    **{f"{verb}{kind}array{idx}": "caller.only" for verb in ("read", "parse")
       for kind in ("string", "int", "real") for idx in ("", "idx")
       if not (idx and kind != "string")},
}

# functions whose regular expression is compiled without CompileRegex's error (3.21:
# regextract and data_regextract call pcre_compile themselves and log at verbose)
QUIET_REGEX = frozenset({"regextract", "data_regextract"})




def say_number(ctx: Any, kind: str, item: str) -> None:
    """What IntFromString (``kind`` int) or DoubleFromString (real) says of ``item``,
    a text that is no such number: none at its start, or more after its unit."""
    found = number_problem(kind, item)
    if found is not None:
        say(ctx, found[0], **found[1])


def number_problem(kind: str, item: str) -> tuple[str, dict[str, Any]] | None:
    """(message key, fields) of what IntFromString or DoubleFromString says of ``item``;
    None when it says nothing (a number, ``inf``/``now``, a reference that might
    converge: verbose only in 3.21)."""
    from cfpromise.eval.functions.common import number_ending
    if kind == "int" and item in ("inf", "now"):
        return None
    ending = number_ending(item, kind)
    if ending == "":
        if kind == "int" and "$" in item:
            return None
        return ("number.int" if kind == "int" else "number.real"), {"item": item}
    if ending is not None and not (kind == "int" and ending[0] == "$"):
        return "number.ending", {"ending": ending, "item": item,
                                 "kind": "integer" if kind == "int" else "real"}
    return None


def text(key: str, as_common: bool = False, **fields: Any) -> str:
    level, agent_text, common_text = MESSAGES[key]
    return ((common_text if as_common and common_text else agent_text)).format(**fields)


def fail(key: str, **fields: Any) -> FunctionError:
    """The error to raise for a failed call: the evaluator says it (:func:`emit`) and
    keeps its text for the promise's verbose trace."""
    exc = FunctionError(text(key, **fields))
    exc.said = [(key, fields)]         # type: ignore[attr-defined]
    return exc


def say(ctx: Any, key: str, **fields: Any) -> None:
    """Say ``key`` for a call that goes on (its result stands)."""
    emit(ctx, key, fields)


# said at every call, as before the table: packagesmatching() and
# packageupdatesmatching() read the inventory at each call, and cf-lite calls them as
# often as cf-agent does (agentmisc's packages_legacy_* cases count the lines)
EVERY_CALL = frozenset({"packages.inventory_line"})


def emit(ctx: Any, key: str, fields: dict[str, Any]) -> None:
    """The one place that decides how a function's message is printed: at the level of
    :data:`MESSAGES`; a line above verbose once per run (:class:`Sink`), through the
    run's sink when there is one, else at once (and :data:`EVERY_CALL`'s each time)."""
    level = MESSAGES[key][0]
    sink = getattr(ctx, "fn_messages", None)
    if sink is None or level in ("verbose", "debug") or key in EVERY_CALL:
        ctx.log(level, text(key, **fields))
        return
    sink.say(level, text(key, **fields), text(key, as_common=True, **fields))


class Sink:
    """A run's function messages.  While the policy loads (cf-lite's rounds of the
    policy's vars, as PolicyResolve's), lines are kept: cf-promises' own first (when
    the run validates its policy, as cf-agent runs cf-promises then), then the agent's;
    :meth:`end_loading` prints them.  Each distinct line is printed once per run.
    ``as_common``: cf-lite-promises, which says only what cf-promises says."""

    def __init__(self, log: Any, validating: bool, as_common: bool = False) -> None:
        self.log = log
        self.validating = validating
        self.as_common = as_common
        self.loading = True
        self.promises_lines: list[tuple[str, str]] = []
        self.agent_lines: list[tuple[str, str]] = []
        self.seen: set[str] = set()
        self.promises_only = False

    @classmethod
    def install(cls, ctx: Any, validating: bool, as_common: bool) -> Sink:
        """The run's sink, for ``ctx``'s built-ins (the engine's loading makes it)."""
        ctx.fn_messages = sink = cls(ctx.log, validating, as_common)
        return sink

    def say(self, level: str, agent_text: str, common_text: str) -> None:
        if self.promises_only:      # a bundle only cf-promises has (cfpromise.agent.leftout)
            if self.loading and self.validating:
                self.promises_lines.append((level, common_text))
        elif self.as_common:
            self._once(level, common_text)
        elif self.loading:
            if self.validating:
                self.promises_lines.append((level, common_text))
            self.agent_lines.append((level, agent_text))
        else:
            self._once(level, agent_text)

    def end_loading(self, failed: bool = False) -> None:
        """Print what loading said; a load that ``failed`` is a failed validation, after
        which cf-agent does not load the policy itself: only cf-promises' lines."""
        for level, line in self.promises_lines + ([] if failed else self.agent_lines):
            self._once(level, line)
        self.promises_lines, self.agent_lines = [], []
        self.loading = False

    def _once(self, level: str, line: str) -> None:
        if line not in self.seen:
            self.seen.add(line)
            self.log(level, line)
