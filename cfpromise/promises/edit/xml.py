"""``edit_xml`` bundles: CFEngine 3.21's XML promise types (cf-agent's files_editxml.c) on
a document read, searched and saved with libxml2 (:mod:`.xmldoc`, through lxml).

Each promise goes as cf-agent's verifier goes, so that its messages, outcome classes and
repeats are cf-agent's:

1. the sanity checks of the type (select_xpath given, not a sibling position...);
2. with ``build_xpath`` (or for a build_xpath promise) VerifyXPathBuild: its syntax
   check, then -- once per promise and run, under its own lock -- every step of the path
   missing is made (cf-agent's own parser of ``/a[@k='v' | c=t]/b``);
3. the node ``select_xpath`` selects: libxml2's XPath 1.0, one element exactly;
4. the promise's lock, then the edit.

Steps 1-3 come before the lock, so cf-agent makes them in each of the bundle's three
passes: a promise whose node is not there fails again in each pass (and may succeed in a
later one, once another promise built the node), and a promise with ``build_xpath``
that was done fails in the later passes ("Failed to build XPath ...": its build lock is
taken).  A result before the lock is recorded (classes) and the promise is tried again
in the next pass (None to the engine) until the last; once done, the engine calls
:func:`again` in the later passes for the checks before the lock.

Change messages wait in the buffer until the file is saved (cf-agent's log buffer);
errors and warnings are printed at once.
"""
from __future__ import annotations

from typing import Any

from cfpromise.agent.outcome import Outcome, merge
from cfpromise.promises.api import PromiseRun, again as again_hook, handler
from cfpromise.promises.edit import xmldoc
from cfpromise.promises.edit.xmlops import OPERATIONS
from cfpromise.promises.files import bridge

TYPES = ("build_xpath", "delete_tree", "insert_tree", "delete_attribute", "set_attribute",
         "delete_text", "set_text", "insert_text")


class XmlBuffer:
    """A plain slotted class, not an attrs class: see cfpromise.promises.edit.buffer."""

    __slots__ = ("filename", "doc", "dry_run", "edits", "messages", "locks")

    def __init__(self, filename: str, doc: xmldoc.Document | None, dry_run: bool = False) -> None:
        self.filename = filename
        self.doc = doc                     # None: the file did not parse
        self.dry_run = dry_run
        self.edits = 0                     # cf-agent's num_edits
        self.messages: list[tuple[str, str]] = []
        self.locks: set[Any] = set()       # build locks taken (cf-agent's lock cache)


# type -> (sanity failure, select failure, build failure, no document) messages
_SAY = {
    "delete_tree": ("The promised tree deletion '{p}' is inconsistent",
                    "The promised XPath pattern '{x}', was NOT successful when selecting an "
                    "edit node, in XML document '{f})", None, "Unable to load XML document"),
    "insert_tree": ("The promised tree insertion '{p}' breaks its own promises",
                    "Failed to select edit node in the XML document '{f}' using the XPath '{x}'",
                    "Failed to build XPath for tree insertion '{p}'",
                    "Unable to load XML document '{f}'"),
    "delete_attribute": ("The promised attribute deletion '{p}', is inconsistent",
                         "The promised XPath pattern '{x}', was NOT successful when selecting "
                         "an edit node, in XML document '{f}'",
                         "Failed to build XPath for attribute deletion '{p}'",
                         "Unable to load XML document '{f}'"),
    "set_attribute": ("The promised attribute set '{p}', breaks its own promises",
                      "No node to edit selected by XPath '{x}' in the XML document '{f}'",
                      "Failed to build XPath for setting attribute '{p}'",
                      "Unable to load XML document '{f}'"),
    "delete_text": ("The promised text deletion '{p}' is inconsistent",
                    "No node selected by XPath '{x}' in XML document '{f}'",
                    "Failed to build XPath for text deletion in '{f}'",
                    "Unable to load XML document '{f}'"),
    "set_text": ("The promised text set '{p}' breaks its own promises",
                 "No node selected by XPath '{x}' in the XML document '{f}'",
                 "Failed to build XPath for changing text in '{p}'",
                 "Unable to load XML document '{f}'"),
    "insert_text": ("The promised text insertion '{p}' breaks its own promises",
                    "No node selected by XPath '{x}' in XML document '{f}'",
                    "Failed to build XPath for text insertion into '{f}'",
                    "Unable to load XML document '{f}'"),
}
_NEEDS_SELECT = {"delete_tree": "Tree deletion", "delete_attribute": "Attribute deletion",
                 "set_attribute": "Attribute insertion", "delete_text": "Tree insertion",
                 "set_text": "Tree insertion", "insert_text": "Tree insertion"}


class Run:
    """One evaluation of an XML promise: its results as cf-agent's cfPS records them."""

    __slots__ = ("run", "buf", "results", "ptype", "select", "build")

    def __init__(self, run: PromiseRun, buf: XmlBuffer) -> None:
        self.run = run
        self.buf = buf
        self.results: list[Outcome] = []
        self.ptype = run.promise_type
        sel = run.attributes.get("select_xpath")
        self.select = sel if isinstance(sel, str) else None
        build = run.attributes.get("build_xpath")
        self.build = build if isinstance(build, str) else None

    def log(self, level: str, message: str) -> None:
        self.run.agent.log(level, message)

    @staticmethod
    def stderr(text: str) -> None:
        stderr(text)

    def record(self, outcome: Outcome, level: str, message: str) -> None:
        if level == "info":
            self.buf.messages.append((level, message))
        else:
            self.log(level, message)
        self.results.append(outcome)
        self.run.agent.record_result(self.run, outcome)

    def fail(self, message: str, outcome: Outcome = Outcome.FAILED) -> None:
        self.record(outcome, "error", message)

    def change(self, message: str) -> None:
        self.record(Outcome.REPAIRED, "info", message)

    def kept(self, message: str) -> None:
        self.record(Outcome.KEPT, "verbose", message)

    def making_changes(self, what: str) -> bool:
        """MakingChanges: False (with its warning) under -n or action_policy warn."""
        action = self.run.body("action").get("action_policy")
        warn = action in ("warn", "nop")
        if not (self.buf.dry_run or warn):
            return True
        tail = ", but only warning promised" if warn else ""
        self.record(Outcome.WARN, "warning", f"Should {what}{tail}")
        return False

    @property
    def outcome(self) -> Outcome:
        result = merge(self.results) if self.results else Outcome.KEPT
        return Outcome.KEPT if result is Outcome.SKIPPED else result

    def said(self, text: str) -> str:
        return text.format(p=self.run.promiser, x=self.select, f=self.buf.filename)

    # -- selection ---------------------------------------------------------------------
    def select_node(self, xpath: str) -> Any:
        """XmlSelectNode: the one element ``xpath`` selects, else None (its errors said)."""
        doc = self.buf.doc
        assert doc is not None
        if not xmldoc.convergent(xpath):
            self.fail(f"select_xpath expression '{xpath}', is NOT convergent")
            return None
        try:
            found = xmldoc.select(doc, xpath)
        except xmldoc.XPathFailure as exc:
            stderr(exc.said)
            self.fail(f"Unable to evaluate XPath expression '{xpath}'")
            return None
        if not found:
            return None
        if len(found) > 1:
            self.fail(f"Current select_xpath expression '{xpath}' returns {len(found)} edit "
                      f"nodes in XML document '{self.buf.filename}', unique edit node required")
            return None
        if not xmldoc.is_element(found[0]):
            self.fail(f"The promised XPath pattern '{xpath}' was NOT found when selecting an "
                      f"edit node in XML document '{self.buf.filename}'")
            return None
        return found[0]

    # -- build_xpath -----------------------------------------------------------------------
    def verify_build(self) -> bool:
        """VerifyXPathBuild: False when the promise is to go no further."""
        raw = self.build if self.build is not None else self.run.promiser
        ok = True
        if self.ptype == "build_xpath" and self.build is not None:
            self.log("error", "Attribute: build_xpath is not allowed within bundle: build_xpath")
            ok = False
        elif self.select is not None and self.build is None:
            self.log("error", "XPath build does not require select_xpath to be specified")
            ok = False
        elif not xmldoc.convergent(raw):
            self.fail(f"Promiser expression ({raw}) is not convergent", Outcome.INTERRUPTED)
            ok = False
        elif not xmldoc.BUILD_SYNTAX.search(raw):
            self.fail(f"Promiser expression '{raw}' contains syntax that is not supported for "
                      "xpath_build. Please refer to users manual for supported syntax "
                      "specifications.", Outcome.INTERRUPTED)
            ok = False
        if not ok:
            self.fail(f"The promised XPath build '{raw}' breaks its own promises")
            return False
        if self.buf.doc is None:
            self.fail(f"Unable to load XML document '{self.buf.filename}'")
            return False
        key = (self.ptype, self.run.promiser, repr(sorted(self.run.attributes.items())),
               self.buf.filename)
        if key in self.buf.locks:
            return False
        self.buf.locks.add(key)
        if self.buf.doc.root is None:
            self.build_in_file(raw)
        else:
            self.build_in_node(raw)
        return True

    def build_in_file(self, raw: str) -> None:
        doc = self.buf.doc
        assert doc is not None
        top = xmldoc.segment_node(xmldoc.head_segment(raw))
        if top is None:
            self.fail(f"Could not extract node '{xmldoc.head_segment(raw)}'")
            self.fail(f"Unable to extract root node from XPath '{raw}', to be inserted into an "
                      f"empty XML document '{self.buf.filename}'")
            return
        if not self.making_changes(f"build XPath '{raw}' into an empty XML document "
                                   f"'{self.buf.filename}'"):
            return
        doc.set_root(top)
        rest, node = xmldoc.remove_head(raw), top
        while rest:
            head = xmldoc.segment_node(xmldoc.head_segment(rest))
            if head is None:
                break
            node.append(head)
            node, rest = head, xmldoc.remove_head(rest)
        self.buf.edits += 1
        self.change(f"Built XPath '{raw}' into an empty XML document '{self.buf.filename}'")

    def build_in_node(self, raw: str) -> None:
        doc = self.buf.doc
        assert doc is not None
        path, tail, at = raw, None, None
        while path:
            at = self.select_node(path)
            if at is not None:
                break
            if xmldoc.has_tail(path):
                head = xmldoc.segment_node(xmldoc.tail_segment(path))
                path = xmldoc.remove_tail(path)
            else:
                head = xmldoc.segment_node(xmldoc.head_segment(path))
                path = xmldoc.remove_head(path)
            if head is not None and tail is not None:
                head.append(tail)
            tail = head
        if not self.making_changes(f"build XPath '{raw}' in XML document '{self.buf.filename}'"):
            return
        if tail is not None:
            (at if at is not None else doc.root).append(tail)
        self.buf.edits += 1
        self.change(f"Built XPath '{raw}' in XML document '{self.buf.filename}'")


def stderr(text: str) -> None:
    """What libxml2 prints on standard error (its default error handler)."""
    import sys
    sys.stdout.flush()
    sys.stderr.write(text)
    sys.stderr.flush()


def _buffer(run: PromiseRun) -> XmlBuffer | None:
    buffer = run.agent.edit_buffer()
    return buffer if isinstance(buffer, XmlBuffer) else None


def _closing(r: Run) -> None:
    who = f"{r.ptype} promise '{r.run.promiser}'"
    outcome = r.outcome
    if outcome is Outcome.KEPT:
        r.record(Outcome.KEPT, "verbose", f"No changes done for the {who}")
    elif outcome is Outcome.REPAIRED:
        r.record(Outcome.REPAIRED, "info", f"{who} repaired")
    elif outcome is Outcome.WARN:
        r.record(Outcome.WARN, "warning", f"Warnings encountered when actuating {who}")
    else:
        r.record(outcome, "error", f"Errors encountered when actuating {who}")


def _before_lock(r: Run) -> Any:
    """Steps 1-3: the node to edit (True for build_xpath and a tree for an empty
    document), or None when the promise stops here (its results recorded)."""
    buf, ptype = r.buf, r.ptype
    if ptype == "build_xpath":
        return True
    sanity_fail, select_fail, build_fail, no_doc = _SAY[ptype]
    ok = True
    if ptype == "insert_tree":
        if r.select is not None and r.build is None and (buf.doc is None or buf.doc.root is None):
            r.log("error", "Tree insertion into an empty file, using select_xpath, does not make "
                           "sense")
            ok = False
        elif r.select is None and r.build is not None:
            r.log("error", "Tree insertion requires select_xpath to be specified, unless "
                           "inserting into an empty file")
            ok = False
        elif r.select is not None and not xmldoc.convergent(r.select):
            ok = False
    elif r.select is None:
        r.log("error", f"{_NEEDS_SELECT[ptype]} requires select_xpath to be specified")
        ok = False
    elif not xmldoc.convergent(r.select):
        ok = False
    if not ok:
        r.fail(r.said(sanity_fail))
        return None
    if r.build is not None and not r.verify_build():
        if build_fail is not None:
            r.fail(r.said(build_fail))
        return None
    if buf.doc is None:
        r.fail(r.said(no_doc))
        return None
    if ptype == "insert_tree" and r.select is None:
        return True
    node = r.select_node(r.select or "")
    if node is None:
        r.fail(r.said(select_fail), Outcome.INTERRUPTED if ptype == "delete_tree"
               else Outcome.FAILED)
    return node


def _actuate(run: PromiseRun, first: bool) -> Outcome | None:
    buf = _buffer(run)
    if buf is None:
        run.agent.log("error", f"{run.promise_type} promise '{run.promiser}' is not in an "
                               "edit_xml bundle editing a file")
        return Outcome.FAILED
    run.agent.own_classes(run)
    r = Run(run, buf)
    if r.ptype == "build_xpath":
        # VerifyXPathBuild (its lock taken: nothing), then its closing message -- also in
        # the later passes ("No changes done": kept)
        r.verify_build()
        _closing(r)
        return r.outcome
    node = _before_lock(r)
    if node is None:
        if not first:
            return r.outcome
        return r.outcome if bridge.last_pass(run.agent) else None
    if not first:
        return None
    OPERATIONS[r.ptype](r, node)
    _closing(r)
    return r.outcome


@again_hook(*TYPES)
def again(run: PromiseRun) -> Outcome | None:
    """A promise done in an earlier pass: its checks before the lock, made again."""
    return _actuate(run, False)


def _handle(run: PromiseRun) -> Outcome | None:
    return _actuate(run, True)


for _ptype in TYPES:
    handler(_ptype)(_handle)
