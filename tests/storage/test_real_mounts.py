"""Storage promises end to end as root: real bind mounts under a scratch directory, a
scratch fstab (CF_LITE_TEST_FSTAB), run through the agent: repair, a second run that
repairs nothing, dry run and warn-only that change nothing, the JSON run report, unmount."""
from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from cfpromise.promises.storage import mounts
from tests.files.agentrun import run_agent

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not os.path.exists("/bin/mount"),
                                reason="needs root and mount(8)")

POLICY = """
body common control {{ bundlesequence => {{ "main" }}; }}
bundle agent main
{{
  storage:
    "{mnt}"
      mount => m,
      action => a,
      classes => c("m");
  reports:
    "classes: $(with)" with => join(",", sort(classesmatching("m_.*"), "lex"));
}}
body mount m
{{
  mount_server => "localhost";
  mount_source => "{src}";
  mount_options => {{ "bind" }};
  edit_fstab => "{edit}";
  unmount => "{unmount}";
}}
body action a {{ action_policy => "{policy}"; }}
body classes c(p)
{{
  promise_kept => {{ "$(p)_kept" }};
  promise_repaired => {{ "$(p)_repaired" }};
  repair_failed => {{ "$(p)_failed" }};
  repair_denied => {{ "$(p)_denied" }};
  repair_timeout => {{ "$(p)_timeout" }};
}}
"""

FSTAB = "# scratch fstab\n/dev/sda1 / ext4 defaults 0 1\n"


def _umount_all(root: Path) -> None:
    for _ in range(10):
        table = [m for m in mounts.mounted() if m.mountpoint.startswith(str(root) + "/")]
        if not table:
            return
        for entry in reversed(table):
            subprocess.run(["umount", "-l", entry.mountpoint], capture_output=True)


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "marker").write_text("here\n")
    (tmp_path / "fstab").write_text(FSTAB)
    monkeypatch.setenv("CF_LITE_TEST_FSTAB", str(tmp_path / "fstab"))
    try:
        yield tmp_path
    finally:
        _umount_all(tmp_path)


def policy(tmp: Path, *, edit: str = "true", unmount: str = "false", action: str = "fix"
           ) -> str:
    return POLICY.format(mnt=tmp / "mnt", src=tmp / "src", edit=edit, unmount=unmount,
                         policy=action)


def is_mounted(tmp: Path) -> bool:
    return mounts.mounted_on(mounts.mounted(), str(tmp / "mnt")) is not None


def classes(output: str) -> str:
    return next(line for line in output.splitlines() if line.startswith("R: classes:"))


def test_mount_with_fstab_then_idempotent_then_unmount(scratch: Path) -> None:
    code, out = run_agent(scratch, policy(scratch), "--report", "json")
    assert code == 0, out
    assert f"info: Mounting '{scratch}/mnt' to keep promise" in out
    assert f"info: Adding file system 'localhost:{scratch}/src' to '{scratch}/fstab'" in out
    assert classes(out) == "R: classes: m_repaired"
    assert is_mounted(scratch) and (scratch / "mnt" / "marker").read_text() == "here\n"
    assert (scratch / "fstab").read_text() == \
        FSTAB + f"{scratch}/src \t {scratch}/mnt \t auto \t bind\n"
    assert (scratch / "fstab.cf-before-edit").read_text() == FSTAB
    report = json.loads((scratch / "work" / "outputs" / "report.json").read_text())
    record = next(r for r in report["promises"] if r["promiser"] == f"{scratch}/mnt")
    kinds = [c["kind"] for c in record["changes"]]
    assert kinds == ["mount", "fstab"] and record["changes"][0]["new"] == "mounted"

    code, out = run_agent(scratch, policy(scratch))          # second run: nothing to do
    assert f"Filesystem '{scratch}/mnt' seems to be mounted as promised" in out
    assert classes(out) == "R: classes: m_kept"
    assert len(mounts.without_mountpoint((scratch / "fstab").read_text().splitlines(),
                                         str(scratch / "mnt"))[1]) == 1

    unmount = policy(scratch, unmount="true")
    code, out = run_agent(scratch, unmount, "-n")           # dry run: still mounted
    assert "should be unmounted" in out and is_mounted(scratch)
    assert "mnt" in (scratch / "fstab").read_text()
    code, out = run_agent(scratch, unmount)
    assert f"Unmounting '{scratch}/mnt' to keep promise" in out
    assert f"Deleting file system mounted on '{scratch}/mnt'" in out
    assert classes(out) == "R: classes: m_repaired"
    assert not is_mounted(scratch) and (scratch / "fstab").read_text() == FSTAB
    code, out = run_agent(scratch, unmount)
    assert classes(out) == "R: classes: m_kept"


@pytest.mark.parametrize("how", ["dry-run", "warn"])
def test_dry_run_and_warn_only_change_nothing(scratch: Path, how: str) -> None:
    args = ("-n",) if how == "dry-run" else ()
    code, out = run_agent(scratch, policy(scratch, action="warn" if how == "warn" else "fix"),
                          *args)
    assert f"Filesystem '{scratch}/mnt' should be mounted from '{scratch}/src'" in out
    assert "should be added to" in out
    assert not is_mounted(scratch) and (scratch / "fstab").read_text() == FSTAB
    assert not (scratch / "fstab.cf-before-edit").exists()
    if how == "warn":
        assert classes(out) == "R: classes: m_failed"


def test_without_edit_fstab_mounts_and_fails_as_3_21(scratch: Path) -> None:
    code, out = run_agent(scratch, policy(scratch, edit="false"))
    assert f"error: Filesystem '{scratch}/mnt' was not mounted as promised, and no edits " \
        f"were promised in '{scratch}/fstab'" in out
    assert classes(out) == "R: classes: m_failed,m_repaired"      # as cf-agent 3.21 sets them
    assert is_mounted(scratch) and (scratch / "fstab").read_text() == FSTAB
    code, out = run_agent(scratch, policy(scratch, edit="false"))
    assert classes(out) == "R: classes: m_kept"


def test_a_different_file_system_is_never_mounted_over(scratch: Path) -> None:
    other = scratch / "other"
    other.mkdir()
    (scratch / "mnt").mkdir()
    subprocess.run(["mount", "-o", "bind", str(other), str(scratch / "mnt")], check=True)
    code, out = run_agent(scratch, policy(scratch))
    assert "A different file system" in out and "not mounting over it" in out
    assert classes(out) == "R: classes: m_failed"
    assert len([m for m in mounts.mounted() if m.mountpoint == str(scratch / "mnt")]) == 1
    assert (scratch / "fstab").read_text() == FSTAB


def test_check_foreign_skips_network_file_systems(scratch: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from cfpromise.agent.outcome import Outcome
    from cfpromise.promises.storage import handler
    from tests.promises.fakes import FakeAgent, make_run
    remote = scratch / "remote"
    remote.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(remote)], check=True)
    (remote / "a").write_bytes(b"x" * 2000)
    (remote / "b").write_bytes(b"x")
    # the kernel says tmpfs; make the mount table say NFS, as an NFS mount would show
    fake = f"99 1 0:99 / {remote} rw - nfs4 srv:/export rw\n"
    monkeypatch.setattr(handler.mounts, "mounted", lambda: mounts.parse_mountinfo(fake))
    body = {"freespace": "999999G"}
    agent = FakeAgent()
    outcome = handler.verify_storage(make_run(str(remote), agent, promise_type="storage",
                                              volume=body))
    assert outcome is Outcome.KEPT
    assert f"Filesystem '{remote}' is mounted from a foreign system, so skipping it" in \
        agent.messages("info")
    agent = FakeAgent()
    outcome = handler.verify_storage(make_run(str(remote), agent, promise_type="storage",
                                              volume={**body, "check_foreign": "true"}))
    assert outcome is Outcome.FAILED and "Disk space under" in agent.messages("error")[0]
