"""--simulate=diff|manifest|manifest-full: files promises change only a chroot under
WORKDIR/state, the rest runs as a dry run, and the changes are shown at the end in
cf-agent 3.21's format (compared with cf-agent 3.21 itself when it is installed)."""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CF_AGENT = "/usr/bin/cf-agent"
DELIM = "=" * 75

POLICY = """
body common control {{ bundlesequence => {{ "main" }}; }}
bundle agent main
{{
  vars:
    "unsafe" string => execresult("/bin/touch {t}/unsafe-ran", "noshell");
    "safe" string => execresult("/bin/touch {t}/safe-ran", "noshell"),
      meta => {{ "simulate_safe" }};
  files:
    "{t}/new" create => "true";
    "{t}/edited" edit_line => add("added line");
    "{t}/content" content => "new content";
    "{t}/doomed" delete => tidy;
    "{t}/perms" perms => mode("0640");
    "{t}/old-name" rename => to("new-name");
    "{t}/copy" copy_from => local("{t}/content");
    "{t}/link" link_from => ln("{t}/edited");
    "{t}/unchanged" create => "true";
    "{t}/tree/." create => "true";
  commands:
    "/bin/touch {t}/command-ran";
}}
bundle edit_line add(l) {{ insert_lines: "$(l)"; }}
body delete tidy {{ dirlinks => "delete"; rmdirs => "true"; }}
body perms mode(m) {{ mode => "$(m)"; }}
body rename to(n) {{ newname => "$(n)"; }}
body copy_from local(s) {{ source => "$(s)"; compare => "digest"; }}
body link_from ln(s) {{ source => "$(s)"; link_type => "symlink"; }}
"""


def make_host(root: Path) -> Path:
    t = root / "host"
    t.mkdir()
    (t / "edited").write_text("first line\n")
    (t / "content").write_text("old content")
    (t / "doomed").write_text("x\n")
    (t / "perms").write_text("p\n")
    (t / "perms").chmod(0o600)
    (t / "old-name").write_text("r\n")
    (t / "unchanged").write_text("u\n")
    return t


def snapshot(root: Path) -> dict[str, tuple[int, str]]:
    """Every path under root with its mode and content digest (or link target)."""
    out: dict[str, tuple[int, str]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            if os.path.islink(p):
                what = "->" + os.readlink(p)
            elif os.path.isfile(p):
                what = hashlib.sha256(Path(p).read_bytes()).hexdigest()
            else:
                what = "dir"
            out[os.path.relpath(p, root)] = (st.st_mode, what)
    return out


def run(tmp_path: Path, mode: str, *, agent: list[str] | None = None,
        workdir: Path | None = None) -> subprocess.CompletedProcess[str]:
    t = tmp_path / "host"
    policy = tmp_path / "p.cf"
    policy.write_text(POLICY.format(t=t))
    wd = workdir or tmp_path / "wd"
    wd.mkdir(exist_ok=True)
    argv = agent or [sys.executable, "-m", "cfpromise.cli.agent"]
    env = {**os.environ, "CFENGINE_TEST_OVERRIDE_WORKDIR": str(wd)}
    env.pop("COLUMNS", None)
    return subprocess.run([*argv, "-K", f"--simulate={mode}", "-f", str(policy)],
                          capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)


def normalize(text: str, t: Path, wd: Path) -> str:
    text = text.replace(str(t), "HOST").replace(str(wd), "WORKDIR")
    text = re.sub(r"[0-9]+\.changes", "PID.changes", text)
    text = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [-+]\d{4}", "TIMESTAMP", text)
    return re.sub(r"Size: \d+", "Size: SIZE", text)


def entries(stdout: str) -> list[str]:
    return [e.strip("\n") for e in stdout.split(DELIM + "\n")[1:]]


@pytest.mark.parametrize("mode", ["manifest", "diff", "manifest-full"])
def test_simulate_never_changes_the_host_and_cleans_up(tmp_path: Path, mode: str) -> None:
    t = make_host(tmp_path)
    before = snapshot(t)
    proc = run(tmp_path, mode)
    assert proc.returncode == 0, proc.stderr
    after = snapshot(t)
    after.pop("safe-ran")                        # the simulate_safe execresult's own doing
    assert after == before                       # nothing created, edited, renamed, deleted
    assert not (t / "command-ran").exists()      # commands: a dry run
    assert not (t / "unsafe-ran").exists()       # unsafe functions not called...
    assert "Not calling unsafe function 'execresult' in simulate mode" in proc.stdout
    state = tmp_path / "wd" / "state"
    assert not [p for p in state.iterdir() if p.name.endswith(".changes")]   # chroot deleted
    assert re.search(r"warning: All changes in files will be made in the '.*/state/\d+\.changes'"
                     r" chroot", proc.stdout)
    assert "Would execute script '/bin/touch" in proc.stdout or \
        "Should execute" in proc.stdout or "/bin/touch" in proc.stdout


def test_simulate_safe_functions_are_called(tmp_path: Path) -> None:
    make_host(tmp_path)
    run(tmp_path, "manifest")
    assert (tmp_path / "host" / "safe-ran").exists()


def test_manifest_shows_each_change_in_3_21_format(tmp_path: Path) -> None:
    t = make_host(tmp_path)
    proc = run(tmp_path, "manifest")
    out = normalize(proc.stdout, t, tmp_path / "wd")
    got = entries(out)
    assert got[0] == "'HOST/new-name' is the new name of 'HOST/old-name'"    # renames first
    assert ("'HOST/new' is a regular file\nSize: SIZE\nAccess: (0600/rw-------)  Uid: "
            "(0/root)   Gid: (0/root)\nAccess: TIMESTAMP\nModify: TIMESTAMP\nChange: TIMESTAMP"
            "\n\nContents of the file:") in got or os.getuid() != 0
    edited = next(e for e in got if e.startswith("'HOST/edited'"))
    assert edited.endswith("Contents of the file:\nfirst line\nadded line")
    content = next(e for e in got if e.startswith("'HOST/content'"))
    assert content.endswith("new content\n\\no newline at the end of file")
    assert "'HOST/doomed' no longer exists" in got
    perms = next(e for e in got if e.startswith("'HOST/perms'"))
    assert "Access: (0640/rw-r-----)" in perms
    link = next(e for e in got if e.startswith("'HOST/link'"))
    assert link.startswith("'HOST/link' is a symbolic link") and \
        link.endswith("Target: 'HOST/edited'")                 # the chroot is not shown
    assert any(e.startswith("'HOST/tree' is a directory") for e in got)
    assert not any(e.startswith("'HOST/unchanged'") for e in got)   # kept: not a change
    assert "state/" not in out.replace("WORKDIR/state/PID.changes", "")


def test_manifest_full_adds_the_kept_files(tmp_path: Path) -> None:
    t = make_host(tmp_path)
    got = entries(normalize(run(tmp_path, "manifest-full").stdout, t, tmp_path / "wd"))
    unchanged = [e for e in got if e.startswith("'HOST/unchanged'")]
    assert len(unchanged) == 1 and unchanged[0].endswith("Contents of the file:\nu")
    assert got.index(unchanged[0]) == len(got) - 1          # after the changed files


def test_diff_mode_shows_unified_diffs(tmp_path: Path) -> None:
    t = make_host(tmp_path)
    got = entries(normalize(run(tmp_path, "diff").stdout, t, tmp_path / "wd"))
    assert ("--- original HOST/edited\n+++ changed  HOST/edited\n@@ -1 +1,2 @@\n first line\n"
            "+added line") in got
    assert ("--- original HOST/content\n+++ changed  HOST/content\n@@ -1 +1 @@\n-old content\n"
            "\\ No newline at end of file\n+new content\n\\ No newline at end of file") in got
    assert any(e.startswith("'HOST/new' is a regular file") for e in got)   # new: manifested
    assert "'HOST/doomed' no longer exists" in got
    assert "" in got                          # perms only: diff has nothing to say


def test_second_simulate_run_shows_the_same(tmp_path: Path) -> None:
    """The host is untouched, so a second simulation finds the same changes to make."""
    t = make_host(tmp_path)
    first = normalize(run(tmp_path, "manifest").stdout, t, tmp_path / "wd")
    second = normalize(run(tmp_path, "manifest").stdout, t, tmp_path / "wd")
    assert first == second and "'HOST/new' is a regular file" in first


def test_invalid_simulate_mode_is_refused(tmp_path: Path) -> None:
    proc = run(tmp_path, "bogus")      # (on stdout as cf-agent logs it, exit 1)
    assert proc.returncode == 1
    assert proc.stdout == ("   error: Invalid argument for --simulate, 'manifest' or 'diff' "
                           "required, not 'bogus'\n")


@pytest.mark.parametrize("mode", ["manifest", "diff", "manifest-full"])
def test_output_equals_cf_agent_3_21(tmp_path: Path, mode: str) -> None:
    if not os.access(CF_AGENT, os.X_OK):
        pytest.skip(f"needs cf-agent 3.21 ({CF_AGENT})")
    if os.getuid() != 0:
        pytest.skip("needs root (cf-agent's work directory checks)")
    outputs = []
    for label, agent in (("lite", None), ("cfe", [CF_AGENT])):
        base = tmp_path / label
        base.mkdir()
        t = make_host(base)
        wd = base / "wd"
        (wd / "bin").mkdir(parents=True)
        for prog in ("cf-promises", "diff"):     # cf-agent runs WORKDIR/bin/diff
            if shutil.which(prog):
                os.symlink(shutil.which(prog), wd / "bin" / prog)   # type: ignore[arg-type]
        proc = run(base, mode, agent=agent, workdir=wd)
        text = normalize(proc.stdout, t, wd)
        # what only the policy decides: the manifest/diff entries and the chroot warning
        keep = [line for line in text.splitlines()
                if "All changes in files" in line or not re.match(r"\s*\w+: ", line)]
        outputs.append(keep)
    assert outputs[0] == outputs[1]
