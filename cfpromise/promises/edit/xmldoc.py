"""The XML document an ``edit_xml`` bundle edits, read, searched and saved as cf-agent 3.21
does it with libxml2 -- here through lxml, the libxml2 binding, so that XPath is libxml2's
own XPath 1.0 and the tree is the one libxml2's parser makes.

* Loading (LoadFileAsXmlDoc): an empty file, or ``empty_file_before_editing``, is a new
  empty document (``<?xml version="1.0"?>``, no encoding); otherwise the file is parsed
  with libxml2's defaults (entities kept as references, CDATA kept, blanks kept, no DTD
  loaded).  A file that does not parse leaves no document: every promise then fails with
  "Unable to load XML document" (cf-agent goes on with a NULL document).
* select_xpath (XmlSelectNode): libxml2 evaluates the expression with no context node --
  a relative path selects nothing, ``.`` nothing -- which is emulated by evaluating it
  from a detached element of the same document and leaving that element out.
* Saving (xmlSaveFile / xmlDocDumpMemory of libxml2 2.9, the version cf-agent 3.21 is
  built with): the XML declaration (version, encoding, standalone as the file declared
  them), each top-level node followed by a newline.  A document without a declared
  encoding is written in ASCII, its text and attribute values' other characters as
  hexadecimal character references (comments, PIs and CDATA as they are); with an
  encoding, characters it cannot encode become decimal references.
* The regular expressions cf-agent checks XPaths with before using them
  (XPathVerifyConvergence, the build_xpath syntax and its segment parser) are PCRE
  patterns, kept here as Python ones (ASCII ``\\w``, as PCRE without UCP).
"""
from __future__ import annotations

import re
from typing import Any

from lxml import etree

# -- cf-agent's XPath checks ---------------------------------------------------------------

_NAME = r"(\w|-|\.)+"
# a position on a sibling axis ([1], [last()], [position() < 3]...), following::, preceding::
CONVERGENCE = re.compile(
    r"\[\s*([^\[\]]*\s*(\||(or)|(and)))?\s*"
    r"((position)\s*\(\s*\)\s*((=)|(!=)|(<)|(<=)|(>)|(>=))\s*)?\s*"
    r"(((\d+)\s*|((last)\s*\(\s*\)\s*))(((\+)|(-)|(\*)|(div)|(mod))\s*(\d+)\s*)*)\s*"
    r"((\||(or)|(and))[^\[\]]*)?\]"
    r"|((following)|(preceding))(-sibling)?\s*(::)", re.ASCII)
_VAL = r"('|\")?" + _NAME + r"('|\")?"
BUILD_SYNTAX = re.compile(
    r"^(\/(( |\t)*" + _NAME + r"( |\t)*)(\[( |\t)*@?" + _NAME + r"( |\t)*=( |\t)*" + _VAL
    + r"( |\t)*(\|( |\t)*@?" + _NAME + r"( |\t)*=( |\t)*" + _VAL + r"( |\t)*)*\])?)*$",
    re.ASCII)
HAS_TAIL = re.compile(r"^\s*\/?\s*" + _NAME + r"(\s*::\s*" + _NAME + r"\s*)*\s*(\[[^\[\]\/]*\])?\s*\/",
                      re.ASCII)
HEAD_NODE = re.compile(r"^(\/)?" + _NAME + r"((\s*::\s*)?" + _NAME + r")*", re.ASCII)
HEAD_PREDICATE = re.compile(
    r"^\s*\/?\s*" + _NAME + r"(\s*::\s*" + _NAME + r")*\s*\[\s*@?\s*" + _NAME + r"\s*=\s*"
    + _VAL + r"\s*(\s*\|\s*)?(\s*@?\s*" + _NAME + r"\s*=\s*" + _VAL + r"\s*)*\]", re.ASCII)
PRED_TAIL = re.compile(r"^\s*\[?\s*@?\s*" + _NAME + r"\s*=\s*" + _VAL + r"\s*\|", re.ASCII)
PRED_ATTR = re.compile(r"^\s*\[?\|?(\s*@\s*" + _NAME + r"\s*=\s*" + _VAL + r")(\s*(\||\]))?",
                       re.ASCII)
PRED_NODE = re.compile(r"^\s*\[?\|?(\s*" + _NAME + r"\s*=\s*" + _VAL + r")(\s*(\||\]))?",
                       re.ASCII)


def convergent(xpath: str) -> bool:
    return CONVERGENCE.search(xpath) is None


def _strsep(text: str, delims: str) -> tuple[str, str | None]:
    """strsep(3): the token before the first delimiter, and the rest (None: no delimiter)."""
    for i, ch in enumerate(text):
        if ch in delims:
            return text[:i], text[i + 1:]
    return text, None


def _token(running: str | None, delims: str) -> tuple[str, str | None]:
    """cf-agent's ``while (strcmp(tok, "") == 0) tok = strsep(...)``: the first non-empty
    token ("" when the text runs out)."""
    while running is not None:
        tok, running = _strsep(running, delims)
        if tok:
            return tok, running
    return "", None


def segment_node(segment: str) -> Any:
    """XPathSegmentExtractNode: ``name[@k='v' | child=text]`` -> a new element."""
    if not HEAD_NODE.search(segment):
        return None
    name, running = _token(segment, " []")
    try:
        node = etree.Element(name)
    except ValueError:
        return None
    if HEAD_PREDICATE.search(segment):
        predicate, _ = _token(running, "[]")
        while predicate:
            if PRED_NODE.search(predicate):
                key, rest = _token(predicate, "| \"'=")
                value, _ = _token(rest, " \"'=")
                try:
                    etree.SubElement(node, key).text = value
                except ValueError:
                    pass
            elif PRED_ATTR.search(predicate):
                key, rest = _token(predicate, "| @\"'=")
                value, _ = _token(rest, "| @\"'=")
                try:
                    node.set(key, value)
                except ValueError:
                    pass
            if PRED_TAIL.search(predicate):
                at = predicate.find("|", 1)
                predicate = predicate[at:] if at >= 0 else ""
            else:
                predicate = ""
    return node


def head_segment(xpath: str) -> str:
    return _token(xpath, "/")[0]


def tail_segment(xpath: str) -> str:
    """XPathGetTail: the last segment ("" when the path has one)."""
    if not HAS_TAIL.search(xpath):
        return ""
    parts = [p for p in xpath.split("/") if p]
    return parts[-1] if len(parts) > 1 else ""


def remove_head(xpath: str) -> str:
    if not HAS_TAIL.search(xpath):
        return ""
    at = xpath.find("/", 1)
    return xpath[at:] if at >= 0 else ""


def remove_tail(xpath: str) -> str:
    if not HAS_TAIL.search(xpath):
        return ""
    return xpath[:xpath.rfind("/")]


def has_tail(xpath: str) -> bool:
    return HAS_TAIL.search(xpath) is not None


# -- the document -----------------------------------------------------------------------------

_DECL = re.compile(r"""<\?xml\s+version\s*=\s*(["'])(?P<v>[^"']*)\1"""
                   r"""(\s+encoding\s*=\s*(["'])(?P<e>[^"']*)\4)?"""
                   r"""(\s+standalone\s*=\s*(["'])(?P<s>yes|no)\7)?\s*\?>""")


def _parser() -> Any:
    return etree.XMLParser(resolve_entities=False, strip_cdata=False, remove_blank_text=False,
                           load_dtd=False, no_network=True, huge_tree=False)


class Document:
    """A libxml2 document: ``tree`` (None: no root element yet) and its declaration."""

    __slots__ = ("tree", "version", "encoding", "standalone")

    def __init__(self, tree: Any = None, version: str = "1.0", encoding: str | None = None,
                 standalone: str | None = None) -> None:
        self.tree = tree
        self.version = version
        self.encoding = encoding
        self.standalone = standalone

    @property
    def root(self) -> Any:
        return None if self.tree is None else self.tree.getroot()

    def set_root(self, element: Any) -> None:
        self.tree = etree.ElementTree(element)

    def dump(self) -> bytes:
        """xmlDocDumpMemory (what xmlSaveFile writes)."""
        decl = f'<?xml version={_quoted(self.version)}'
        if self.encoding:
            decl += f" encoding={_quoted(self.encoding)}"
        if self.standalone:
            decl += f' standalone="{self.standalone}"'
        parts = [decl + "?>\n"]
        root = self.root
        if root is not None:
            before = list(reversed(list(root.itersiblings(preceding=True))))
            ahead, dtd = _doctype(self.tree, before)
            for node in before[:ahead]:
                parts.append(self._node(node) + "\n")
            parts.append(dtd)
            for node in before[ahead:] + [root] + list(root.itersiblings()):
                parts.append(self._node(node) + "\n")
        text = "".join(parts)
        if not self.encoding:
            return text.encode("utf-8", "surrogateescape")
        try:
            return text.encode(self.encoding, "xmlcharrefreplace")
        except LookupError:
            return text.encode("utf-8", "surrogateescape")

    def _node(self, node: Any) -> str:
        text = etree.tostring(node, encoding="unicode", with_tail=False)
        return text if self.encoding else _ascii_refs(text)


def _quoted(value: str) -> str:
    return f"'{value}'" if '"' in value else f'"{value}"'


def _doctype(tree: Any, before: list[Any]) -> tuple[int, str]:
    """The DOCTYPE as libxml2 writes it (lxml writes it the same way) with its newline, and
    how many of the top-level comments and PIs ``before`` the root come before it."""
    info = tree.docinfo
    if not info.doctype and info.internalDTD is None:
        return 0, ""
    full = etree.tostring(tree, encoding="unicode")
    start = full.find("<!DOCTYPE")
    if start < 0:
        return 0, ""
    ahead, pos = 0, 0
    for node in before:
        text = etree.tostring(node, encoding="unicode", with_tail=False)
        if pos + len(text) > start or not full.startswith(text, pos):
            break
        pos += len(text)
        ahead += 1
    head_end = full.find(">", start)
    if full[start:head_end].find(" [\n") >= 0 or full[start:head_end].endswith(" ["):
        end = full.find("]>\n", start)
        return ahead, full[start:end + 3] if end >= 0 else ""
    return ahead, full[start:head_end + 1] + "\n"


_REGIONS = re.compile(r"<!--.*?-->|<\?.*?\?>|<!\[CDATA\[.*?\]\]>|<[^>]*>|[^<]+", re.S)


def _ascii_refs(text: str) -> str:
    """libxml2 2.9 with no encoding: text and attribute values' non-ASCII characters (and a
    carriage return in text) as hexadecimal references; comments, PIs, CDATA untouched."""
    if text.isascii() and "&#13;" not in text:
        return text
    out = []
    for m in _REGIONS.finditer(text):
        part = m.group(0)
        if part.startswith(("<!--", "<?", "<![CDATA[")):
            out.append(part)
            continue
        if not part.startswith("<"):
            part = part.replace("&#13;", "&#xD;")
        out.append("".join(c if ord(c) < 128 else f"&#x{ord(c):X};" for c in part))
    return "".join(out)


def declaration(data: bytes) -> dict[str, str | None]:
    head = data[:300]
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = head.decode("utf-16", "replace")
    else:
        text = head.lstrip(b"\xef\xbb\xbf").decode("latin-1")
    m = _DECL.match(text)
    if m is None:
        return {"v": "1.0", "e": None, "s": None}
    return {"v": m.group("v"), "e": m.group("e"), "s": m.group("s")}


def parse(data: bytes, path: str = "") -> tuple[Document | None, str]:
    """The document ``data`` holds (None when it does not parse) and what libxml2 prints
    on standard error of it (xmlParseFile's default error handler)."""
    if not data:
        return Document(), ""
    parser = _parser()
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        return None, _complaints(exc.error_log, data, path)
    decl = declaration(data)
    return (Document(root.getroottree(), decl["v"] or "1.0", decl["e"], decl["s"]),
            _complaints(parser.error_log, data, path))


def _complaints(log: Any, data: bytes, path: str) -> str:
    """libxml2's report of each message: ``FILE:LINE: parser error : MESSAGE``, the line
    and a caret under the column."""
    lines = data.decode("utf-8", "replace").replace("\r", "\n").split("\n")
    out = []
    for entry in log:
        domain = "namespace" if entry.domain_name == "NAMESPACE" else "parser"
        level = "warning" if entry.level_name == "WARNING" else "error"
        out.append(f"{path}:{entry.line}: {domain} {level} : {entry.message}\n")
        line = lines[min(max(entry.line, 1), len(lines)) - 1][:80]
        col = max(min(entry.column - 1, len(line)), 0)
        out.append(f"{line}\n{''.join(c if c == chr(9) else ' ' for c in line[:col])}^\n")
    return "".join(out)


def parse_tree(text: str) -> list[Any] | None:
    """xmlParseBalancedChunkMemory: the nodes of a well-balanced chunk (None: not one)."""
    try:
        wrapper = etree.fromstring(f"<cf-lite-chunk>{text}</cf-lite-chunk>".encode("utf-8",
                                                                                 "surrogateescape"),
                                   _parser())
    except (etree.XMLSyntaxError, ValueError):
        return None
    nodes = list(wrapper)
    if not nodes or (wrapper.text and wrapper.text.strip()):
        return None
    for node in nodes:
        node.tail = None
    return nodes


class XPathFailure(Exception):
    """xmlXPathEvalExpression returned NULL; ``said`` is what libxml2 printed."""

    def __init__(self, said: str) -> None:
        super().__init__(said)
        self.said = said


_CORE_FUNCTIONS = frozenset((
    "last", "position", "count", "id", "local-name", "namespace-uri", "name", "string",
    "concat", "starts-with", "contains", "substring-before", "substring-after", "substring",
    "string-length", "normalize-space", "translate", "boolean", "not", "true", "false",
    "lang", "number", "sum", "floor", "ceiling", "round", "node", "text", "comment",
    "processing-instruction", "escape-uri"))

# errors libxml2 meets evaluating a compiled expression (its position is then the end)
_AT_EVALUATION = {"XPATH_INVALID_TYPE", "XPATH_UNKNOWN_FUNC_ERROR", "XPATH_INVALID_ARITY",
                  "XPATH_UNDEF_VARIABLE_ERROR", "XPATH_UNDEF_PREFIX_ERROR",
                  "XPATH_INVALID_OPERAND", "XPATH_STACK_ERROR"}


def _xpath_said(exc: Any, xpath: str) -> str:
    entries = list(getattr(exc, "error_log", ()))
    if not entries:
        return f"XPath error : {exc}\n"
    out = []
    for entry in entries:
        if entry.type_name == "XPATH_UNKNOWN_FUNC_ERROR":
            names = [n for n in re.findall(r"([A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?)\s*\(",
                                           xpath) if n not in _CORE_FUNCTIONS]
            if names:
                out.append(f"xmlXPathCompOpEval: function {names[0]} not found\n")
        out.append(f"XPath error : {entry.message}\n")
        # (xmlReportError shows the expression when the error is inside it)
        if entry.type_name not in _AT_EVALUATION and 0 <= entry.column < min(len(xpath), 100):
            out.append(f"{xpath}\n{' ' * entry.column}^\n")
    return "".join(out)


def select(doc: Document, xpath: str) -> list[Any] | None:
    """What ``xpath`` selects with no context node: a list of nodes (elements, and lxml's
    strings for text and attribute nodes), or None when it is not a node-set."""
    try:
        compiled = etree.XPath(xpath, regexp=False, smart_strings=True)
    except etree.XPathSyntaxError as exc:
        raise XPathFailure(_xpath_said(exc, xpath)) from None
    root = doc.root
    if root is None:
        return []
    context = etree.SubElement(root, "cf-lite-context")
    root.remove(context)
    try:
        found = compiled(context)
    except etree.XPathError as exc:
        raise XPathFailure(_xpath_said(exc, xpath)) from None
    if not isinstance(found, list):
        return None
    return [n for n in found if n is not context]


def is_element(node: Any) -> bool:
    return isinstance(node, etree._Element) and isinstance(node.tag, str)


def element_children(node: Any) -> list[Any]:
    return [c for c in node if isinstance(c.tag, str)]


_LEADING = re.compile(r"(?:[^<&]|&(?:lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);)*")
_REFS = re.compile(r"&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}


def _unescape(text: str) -> str:
    def one(m: Any) -> str:
        ref = m.group(1)
        if ref in _NAMED:
            return _NAMED[ref]
        return chr(int(ref[2:], 16) if ref.startswith("#x") else int(ref[1:]))
    return _REFS.sub(one, text)


def _first_text(node: Any) -> tuple[str, str]:
    """The kind ("text" or "cdata") and content of the first child, which lxml's ``text``
    merges with the text and CDATA nodes after it."""
    whole = etree.tostring(node, encoding="unicode", with_tail=False)
    inner = whole[whole.index(">") + 1:]
    if inner.startswith("<![CDATA["):
        return "cdata", inner[9:inner.index("]]>")]
    return "text", _unescape(_LEADING.match(inner).group(0))


def first_content(node: Any) -> str | None:
    """xmlNodeGetContent(node->children): the first child's content (None: no children)."""
    if node.text is not None:
        return _first_text(node)[1] if len(node.text) else ""
    if len(node) == 0:
        return None
    child = node[0]
    if isinstance(child.tag, str):
        return str(child.xpath("string()"))
    if isinstance(child, etree._Entity):
        dtd = node.getroottree().docinfo.internalDTD
        found = [e.content for e in dtd.iterentities() if e.name == child.name] \
            if dtd is not None else []
        return found[0] or "" if found else ""
    return child.text or ""


def first_is_text(node: Any) -> bool:
    """xmlNodeIsText(node->children): a text node (not CDATA) comes first."""
    return node.text is not None and (not node.text or _first_text(node)[0] == "text")


def content_nodes(text: str) -> tuple[list[Any] | None, str]:
    """xmlStringGetNodeList, as xmlNodeSetContent reads a text for an element: character
    references and predefined entities are characters, other ``&name;`` entity
    references; an ``&`` without its ``;`` gives nothing (None) and libxml2's complaint."""
    if "&" not in text:
        return [text], ""
    out: list[Any] = []
    pos = 0
    while True:
        at = text.find("&", pos)
        if at < 0:
            out.append(text[pos:])
            return out, ""
        out.append(text[pos:at])
        end = text.find(";", at + 1)
        if end < 0:
            return None, f"unterminated entity reference {text[at + 1:]:>15}"
        ref = text[at + 1:end]
        if ref.startswith("#"):
            try:
                out.append(chr(int(ref[2:], 16) if ref[1:2] in ("x", "X") else int(ref[1:])))
            except ValueError:
                pass
        elif ref in _NAMED:
            out.append(_NAMED[ref])
        elif ref:
            out.append(etree.Entity(ref))
        pos = end + 1


def set_leading(node: Any, text: str) -> str:
    """xmlNodeSetContent(node, text) with the elements put back (cf-agent's set_text on
    a node whose first child is not text): what libxml2 complains of, if anything."""
    pieces, said = content_nodes(text)
    replace_leading(node, None)
    if pieces is None:
        return said
    first = next((c for c in node if isinstance(c.tag, str)), None)
    chars: list[str] = []
    for piece in pieces:
        if isinstance(piece, str):
            chars.append(piece)
            continue
        piece.tail = None
        if first is None:
            node.append(piece)
        else:
            first.addprevious(piece)
        _attach_text(node, piece, "".join(chars))
        chars = []
    rest = "".join(chars)
    if rest:
        if first is None and len(node):
            node[-1].tail = (node[-1].tail or "") + rest
        elif first is not None and first.getprevious() is not None:
            first.getprevious().tail = rest
        else:
            node.text = rest
    return ""


def _attach_text(node: Any, entity: Any, text: str) -> None:
    if not text:
        return
    before = entity.getprevious()
    if before is None:
        node.text = text
    else:
        before.tail = text


def replace_leading(node: Any, text: str | None) -> None:
    """xmlNodeSetContent(node, text) with the elements (from the first on) put back: what
    came before the first element child goes, ``text`` (None: nothing) comes first."""
    for child in list(node):
        if isinstance(child.tag, str):
            break
        node.remove(child)
    node.text = text
