"""A files promise's attributes read into typed records, with cf-agent's defaults.

The engine hands the handler plain values: scalars as ``str``, lists as
``list[str]``, bodies as ``dict``, ``edit_line`` as a BundleCall.  This module
reads them once per promise into small frozen records (GetFilesAttributes in
cf-agent) so that the rest of the package works with booleans, integers and
modes, never with strings.  The ``have*`` flags of cf-agent become "is the
record present".

The records are ``@record`` classes (:mod:`cfpromise.fast.records`: namedtuples), not
attrs classes: masterfiles' dry run loads the files, commands, processes and
package modules, and importing attrs (which loads inspect, ast, dis, tokenize)
and generating their 21 attrs classes was about a tenth of that run's
instructions.  A changed copy is ``a._replace(...)`` (was ``attrs.evolve``).
"""
from __future__ import annotations

import grp
import pwd

from cfpromise.promises.api import BundleCall, PromiseRun
from cfpromise.promises.files import bridge
from cfpromise.fast.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_TRUE = frozenset({"true", "yes", "on"})

CF_INFINITY = 999999999
DEFAULT_EDIT_FILE_SIZE = 100000


def boolean(value: Any, default: bool = False) -> bool:
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in _TRUE


def as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value if v is not None]
    return [str(value)]


def integer(value: Any, default: int | None = None) -> int | None:
    if value is None or value == "":
        return default
    text = str(value).strip()
    if text in ("inf", "infinity"):
        return CF_INFINITY
    try:
        return int(text)
    except ValueError:
        try:
            return int(float(text))
        except ValueError:
            return default


def scalar(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, list):
        return str(value[0]) if value else None
    return str(value)


# --- perms ---------------------------------------------------------------------------

SAME = -1            # CF_SAME_OWNER / CF_SAME_GROUP: any owner is fine
UNKNOWN = -2         # CF_UNKNOWN_OWNER / CF_UNKNOWN_GROUP: the named user does not exist


@record
class Perms:
    plus: int | None = None           # None: no mode promised (CF_SAMEMODE)
    minus: int | None = None
    mode_text: str | None = None
    owners: tuple[int, ...] = (SAME,)
    owner_names: tuple[str, ...] = ()
    groups: tuple[int, ...] = (SAME,)
    group_names: tuple[str, ...] = ()
    rxdirs: bool = False
    rxdirs_given: bool = False
    bsd_plus: int = 0
    bsd_minus: int = 0

    @property
    def has_mode(self) -> bool:
        return self.plus is not None and self.minus is not None


def _ids(names: list[str], lookup: Any) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Numeric ids for user or group names (``lookup`` gives the id of a name, KeyError
    when unknown): a number stays a number, an unknown name is UNKNOWN, none is SAME."""
    if not names:
        return (SAME,), ()
    out: list[int] = []
    for name in names:
        if name.lstrip("-").isdigit():
            out.append(int(name))
            continue
        try:
            out.append(lookup(name))
        except KeyError:
            out.append(UNKNOWN)
    return tuple(out), tuple(names)


def _uids(names: list[str]) -> tuple[tuple[int, ...], tuple[str, ...]]:
    return _ids(names, lambda name: pwd.getpwnam(name).pw_uid)


def _gids(names: list[str]) -> tuple[tuple[int, ...], tuple[str, ...]]:
    return _ids(names, lambda name: grp.getgrnam(name).gr_gid)


def read_perms(run: PromiseRun, body: dict[str, Any]) -> Perms:
    from cfpromise.promises.files.modes import parse_bsdflags, parse_mode
    log = run.agent.log
    mode = scalar(body.get("mode"))
    plus: int | None
    minus: int | None
    if mode is None:
        plus, minus = 0, 0
    else:
        parsed = parse_mode(mode, log)
        if parsed is None:
            log("error", "Problem validating a mode string")
            log("error", run.belongs_to())
            plus, minus = None, None
        else:
            plus, minus = parsed
    owners, owner_names = _uids(as_list(body.get("owners")))
    groups, group_names = _gids(as_list(body.get("groups")))
    bsd_plus, bsd_minus = parse_bsdflags(as_list(body.get("bsdflags")))
    return Perms(plus=plus, minus=minus, mode_text=mode, owners=owners, owner_names=owner_names,
                 groups=groups, group_names=group_names,
                 rxdirs=boolean(body.get("rxdirs"), False),
                 rxdirs_given=body.get("rxdirs") not in (None, ""),
                 bsd_plus=bsd_plus, bsd_minus=bsd_minus)


# --- other bodies ----------------------------------------------------------------------

@record
class Delete:
    dirlinks_delete: bool = True
    rmdirs: bool = False


@record
class Rename:
    disable: bool = False
    disable_suffix: str | None = None
    disable_plus: int | None = None
    disable_minus: int | None = None
    newname: str | None = None
    rotate: int | None = None


@record
class Link:
    source: str | None = None
    link_type: str = "symlink"
    copy_patterns: tuple[str, ...] = ()
    when_no_source: str = "nop"
    link_children: bool = False
    when_linking_children: str = "if_no_such_file"


@record
class Copy:
    source: str | None = None
    servers: tuple[str, ...] = ()
    compare: str = "default"
    backup: str = "true"             # true | false | timestamp
    min_size: int | None = None
    max_size: int | None = None
    copy_links: tuple[str, ...] = ()     # copylink_patterns
    link_instead: tuple[str, ...] = ()   # linkcopy_patterns
    link_type: str = "symlink"
    preserve: bool = False
    purge: bool = False
    type_check: bool = False
    force_update: bool = False
    verify: bool = False
    stealth: bool = False
    check_root: bool = False
    missing_ok: bool = False
    collapse: bool = False
    port: str = "5308"                   # portnumber
    trustkey: bool = False
    encrypt: bool = False                # no-op over TLS (the channel is encrypted)
    protocol_version: str | None = None
    timeout: float | None = None
    force_ipv4: bool = False


@record
class Depth:
    depth: int = 0
    include_dirs: tuple[str, ...] = ()
    exclude_dirs: tuple[str, ...] = ()
    include_basedir: bool = False
    rmdeadlinks: bool = False
    travlinks: bool = False
    xdev: bool = False


@record
class Changes:
    hash: str = "best"
    report_changes: str = "none"
    update: bool = False
    report_diffs: bool = False


@record
class EditDefaults:
    empty_before_use: bool = False
    backup: str = "true"              # true | false | timestamp | rotate
    rotate: int = 0
    max_file_size: int = DEFAULT_EDIT_FILE_SIZE
    joinlines: bool = False
    inherit: bool = False


_DEFAULT_EDITS = EditDefaults()


@record
class FileAttrs:
    create: bool = False
    create_given: bool = False
    touch: bool = False
    move_obstructions: bool = False
    pathtype: str | None = None
    file_type: str = "regular"
    transformer: str | None = None
    content: str | None = None
    action_warn: bool = False
    perms: Perms | None = None
    delete: Delete | None = None
    rename: Rename | None = None
    link: Link | None = None
    copy: Copy | None = None
    depth: Depth | None = None
    select: dict[str, Any] | None = None
    changes: Changes | None = None
    edit_line: BundleCall | None = None
    edit_xml: BundleCall | None = None
    edit_template: str | None = None
    edit_template_string: str | None = None
    template_method: str = "cfengine"
    template_data: Any = None
    has_template_data: bool = False
    edits: EditDefaults = EditDefaults()
    repository: str | None = None
    acl: dict[str, Any] | None = None

    @property
    def haveedit(self) -> bool:
        # an empty template string is still a template (cf-agent tests for NULL)
        return bool(self.edit_line or self.edit_xml or self.edit_template is not None
                    or self.edit_template_string is not None)

    @property
    def no_action(self) -> bool:
        """AttrHasNoAction: an acl body is an action only with aces (cf-agent looks at its
        entries alone: no aces, or only default aces, is no action)."""
        return not (self.transformer or self.rename or self.delete or self.copy or self.create
                    or self.touch or self.link or self.perms or self.changes
                    or (self.acl and self.acl.get("aces"))
                    or self.haveedit or self.content is not None)


def _bundle_call(value: Any) -> BundleCall | None:
    if isinstance(value, BundleCall):
        return value
    if isinstance(value, str) and value:
        return BundleCall(value, ())
    return None


def _edit_defaults(control: dict[str, Any], body: dict[str, Any]) -> EditDefaults:
    if not body and "editfilesize" not in control:
        return _DEFAULT_EDITS
    default_size = integer(control.get("editfilesize"), DEFAULT_EDIT_FILE_SIZE) or \
        DEFAULT_EDIT_FILE_SIZE
    size = integer(body.get("max_file_size"), 0) or default_size
    backup = str(body.get("edit_backup", "true")).strip().lower()
    if backup in ("yes", "on"):
        backup = "true"
    elif backup in ("no", "off"):
        backup = "false"
    return EditDefaults(
        empty_before_use=boolean(body.get("empty_file_before_editing"), False),
        backup=backup, rotate=integer(body.get("rotate"), 0) or 0, max_file_size=size,
        joinlines=boolean(body.get("recognize_join"), False),
        inherit=boolean(body.get("inherit"), False))


def _copy(body: dict[str, Any]) -> Copy:
    min_size = max_size = None
    size = body.get("copy_size")
    if size not in (None, ""):
        text = ",".join(size) if isinstance(size, list) else str(size)
        parts = [p.strip() for p in text.split(",")]
        if len(parts) == 2:
            min_size, max_size = integer(parts[0], 0), integer(parts[1], CF_INFINITY)
    backup = str(body.get("copy_backup", "true")).strip().lower()
    if backup in ("yes", "on"):
        backup = "true"
    elif backup in ("no", "off"):
        backup = "false"
    return Copy(
        source=scalar(body.get("source")), servers=tuple(as_list(body.get("servers"))),
        compare=str(body.get("compare") or "default"), backup=backup,
        min_size=min_size, max_size=max_size,
        copy_links=tuple(as_list(body.get("copylink_patterns"))),
        link_instead=tuple(as_list(body.get("linkcopy_patterns"))),
        link_type=str(body.get("link_type") or "symlink"),
        preserve=boolean(body.get("preserve"), False), purge=boolean(body.get("purge"), False),
        type_check=boolean(body.get("type_check"), False),
        force_update=boolean(body.get("force_update"), False),
        verify=boolean(body.get("verify"), False), stealth=boolean(body.get("stealth"), False),
        check_root=boolean(body.get("check_root"), False),
        missing_ok=boolean(body.get("missing_ok"), False),
        collapse=boolean(body.get("collapse_destination_dir"), False),
        port=str(scalar(body.get("portnumber")) or "5308"),
        trustkey=boolean(body.get("trustkey"), False),
        encrypt=boolean(body.get("encrypt"), False),
        protocol_version=scalar(body.get("protocol_version")),
        timeout=float(integer(body.get("timeout"), 0) or 0) or None,
        force_ipv4=boolean(body.get("force_ipv4"), False))


def read_attributes(run: PromiseRun) -> FileAttrs:
    """GetFilesAttributes."""
    a = run.attributes
    get = a.get
    action = run.body("action")
    control = bridge.agent_control(run.agent)
    rename = None
    if "rename" in a:
        body = run.body("rename")
        from cfpromise.promises.files.modes import parse_mode
        dplus = dminus = None
        if body.get("disable_mode") not in (None, ""):
            parsed = parse_mode(str(body.get("disable_mode")), run.agent.log)
            if parsed is not None:
                dplus, dminus = parsed
        rename = Rename(disable=boolean(body.get("disable"), False),
                        disable_suffix=scalar(body.get("disable_suffix")),
                        disable_plus=dplus, disable_minus=dminus,
                        newname=scalar(body.get("newname")),
                        rotate=integer(body.get("rotate"), None))
    link = None
    if "link_from" in a:
        body = run.body("link_from")
        link = Link(source=scalar(body.get("source")),
                    link_type=str(body.get("link_type") or "symlink"),
                    copy_patterns=tuple(as_list(body.get("copy_patterns"))),
                    when_no_source=str(body.get("when_no_source") or "nop"),
                    link_children=boolean(body.get("link_children"), False),
                    when_linking_children=str(body.get("when_linking_children")
                                              or "if_no_such_file"))
    depth = None
    if "depth_search" in a:
        body = run.body("depth_search")
        depth = Depth(depth=integer(body.get("depth"), 0) or 0,
                      include_dirs=tuple(as_list(body.get("include_dirs"))),
                      exclude_dirs=tuple(as_list(body.get("exclude_dirs"))),
                      include_basedir=boolean(body.get("include_basedir"), False),
                      rmdeadlinks=boolean(body.get("rmdeadlinks"), False),
                      travlinks=boolean(body.get("traverse_links"), False),
                      xdev=boolean(body.get("xdev"), False))
    changes = None
    if "changes" in a:
        body = run.body("changes")
        changes = Changes(hash=str(body.get("hash") or "best"),
                          report_changes=str(body.get("report_changes") or "none"),
                          update=boolean(body.get("update_hashes"),
                                         boolean(control.get("hashupdates"), False)),
                          report_diffs=boolean(body.get("report_diffs"), False))
    delete = None
    if "delete" in a:
        body = run.body("delete")
        delete = Delete(dirlinks_delete=str(body.get("dirlinks") or "delete") == "delete",
                        rmdirs=boolean(body.get("rmdirs"), False))
    content = get("content")
    return FileAttrs(
        create=boolean(get("create"), False),
        create_given=get("create") not in (None, ""),
        touch=boolean(get("touch"), False),
        move_obstructions=boolean(get("move_obstructions"), False),
        pathtype=scalar(get("pathtype")),
        file_type=str(get("file_type") or "regular"),
        transformer=scalar(get("transformer")) or None,
        content=None if content is None else scalar(content),
        action_warn=str(action.get("action_policy", "fix")) in ("warn", "nop"),
        perms=read_perms(run, run.body("perms")) if "perms" in a else None,
        delete=delete, rename=rename, link=link,
        copy=_copy(run.body("copy_from")) if "copy_from" in a else None,
        depth=depth,
        select=run.body("file_select") if "file_select" in a else None,
        changes=changes,
        edit_line=_bundle_call(get("edit_line")),
        edit_xml=_bundle_call(get("edit_xml")),
        edit_template=scalar(get("edit_template")) or None,
        edit_template_string=scalar(get("edit_template_string")),
        template_method=str(get("template_method") or "cfengine"),
        template_data=get("template_data"),
        has_template_data="template_data" in a,
        edits=_edit_defaults(control, run.body("edit_defaults")),
        repository=scalar(get("repository")) or scalar(control.get("default_repository")),
        acl=run.body("acl") if "acl" in a else None)
