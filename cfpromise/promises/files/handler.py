"""The ``files`` promise type: the handler and the order of its operations.

FindFilePromiserObjects + VerifyFilePromise of cf-agent 3.21, for one promiser:

0. A promiser whose path has a regex component (``/var/log/.*\\.log``; see
   :func:`is_path_regex`) is matched against directory entries, component by
   component; each match is handled as its own file, with ``$(match.N)`` set
   from the promiser regex (``pathtype => "literal"`` or ``copy_from`` turn
   this off).
1. Sanity checks (conflicting attributes) -- an inconsistent promise does
   nothing.
2. A missing file is created (``create``, ``touch``; ``content`` and templates
   create by default unless ``create => "false"``); an existing one is
   "present as promised".
3. Phase 1: when the file exists, ``rename``/``delete``/``perms``/``changes``/
   ``transformer`` are applied to it -- or to every file of the
   ``depth_search`` that ``file_select`` accepts (the base directory only
   with ``include_basedir``).
4. Phase 2: ``copy_from``, then ``link_from`` (``link_children``).
5. Phase 3: ``content`` replaces the whole file, else the edits
   (``edit_line``, ``edit_template``...) are applied and the file saved once.
6. The file's attributes are verified once more (it may be new now).

Results are reported as they are reached (see :class:`FileRun`); the merged
outcome is returned.  ``-n`` and ``action_policy => "warn"`` change nothing and
say what would change.
"""
from __future__ import annotations

import os
import stat

from cfpromise.agent.outcome import Outcome, merge
from cfpromise.promises.api import PromiseRun, before_lock, handler
# The modules for what only some promises do (copy_from, edit_line, links, rename, delete,
# transformer, changes, the --simulate chroot, path regexes) are imported where they are
# used: a run whose files promises only check attributes (masterfiles' dry run) does not
# load them.
from cfpromise.promises.files import bridge, depth, paths, perms, select
from cfpromise.promises.files.attributes import FileAttrs, read_attributes, scalar
from cfpromise.promises.files.context import FileRun
from cfpromise.regexlike import is_regex
from cfpromise.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# --- promiser regular expressions ------------------------------------------------------

_REGEX_MARKS = frozenset("*+[|")


def is_path_regex(text: str) -> bool:
    """IsPathRegex: a regex whose brackets do not span a ``/``."""
    if _REGEX_MARKS.isdisjoint(text) or not is_regex(text):
        return False
    square = round_ = 0
    for ch in text:
        if ch == "[":
            square += 1
        elif ch == "]":
            square -= 1
        elif ch == "(":
            round_ += 1
        elif ch == ")":
            round_ -= 1
        elif ch == "/" and (square or round_):
            return False
    return True


def locate_promiser_group(fr: FileRun, wildpath: str, found: list[tuple[str, list[str]]],
                          create_missing: bool) -> None:
    """LocateFilePromiserGroup: the files a regex promiser stands for, with the captures of
    the promiser regex for each."""
    from cfpromise.promises.edit import matching
    parts = wildpath.split("/")
    prefix = ""
    regex_index = None
    for index, part in enumerate(parts):
        if part == "":
            continue
        if is_regex(part):
            regex_index = index
            break
        prefix = prefix + "/" + part
    if regex_index is None:
        found.append((prefix or wildpath, []))
        return
    regex = parts[regex_index]
    remainder = [p for p in parts[regex_index + 1:]]
    lastnode = regex_index == len(parts) - 1 or all(p == "" for p in remainder)
    base = prefix or "/"
    try:
        entries = os.listdir(base)
    except OSError:
        fr.log("verbose", f"Using best-effort expanded (but non-existent) file base path "
                          f"{wildpath}")
        found.append((wildpath, []))
        return
    count = 0
    for entry in entries:
        if not matching.full(regex, entry):
            continue
        count += 1
        nextpath = base.rstrip("/") + "/" + entry
        for p in remainder:
            if p != "":
                nextpath += "/" + p
        if not lastnode and nextpath != wildpath:
            locate_promiser_group(fr, nextpath, found, False)
        else:
            fr.log("verbose", f"Using expanded file base path {nextpath}")
            groups = matching.full_groups(fr.run.promiser, nextpath) or []
            found.append((nextpath, groups))
    if count == 0:
        fr.log("verbose", f"No promiser file objects matched as regular expression {wildpath}")
        if create_missing:
            found.append((fr.run.promiser, []))


def _deref(value: Any, groups: list[str]) -> Any:
    """Substitute ``$(match.N)`` in an attribute value (ExpandDeRefPromise)."""
    if isinstance(value, str):
        if "match." not in value:
            return value
        for i, g in enumerate(groups):
            value = value.replace(f"$(match.{i})", g).replace(f"${{match.{i}}}", g)
        return value
    if isinstance(value, list):
        return [_deref(v, groups) for v in value]
    if isinstance(value, dict):
        return {k: _deref(v, groups) for k, v in value.items()}
    return value


# --- sanity checks ----------------------------------------------------------------------

def sanity_checks(fr: FileRun, path: str) -> bool:
    """FileSanityChecks: False (after cf-agent's error) for contradictory promises."""
    a = fr.a
    problems: list[str] = []
    if a.link is not None and a.copy is not None:
        problems.append(f"Promise constraint conflicts - '{path}' file cannot both be a copy "
                        "of and a link to the source")
    if a.link is not None and not a.link.source:
        problems.append(f"Promise to establish a link at '{path}' has no source")
    if a.edit_line is not None and a.edit_xml is not None:
        problems.append(f"Promise constraint conflicts - '{path}' editing file as both line "
                        "and xml makes no sense")
    if a.depth is not None and a.haveedit:
        problems.append("Recursive depth_searches are not compatible with general file editing")
    if a.delete is not None and (a.create or a.copy is not None or a.haveedit
                                 or a.rename is not None):
        problems.append(f"Promise constraint conflicts - '{path}' cannot be deleted and exist "
                        "at the same time")
    if a.rename is not None and (a.create or a.copy is not None or a.haveedit):
        problems.append(f"Promise constraint conflicts - '{path}' cannot be renamed/moved and "
                        "exist there at the same time")
    if a.delete is not None and a.depth is not None and a.select is None:
        problems.append(f"Dangerous or ambiguous promise - '{path}' specifies recursive "
                        "deletion but has no file selection criteria")
    if a.select is not None and not a.select.get("file_result"):
        problems.append("File select constraint body promised no result (check body "
                        "definition)")
    if (a.copy is not None or a.link is not None) and a.transformer:
        problems.append(f"File object(s) '{fr.run.promiser}' cannot both be a copy of source "
                        "and transformed simultaneously")
    if a.depth is not None and a.changes is not None and a.changes.report_diffs:
        problems.append("Difference reporting is not allowed during a depth_search")
    if a.haveedit and a.file_type == "fifo":
        problems.append("Editing is not allowed on fifos")
    if problems:
        fr.log("error", problems[0])
        fr.promise_ref()
        return False
    if a.copy is not None and a.depth is not None and a.delete is not None:
        fr.log("warning", f"depth_search of '{fr.run.promiser}' applies to both delete and copy, "
                          "but these refer to different searches (source/destination)")
        fr.promise_ref("info")
    return True


# --- one file ---------------------------------------------------------------------------

def _creates_by_default(a: FileAttrs) -> bool:
    """Templates create their file before phase 1 (``content`` does in phase 3)."""
    if a.create_given:
        return False
    if a.edit_template is not None or a.edit_template_string is not None:
        return a.template_method in ("cfengine", "mustache", "inline_mustache")
    return False


_PER_FILE = ("edit_template", "edit_template_string")


def run_for_path(run: PromiseRun, path: str) -> PromiseRun:
    """``run`` with the attributes cf-agent expands again for each file it handles
    (GetExpandedAttributes: the classes and action bodies, the templates) expanded with
    ``$(this.promiser)`` = ``path``."""
    if path == run.promiser:
        return run
    changed: dict[str, Any] = {}
    for lval in ("classes", "action"):
        if lval in run.attributes and run.promise.get(lval) is not None:
            body = bridge.resolve_body_for(run.agent, run, lval, path)
            if body is not None and body != run.attributes.get(lval):
                changed[lval] = body
    for lval in _PER_FILE:
        c = run.promise.get(lval)
        if c is not None and isinstance(c.rval, ast.Scalar) and "this.promiser" in c.rval.value:
            changed[lval] = bridge.expand(run.agent, c.rval.value, {"this.promiser": path})
    if not changed:
        return run
    attributes = dict(run.attributes)
    attributes.update(changed)
    return PromiseRun(run.promise, run.promise_type, run.promiser, attributes, run.namespace,
                      run.bundle, run.agent, run.promisee)


def verify_file_leaf(fr: FileRun, path: str, st: os.stat_result, rotated: set[str]) -> None:
    """VerifyFileLeaf: the per-file operations of phase 1 (cf-agent reads the promise's
    attributes again for each leaf, and says again what reading them says)."""
    _attribute_notes(fr)
    saved_run, saved_a = fr.run, fr.a
    leaf_run = run_for_path(fr.run, path)
    if leaf_run is not fr.run:
        fr.run = leaf_run
        fr.a = fr.a._replace(edit_template=scalar(leaf_run.attributes.get("edit_template"))
                             or None)
    try:
        _verify_file_leaf(fr, path, st, rotated)
    finally:
        fr.run, fr.a = saved_run, saved_a


def _verify_file_leaf(fr: FileRun, path: str, st: os.stat_result, rotated: set[str]) -> None:
    a = fr.a
    if fr.verbose:
        fr.log("verbose", f"Handling file existence constraints on '{path}'")
    if a.transformer:
        from cfpromise.promises.files import transformer
        transformer.transform_file(fr, path)
        fr.forget()
    else:
        if a.rename is not None:
            from cfpromise.promises.files import rename
            rename.verify_name(fr, path, st, rotated)
        if a.delete is not None:
            current = fr.lstat(path)
            if current is not None:
                from cfpromise.promises.files import delete
                delete.verify_delete(fr, path, current)
        if a.touch:
            if fr.warn_only:
                fr.should(f"Should touch (update time stamps) for '{path}'")
            else:
                try:
                    os.utime(path)
                except OSError as exc:
                    fr.fail(f"Touch '{path}' failed to update timestamps. (utime: "
                            f"{exc.strerror})")
                else:
                    fr.change(f"Touched (updated time stamps) for path '{path}'")
    if a.perms is not None or a.changes is not None or _has_aces(a):
        # (a file deleted just now is checked as it was, as cf-agent does: its chmod fails)
        current = fr.lstat(path) or st
        if stat.S_ISDIR(current.st_mode) and a.depth is not None and a.depth.depth \
                and not a.depth.include_basedir and path == fr.run.promiser.rstrip("/"):
            fr.log("verbose", f"Promise to skip base directory '{path}'")
            return
        perms.verify_file_attributes(fr, path, current)


def _has_aces(a: FileAttrs) -> bool:
    """cf-agent checks an acl body only when it has ``aces``."""
    return a.acl is not None and bool(a.acl.get("aces"))


def _select(fr: FileRun) -> Any:
    if fr.a.select is None:
        return lambda path, st: True
    return lambda path, st: select.select_leaf(fr, path, st)


def _phase1(fr: FileRun, path: str, st: os.stat_result, rotated: set[str],
            start: int) -> None:
    """DepthSearch from VerifyFilePromise (phase 1); ``start``: where this path's results
    begin in ``fr.results``."""
    a = fr.a
    if a.depth is None:
        if a.select is None or select.select_leaf(fr, path, st):
            verify_file_leaf(fr, path, st, rotated)
        return
    if stat.S_ISDIR(st.st_mode):
        # with ``changes``, each directory searched is compared with its recorded listing
        known: dict[str, list[str]] = {}
        seen: dict[str, list[str]] = {}
        watch = a.changes is not None
        if watch:
            from cfpromise.promises.files import changes

        def enter(directory: str) -> None:
            known[directory] = changes.directory_list(fr, directory)
            seen[directory] = []

        def note(leaf_path: str) -> None:
            directory, name = os.path.split(leaf_path)
            if directory in seen:
                seen[directory].append(name)
                if name not in known[directory]:
                    changes.log_new_file(fr, leaf_path)

        def leave(directory: str) -> None:
            changes.check_directory(fr, directory, seen[directory], known[directory])

        depth.depth_search(fr, path.rstrip("/") or "/", 0, st.st_dev,
                           lambda p, s: _depth_leaf(fr, p, s, rotated), _select(fr),
                           note if watch else None, enter if watch else None,
                           leave if watch else None)
        paths.change_dir(path)       # cf-agent's search ends inside the directory searched
    if a.depth.include_basedir:
        paths.change_dir(os.path.dirname(path.rstrip("/")) or "/")    # the base node: its parent
        current = fr.lstat(path) or st
        if a.select is None or select.select_leaf(fr, path, current):
            saved = fr.a
            fr.a = _without_depth(a)
            try:
                verify_file_leaf(fr, path, current, rotated)
            finally:
                fr.a = saved
    elif merge(fr.results[start:]) in (Outcome.KEPT, Outcome.SKIPPED):
        # (only said: the promise is kept in the end anyway, and when something was done
        # before -- the directory created -- it is not kept)
        fr.log("verbose", f"Basedir '{path}' not promising anything")


def _depth_leaf(fr: FileRun, path: str, st: os.stat_result, rotated: set[str]) -> None:
    before = len(fr.results)
    verify_file_leaf(fr, path, st, rotated)
    if fr.sim is not None:                     # --simulate: what the search changed
        if fr.a.rename is None:
            fr.sim.record_kept(path)
        if Outcome.REPAIRED in fr.results[before:]:
            fr.sim.record_changed(path)


def _without_depth(a: FileAttrs) -> FileAttrs:
    return a._replace(depth=None)


def verify_file_promise(fr: FileRun, path: str) -> None:
    """VerifyFilePromise for one path."""
    if fr.sim is not None and not fr.sim.inside(path):
        _simulated(fr, path)
        return
    saved_run, saved_a = fr.run, fr.a
    path_run = run_for_path(fr.run, path)
    if path_run is not fr.run:
        fr.run = path_run
        fr.a = read_attributes(path_run)
    try:
        _verify_file_promise(fr, path)
    finally:
        fr.run, fr.a = saved_run, saved_a


def _simulated(fr: FileRun, path: str) -> None:
    """--simulate: the promise for ``path`` handled on the chroot's copy, and recorded as
    changed (repaired) or evaluated (kept) for the report at the end of the run."""
    from cfpromise.promises.files import chrooted
    sim = fr.sim
    sim.prepare(path)
    saved_run, saved_a = fr.run, fr.a
    fr.run = chrooted.translated_run(fr.run, sim, path)
    fr.a = read_attributes(fr.run)
    before = len(fr.results)
    try:
        verify_file_promise(fr, sim.to_chroot(path))
    finally:
        fr.run, fr.a = saved_run, saved_a
    final = chrooted.final_path(path, fr.a.depth is not None)
    outcome = merge(fr.results[before:])
    if outcome is Outcome.REPAIRED:
        if fr.a.rename is None:
            sim.record_changed(final)
    elif outcome in (Outcome.KEPT, Outcome.SKIPPED):
        sim.record_kept(final)


def _verify_file_promise(fr: FileRun, path: str) -> None:
    a = fr.a
    fr.path = path
    start = len(fr.results)
    rotated = bridge.run_state(fr.agent, "rotated").setdefault("set", set())
    if a.has_template_data and a.template_method in ("mustache", "inline_mustache") \
            and not isinstance(a.template_data, (dict, list)):
        fr.fail(f"No template data for the promise '{fr.run.promiser}'")
        return
    want_create = a.create or a.touch
    implied = False
    lst = fr.lstat(path)
    if not want_create and _creates_by_default(a):
        from cfpromise.promises.files import editing
        problem = editing.validate_template(fr)
        if problem is None:
            implied = True
            # a missing file is made by the rendering, in phase 3 (cf-agent's
            # RenderTemplateCFEngine/RenderTemplateMustache), after the change of directory
            want_create = lst is not None
        elif lst is None and a.template_method != "cfengine" or \
                lst is None and fr.stat(a.edit_template or "") is None:
            # a template that cannot be read or rendered, for a file that does not exist:
            # the promise fails (cf-agent reads the template before it creates the file)
            fr.fail(problem)
            return
    exists = False
    link = False
    if lst is None:
        if want_create:
            from cfpromise.promises.files import create
            if not create.create_file(fr, path):
                return
    else:
        # (cf-agent says nothing of an existing file that a template only implies it
        # should create)
        if want_create and not implied:
            fr.kept(f"File '{path}' exists as promised")
        exists = True
        link = True
    if a.delete is not None and not exists:
        fr.kept(f"File '{path}' does not exist as promised")
        return
    if a.depth is None:
        paths.check_base_directory(fr, path)
    if a.depth is None and os.path.basename(path) == ".":
        # cf-agent chops the promiser itself: what follows in this pass names the directory
        paths.rename_promiser(fr, path, os.path.dirname(path))
        path = os.path.dirname(path)
    if exists and lst is not None and a.select is not None \
            and not select.select_leaf(fr, path, lst) \
            and not (a.depth is not None and stat.S_ISDIR(lst.st_mode)):
        return
    st = fr.stat(path)
    if st is None:
        exists = False
    else:
        if not stat.S_ISDIR(st.st_mode) and a.depth is not None:
            fr.log("debug", f"depth_search (recursion) is promised for a base object '{path}' "
                            "that is not a directory")
            return
        exists = True
    if a.link is not None and a.link.link_children and a.link.source:
        sst = fr.stat(a.link.source)
        if sst is not None and not stat.S_ISDIR(sst.st_mode):
            fr.log("error", f"Cannot promise to link the children of '{a.link.source}' as it "
                            "is not a directory!")
            return
    # Phase 1
    if (exists and (a.rename is not None or a.perms is not None or a.changes is not None
                    or a.transformer or _has_aces(a))) \
            or ((exists or link) and a.delete is not None):
        current = fr.lstat(path)
        if current is not None:
            _phase1(fr, path, current, rotated, start)
    # Phase 2
    if a.copy is not None:
        from cfpromise.promises.files import copy
        whole = path == fr.run.promiser
        copy.schedule_copy(fr, path)
        path = fr.run.promiser if whole else path     # (a recursive copy chops its slash)
        fr.forget()
    if a.link is not None and a.link.source:
        from cfpromise.promises.files import linkfrom
        if a.link.link_children:
            linkfrom.schedule_link_children(fr, path, a.link.source, 1)
        else:
            linkfrom.schedule_link(fr, path, a.link.source)
        fr.forget()
    # Phase 3
    if a.content is not None:
        if a.haveedit:
            fr.fail("A file promise with content attribute cannot have edit operations")
            return
        made = False
        if not exists and not (a.create_given and not a.create):
            # (content creates its file by default here, after the change of directory)
            from cfpromise.promises.files import create
            made = create.create_file(fr, path)
            fr.forget()
            if not made:
                return
        fr.log("verbose", f"Replacing '{path}' with content '{a.content}'")
        if fr.stat(path) is not None:
            from cfpromise.promises.files import editing
            editing.write_content(fr, path)
        if not made:
            return          # (a file made here gets its perms below, as after a copy)
    if a.haveedit:
        if fr.stat(path) is not None or a.edit_line is not None or a.edit_xml is not None \
                or implied:
            from cfpromise.promises.files import editing
            # (a saved edit is a change: stats forgotten)
            editing.schedule_edit(fr, path, create=implied and not exists)
        else:
            fr.log("verbose", f"Not rendering template into '{path}': the file does not exist")
    # Once more in case a file has been created as a result of editing or copying
    st = fr.stat(path)
    if st is not None and stat.S_ISREG(st.st_mode) and \
            (a.select is None or select.select_leaf(fr, path, st)):
        verify_file_leaf(fr, path, st, rotated)
    if st is None and a.changes is not None:
        fr.fail(f"Promised to monitor '{path}' for changes, but file does not exist")


@handler("files")
def verify_files(run: PromiseRun) -> Outcome:
    """The files promise: every file the promiser stands for, then the closing message."""
    a = read_attributes(run)
    fr = FileRun(run, a)
    if not sanity_checks(fr, run.promiser):
        return Outcome.KEPT
    try:
        if not _verify_promiser(fr, run, a):
            # a regex promiser that matches nothing: no file was promised anything, so no
            # outcome at all (no classes), as in cf-agent
            return Outcome.SKIPPED
    except OSError as exc:
        # a file system error no check above foresaw: the promise fails, the run goes on
        fr.fail(f"{run.where()}: {exc.strerror or exc} "
                f"({exc.filename or run.promiser})")
    if a.no_action:
        run.agent.log("warning", f"No action was requested for file '{run.promiser}'. Maybe a "
                                 "typo in the policy?")
    fr.summary()
    outcome = fr.outcome
    return Outcome.KEPT if outcome is Outcome.SKIPPED else outcome


@before_lock("files")
def _before_the_lock(run: PromiseRun) -> None:
    """VerifyFilePromise reads the attributes before its lock, so in every pass."""
    if run.attributes.get("perms"):
        _attribute_notes(FileRun(run, read_attributes(run)))


def _attribute_notes(fr: FileRun) -> None:
    """What cf-agent's GetFilesAttributes says each time it reads a promise's attributes
    (GetPermsConstraints: the owners and groups, then rxdirs)."""
    perms.log_unknown_ids(fr)
    perms.rxdirs_warning(fr)


def _verify_promiser(fr: FileRun, run: PromiseRun, a: FileAttrs) -> bool:
    """Every file the promiser stands for (FindFilePromiserObjects); False when it stands
    for none."""
    literal = a.copy is not None or a.pathtype == "literal" or not is_path_regex(run.promiser)
    if literal:
        verify_file_promise(fr, run.promiser)
    else:
        found: list[tuple[str, list[str]]] = []
        locate_promiser_group(fr, run.promiser, found, a.create)
        if not found:
            return False
        original, original_run = fr.a, fr.run
        for path, groups in found:
            if groups:
                for i, g in enumerate(groups):
                    run.agent.set_variable("default", "match", str(i), "string", g)
                deref = PromiseRun(run.promise, run.promise_type, run.promiser,
                                   _deref(run.attributes, groups), run.namespace, run.bundle,
                                   run.agent, run.promisee)
                fr.run, fr.a = deref, read_attributes(deref)
            try:
                verify_file_promise(fr, path)
            finally:
                fr.run, fr.a = original_run, original
                # (the promise's own: cf-agent's match scope holds them for it only)
                for i in range(len(groups)):
                    run.agent.unset_variable("default", "match", str(i))
    return True
