"""``edit_xml`` bundles: ``build_xpath`` and ``insert_tree`` on an XML document.

The files promise (files/editing.py) loads the file into an :class:`XmlBuffer`
(an empty file is an empty document), runs the edit_xml bundle against it and
saves it once as libxml2 saves a document (``<?xml version="1.0"?>``, the tree
on one line, a final newline) when the text differs.

* ``build_xpath => "/a/b[@k='v']/c"``: every step of the path that does not
  exist yet is created under the previous one (the first step is the root of
  an empty document), with the attributes its ``[@k='v']`` predicates name.
* ``insert_tree`` (promiser: an XML fragment): added as the last child of the
  first node ``select_xpath`` selects, unless an identical child is there; in
  an empty document without ``select_xpath`` it becomes the root.

The XPath subset: absolute paths of element names or ``*``, ``//`` descent,
``[@k='v']``/``[@k]`` predicates.  The other edit_xml promise types
(delete_tree, set_attribute, set_text ...) are reported as not supported.
"""
from __future__ import annotations

import re
from typing import Any
from xml.dom import minidom
from xml.parsers.expat import ExpatError

import attrs

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.api import PromiseRun, handler

HEADER = '<?xml version="1.0"?>\n'


@attrs.define(slots=True, eq=False)
class XmlBuffer:
    filename: str
    doc: Any                               # minidom.Document
    original: str
    dry_run: bool = False
    edits: int = 0
    messages: list[tuple[str, str]] = attrs.Factory(list)

    @property
    def root(self) -> Any:
        return self.doc.documentElement

    def text(self) -> str:
        if self.root is None:
            return ""
        return HEADER + self.root.toxml() + "\n"


def load(path: str, data: str, dry_run: bool) -> XmlBuffer | str:
    """The buffer for ``path`` holding ``data``, or why it is not an XML document."""
    if not data.strip():
        return XmlBuffer(path, minidom.Document(), data, dry_run)
    try:
        doc = minidom.parseString(data.encode("utf-8", "surrogateescape"))
    except ExpatError as exc:
        return f"Unable to parse XML file '{path}' ({exc})"
    return XmlBuffer(path, doc, data, dry_run)


# -- XPath, the subset -----------------------------------------------------------------

_STEP = re.compile(r"""(?P<name>[\w.:*-]+)(?P<preds>(\[[^\]]*\])*)""")
_PRED = re.compile(r"""\[\s*@(?P<k>[\w.:-]+)\s*(=\s*(?P<q>['"])(?P<v>.*?)(?P=q))?\s*\]""")


class XPathError(ValueError):
    pass


def parse_path(xpath: str) -> list[tuple[bool, str, list[tuple[str, str | None]]]]:
    """``/a//b[@k='v']`` -> [(descend, name, [(attr, value|None)])]."""
    text = xpath.strip()
    if not text.startswith("/"):
        raise XPathError(f"Only absolute XPaths are supported: '{xpath}'")
    steps = []
    pos = 0
    while pos < len(text):
        descend = text.startswith("//", pos)
        pos += 2 if descend else 1
        m = _STEP.match(text, pos)
        if m is None:
            raise XPathError(f"Unsupported XPath '{xpath}'")
        preds: list[tuple[str, str | None]] = []
        for p in re.findall(r"\[[^\]]*\]", m.group("preds")):
            pm = _PRED.fullmatch(p)
            if pm is None:
                raise XPathError(f"Unsupported XPath predicate '{p}' in '{xpath}'")
            preds.append((pm.group("k"), pm.group("v")))
        steps.append((descend, m.group("name"), preds))
        pos = m.end()
    return steps


def _fits(node: Any, name: str, preds: list[tuple[str, str | None]]) -> bool:
    if node.nodeType != node.ELEMENT_NODE or (name != "*" and node.tagName != name):
        return False
    return all(node.hasAttribute(k) and (v is None or node.getAttribute(k) == v)
               for k, v in preds)


def _descendants(node: Any) -> list[Any]:
    out = []
    for child in node.childNodes:
        if child.nodeType == child.ELEMENT_NODE:
            out.append(child)
            out.extend(_descendants(child))
    return out


def select(doc: Any, xpath: str) -> list[Any]:
    """The elements ``xpath`` selects, in document order."""
    current = [doc]
    for descend, name, preds in parse_path(xpath):
        found: list[Any] = []
        for node in current:
            pool = _descendants(node) if descend else \
                [c for c in node.childNodes if c.nodeType == c.ELEMENT_NODE]
            found.extend(c for c in pool if _fits(c, name, preds) and c not in found)
        current = found
    return current


# -- the promise types -------------------------------------------------------------------

def _buffer(run: PromiseRun) -> XmlBuffer | None:
    buffer = run.agent.edit_buffer()
    return buffer if isinstance(buffer, XmlBuffer) else None


def _warn_only(run: PromiseRun, buf: XmlBuffer) -> bool:
    return buf.dry_run or run.body("action").get("action_policy") in ("warn", "nop")


def _no_document(run: PromiseRun) -> Outcome:
    run.agent.log("error", f"{run.promise_type} promise '{run.promiser}' is not in an edit_xml "
                           "bundle editing a file")
    return Outcome.FAILED


@handler("build_xpath")
def build_xpath(run: PromiseRun) -> Outcome:
    buf = _buffer(run)
    if buf is None:
        return _no_document(run)
    try:
        steps = parse_path(run.promiser)
    except XPathError as exc:
        run.agent.log("error", f"{exc} (build_xpath in '{buf.filename}')")
        return Outcome.FAILED
    if any(descend or name == "*" for descend, name, _ in steps):
        run.agent.log("error", f"build_xpath needs a plain path, not '{run.promiser}'")
        return Outcome.FAILED
    if select(buf.doc, run.promiser):
        run.agent.log("verbose", f"XPath '{run.promiser}' already exists in '{buf.filename}'")
        return Outcome.KEPT
    if _warn_only(run, buf):
        run.agent.log("warning", f"Should build XPath '{run.promiser}' in XML document "
                                 f"'{buf.filename}'")
        return Outcome.WARN
    empty = buf.root is None
    parent: Any = buf.doc
    for _descend, name, preds in steps:
        match = next((c for c in parent.childNodes if _fits(c, name, preds)), None)
        if match is None:
            if parent is buf.doc and buf.root is not None:
                run.agent.log("error", f"Cannot build XPath '{run.promiser}': the document's "
                                       f"root is '{buf.root.tagName}' in '{buf.filename}'")
                return Outcome.FAILED
            match = buf.doc.createElement(name)
            for k, v in preds:
                match.setAttribute(k, v or "")
            parent.appendChild(match)
        parent = match
    buf.edits += 1
    where = "into an empty XML document" if empty else "in XML document"
    buf.messages.append(("info", f"Built XPath '{run.promiser}' {where} '{buf.filename}'"))
    buf.messages.append(("info", f"build_xpath promise '{run.promiser}' repaired"))
    return Outcome.REPAIRED


@handler("insert_tree")
def insert_tree(run: PromiseRun) -> Outcome:
    buf = _buffer(run)
    if buf is None:
        return _no_document(run)
    try:
        tree = minidom.parseString(run.promiser.encode("utf-8")).documentElement
    except ExpatError as exc:
        run.agent.log("error", f"The tree to insert is not well-formed XML: '{run.promiser}' "
                               f"({exc})")
        return Outcome.FAILED
    xpath = run.attributes.get("select_xpath")
    if not isinstance(xpath, str) or not xpath:
        if buf.root is not None:
            if buf.root.toxml() == tree.toxml():
                return Outcome.KEPT
            run.agent.log("error", f"The tree '{run.promiser}' requested to be inserted into the "
                                   f"XML document '{buf.filename}', however XML document is not "
                                   "empty and tree to be inserted does not match existing content")
            run.agent.log("notice", "Specify select_xpath expression insert into a non-empty XML "
                                    "document")
            run.agent.log("error", f"Errors encountered when actuating insert_tree promise "
                                   f"'{run.promiser}'")
            return Outcome.FAILED
        target = buf.doc
    else:
        try:
            found = select(buf.doc, xpath)
        except XPathError as exc:
            run.agent.log("error", f"{exc} (insert_tree in '{buf.filename}')")
            return Outcome.FAILED
        if not found:
            run.agent.log("error", f"The promised XPath '{xpath}' was not found in "
                                   f"'{buf.filename}' (insert_tree)")
            return Outcome.FAILED
        target = found[0]
        text = tree.toxml()
        if any(c.nodeType == c.ELEMENT_NODE and c.toxml() == text for c in target.childNodes):
            run.agent.log("verbose", f"The tree '{run.promiser}' is already in "
                                     f"'{buf.filename}'")
            return Outcome.KEPT
    if _warn_only(run, buf):
        run.agent.log("warning", f"Should insert tree '{run.promiser}' into XML document "
                                 f"'{buf.filename}'")
        return Outcome.WARN
    target.appendChild(buf.doc.importNode(tree, True))
    buf.edits += 1
    where = f"at XPath '{xpath}' in XML document" if target is not buf.doc else \
        "into an empty XML document"
    buf.messages.append(("info", f"Inserted tree '{run.promiser}' {where} '{buf.filename}'"))
    buf.messages.append(("info", f"insert_tree promise '{run.promiser}' repaired"))
    return Outcome.REPAIRED


def _unsupported(run: PromiseRun) -> Outcome:
    run.agent.log("error", f"cf-lite does not support the edit_xml promise type "
                           f"'{run.promise_type}' yet ('{run.promiser}')")
    return Outcome.FAILED


for _name in ("delete_tree", "delete_attribute", "set_attribute", "delete_text", "set_text",
              "insert_text"):
    handler(_name)(_unsupported)
