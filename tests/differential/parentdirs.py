"""Missing parent directories of a files promise (MakeParentDirectory): cases.

Before it creates a file, a directory, a fifo or a copy, cf-agent 3.21 makes the
directories above it: the immediate parent first (something that is not a directory
there fails the promise, or is moved to ``NAME.cf-moved`` under
``move_obstructions``), then each ancestor from the root down (one that is not a
directory fails it, with another message).  The cases vary what stands in the way (a
file, a link to a file, a dangling link, a link to a directory, a file higher up, an
old ``.cf-moved`` backup, nothing), what the promise makes, ``move_obstructions`` and
warn-only; each works under ``$(sys.workdir)/t`` (each agent its own work directory),
its obstruction made by a first bundle, and the run ends by reporting what each path
has become."""
from __future__ import annotations

from itertools import product

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []

# what stands in the way -> (setup promises, the promise's target under t/)
_OBSTACLES = {
    "file": ('"$(t)/p" create => "true";', "p/x"),
    "link_to_file": ('"$(t)/f" create => "true"; "$(t)/p" link_from => ln("$(t)/f");', "p/x"),
    "dangling": ('"$(t)/p" link_from => ln("$(t)/nowhere");', "p/x"),
    "link_to_dir": ('"$(t)/d/." create => "true"; "$(t)/p" link_from => ln("$(t)/d");',
                    "p/x"),
    "file_higher": ('"$(t)/p" create => "true";', "p/q/x"),
    "old_backup": ('"$(t)/p" create => "true"; "$(t)/p.cf-moved" create => "true";', "p/x"),
    "nothing": ("", "a/b/c/x"),
}
_KINDS = {
    "file": 'create => "true"',
    "dir": 'create => "true"',            # the target ends in /.
    "fifo": 'create => "true", file_type => "fifo"',
    "copy": 'copy_from => cp("$(t)/src")',
}
_PATHS = ("p", "p.cf-moved", "p/x", "p/q", "p/q/x", "d", "a/b/c", "a/b/c/x", "p/x/.")

_TEMPLATE = """
body common control {{ bundlesequence => {{ "setup", "main", "look" }}; }}
bundle common g {{ vars: "t" string => "$(sys.workdir)/t"; }}
bundle agent setup {{
vars: "t" string => "$(g.t)";
files: "$(t)/." create => "true"; "$(t)/src" create => "true";
{setup}
}}
bundle agent main {{
vars: "t" string => "$(g.t)";
files: "{target}" {attrs}{extra};
}}
bundle agent look {{
vars: "t" string => "$(g.t)";
  "paths" slist => {{ {paths} }};
classes:
  "dir_$(paths)" expression => isdir("$(t)/$(paths)");
  "plain_$(paths)" expression => isplain("$(t)/$(paths)");
  "link_$(paths)" expression => islink("$(t)/$(paths)");
reports:
  "$(paths): dir" if => canonify("dir_$(paths)");
  "$(paths): plain" if => canonify("plain_$(paths)");
  "$(paths): link" if => canonify("link_$(paths)");
}}
body link ln(to) {{ source => "$(to)"; link_type => "symlink"; }}
body copy_from cp(from) {{ source => "$(from)"; }}
body action warn {{ action_policy => "warn"; }}
"""


def case(name: str, text: str) -> None:
    CASES.append((f"parentdirs_{name}", {"promises.cf": text}, ()))


for (oname, (setup, target)), (kname, attrs), force, warn in product(
        _OBSTACLES.items(), _KINDS.items(), (False, True), (False, True)):
    extra = (', move_obstructions => "true"' if force else "") + \
        (", action => warn" if warn else "")
    path = f"$(t)/{target}" + ("/." if kname == "dir" else "")
    case(f"{oname}_{kname}{'_force' if force else ''}{'_warn' if warn else ''}",
         _TEMPLATE.format(setup=setup, target=path, attrs=attrs, extra=extra,
                          paths=", ".join(f'"{p}"' for p in _PATHS)))
case("relative", _TEMPLATE.format(setup="", target="relative/x", attrs='create => "true"',
                                  extra="", paths='"p"'))

NAMES = [name for name, _, _ in CASES]
