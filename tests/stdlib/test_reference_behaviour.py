"""Our bundles do what CFEngine's do: both libraries run by the reference cf-agent.

The same policy (a list of cases: an initial file and a bundle applied to it)
is run by cf-agent 3.21 once with ``bundles/stdlib.cf`` and once with
masterfiles' ``lib/stdlib.cf``; the resulting trees must be identical, after a
first run and again after a second run (convergence).  This checks the
implementations of our edit_line and agent bundles, which
``test_masterfiles_differential`` compares only by their parameters.

Needs cf-agent and masterfiles (Debian package cfengine3); skipped otherwise.
"""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from tests.stdlib.library import MASTERFILES_LIB, STDLIB, cfengine_env, have_masterfiles

pytestmark = [
    pytest.mark.reference,
    pytest.mark.skipif(shutil.which("cf-agent") is None or not have_masterfiles(),
                       reason="CFEngine 3.21 with masterfiles not installed"),
]

# name -> (initial content or None for no file, the promise's attributes)
EDIT_CASES: dict[str, tuple[str | None, str]] = {
    "insert_lines": ("a\nb\n", 'edit_line => insert_lines(@(main.bc))'),
    "append_if_no_line": ("a\n", 'edit_line => append_if_no_line("z")'),
    "prepend_if_no_line": ("a\nb\n", 'edit_line => prepend_if_no_line("first")'),
    "insert_before": ("a\nanchor\nb\n",
                      'edit_line => insert_before_if_no_line("anchor", "before anchor")'),
    "comment_matching": ("foo=1\nbar=2\nfoo2\n", 'edit_line => comment_lines_matching("foo.*", "#")'),
    "uncomment_matching": ("# foo=1\n#foo2\nbar\n",
                           'edit_line => uncomment_lines_matching("foo.*", "#")'),
    "comment_containing": ("x bar y\n# bar\nbaz\n",
                           'edit_line => comment_lines_containing("bar", "#")'),
    "uncomment_containing": ("# x bar y\n#bar\nbaz\n",
                             'edit_line => uncomment_lines_containing("bar", "#")'),
    "delete_matching": ("keep\ndel1\ndel2\n", 'edit_line => delete_lines_matching("del.*")'),
    "warn_matching": ("keep\ndel1\n", 'edit_line => warn_lines_matching("del.*")'),
    "replace_line_end": ("key old value\nother\n", 'edit_line => replace_line_end("key", "new v")'),
    "append_to_line_end": ("opts a b\n", 'edit_line => append_to_line_end("opts", "c")'),
    "uncommented_substrings": ("old here\n# old there\nnot old\n",
                               'edit_line => replace_uncommented_substrings("#", "old", "new")'),
    "regex_replace": ("aaa x aaa\n", 'edit_line => regex_replace("aaa", "bbb")'),
    "replace_or_add_replace": ("PermitRootLogin yes\nX\n",
                               'edit_line => replace_or_add("PermitRootLogin.*", "PermitRootLogin no")'),
    "replace_or_add_add": ("X\n",
                           'edit_line => replace_or_add("PermitRootLogin.*", "PermitRootLogin no")'),
    "converge": ("a\nold # managed\nb\n",
                 'edit_line => converge("# managed", @(main.managed))'),
    "converge_prepend": ("a\nold # managed\n",
                         'edit_line => converge_prepend("# managed", @(main.managed))'),
    "resolvconf": ("search old\nnameserver 9.9.9.9\noptions x\n",
                   'edit_line => resolvconf("example.com", @(main.ns))'),
    "resolvconf_o": ("search old\nnameserver 9.9.9.9\noptions x\n",
                     'edit_line => resolvconf_o("example.com", @(main.ns), "rotate")'),
    "set_line_based": ("# doc\n#alpha = 0\nbeta=1\n#gamma=1\n#gamma=2\nother\n",
                       'edit_line => set_line_based("main.kv", "=", "\\s*=\\s*", ".*", "\\s*#\\s*")'),
    "set_line_based_new": (None,
                           'edit_line => set_line_based("main.kv", " ", "\\s+", "alpha|beta", "#\\s*")'),
    "set_config_values": ("#PermitRootLogin yes\nPort 2222\n#X11Forwarding no\n#X11Forwarding yes\n",
                          'edit_line => set_config_values("main.sshd")'),
    "set_config_values_matching": ("PermitRootLogin yes\n# Port 22\n",
                                   'edit_line => set_config_values_matching("main.sshd", "P.*")'),
    "set_variable_values": ("alpha=9\n gamma = 7\n", 'edit_line => set_variable_values("main.kv")'),
    "set_quoted_values": ('#alpha="9"\nbeta=1\n', 'edit_line => set_quoted_values("main.kv")'),
    "maintain_key_values": ("alpha = 9\nbeta=2\n", 'edit_line => maintain_key_values("main.kv", "=")'),
    "set_variable_values_ini": ("[s1]\na=1\n#b=0\n[s2]\na=5\n",
                                'edit_line => set_variable_values_ini("main.ini", "s1")'),
    "set_variable_values_ini_new": ("[s2]\na=5\n",
                                    'edit_line => set_variable_values_ini("main.ini", "s1")'),
    "manage_variable_values_ini": ("[s1]\nold=1\na=0\n[s2]\na=5\n",
                                   'edit_line => manage_variable_values_ini("main.ini", "s1")'),
    "insert_ini_section": ("[other]\nx=1\n", 'edit_line => insert_ini_section("new", "main.kv")'),
    "set_colon_field": ("root:x:0:0:root:/root:/bin/bash\n",
                        'edit_line => set_colon_field("root", "7", "/bin/zsh")'),
    "set_user_field": ("alice:x:1000:1000::/home/alice:/bin/sh\n",
                       'edit_line => set_user_field("alice", "5", "Alice")'),
    "append_user_field": ("wheel:x:10:carol\n",
                          'edit_line => append_user_field("wheel", "4", @(main.wheel))'),
    "fstab_option_editor": ("/dev/sda1 / ext4 defaults 0 1\n/dev/sda2 /home ext4 defaults 0 2\n",
                            'edit_line => fstab_option_editor("append", "/home", "noatime")'),
    "append_users_starting": ("root:x:0:0::/root:/bin/sh\n",
                              'edit_line => append_users_starting("main.users")'),
    "append_groups_starting": ("root:x:0:\n", 'edit_line => append_groups_starting("main.groups")'),
    "expand_template": ("", 'edit_line => expand_template("@DIR@/template.txt")'),
    "insert_file": ("a\n", 'edit_line => insert_file("@DIR@/template.txt")'),
    "contains_literal_string": ("a\n", 'edit_line => contains_literal_string("  two\n  lines")'),
}

POLICY = """\
body common control
{
  bundlesequence => { "main" };
  inputs => { "@LIB@" };
}

bundle agent main
{
  vars:
      "bc" slist => { "b", "c" };
      "managed" slist => { "x # managed", "y # managed" };
      "ns" slist => { "1.1.1.1", "8.8.8.8" };
      "wheel" slist => { "bob", "alice" };
      "kv[alpha]" string => "1";
      "kv[beta]" string => "2";
      "kv[gamma]" string => "3";
      "sshd[PermitRootLogin]" string => "no";
      "sshd[X11Forwarding]" string => "no";
      "sshd[Port]" string => "22";
      "ini[s1][a]" string => "2";
      "ini[s1][b]" string => "3";
      "ini[s1][c]" string => "dontchange";
      "users[root]" string => "root:x:0:0::/root:/bin/bash";
      "users[nosuchuser4711]" string => "nosuchuser4711:x:4711:4711::/:/bin/false";
      "groups[root]" string => "root:x:0:";
      "groups[nosuchgroup4711]" string => "nosuchgroup4711:x:4711:";
      "template_value" string => "expanded";
      "json" string => '{ "name": "world" }';
      "data" data => '{ "name": "data" }';

  files:
@EDITS@

  methods:
      "" usebundle => file_make("@DIR@/agent/made", "line one$(const.n)line two");
      "" usebundle => file_make_mog("@DIR@/agent/made_mog", "x", "600", "root", "root");
      "" usebundle => file_empty("@DIR@/agent/empty");
      "" usebundle => file_copy("@DIR@/template.txt", "@DIR@/agent/copy");
      "" usebundle => dir_sync("@DIR@/srcdir", "@DIR@/agent/mirror");
      "" usebundle => file_tidy("@DIR@/agent/doomed");
      "" usebundle => file_link("@DIR@/template.txt", "@DIR@/agent/symlink");
      "" usebundle => file_hardlink("@DIR@/template.txt", "@DIR@/agent/hardlink");
      "" usebundle => file_mustache_jsonstring("@DIR@/hello.mustache", "$(json)",
                                               "@DIR@/agent/mustache_json");
      "" usebundle => file_make_mustache("@DIR@/agent/mustache_data", "@DIR@/hello.mustache",
                                         @(data));
      "" usebundle => rm_rf("@DIR@/agent/rmtree");
      "" usebundle => rm_rf("@DIR@/agent/rmfile");
      "" usebundle => prunedir("@DIR@/agent/prunedir", "0");
      "" usebundle => prunetree("@DIR@/agent/prunetree", "inf", "0");
      "" usebundle => logrotate("@DIR@/agent/log", "1", "2");
      "" usebundle => fileinfo("@DIR@/template.txt");
      "" usebundle => run_ifdefined("default", "helper");
      "" usebundle => run_ifdefined("default", "no_such_bundle");
}

bundle agent helper
{
  methods:
      "" usebundle => file_make("@DIR@/agent/helper_ran", "yes");
}
"""


# Cases whose added lines come in getindices() order: cf-agent returns the indices in
# the order of its variable table, which differs with the library loaded (masterfiles
# defines many more variables), so only the set of lines is compared.
ORDER_FREE = {"edits/manage_variable_values_ini", "edits/set_variable_values_ini_new",
              "edits/set_line_based_new", "edits/set_variable_values", "edits/set_quoted_values",
              "edits/maintain_key_values", "edits/set_config_values",
              "edits/set_config_values_matching", "edits/append_users_starting",
              "edits/append_groups_starting", "edits/set_variable_values_ini",
              "edits/set_line_based"}


def _prepare(root: Path, lib: Path) -> Path:
    root.mkdir()
    (root / "template.txt").write_text("value: $(main.template_value)\n")
    (root / "hello.mustache").write_text("Hello {{name}}\n")
    (root / "srcdir" / "sub").mkdir(parents=True)
    (root / "srcdir" / "a").write_text("a\n")
    (root / "srcdir" / "sub" / "b").write_text("b\n")
    (root / "agent").mkdir()
    (root / "agent" / "doomed").write_text("bye\n")
    (root / "agent" / "mirror").mkdir()
    (root / "agent" / "mirror" / "extra").write_text("purged\n")
    (root / "agent" / "rmtree" / "sub").mkdir(parents=True)
    (root / "agent" / "rmtree" / "sub" / "f").write_text("f\n")
    (root / "agent" / "rmfile").write_text("f\n")
    (root / "agent" / "prunedir" / "sub").mkdir(parents=True)
    (root / "agent" / "prunedir" / "old").write_text("old\n")
    (root / "agent" / "prunedir" / "sub" / "deeper").write_text("kept\n")
    (root / "agent" / "prunetree" / "sub").mkdir(parents=True)
    (root / "agent" / "prunetree" / "sub" / "old").write_text("old\n")
    (root / "agent" / "log").write_text("a long enough log\n")
    for path in (root / "agent").rglob("*"):
        os.utime(path, (1_000_000_000, 1_000_000_000))
    (root / "edits").mkdir()
    edits = []
    for name, (content, attributes) in EDIT_CASES.items():
        path = root / "edits" / name
        if content is not None:
            path.write_text(content)
        create = ' create => "true",' if content is None else ""
        edits.append(f'      "{path}"{create}\n        {attributes};')
    text = POLICY.replace("@EDITS@", "\n".join(edits))
    text = text.replace("@LIB@", str(lib)).replace("@DIR@", str(root))
    policy = root / "policy.cf"
    policy.write_text(text)
    policy.chmod(0o600)
    return policy


def _snapshot(root: Path) -> dict[str, object]:
    out: dict[str, object] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in sorted(dirnames + filenames):
            path = Path(dirpath) / name
            rel = str(path.relative_to(root))
            if rel == "policy.cf" or ".cf-before-edit" in name or name.endswith(".cfsaved"):
                continue
            st = path.lstat()
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(path).replace(str(root), "@DIR@"))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir",)
            else:
                out[rel] = ("file", oct(st.st_mode & 0o7777), path.read_text(errors="replace"))
    return out


def _run(tmp_path: Path, label: str, lib: Path) -> tuple[dict[str, object], dict[str, object]]:
    root = tmp_path / label
    policy = _prepare(root, lib)
    env = cfengine_env(tmp_path / f"work-{label}")
    snapshots = []
    for _ in range(2):
        proc = subprocess.run(["cf-agent", "-K", "-f", str(policy)], capture_output=True,
                              text=True, env=env, timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "failsafe" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
        snapshots.append(_snapshot(root))
    return snapshots[0], snapshots[1]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, dict]]:
    tmp = tmp_path_factory.mktemp("reference")
    return {"ours": _run(tmp, "ours", STDLIB),
            "masterfiles": _run(tmp, "masterfiles", MASTERFILES_LIB / "stdlib.cf")}


@pytest.mark.parametrize("rel", sorted({f"edits/{n}" for n in EDIT_CASES} | {
    "agent/made", "agent/made_mog", "agent/empty", "agent/copy", "agent/mirror/a",
    "agent/mirror/sub/b", "agent/mirror/extra", "agent/doomed", "agent/symlink",
    "agent/hardlink", "agent/mustache_json", "agent/mustache_data", "agent/rmtree",
    "agent/rmtree/sub/f", "agent/rmfile", "agent/prunedir/old", "agent/prunedir/sub/deeper",
    "agent/prunetree", "agent/prunetree/sub", "agent/prunetree/sub/old", "agent/log",
    "agent/log.1", "agent/helper_ran"}))
def test_same_result_as_masterfiles(rel: str, runs: dict[str, tuple[dict, dict]]) -> None:
    def view(snapshot: dict[str, object]) -> object:
        entry = snapshot.get(rel)
        if rel in ORDER_FREE and isinstance(entry, tuple) and entry[0] == "file":
            return entry[:2] + (sorted(str(entry[2]).splitlines()),)
        return entry
    for run, (ours, ref) in enumerate(zip(runs["ours"], runs["masterfiles"]), start=1):
        assert view(ours) == view(ref), f"run {run}"


def test_the_same_files_exist(runs: dict[str, tuple[dict, dict]]) -> None:
    for ours, ref in zip(runs["ours"], runs["masterfiles"]):
        assert sorted(ours) == sorted(ref)


def test_second_run_changes_nothing(runs: dict[str, tuple[dict, dict]]) -> None:
    first, second = runs["ours"]
    assert first == second
