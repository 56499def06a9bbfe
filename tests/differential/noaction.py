"""Files promises with no action (issue #26): cases.

cf-agent 3.21 ends a files promise that asks for nothing it acts on with "No action was
requested for file 'F'. Maybe a typo in the policy?" (a warning).  Which attributes
count as an action decides it: the cases give a files promise each single attribute or
body a files promise can have (alone, and in pairs with one that is no action), on a
file that exists and one that does not, and compare the whole run.  The trees live under
each agent's own ``$(sys.workdir)``, so the two runs never see each other's files.
"""
from __future__ import annotations

from itertools import combinations

# attribute -> its text (and the body it needs, if any)
ATTRS = {
    "acl": ('acl => a', 'body acl a { acl_method => "append"; aces => { "user:root:r" }; }'),
    "acl_empty": ('acl => ae', 'body acl ae { acl_method => "append"; }'),
    "acl_no_aces": ('acl => an', 'body acl an { acl_method => "append"; aces => { }; }'),
    "acl_default_only": ('acl => ad', 'body acl ad { acl_method => "append"; '
                         'acl_default => "specify"; specify_default_aces => { "user:root:r" }; }'),
    "acl_var_aces": ('acl => av("r")', 'body acl av(m) { acl_method => "append"; '
                     'aces => { "user:root:$(m)" }; }'),
    "perms": ('perms => p', 'body perms p { mode => "600"; }'),
    "changes": ('changes => c', 'body changes c { hash => "md5"; report_changes => "none"; }'),
    "file_select": ('file_select => fs', 'body file_select fs { leaf_name => { ".*" }; '
                    'file_result => "leaf_name"; }'),
    "depth_search": ('depth_search => ds', 'body depth_search ds { depth => "1"; }'),
    "transformer": ('transformer => "/bin/true"', ''),
    "touch": ('touch => "true"', ''),
    "create": ('create => "true"', ''),
    "create_false": ('create => "false"', ''),
    "delete": ('delete => dl', 'body delete dl { dirlinks => "keep"; }'),
    "rename": ('rename => rn', 'body rename rn { disable => "false"; }'),
    "link_from": ('link_from => lk', 'body link_from lk { source => "/etc/hostname"; '
                  'link_type => "symlink"; }'),
    "copy_from": ('copy_from => cp', 'body copy_from cp { source => "/etc/hostname"; }'),
    "edit_line": ('edit_line => el', 'bundle edit_line el { insert_lines: "x"; }'),
    "content": ('content => "x"', ''),
    "edit_defaults": ('edit_defaults => ed', 'body edit_defaults ed { edit_backup => "false"; }'),
    "action": ('action => ac', 'body action ac { ifelapsed => "0"; }'),
    "classes": ('classes => cl', 'body classes cl { promise_kept => { "k" }; }'),
    "move_obstructions": ('move_obstructions => "true"', ''),
    "pathtype": ('pathtype => "literal"', ''),
    "comment": ('comment => "c"', ''),
    "template_method": ('template_method => "mustache"', ''),
    "nothing": ("", ""),
}
# attributes that are no action themselves, paired with each of the others
_NEUTRAL = ("comment", "classes", "pathtype")
_TARGETS = {"exists": "$(sys.workdir)/t/ex", "missing": "$(sys.workdir)/t/missing",
            "dir": "$(sys.workdir)/t/"}
_SETUP = ('bundle agent setup { files: "$(sys.workdir)/t/ex" create => "true"; '
          '"$(sys.workdir)/t/d/." create => "true"; }\n')
_SEQ = 'body common control { bundlesequence => { "setup", "main" }; }\n'


# the promise's outcome, reported (where the case has no classes body of its own)
_OUTCOME = ('body classes o { promise_kept => { "o_kept" }; promise_repaired => '
            '{ "o_repaired" }; repair_failed => { "o_failed" }; repair_denied => { "o_denied" }; '
            'repair_timeout => { "o_timeout" }; }\n')
_REPORTS = ('  reports:\n    o_kept:: "kept";\n    o_repaired:: "repaired";\n'
            '    o_failed:: "failed";\n    o_denied:: "denied";\n    o_timeout:: "timeout";\n')


def _policy(names: tuple[str, ...], target: str) -> str:
    lines = [ATTRS[n][0] for n in names if ATTRS[n][0]]
    bodies = "".join(ATTRS[n][1] + "\n" for n in names if ATTRS[n][1])
    if "classes" not in names:
        lines.append("classes => o")
        bodies += _OUTCOME
    return (_SEQ + _SETUP + f'bundle agent main\n{{\n  files:\n    "{target}"\n      '
            + ",\n      ".join(lines) + ";\n" + _REPORTS + "}\n" + bodies)


CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []
for where, target in _TARGETS.items():
    for name in ATTRS:
        CASES.append((f"{name}_{where}", {"promises.cf": _policy((name,), target)}, ()))
    for neutral in _NEUTRAL:
        for name in ATTRS:
            if name != neutral and name != "nothing":
                CASES.append((f"{neutral}_{name}_{where}",
                              {"promises.cf": _policy((neutral, name), target)}, ()))
for a, b in combinations(("acl", "acl_empty", "file_select", "depth_search", "changes"), 2):
    CASES.append((f"{a}_{b}_exists", {"promises.cf": _policy((a, b), _TARGETS["exists"])}, ()))
NAMES = [name for name, _, _ in CASES]
