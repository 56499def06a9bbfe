"""Editing a file's content: edit_line bundles, templates, and saving the result once.

ScheduleEditOperation + FinishEditContext of cf-agent:

1. for an edit_line bundle the file is loaded into an :class:`EditBuffer` (refused
   when it is not a plain file or is larger than ``max_file_size``);
   ``empty_file_before_editing`` (implied by a template) starts from no lines, and a
   template alone never loads the file: it is only compared with it when saving (so
   a promiser ``D/`` naming a directory renders, and fails to save: cf-agent's
   SaveAsFile writes ``D/.cf-after-edit`` and cannot copy ``D/`` to its backup);
2. the edit_line bundle runs against the buffer (its promises count their
   edits), a CFEngine template is applied as insert_lines promises, a mustache
   template is rendered;
3. if something was edited and the lines differ from the file, the file is
   written once, crash-safe (:mod:`.atomic`), with the backup ``edit_defaults``
   asks for; the queued change messages are printed, then ``Edited file``.
   Under ``-n``/warn nothing is written: cf-agent's ``Should edit file`` warning
   (with its per-line notes) and a unified diff at info level.
"""
from __future__ import annotations

import functools
import os
import stat

from cfpromise.promises.edit.buffer import EditBuffer, join_continuations, join_lines, split_lines
from cfpromise.promises.files import atomic, bridge, diff, template
from cfpromise.promises.files.context import FileRun, note_change

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def load_lines(fr: FileRun, path: str) -> list[str] | None:
    """LoadFileAsItemList (messages as cf-agent's); None when the file cannot be edited."""
    edits = fr.a.edits
    try:
        st = os.stat(path)
    except OSError as exc:
        fr.log("verbose", f"The proposed file '{path}' could not be loaded. (stat: {exc.strerror})")
        return None
    if edits.max_file_size and st.st_size > edits.max_file_size:
        fr.log("info", f"File '{path}' is bigger than the edit limit. max_file_size = "
                       f"{st.st_size} > {edits.max_file_size} bytes")
        return None
    if not stat.S_ISREG(st.st_mode):
        fr.log("info", f"{path} is not a plain file")
        return None
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        fr.log("info", f"Couldn't read file '{path}' for editing. (fopen: {exc.strerror})")
        return None
    lines = split_lines(data.decode("utf-8", "surrogateescape"))
    if edits.joinlines:
        lines = join_continuations(lines)
    return lines


def schedule_edit(fr: FileRun, path: str, create: bool = False) -> None:
    """ScheduleEditOperation for ``path``; ``create``: a template makes the missing file
    (a CFEngine template before it edits, a mustache one once a rendering is due).  After
    the edit context is made, its info messages are held back unless the edit repairs the
    promise (cf-agent's log buffer)."""
    a = fr.a
    if not os.path.isabs(path):
        fr.log("error", f"Relative file name '{path}' was marked for editing but has no "
                        "invariant meaning")
        fr.fail(f"File '{path}' was marked for editing but could not be opened")
        return
    if a.edit_xml is not None:
        edit_xml(fr, path)
        return
    # cf-agent's edit context loads (or, when it is to be emptied, only checks) the file
    # for an edit_line bundle alone: a template by itself starts from no lines, whatever
    # the path is (a directory too), and is compared with the file only when saved
    loaded: list[str] | None = None
    if a.edit_line is not None:
        loaded = load_lines(fr, path)
        if loaded is None:
            fr.fail(f"File '{path}' was marked for editing but could not be opened")
            return
    with fr.holding_info():
        _edit_loaded(fr, path, create, loaded)


def _edit_loaded(fr: FileRun, path: str, create: bool, loaded: list[str] | None) -> None:
    a = fr.a
    mustache = a.template_method in ("mustache", "inline_mustache") and \
        (a.edit_template is not None or a.edit_template_string is not None)
    cfengine = a.template_method == "cfengine" and a.edit_template is not None
    if create and cfengine and not _create_for(fr, path, "cfengine"):
        return
    # cf-agent's edits.empty_before_use: set by edit_defaults, and by any template
    # (GetFilesAttributes), also read as $(edit.empty_before_use)
    empty = a.edits.empty_before_use or a.edit_template is not None or \
        a.edit_template_string is not None
    if empty and (loaded is not None or cfengine):
        fr.log("verbose", "Build file model from a blank slate (emptying)")
    buffer = EditBuffer(path, [] if empty or loaded is None else list(loaded),
                        original=loaded, dry_run=fr.dry_run)
    buffer.empty_before_use = empty
    failed = False
    if a.edit_line is not None:
        fr.log("verbose", f"Handling file edits in edit_line bundle '{a.edit_line.name}'")
        result = bridge.run_edit_bundle(fr.agent, a.edit_line, buffer, fr.run.namespace, path)
        if result is None:
            fr.log("error", f"Did not find bundle '{a.edit_line.name}' for edit operation")
    if cfengine:
        fr.log("verbose", f"Rendering '{path}' using template '{a.edit_template}' with method "
                          f"'{a.template_method}'")
        outcome = template.render_cfengine(fr, buffer, a.edit_template or "")
        failed = failed or outcome.not_kept
    elif mustache:
        render_mustache(fr, path, create)
        if a.edit_line is None:
            return
        # with an edit_line bundle too, cf-agent then saves that bundle's buffer
        # (FinishEditContext compares it with the file as the template left it)
        after = load_lines(fr, path)
        if after is not None:
            buffer.original = after
    if failed:
        return
    if loaded is None:
        buffer.original = compared_lines(path, fr)
    finish_edit(fr, buffer)


def compared_lines(path: str, fr: FileRun) -> list[str] | None:
    """The lines an edit is compared with (CompareToFile): None when there is no file
    there, or one that cannot be read as lines (a directory) -- then any edit differs."""
    try:
        os.stat(path)
    except OSError:
        return None
    return load_lines(fr, path)


def edit_xml(fr: FileRun, path: str) -> None:
    """An edit_xml bundle on ``path`` (cfpromise.promises.edit.xml), saved once: cf-agent's
    LoadFileAsXmlDoc, then FinishEditContext (when an edit was counted: under -n or warn
    "Should edit file" unless the file is empty; else the document is saved unless the
    file, parsed and written again, reads the same -- XmlCompareToFile)."""
    from cfpromise.promises.edit import xml, xmldoc
    a = fr.a
    assert a.edit_xml is not None
    try:
        st = os.stat(path)
    except OSError as exc:
        fr.log("error", f"The proposed file '{path}' could not be loaded. (stat: {exc.strerror})")
        fr.fail(f"File '{path}' was marked for editing but could not be opened")
        return
    if a.edits.max_file_size and st.st_size > a.edits.max_file_size:
        fr.log("info", f"File '{path}' is bigger than the edit limit. max_file_size = "
                       f"'{st.st_size}' > '{a.edits.max_file_size}' bytes")
        fr.fail(f"File '{path}' was marked for editing but could not be opened")
        return
    if not stat.S_ISREG(st.st_mode):
        fr.log("info", f"'{path}' is not a plain file")
        fr.fail(f"File '{path}' was marked for editing but could not be opened")
        return
    data = _read(path)
    doc: xmldoc.Document | None = xmldoc.Document()
    if not a.edits.empty_before_use and data:
        doc, said = xmldoc.parse(data, path)
        if said:
            xml.stderr(said)
    if a.edits.empty_before_use:
        fr.log("verbose", "Build file model from a blank slate")
    buf = xml.XmlBuffer(path, doc, fr.dry_run)
    with fr.holding_info():
        fr.log("verbose", f"Handling file edits in edit_xml bundle '{a.edit_xml.name}'")
        if bridge.run_edit_bundle(fr.agent, a.edit_xml, buf, fr.run.namespace, path,
                                  bundle_type="edit_xml") is None:
            fr.log("error", f"Did not find bundle '{a.edit_xml.name}' for edit operation")
        _finish_xml(fr, path, buf)


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return b""


def _finish_xml(fr: FileRun, path: str, buf: Any) -> None:
    from cfpromise.promises.edit import xml, xmldoc
    if buf.edits <= 0:
        fr.kept(f"No edit changes to file '{path}' need saving")
        return
    now = _read(path)
    if fr.warn_only and now:
        fr.should(f"Should edit file '{path}'")
        return
    on_disk, said = xmldoc.parse(now, path) if now else (xmldoc.Document(), "")
    if said:
        xml.stderr(said)
    new = buf.doc.dump() if buf.doc is not None else None
    # (xmlStrEqual: the two texts up to a NUL byte -- a UTF-16 document reads the same)
    if new is not None and on_disk is not None and \
            on_disk.dump().split(b"\0", 1)[0] == new.split(b"\0", 1)[0]:
        fr.kept(f"No edit changes to xml file '{path}' need saving")
        return
    if new is None:
        fr.fail(f"Failed to edit XML file '{path}'")
        return
    try:
        atomic.replace_file(path, new, backup=fr.a.edits.backup, rotate=fr.a.edits.rotate,
                            repository=fr.a.repository, log=fr.log, staged=True)
    except OSError:
        fr.fail(f"Failed to edit XML file '{path}'")
        return
    for level, message in buf.messages:
        fr.log(level, message)
    note_change(fr, kind="content", path=path,
                diff=functools.partial(diff.unified, path,
                                       split_lines(now.decode("utf-8", "surrogateescape")),
                                       split_lines(new.decode("utf-8", "surrogateescape"))))
    fr.change(f"Edited xml file '{path}'")


def finish_edit(fr: FileRun, buffer: EditBuffer) -> None:
    """FinishEditContext: save the buffer if it differs from the file (a buffer
    compared with no readable file differs: there is nothing to diff it with)."""
    path = buffer.filename
    original = buffer.original
    differs = original is None or buffer.lines != original
    before = original or []
    if fr.warn_only:
        changed = buffer.edits > 0 and differs
        if fr.dry_run and not buffer.forced:
            # -n: the edit promises said what they would do.  cf-agent's buffer holds
            # none of those edits, only empty_file_before_editing's emptying: when an
            # edit was due and the emptied buffer is not the file, it says "Should edit"
            # too (even when the edits would have put the file back as it was)
            if changed and original is not None:
                diff.report(fr.log_now, path, original, buffer.lines)
            if buffer.edits > 0 and buffer.empty_before_use and original != []:
                fr.should(f"Should edit file '{path}'")
            elif changed:
                fr.kept()
            else:
                fr.kept(f"No edit changes to file '{path}' need saving")
            return
        if not changed:
            fr.kept(f"No edit changes to file '{path}' need saving")
            return
        if original is not None:
            if not fr.dry_run:
                for line in diff.item_warnings(original, buffer.lines):
                    fr.log("warning", line)
            diff.report(fr.log_now, path, original, buffer.lines)
        fr.should(f"Should edit file '{path}'")
        return
    if buffer.edits <= 0 or not differs:
        fr.kept(f"No edit changes to file '{path}' need saving")
        return
    data = join_lines(buffer.lines).encode("utf-8", "surrogateescape")
    edits = fr.a.edits
    try:
        atomic.replace_file(path, data, backup=edits.backup, rotate=edits.rotate,
                            repository=fr.a.repository, log=fr.log, staged=True)
    except OSError:
        fr.fail(f"Unable to save file '{path}' after editing")
        return
    for level, message in buffer.messages:
        fr.log(level, message)
    note_change(fr, kind="content", path=path,
                diff=functools.partial(diff.unified, path, list(before), list(buffer.lines)))
    fr.change(f"Edited file '{path}'")


def _create_for(fr: FileRun, path: str, method: str, name: str | None = None) -> bool:
    """CfCreateFile for a template's rendering (what fails said, and the promise failed)."""
    from cfpromise.promises.files import create
    made = create.create_file(fr, path)
    fr.forget()
    if not made:
        fr.fail(f"Failed to create file '{path}' for rendering {method} template "
                f"'{name or fr.a.edit_template}'")
    return made


def render_mustache(fr: FileRun, path: str, create: bool = False) -> None:
    """RenderTemplateMustache: render and replace the file when the output differs (a
    missing one made first, with ``create``)."""
    text, name = template.mustache_source(fr)
    if text is None:
        return
    data = template.template_data(fr)
    rendered = template.render_mustache_text(text, data, fr.log)
    if rendered is None:
        fr.fail(f"Error rendering mustache template '{fr.a.edit_template}'")
        return
    new = rendered.encode("utf-8", "surrogateescape")
    old = atomic.read_bytes(path)
    if old == new:
        fr.kept(f"No edit changes to file '{path}' need saving")
        return
    if fr.warn_only:
        if old is not None:
            diff.report(fr.log_now, path,
                        split_lines(old.decode("utf-8", "surrogateescape")),
                        split_lines(rendered))
        fr.should(f"Should update rendering of '{fr.run.promiser}' from mustache template "
                  f"'{name}'")
        return
    if create and old is None and not _create_for(fr, path, "mustache", name):
        return
    edits = fr.a.edits
    try:
        atomic.replace_file(path, new, backup=edits.backup, rotate=edits.rotate,
                            repository=fr.a.repository, log=fr.log, staged=True)
    except OSError:
        fr.fail(f"Failed to update rendering of '{fr.run.promiser}' from mustache template "
                f"'{name}'")
        return
    fr.change(f"Updated rendering of '{fr.run.promiser}' from mustache template '{name}'")
    # cf-agent's FinishEditContext then finds no line edits to save: it records that too
    # (the promise is repaired, and its promise_kept classes are defined as well)
    fr.kept(f"No edit changes to file '{path}' need saving")


def validate_template(fr: FileRun) -> str | None:
    """An error that keeps a template promise from creating its file by default."""
    a = fr.a
    if a.template_method == "cfengine" and a.edit_template is not None:
        return template.validate_cfengine(a.edit_template)
    if a.template_method in ("mustache", "inline_mustache"):
        if a.has_template_data and not template.data_is_container(a.template_data):
            return f"No template data for the promise '{fr.run.promiser}'"
        if a.template_method == "inline_mustache":
            text = a.edit_template_string
        else:
            if a.edit_template is None:
                return None
            raw = atomic.read_bytes(a.edit_template)
            if raw is None:
                return f"Template file '{a.edit_template}' could not be opened for reading"
            text = raw.decode("utf-8", "surrogateescape")
        if text is None:
            return None
        if template.render_mustache_text(text, template.template_data(fr)) is None:
            return f"Error rendering mustache template '{a.edit_template}'"
    return None


def write_content(fr: FileRun, path: str) -> None:
    """WriteContentFromString: the file's whole content is the ``content`` attribute."""
    content = fr.a.content or ""
    data = content.encode("utf-8", "surrogateescape")
    old = atomic.read_bytes(path)
    if old == data:
        fr.kept(f"Content of '{path}' as promised")
        return
    if fr.warn_only:
        if old is not None:
            diff.report(fr.log, path, split_lines(old.decode("utf-8", "surrogateescape")),
                        split_lines(content))
        fr.should(f"Should update file '{path}' with content '{content}'")
        return
    try:
        # (what cf-agent's fopen would say of a directory: the new content itself is
        # written beside it and renamed over it, never truncated in place)
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        fr.fail(f"Cannot open file '{path}' for writing")
        return
    try:
        if old is None:
            atomic.write_new(path, data, 0o600)
        else:
            atomic.replace_file(path, data, backup="false", log=fr.log)
    except OSError:
        fr.fail(f"Failed to update file '{path}' with content '{content}'")
        return
    old_lines = split_lines(old.decode("utf-8", "surrogateescape")) if old is not None else []
    note_change(fr, kind="content", path=path,
                diff=functools.partial(diff.unified, path, old_lines, split_lines(content)))
    fr.change(f"Updated file '{path}' with content '{content}'")
