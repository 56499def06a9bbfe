"""What a copy or an edit does around the file it replaces: cases.

cf-agent 3.21 replaces a file in stages, each with its own messages and outcome:

* a copy (CopyRegularFile) writes ``<dest>.cfnew``, removes an old ``<dest>.cfsaved``
  (a directory only emptied under depth_search, so a full one stays in the way), backs
  the destination up there, or -- with ``copy_backup => "false"`` -- removes a
  directory in the way, then renames ``.cfnew`` into place, restoring the backup when
  that fails (and leaving ``.cfnew`` behind);
* an edit or a rendered template (SaveAsFile) writes ``<file>.cf-after-edit``, backs the
  file up as ``<file>.cf-before-edit`` whatever ``edit_backup`` says (a hard link, else a
  copy, which fails on a directory and leaves ``.cf-after-edit`` behind); a template
  alone never reads the file first (a directory is rendered, and fails to save).

The promisers here do not end in "/" (that family is :mod:`slashpaths`, whose runner
these cases share): each stage is reached on a destination that is an old backup's
twin, a full or an empty directory, a dangling link or a regular file, in a normal
run, a dry run (``-n``) and warn-only.
"""
from __future__ import annotations

import os
from pathlib import Path

from tests.differential import slashpaths

_COPY = 'body copy_from cp(s) {{ source => "$(s)"; force_update => "true"; {extra} }}'
_DEPTH = "\nbody depth_search ds { depth => \"inf\"; }"

# name -> (promiser under $(t), attributes, bodies)
SHAPES = {
    "copy_old_backup_file": ("g", 'copy_from => cp("$(t)/src")', _COPY.format(extra="")),
    "copy_old_backup_dir": ("h", 'copy_from => cp("$(t)/src")', _COPY.format(extra="")),
    "copy_old_backup_dir_depth": ("h", 'copy_from => cp("$(t)/src"), depth_search => ds',
                                  _COPY.format(extra="") + _DEPTH),
    "copy_stamped_backup": ("g", 'copy_from => cp("$(t)/src")',
                            _COPY.format(extra='copy_backup => "timestamp";')),
    "copy_onto_full_dir": ("k", 'copy_from => cp("$(t)/src")', _COPY.format(extra="")),
    "copy_onto_full_dir_nobackup": ("k", 'copy_from => cp("$(t)/src")',
                                    _COPY.format(extra='copy_backup => "false";')),
    "copy_onto_full_dir_nobackup_depth": (
        "k", 'copy_from => cp("$(t)/src"), depth_search => ds',
        _COPY.format(extra='copy_backup => "false";') + _DEPTH),
    "copy_onto_empty_dir_nobackup": ("e", 'copy_from => cp("$(t)/src")',
                                     _COPY.format(extra='copy_backup => "false";')),
    "copy_onto_dangling": ("dl", 'copy_from => cp("$(t)/src")', _COPY.format(extra="")),
    "copy_onto_dangling_slash_nobackup": ("dl/", 'copy_from => cp("$(t)/src")',
                                          _COPY.format(extra='copy_backup => "false";')),
    "template_onto_dir": ("d", 'edit_template => "$(t)/tmpl"', ""),
    "mustache_onto_dir": ("d", 'edit_template => "$(t)/tmpl", template_method => "mustache"',
                          ""),
    "template_onto_dir_nobackup": ("d/", 'edit_template => "$(t)/tmpl", edit_defaults => nb',
                                   'body edit_defaults nb { edit_backup => "false"; }'),
    "template_and_edit_line_onto_dir": ("d/", 'edit_template => "$(t)/tmpl", edit_line => el',
                                        'bundle edit_line el { insert_lines: "y"; }'),
    "template_onto_file_nobackup": ("f", 'edit_template => "$(t)/tmpl", edit_defaults => nb',
                                    'body edit_defaults nb { edit_backup => "false"; }'),
}

# run only: under -n and warn cf-lite also shows a plain file's would-be diff (its own
# "Would change" lines), which test_templates_differential covers
RUN_ONLY = {"template_onto_file_nobackup"}

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []
for _shape, (_promiser, _attrs, _bodies) in SHAPES.items():
    for _mode, (_args, _extra) in slashpaths.MODES.items():
        if _shape in RUN_ONLY and _mode != "run":
            continue
        CASES.append((f"{_shape}_{_mode}",
                      {"promises.cf": slashpaths._TEMPLATE.format(
                          target=_promiser, attrs=_attrs, extra=_extra, bodies=_bodies)},
                      ("-I", *_args)))
NAMES = [name for name, _, _ in CASES]


def make_tree(t: Path) -> None:
    """:func:`slashpaths.make_tree`'s tree, and: a file with an old backup beside it
    (``g``), one whose old backup is a full directory (``h``), a full directory (``k``)
    and an empty one (``e``), all older than the copies' source."""
    slashpaths.make_tree(t)
    for name, text in (("g", "g\n"), ("g.cfsaved", "old backup\n"), ("h", "h\n")):
        (t / name).write_text(text)
        (t / name).chmod(0o644)
    for directory in ("h.cfsaved", "k", "k/sub", "e"):
        (t / directory).mkdir(mode=0o755)
    (t / "h.cfsaved" / "x").write_text("x\n")
    (t / "k" / "y").write_text("y\n")
    when = 1_500_000_000
    for top, dirs, files in os.walk(t):
        for name in dirs + files:
            path = os.path.join(top, name)
            if os.path.relpath(path, t).split("/")[0] in ("g", "g.cfsaved", "h", "h.cfsaved",
                                                           "k", "e"):
                os.utime(path, (when, when), follow_symlinks=False)
