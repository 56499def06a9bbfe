"""``edit_xml`` bundles: CFEngine 3.21's XML promise types on an XML document.

The files promise (files/editing.py) loads the file into an :class:`XmlBuffer`
(an empty file is an empty document), runs the edit_xml bundle against it and
saves it once as libxml2 saves a document (``<?xml version="1.0"?>`` with the
document's encoding, the tree as it was parsed, whitespace kept, a final
newline) when the text differs.

* ``build_xpath => "/a/b[@k='v' | C = text]/c"``: every step of the path that does
  not exist yet is created under the previous one (the first step is the root of
  an empty document), with the attributes and the child elements (with their
  text) its predicates name.  The other types accept ``build_xpath`` as an
  attribute too: the path is built before they select their node.
* ``insert_tree`` (promiser: an XML fragment): added as the last child of the
  node ``select_xpath`` selects, unless an identical child is there; in an empty
  document without ``select_xpath`` it becomes the root.
* ``delete_tree``: the first child element with the fragment's tag and (at least)
  its attributes is removed.
* ``set_attribute`` (``attribute_value``), ``delete_attribute``.
* ``set_text``, ``insert_text``, ``delete_text``: on the selected node's first
  child as libxml2 sees it (a text node is set, appended to or emptied; else the
  node's text is set before its elements).

``select_xpath`` must select exactly one node.  The XPath subset: absolute paths
of element names or ``*``, ``//`` descent, predicates ``[@k='v']``, ``[@k]``,
``[Child = 'text']`` joined by ``|`` (all must hold).
"""
from __future__ import annotations

import re
from typing import Any
from xml.dom import minidom
from xml.parsers.expat import ExpatError

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.api import PromiseRun, handler


class XmlBuffer:
    """A plain slotted class, not an attrs class: see cfpromise.promises.edit.buffer."""

    __slots__ = ("filename", "doc", "original", "dry_run", "edits", "messages")

    def __init__(self, filename: str, doc: Any, original: str, dry_run: bool = False) -> None:
        self.filename = filename
        self.doc = doc                     # minidom.Document
        self.original = original
        self.dry_run = dry_run
        self.edits = 0
        self.messages: list[tuple[str, str]] = []

    @property
    def root(self) -> Any:
        return self.doc.documentElement

    def text(self) -> str:
        if self.root is None:
            return ""
        encoding = getattr(self.doc, "encoding", None)
        header = f'<?xml version="1.0" encoding="{encoding}"?>\n' if encoding else \
            '<?xml version="1.0"?>\n'
        body = "".join(n.toxml() for n in self.doc.childNodes)
        return header + body + "\n"


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
_ATTR = re.compile(r"""@(?P<k>[\w.:-]+)\s*(=\s*(?P<v>"[^"]*"|'[^']*'|[^\s'"]+))?""")
_CHILD = re.compile(r"""(?P<k>[A-Za-z_][\w.:-]*)\s*=\s*(?P<v>"[^"]*"|'[^']*'|[^\s'"]+)""")

Pred = tuple[str, str, "str | None"]          # ("attr"|"child", name, value)


class XPathError(ValueError):
    pass


def _unquote(value: str | None) -> str | None:
    if value is not None and len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _predicates(text: str, xpath: str) -> list[Pred]:
    out: list[Pred] = []
    for part in text.split("|"):
        part = part.strip()
        m = _ATTR.fullmatch(part)
        if m is not None:
            out.append(("attr", m.group("k"), _unquote(m.group("v"))))
            continue
        m = _CHILD.fullmatch(part)
        if m is not None:
            out.append(("child", m.group("k"), _unquote(m.group("v"))))
            continue
        raise XPathError(f"Unsupported XPath predicate '[{text}]' in '{xpath}'")
    return out


def parse_path(xpath: str) -> list[tuple[bool, str, list[Pred]]]:
    """``/a//b[@k='v']`` -> [(descend, name, predicates)]."""
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
        preds: list[Pred] = []
        for p in re.findall(r"\[([^\]]*)\]", m.group("preds")):
            preds.extend(_predicates(p, xpath))
        steps.append((descend, m.group("name"), preds))
        pos = m.end()
    return steps


def _elements(node: Any) -> list[Any]:
    return [c for c in node.childNodes if c.nodeType == c.ELEMENT_NODE]


def text_of(node: Any) -> str:
    """xmlNodeGetContent: a text node's text, an element's text with its descendants'."""
    if node is None:
        return ""
    if node.nodeType in (node.TEXT_NODE, node.CDATA_SECTION_NODE):
        return str(node.data)
    return "".join(text_of(c) for c in node.childNodes)


def _fits(node: Any, name: str, preds: list[Pred]) -> bool:
    if node.nodeType != node.ELEMENT_NODE or (name != "*" and node.tagName != name):
        return False
    for kind, key, value in preds:
        if kind == "attr":
            if not node.hasAttribute(key) or (value is not None and node.getAttribute(key) != value):
                return False
        elif not any(c.tagName == key and text_of(c) == value for c in _elements(node)):
            return False
    return True


def _descendants(node: Any) -> list[Any]:
    out = []
    for child in _elements(node):
        out.append(child)
        out.extend(_descendants(child))
    return out


def select(doc: Any, xpath: str) -> list[Any]:
    """The elements ``xpath`` selects, in document order."""
    current = [doc]
    for descend, name, preds in parse_path(xpath):
        found: list[Any] = []
        for node in current:
            pool = _descendants(node) if descend else _elements(node)
            found.extend(c for c in pool if _fits(c, name, preds) and c not in found)
        current = found
    return current


def build(buf: XmlBuffer, xpath: str) -> tuple[bool, str | None]:
    """Create what is missing of ``xpath``: (changed, error)."""
    steps = parse_path(xpath)
    if any(descend or name == "*" for descend, name, _ in steps):
        return False, f"build_xpath needs a plain path, not '{xpath}'"
    parent: Any = buf.doc
    changed = False
    for _descend, name, preds in steps:
        match = next((c for c in _elements(parent) if _fits(c, name, preds)), None)
        if match is None:
            if parent is buf.doc and buf.root is not None:
                return False, (f"Cannot build XPath '{xpath}': the document's root is "
                               f"'{buf.root.tagName}' in '{buf.filename}'")
            match = buf.doc.createElement(name)
            for kind, key, value in preds:
                if kind == "attr":
                    match.setAttribute(key, value or "")
                else:
                    child = buf.doc.createElement(key)
                    child.appendChild(buf.doc.createTextNode(value or ""))
                    match.appendChild(child)
            parent.appendChild(match)
            changed = True
        parent = match
    return changed, None


# -- the promise types -------------------------------------------------------------------

def _buffer(run: PromiseRun) -> XmlBuffer | None:
    buffer = run.agent.edit_buffer()
    return buffer if isinstance(buffer, XmlBuffer) else None


def _policy_warn(run: PromiseRun) -> bool:
    return run.body("action").get("action_policy") in ("warn", "nop")


def _making_changes(run: PromiseRun, buf: XmlBuffer, what: str) -> bool:
    """MakingChanges: False (after the warning) when the change is not to be made."""
    if not (buf.dry_run or _policy_warn(run)):
        return True
    only = ", but only warning promised" if _policy_warn(run) else ""
    run.agent.log("warning", f"Should {what}{only}")
    return False


def _fail(run: PromiseRun, message: str) -> Outcome:
    run.agent.log("error", message)
    return Outcome.FAILED


def _change(buf: XmlBuffer, run: PromiseRun, message: str) -> Outcome:
    buf.edits += 1
    buf.messages.append(("info", message))
    buf.messages.append(("info", f"{run.promise_type} promise '{run.promiser}' repaired"))
    return Outcome.REPAIRED


def _no_document(run: PromiseRun) -> Outcome:
    return _fail(run, f"{run.promise_type} promise '{run.promiser}' is not in an edit_xml "
                      "bundle editing a file")


def _target(run: PromiseRun, buf: XmlBuffer) -> tuple[Any, Outcome | None, bool]:
    """The node select_xpath selects (after build_xpath): (node, failure, built)."""
    built = False
    path = run.attributes.get("build_xpath")
    try:
        if isinstance(path, str) and path and not select(buf.doc, path):
            if not _making_changes(run, buf, f"build XPath '{path}' in XML document "
                                             f"'{buf.filename}'"):
                return None, Outcome.WARN, False
            built, error = build(buf, path)
            if error is not None:
                return None, _fail(run, error), False
            if built:
                buf.edits += 1
                buf.messages.append(("info", f"Built XPath '{path}' in XML document "
                                             f"'{buf.filename}'"))
        xpath = run.attributes.get("select_xpath")
        if not isinstance(xpath, str) or not xpath:
            return None, _fail(run, f"{run.promise_type} promise '{run.promiser}' needs "
                                    "select_xpath"), built
        found = select(buf.doc, xpath)
    except XPathError as exc:
        return None, _fail(run, f"{exc} ({run.promise_type} in '{buf.filename}')"), built
    if not found:
        return None, _fail(run, f"The promised XPath pattern '{xpath}' was NOT found when "
                                f"selecting an edit node in XML document '{buf.filename}'"), built
    if len(found) > 1:
        return None, _fail(run, f"Current select_xpath expression '{xpath}' returns "
                                f"{len(found)} edit nodes in XML document '{buf.filename}', "
                                "unique edit node required"), built
    return found[0], None, built


def _kept(run: PromiseRun, message: str, built: bool) -> Outcome:
    run.agent.log("verbose", message)
    return Outcome.REPAIRED if built else Outcome.KEPT


@handler("build_xpath")
def build_xpath(run: PromiseRun) -> Outcome:
    buf = _buffer(run)
    if buf is None:
        return _no_document(run)
    try:
        exists = bool(select(buf.doc, run.promiser))
    except XPathError as exc:
        return _fail(run, f"{exc} (build_xpath in '{buf.filename}')")
    if exists:
        run.agent.log("verbose", f"XPath '{run.promiser}' already exists in '{buf.filename}'")
        return Outcome.KEPT
    empty = buf.root is None
    where = "into an empty XML document" if empty else "in XML document"
    if not _making_changes(run, buf, f"build XPath '{run.promiser}' {where} '{buf.filename}'"):
        return Outcome.WARN
    try:
        _changed, error = build(buf, run.promiser)
    except XPathError as exc:
        return _fail(run, f"{exc} (build_xpath in '{buf.filename}')")
    if error is not None:
        return _fail(run, error)
    return _change(buf, run, f"Built XPath '{run.promiser}' {where} '{buf.filename}'")


def _tree(run: PromiseRun) -> Any:
    try:
        return minidom.parseString(run.promiser.encode("utf-8")).documentElement
    except ExpatError as exc:
        run.agent.log("error", f"Failed to parse the tree '{run.promiser}' ({exc})")
        return None


@handler("insert_tree")
def insert_tree(run: PromiseRun) -> Outcome:
    buf = _buffer(run)
    if buf is None:
        return _no_document(run)
    tree = _tree(run)
    if tree is None:
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
            return _fail(run, f"Errors encountered when actuating insert_tree promise "
                              f"'{run.promiser}'")
        if not _making_changes(run, buf, f"insert the promised tree '{run.promiser}' into an "
                                         f"empty XML document '{buf.filename}'"):
            return Outcome.WARN
        buf.doc.appendChild(buf.doc.importNode(tree, True))
        return _change(buf, run, f"Inserted tree '{run.promiser}' into an empty XML document "
                                 f"'{buf.filename}'")
    target, failed, built = _target(run, buf)
    if failed is not None:
        return failed
    text = tree.toxml()
    if any(c.toxml() == text for c in _elements(target)):
        return _kept(run, f"The tree '{run.promiser}' already exists at XPath '{xpath}' in XML "
                          f"document '{buf.filename}'", built)
    if not _making_changes(run, buf, f"insert tree '{run.promiser}' at XPath '{xpath}' in XML "
                                     f"document '{buf.filename}'"):
        return Outcome.WARN
    target.appendChild(buf.doc.importNode(tree, True))
    return _change(buf, run, f"Inserted tree '{run.promiser}' at XPath '{xpath}' in XML "
                             f"document '{buf.filename}'")


def _subset(tree: Any, node: Any) -> bool:
    """XmlNodesSubset: the same tag, and the tree's attributes on the node."""
    return node.tagName == tree.tagName and all(
        node.hasAttribute(k) and node.getAttribute(k) == v for k, v in tree.attributes.items())


@handler("delete_tree")
def delete_tree(run: PromiseRun) -> Outcome:
    buf = _buffer(run)
    if buf is None:
        return _no_document(run)
    tree = _tree(run)
    if tree is None:
        return Outcome.FAILED
    target, failed, built = _target(run, buf)
    if failed is not None:
        return failed
    xpath = run.attributes.get("select_xpath")
    victim = next((c for c in _elements(target) if _subset(tree, c)), None)
    if victim is None:
        return _kept(run, f"The promised tree to be deleted '{run.promiser}' does not exist at "
                          f"XPath '{xpath}' in XML document '{buf.filename}'", built)
    if not _making_changes(run, buf, f"delete tree '{run.promiser}' at XPath '{xpath}' in XML "
                                     f"document '{buf.filename}'"):
        return Outcome.WARN
    target.removeChild(victim)
    return _change(buf, run, f"Deleted tree '{run.promiser}' at XPath '{xpath}' in XML document "
                             f"'{buf.filename}'")


@handler("set_attribute")
def set_attribute(run: PromiseRun) -> Outcome:
    buf = _buffer(run)
    if buf is None:
        return _no_document(run)
    value = run.attributes.get("attribute_value")
    if not isinstance(value, str):
        return _fail(run, f"The promised attribute set '{run.promiser}' has no attribute_value")
    target, failed, built = _target(run, buf)
    if failed is not None:
        return failed
    xpath = run.attributes.get("select_xpath")
    if target.hasAttribute(run.promiser) and target.getAttribute(run.promiser) == value:
        return _kept(run, f"Attribute with name '{run.promiser}' and value '{value}' already "
                          f"exists at XPath '{xpath}' in XML document '{buf.filename}'", built)
    if not _making_changes(run, buf, f"set attribute with name '{run.promiser}' to value "
                                     f"'{value}' at XPath '{xpath}' in XML document "
                                     f"'{buf.filename}'"):
        return Outcome.WARN
    target.setAttribute(run.promiser, value)
    return _change(buf, run, f"Set attribute with name '{run.promiser}' to value '{value}' at "
                             f"XPath '{xpath}' in XML document '{buf.filename}'")


@handler("delete_attribute")
def delete_attribute(run: PromiseRun) -> Outcome:
    buf = _buffer(run)
    if buf is None:
        return _no_document(run)
    target, failed, built = _target(run, buf)
    if failed is not None:
        return failed
    xpath = run.attributes.get("select_xpath")
    if not target.hasAttribute(run.promiser):
        return _kept(run, f"Attribute '{run.promiser}' (to be deleted at XPath '{xpath}' in the "
                          f"XML document '{buf.filename}') does not exist", built)
    if not _making_changes(run, buf, f"delete the attribute '{run.promiser}' at XPath "
                                     f"'{xpath}' in the XML document '{buf.filename}'"):
        return Outcome.WARN
    target.removeAttribute(run.promiser)
    return _change(buf, run, f"Deleted attribute '{run.promiser}' at XPath '{xpath}' in the XML "
                             f"document '{buf.filename}'")


def _is_text(node: Any) -> bool:
    return node is not None and node.nodeType == node.TEXT_NODE


def _text_first(buf: XmlBuffer, node: Any, text: str) -> None:
    """xmlNodeSetContent on an element, then its elements again after the text."""
    children = list(node.childNodes)
    first_element = next((i for i, c in enumerate(children) if c.nodeType == c.ELEMENT_NODE),
                         None)
    keep = children[first_element:] if first_element is not None else []
    for child in children:
        node.removeChild(child)
    if text:
        node.appendChild(buf.doc.createTextNode(text))
    for child in keep:
        node.appendChild(child)


def _text_op(run: PromiseRun, op: str) -> Outcome:
    buf = _buffer(run)
    if buf is None:
        return _no_document(run)
    target, failed, built = _target(run, buf)
    if failed is not None:
        return failed
    xpath = run.attributes.get("select_xpath")
    text = run.promiser
    current = text_of(target.firstChild)
    the = "" if op == "set" else "the "        # 3.21's words differ by type
    where = f"at XPath '{xpath}' in {the}XML document '{buf.filename}'"
    if op == "set" and current == text:
        return _kept(run, f"Text '{text}' already exists {where}", built)
    if op == "insert" and text in current:
        return _kept(run, f"Text '{text}' already exists {where}", built)
    if op == "delete" and text not in current:
        return _kept(run, f"Text '{text}' does not exist {where}", built)
    if not _making_changes(run, buf, f"{op} text '{text}' {where}"):
        return Outcome.WARN
    first = target.firstChild
    if _is_text(first):
        first.data = text if op == "set" else first.data + text if op == "insert" else ""
    else:
        _text_first(buf, target, "" if op == "delete" else text)
    verb = {"set": "Set", "insert": "Inserted", "delete": "Deleted"}[op]
    return _change(buf, run, f"{verb} text '{text}' {where}")


@handler("set_text")
def set_text(run: PromiseRun) -> Outcome:
    return _text_op(run, "set")


@handler("insert_text")
def insert_text(run: PromiseRun) -> Outcome:
    return _text_op(run, "insert")


@handler("delete_text")
def delete_text(run: PromiseRun) -> Outcome:
    return _text_op(run, "delete")
