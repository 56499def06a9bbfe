"""Data loaded before the policy: host-specific data (CMDB) and augments (def.json).

Both are read as cf-agent 3.21 reads them, after host discovery and before the
policy is parsed:

1. ``WORKDIR/data/host_specific.json`` (host-specific data): ``vars``/``variables``
   go to ``data:variables.NAME`` (or ``data:bundle.name``, ``ns:bundle.name``),
   ``classes`` to the ``data`` namespace unless qualified; tags get
   ``source=cmdb``.  Only unconditional classes are allowed (``"any::"``), no
   variable references anywhere (the whole file is then refused).  Like the
   agent's other state it is read only when :mod:`cfpromise.agent.trust` trusts
   it (else one warning, and it is left out).
2. ``def_preferred.json`` (else, or with ``--ignore-preferred-augments``, ``def.json``) in
   the directory of the policy entry
   file, then every file its ``augments`` key names, in turn: ``vars`` and
   ``variables`` (``variables`` wins) go to ``def`` unless qualified; ``classes``
   are defined when one of their entries matches (an entry ending in ``::`` is a
   class expression, anything else a regex over the defined classes); ``inputs``
   sets ``def.augments_inputs`` (the policy decides whether to load them).
   ``$(sys.x)``-style references are expanded when the file is read; what does not
   resolve stays as written.  Augments never override host-specific data.
"""
from __future__ import annotations

import os

from cfpromise.fast import precompiled
from cfpromise.eval.variables import parse_ref

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

CMDB_TAG, AUGMENTS_TAG = "source=cmdb", "source=augments_file"
CMDB_KEYS = ("vars", "variables", "classes")
_REFERENCE = precompiled.compile(r"\$[({]")


def _var_type_value(value: Any) -> tuple[str, Any]:
    """A JSON value as cf-agent's LoadAugmentsData installs it: a primitive as a
    string (JsonPrimitiveToString: reals as %.2f, null as nothing), an array of
    primitives as an slist (RlistFromContainer: nulls dropped, reals as %.2f), anything
    else as a data container (copied: reals lose their source text)."""
    from cfpromise.eval.functions.jsondata import copy, prim_str
    if value is None:
        return "none", None
    if not isinstance(value, (dict, list)):
        return "string", prim_str(value)
    if isinstance(value, list) and not any(isinstance(v, (dict, list)) for v in value):
        return "slist", [prim_str(v) for v in value if v is not None]
    return "data", copy(value)


def _strings(value: Any) -> Any:
    """Every string inside a JSON value (for the references check)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)


class _Everything(set):
    """An Expander's "being expanded" set that holds every variable: values that
    themselves hold references are inserted as they are, not expanded again."""

    def __contains__(self, item: object) -> bool:
        return True


def _expanded(agent: Any, value: Any) -> Any:
    """``value`` with the references that resolve now expanded (sys, const, earlier data)."""
    if isinstance(value, str):
        if "$" not in value:
            return value
        expander = agent.ctx.expander()
        expander.active = _Everything()
        return expander.expand(value)
    if isinstance(value, list):
        return [_expanded(agent, v) for v in value]
    if isinstance(value, dict):
        return {k: _expanded(agent, v) for k, v in value.items()}
    return value


def _read_json(agent: Any, path: str) -> Any:
    """ReadJsonFile: libntech's lenient parser (a trailing comma, a bare-word key and
    the like are accepted, as cf-agent accepts them in def.json)."""
    from cfpromise.eval.functions.jsondata import JsonError, loads
    try:
        with open(path, "rb") as fh:
            text = fh.read().decode("utf-8", "surrogateescape")
    except OSError as exc:
        agent.out.log("error", f"Could not read JSON file {path}: {exc.strerror}")
        return None
    try:
        return loads(text)
    except JsonError as exc:
        agent.out.log("error", f"Could not parse JSON file {path}: {exc}")
    return None


class _Loader:
    """Installs one source's variables and classes (CMDB or augments)."""

    def __init__(self, agent: Any, cmdb: bool, path: str) -> None:
        self.agent, self.cmdb, self.path = agent, cmdb, path
        self.ctx = agent.ctx
        self.log: Callable[[str, str], None] = agent.out.log
        self.tag = CMDB_TAG if cmdb else AUGMENTS_TAG

    # -- variables -----------------------------------------------------------
    def variables(self, table: Any, with_specs: bool) -> None:
        if not isinstance(table, dict):
            return
        for name, spec in table.items():
            tags: tuple[str, ...] = ()
            comment = ""
            value = spec
            if with_specs and isinstance(spec, dict):
                if "value" not in spec:
                    self.log("error", f"Missing value in '{name}' variable specification in CMDB "
                                      "data (value field is required)" if self.cmdb else
                             f"Missing value for the augments variable '{name}' in "
                             f"'{self.path}' (value field is required)")
                    continue
                value = spec["value"]
                tags = tuple(t for t in spec.get("tags", ()) if isinstance(t, str))
                comment = spec.get("comment", "") if isinstance(spec.get("comment"), str) else ""
            self.set_var(name, value, tags, comment)

    def set_var(self, name: str, value: Any, tags: tuple[str, ...], comment: str) -> None:
        if self.cmdb:
            ns, scope, short = parse_ref(name, "data", "variables")
        else:
            ns, scope, short = parse_ref(name, "default", "def")
        key = f"{ns}:{scope}.{short}"
        import json
        self.log("verbose", f"Installing {'CMDB' if self.cmdb else 'augments'} variable "
                            f"'{key}={value if isinstance(value, str) else json.dumps(value)}'"
                            + ("" if self.cmdb else f" from file '{self.path}'"))
        if not self.cmdb:
            old = self.ctx.vars.get(ns, scope, short)
            if old is not None and CMDB_TAG in old.tags:
                self.log("verbose", f"Cannot set variable {key} from augments, already defined "
                                    "from host-specific data")
                return
        type_, value = _var_type_value(value)
        if value is None:
            return
        self.ctx.set_var(ns, scope, short, type_, value, tags + (self.tag,))
        if comment:
            self.ctx.comments[key] = comment

    # -- classes -------------------------------------------------------------
    def classes(self, table: Any) -> None:
        if not isinstance(table, dict):
            return
        for name, spec in table.items():
            tags: tuple[str, ...] = ()
            comment = ""
            if isinstance(spec, dict):
                tags = tuple(t for t in spec.get("tags", ()) if isinstance(t, str))
                comment = spec.get("comment", "") if isinstance(spec.get("comment"), str) else ""
                hit = self._dict_hit(name, spec)
            elif isinstance(spec, (str, list)):
                hit = self._list_hit([spec] if isinstance(spec, str) else spec,
                                     isinstance(spec, str))
            else:
                hit = False
            if hit:
                self.define(name, tags, comment)

    def _list_hit(self, entries: list[Any], single: bool) -> bool:
        if self.cmdb:
            for entry in entries:
                if entry != "any::":
                    allowed = '"any::"' if single else '\'["any::"]\''
                    self.log("error", f"Invalid class specification '{entry}' in CMDB data, "
                                      f"only {allowed} allowed")
                    return False
            return True
        return any(isinstance(e, str) and self._matches(e) for e in entries)

    def _dict_hit(self, name: str, spec: dict[str, Any]) -> bool:
        exprs, regexes = spec.get("class_expressions"), spec.get("regular_expressions")
        if self.cmdb:
            if exprs not in (None, [], ["any::"]):
                self.log("error", f"Invalid class expression rules for class '{name}' in CMDB "
                                  "data, only '[]' or '[\"any::\"]' allowed")
                return False
            if regexes not in (None, [], ["any"]):
                self.log("error", f"Invalid regular expression rules for class '{name}' in CMDB "
                                  "data, only '[]' or '[\"any\"]' allowed")
                return False
            return True
        if (exprs is None) == (regexes is None):
            self.log("error", f"Invalid augments class data for class '{name}' in '{self.path}': "
                              "either \"class_expressions\" or \"regular_expressions\" need to be "
                              "specified")
            return False
        entries = exprs if exprs is not None else regexes
        return isinstance(entries, list) and \
            any(isinstance(e, str) and self._matches(e) for e in entries)

    def _matches(self, entry: str) -> bool:
        """An entry ending in ``::`` is a class expression, anything else a class regex."""
        if entry.endswith("::"):
            try:
                return bool(self.ctx.eval_class_expr(entry[:-2]))
            except Exception:               # a malformed expression matches nothing
                return False
        import re
        try:
            rx = re.compile(entry)
        except re.error:
            return False
        return any(rx.fullmatch(cls) for cls, _ in self.ctx.classes_items())

    def define(self, name: str, tags: tuple[str, ...], comment: str) -> None:
        ns = "data" if self.cmdb else "default"
        key = self.ctx.class_key(name, ns)
        self.log("verbose", f"Installing {'CMDB' if self.cmdb else 'augments'} class '{name}'"
                            + ("" if self.cmdb else f" from file '{self.path}'"))
        if not self.cmdb and CMDB_TAG in self.ctx.class_table.get(key, ()):
            self.log("verbose", f"Cannot set class {key} from augments, already defined from "
                                "host-specific data")
            return
        self.ctx.define_class(name, tags=tags + (self.tag,), namespace=ns)
        if comment:
            self.ctx.comments[key] = comment


def load_host_specific(agent: Any) -> None:
    """Install WORKDIR/data/host_specific.json, all of it or (when invalid) nothing."""
    path = os.path.join(agent.options.workdir, "data", "host_specific.json")
    if not os.path.isfile(path):
        agent.out.log("verbose", f"No host-specific JSON data available at '{path}'")
        return
    from cfpromise.agent.trust import ignored
    if ignored(path, agent.options.workdir, agent.out.log, "Host-specific data"):
        return                     # another user could have planted it: variables, classes
    doc = _read_json(agent, path)
    if not isinstance(doc, dict):
        if doc is not None:
            agent.out.log("error", f"Invalid CMDB data in '{path}', must be a JSON object")
        agent.out.log("error", "Failed to load CMDB data")
        return
    agent.out.log("verbose", f"Loaded CMDB data file '{path}', installing contents")
    for key in doc:
        if key not in CMDB_KEYS:
            agent.out.log("warning", f"Invalid key '{key}' in the CMDB data file '{path}', "
                                     "skipping it")
    for key in ("vars", "variables"):
        if any(_REFERENCE.search(s) for s in _strings(doc.get(key))):
            agent.out.log("error", f"Invalid '{key}' CMDB data, cannot contain variable references")
            agent.out.log("error", "Failed to load CMDB data")
            return
    loader = _Loader(agent, True, path)
    loader.variables(doc.get("vars"), with_specs=False)
    loader.variables(doc.get("variables"), with_specs=True)
    loader.classes(doc.get("classes"))


def _augments_file(agent: Any, path: str) -> list[str]:
    """Install one augments file; returns the further augments files it names."""
    doc = _read_json(agent, path)
    if not isinstance(doc, dict):
        return []
    agent.out.log("verbose", f"Loaded augments file '{path}', installing contents")
    doc = _expanded(agent, doc)
    loader = _Loader(agent, False, path)
    loader.variables(doc.get("vars"), with_specs=False)
    loader.variables(doc.get("variables"), with_specs=True)
    loader.classes(doc.get("classes"))
    if "inputs" in doc:
        inputs = doc["inputs"]
        if isinstance(inputs, list) and all(isinstance(i, str) for i in inputs):
            agent.ctx.set_var("default", "def", "augments_inputs", "slist", list(inputs),
                              (AUGMENTS_TAG,))
        else:
            agent.out.log("error", f"Trying to augment inputs in '{path}' but the value was not "
                                   "a list of strings")
    more = doc.get("augments")
    return [m for m in more if isinstance(m, str)] if isinstance(more, list) else []


def load(agent: Any, entry: str) -> None:
    """Host-specific data, then the augments found in ``entry``'s directory.

    cf-agent reads them again in the cf-promises it runs to validate the policy
    (when the policy needs validation), whose errors reach the agent's output: each
    error of this reading is repeated then, right after it."""
    errors: list[str] = []
    log = agent.out.log

    def logged(level: str, message: str, *args: Any, **kwargs: Any) -> Any:
        if level == "error":
            errors.append(message)
        return log(level, message, *args, **kwargs)

    agent.out.log = logged
    try:
        _load(agent, entry)
    finally:
        del agent.out.log
    if errors and validating(agent):
        for message in errors:
            log("error", message)


def validating(agent: Any) -> bool:
    """Whether this agent run validates its policy (as cf-agent runs cf-promises then)."""
    if agent.options.file is None:
        return False
    tagger = next((o for o in agent.observers if hasattr(o, "explicit_file")), None)
    return tagger is not None and tagger.validates(agent)


def _load(agent: Any, entry: str) -> None:
    load_host_specific(agent)
    directory = os.path.dirname(entry) or "."
    path = os.path.join(directory, "def_preferred.json")
    if agent.options.ignore_preferred_augments or not os.path.isfile(path):
        path = os.path.join(directory, "def.json")
        if not os.path.isfile(path):
            agent.out.log("verbose", f"No JSON augments file '{path}' (input dir '{directory}', "
                                     f"input file '{entry}')")
            return
    agent.out.log("verbose", f"Loading JSON augments from '{path}' (input dir '{directory}', "
                             f"input file '{entry}'")
    queue, seen = [path], set()
    while queue:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        further = _augments_file(agent, path)
        for item in further:
            if os.path.isfile(item):
                queue.append(item)
            else:
                agent.out.log("error", f"Could not load requested further augments from file "
                                       f"'{item}'")
