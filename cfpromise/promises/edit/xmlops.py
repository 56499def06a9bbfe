"""The edits of the ``edit_xml`` promise types once their node is selected and their lock
taken (cf-agent 3.21's InsertTreeInNode, DeleteTreeInNode, SetAttributeInNode, ...), apart
from :mod:`.xml` so that each module stays small.

Each operation gets the promise's evaluation ``r`` (:class:`cfpromise.promises.edit.xml.Run`:
``fail``/``change``/``kept``/``making_changes``, ``buf``, ``select``, ``run``) and the node.
Whether a tree is there is cf-agent's comparison, not equality of the serializations:
XmlNodesSubset (same tag, the tree's attributes among the node's, the tree's first text a
substring of the node's, each child element of the tree exactly one of the node's) to
find a tree to insert or delete; XmlNodesCompare (all of it equal) for a document's
root and for the children.  Texts are a node's first child's content (xmlNodeGetContent of
``node->children``): a text is set on that child when it is text, else the node's leading
text replaces what comes before its first child element.
"""
from __future__ import annotations

from typing import Any, Callable

from cfpromise.promises.edit import xmldoc


def _attrs(node: Any) -> dict[str, str]:
    return dict(node.attrib)


def _tag(node: Any) -> Any:
    return node.tag if not isinstance(node.tag, str) else node.tag.rpartition("}")[2]


def nodes_compare(a: Any, b: Any) -> bool:
    """XmlNodesCompare: does ``b`` have all of ``a`` and no more (tag, attributes, first
    text, child elements)?"""
    if _tag(a) != _tag(b):
        return False
    if _attrs(a) != _attrs(b):
        return False
    ta, tb = xmldoc.first_content(a), xmldoc.first_content(b)
    if not (ta is None and tb is None) and (tb is None or ta != tb):
        return False
    ca, cb = xmldoc.element_children(a), xmldoc.element_children(b)
    if len(ca) != len(cb):
        return False
    return all(any(nodes_compare(x, y) for y in cb) for x in ca)


def nodes_subset(a: Any, b: Any) -> bool:
    """XmlNodesSubset: is ``a`` (the promised tree) found in ``b``?"""
    if not xmldoc.is_element(b) or _tag(a) != _tag(b):
        return False
    battrs = _attrs(b)
    if a.attrib and not battrs:
        return False
    if any(battrs.get(k) != v for k, v in a.attrib.items()):
        return False
    ta = xmldoc.first_content(a)
    if ta is not None:
        tb = xmldoc.first_content(b)
        if tb is None or ta not in tb:
            return False
    cb = xmldoc.element_children(b)
    return all(any(nodes_compare(x, y) for y in cb) for x in xmldoc.element_children(a))


def _find_subset(tree: Any, node: Any) -> Any:
    return next((c for c in xmldoc.element_children(node) if nodes_subset(tree, c)), None)


def _tree(r: Any) -> list[Any] | None:
    return xmldoc.parse_tree(r.run.promiser)


def insert_tree(r: Any, node: Any) -> None:
    buf, promiser = r.buf, r.run.promiser
    nodes = _tree(r)
    if r.select is None:                       # InsertTreeInFile
        if nodes is None:
            r.fail(f"Failed to parse the tree '{promiser}' (to be inserted into the XML "
                   f"document '{buf.filename}')")
            return
        root = buf.doc.root
        if root is not None:
            if nodes_compare(nodes[0], root):
                r.kept(f"The promised XML document '{buf.filename}' already exists and "
                       "contains the correct root element")
            else:
                r.fail(f"The tree '{promiser}' requested to be inserted into the XML document "
                       f"'{buf.filename}', however XML document is not empty and tree to be "
                       "inserted does not match existing content")
                r.log("notice", "Specify select_xpath expression insert into a non-empty XML "
                                "document")
            return
        if not r.making_changes(f"insert the promised tree '{promiser}' into an empty XML "
                                f"document '{buf.filename}'"):
            buf.edits += 1                     # (cf-agent's InsertTreeInFile says true)
            return
        buf.doc.set_root(nodes[0])
        buf.edits += 1
        r.change(f"Inserted tree '{promiser}' into an empty XML document '{buf.filename}'")
        return
    where = f"at XPath '{r.select}' in XML document '{buf.filename}'"
    if nodes is None:
        r.fail(f"Failed to parse the tree '{promiser}' (to be inserted at XPath '{r.select}' "
               f"in the XML document '{buf.filename}')")
        return
    if _find_subset(nodes[0], node) is not None:
        r.kept(f"The tree '{promiser}' already exists {where}")
        return
    if not r.making_changes(f"insert tree '{promiser}' {where}"):
        return
    for new in nodes:
        node.append(new)
    buf.edits += 1
    r.change(f"Inserted tree '{promiser}' {where}")


def delete_tree(r: Any, node: Any) -> None:
    buf, promiser = r.buf, r.run.promiser
    where = f"at XPath '{r.select}' in XML document '{buf.filename}'"
    nodes = _tree(r)
    if nodes is None:
        r.fail(f"Tree to be deleted '{promiser}' {where} was not parsed successfully")
        return
    victim = _find_subset(nodes[0], node)
    if victim is None:
        r.kept(f"The promised tree to be deleted '{promiser}' does not exist {where}")
        return
    if not r.making_changes(f"delete tree '{promiser}' {where}"):
        return
    tail = victim.tail
    victim.tail = None
    previous = victim.getprevious()
    node.remove(victim)
    if tail:
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            node.text = (node.text or "") + tail
    buf.edits += 1
    r.change(f"Deleted tree '{promiser}' {where}")


def set_attribute(r: Any, node: Any) -> None:
    buf, name = r.buf, r.run.promiser
    value = r.run.attributes.get("attribute_value")
    if not isinstance(value, str):
        r.fail(f"Failed to load the value of the attribute '{name}' (to be set at XPath "
               f"'{r.select}' in XML document '{buf.filename}')into a buffer")
        return
    where = f"at XPath '{r.select}' in XML document '{buf.filename}'"
    if node.get(name) == value:
        r.kept(f"Attribute with name '{name}' and value '{value}' already exists {where}")
        return
    if not r.making_changes(f"set attribute with name '{name}' to value '{value}' {where}"):
        return
    try:
        node.set(name, value)
    except ValueError:
        r.fail(f"Failed to set the attribute with name '{name}' to value '{value}' {where}")
        return
    buf.edits += 1
    r.change(f"Set attribute with name '{name}' to value '{value}' {where}")


def delete_attribute(r: Any, node: Any) -> None:
    buf, name = r.buf, r.run.promiser
    where = f"at XPath '{r.select}' in the XML document '{buf.filename}'"
    if node.get(name) is None:
        r.kept(f"Attribute '{name}' (to be deleted {where}) does not exist")
        return
    if not r.making_changes(f"delete the attribute '{name}' {where}"):
        return
    del node.attrib[name]
    buf.edits += 1
    r.change(f"Deleted attribute '{name}' {where}")


def set_text(r: Any, node: Any) -> None:
    buf, text = r.buf, r.run.promiser
    where = f"at XPath '{r.select}' in XML document '{buf.filename}'"
    if xmldoc.first_content(node) == text:
        r.kept(f"Text '{text}' already exists {where}")
        return
    if not r.making_changes(f"set text '{text}' {where}"):
        buf.edits += 1                         # (cf-agent's SetTextInNode says true)
        return
    if xmldoc.first_is_text(node):
        node.text = text
    else:
        said = xmldoc.set_leading(node, text)
        if said:
            r.stderr(f"{buf.filename}:-1: error : {said}\n")
    if xmldoc.first_content(node) != text:
        r.fail(f"Failed to set text '{text}' {where}")
        return
    buf.edits += 1
    r.change(f"Set text '{text}' {where}")


def insert_text(r: Any, node: Any) -> None:
    _text_present(r, node, True)


def delete_text(r: Any, node: Any) -> None:
    _text_present(r, node, False)


def _text_present(r: Any, node: Any, wanted: bool) -> None:
    """insert_text (``wanted``) and delete_text: the promiser's text in (or out of) the
    selected node's first child as libxml2 sees it (a text node appended to or emptied,
    else the text before the node's elements replaced)."""
    buf, text = r.buf, r.run.promiser
    where = f"at XPath '{r.select}' in the XML document '{buf.filename}'"

    def present() -> bool:
        current = xmldoc.first_content(node)
        return current is not None and text in current
    if present() == wanted:
        r.kept(f"Text '{text}' {'already exists' if wanted else 'does not exist'} {where}")
        return
    verb = "insert" if wanted else "delete"
    if not r.making_changes(f"{verb} text '{text}' {where}"):
        return
    if xmldoc.first_is_text(node):
        node.text = node.text + text if wanted else ""
    else:
        xmldoc.replace_leading(node, text if wanted else None)
    if present() != wanted:
        r.fail(f"Failed to {verb} text '{text}' {where}")
        return
    buf.edits += 1
    r.change(f"{'Inserted' if wanted else 'Deleted'} text '{text}' {where}")


OPERATIONS: dict[str, Callable[[Any, Any], None]] = {
    "insert_tree": insert_tree, "delete_tree": delete_tree,
    "set_attribute": set_attribute, "delete_attribute": delete_attribute,
    "set_text": set_text, "insert_text": insert_text, "delete_text": delete_text,
}
