"""Storage promises without touching the host: the mount table parser, fstab lines and
their atomic editing, and the handler's bad-input paths."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.storage import handler, mounts
from tests.promises.fakes import FakeAgent, make_run

MOUNTINFO = r"""22 1 254:0 / / rw,relatime - ext4 /dev/vda rw
30 22 0:40 / /mnt/nfs rw,relatime - nfs4 srv:/export/home rw,vers=4.2
31 22 0:41 / /mnt/share rw - cifs //fileserver/public rw
32 22 254:0 /srv/data /mnt/bound rw,relatime - ext4 /dev/vda rw
33 22 0:50 / /mnt/with\040space rw - tmpfs tmpfs rw,size=1024k
34 22 0:50 /sub /mnt/tmpbind rw - tmpfs tmpfs rw,size=1024k
35 22 0:51 / /mnt/nfs rw - tmpfs tmpfs rw
"""


def test_mountinfo_hosts_sources_and_bind_mounts() -> None:
    table = {m.mountpoint: m for m in mounts.parse_mountinfo(MOUNTINFO)}
    assert (table["/mnt/share"].host, table["/mnt/share"].source) == ("fileserver", "/public")
    assert table["/mnt/bound"].source == "/srv/data"          # a bind mount shows its directory
    assert table["/mnt/tmpbind"].source == "/mnt/with space/sub"
    assert table["/"].host == "localhost" and table["/"].source == "/dev/vda"
    all_ = mounts.parse_mountinfo(MOUNTINFO)
    nfs = [m for m in all_ if m.mountpoint == "/mnt/nfs"]
    assert (nfs[0].host, nfs[0].source) == ("srv", "/export/home")
    assert mounts.mounted_on(all_, "/mnt/nfs/").fstype == "tmpfs"     # the one on top
    assert mounts.mounted_on(all_, "/mnt/none") is None
    assert mounts.source_matches(table["/mnt/bound"], "localhost", "/srv/data")
    assert not mounts.source_matches(table["/mnt/bound"], "localhost", "/srv/other")


def test_fstab_lines_and_command_lines() -> None:
    # cf-agent 3.21's Linux line: "host:source \t mountpoint \t type \t options"
    assert mounts.fstab_line("srv", "/export", "/mnt/x", "nfs", "defaults") == \
        "srv:/export \t /mnt/x \t nfs \t defaults"
    assert mounts.fstab_line("localhost", "/srv/a", "/mnt/a", None, "bind") == \
        "/srv/a \t /mnt/a \t auto \t bind"
    assert mounts.mount_argv("srv", "/e", "/m", "nfs4", "ro")[1:] == \
        ["-t", "nfs4", "-o", "ro", "srv:/e", "/m"]
    assert mounts.mount_argv("fs", "/share", "/m", "cifs", "guest")[-2] == "//fs/share"
    lines = ["# /mnt/x is a comment", "srv:/e \t /mnt/x \t nfs \t defaults",
             "/dev/sda1 / ext4 defaults 0 1"]
    assert mounts.in_fstab(lines, "/mnt/x/") and not mounts.in_fstab(lines, "/mnt")
    kept, removed = mounts.without_mountpoint(lines, "/mnt/x")
    assert removed == [lines[1]] and kept == [lines[0], lines[2]]


def test_fstab_is_replaced_atomically_with_a_backup(tmp_path: Path) -> None:
    fstab = tmp_path / "fstab"
    fstab.write_text("/dev/sda1 / ext4 defaults 0 1\n")
    fstab.chmod(0o644)
    mounts.write_fstab(str(fstab), ["/dev/sda1 / ext4 defaults 0 1", "a \t /b \t nfs \t ro"])
    assert fstab.read_text().splitlines()[1] == "a \t /b \t nfs \t ro"
    assert stat.S_IMODE(fstab.stat().st_mode) == 0o644          # 3.21 leaves it 0600
    assert (tmp_path / "fstab.cf-before-edit").read_text() == "/dev/sda1 / ext4 defaults 0 1\n"
    assert not (tmp_path / "fstab.cf-after-edit").exists()
    missing = tmp_path / "new-fstab"
    mounts.write_fstab(str(missing), ["x \t /y \t nfs \t defaults"])
    assert stat.S_IMODE(missing.stat().st_mode) == 0o644


def test_a_failed_table_write_leaves_the_old_table(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    fstab = tmp_path / "fstab"
    fstab.write_text("old\n")
    from cfpromise.promises.files import atomic

    def broken_rename(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(atomic.os, "rename", broken_rename)
    with pytest.raises(OSError):
        mounts.write_fstab(str(fstab), ["new"])
    assert fstab.read_text() == "old\n"
    assert not (tmp_path / "fstab.cf-after-edit").exists()


def storage(agent: FakeAgent, path: str, **attributes: object) -> Outcome:
    return handler.verify_storage(make_run(path, agent, promise_type="storage", **attributes))


def test_a_mount_needs_source_and_server() -> None:
    agent = FakeAgent()
    assert storage(agent, "/mnt/x", mount={"mount_source": "/e"}) is Outcome.FAILED
    assert "Insufficient specification in mount promise - need source and server" in \
        agent.messages("error")[0]
    assert "storage promise '/mnt/x'" in agent.messages("error")[0]


def test_only_root_mounts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(handler.os, "geteuid", lambda: 1000)
    agent = FakeAgent()
    outcome = storage(agent, "/mnt/x", mount={"mount_source": "/e", "mount_server": "srv"})
    assert outcome is Outcome.INTERRUPTED
    assert agent.messages("error")[0].startswith("Only root can mount filesystems")


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (mount)")
def test_missing_mount_command_is_one_clear_failure(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    fstab = tmp_path / "fstab"
    fstab.write_text("# empty\n")
    monkeypatch.setenv("CF_LITE_TEST_FSTAB", str(fstab))
    monkeypatch.setenv("CF_LITE_TEST_MOUNT", str(tmp_path / "no-such-mount"))
    agent = FakeAgent()
    body = {"mount_source": str(tmp_path), "mount_server": "localhost",
            "mount_options": ["bind"], "edit_fstab": "true"}
    outcome = storage(agent, str(tmp_path / "mnt"), mount=body)
    assert outcome is Outcome.FAILED
    errors = agent.messages("error")
    assert len(errors) == 1 and "no-such-mount' not found" in errors[0]
    assert "storage promise" in errors[0]
    assert fstab.read_text() == "# empty\n"          # no entry for a mount that failed
    assert agent.changes == []


def test_volume_sanity_and_free_space(tmp_path: Path) -> None:
    agent = FakeAgent()
    empty = tmp_path / "empty"
    empty.mkdir()
    assert storage(agent, str(empty), volume={"sensible_size": "0"}) is Outcome.INTERRUPTED
    assert agent.messages("error") == [f"Filesystem '{empty}' has only 0 files/directories."]
    (empty / "a").write_bytes(b"x" * 600)
    (empty / "b").write_bytes(b"x" * 300)
    agent = FakeAgent()
    assert storage(agent, str(empty), volume={}) is Outcome.INTERRUPTED     # 900 < 1000
    assert "is suspiciously small! (900 bytes)" in agent.messages("error")[0]
    agent = FakeAgent()
    assert storage(agent, str(empty), volume={"freespace": "1k", "sensible_size": "10"}) \
        is Outcome.KEPT
    assert agent.messages("info") == [f"Filesystem '{empty}' content seems to be sensible "
                                      "as promised"]
    agent = FakeAgent()
    assert storage(agent, str(empty), volume={"freespace": "999999G",
                                              "sensible_size": "10"}) is Outcome.FAILED
    assert agent.messages("error")[0].startswith(f"Disk space under {999999 * 1024 ** 2} kB for volume "
                                                 f"containing '{empty}'")
    assert agent.results == [Outcome.KEPT]        # the sanity check's kept classes, as 3.21
    agent = FakeAgent()
    assert storage(agent, str(empty), volume={"freespace": "100%", "sensible_size": "1"}) \
        in (Outcome.FAILED, Outcome.KEPT)
    assert storage(FakeAgent(), str(tmp_path / "nothing"), volume={"freespace": "1k"}) \
        is Outcome.KEPT


VOLUMES = """
body common control { bundlesequence => { "t" }; }
bundle agent t {
storage:
  "$(this.promise_dirname)/small" volume => v1, classes => c("a");
  "$(this.promise_dirname)" volume => v2, classes => c("b");
  "$(this.promise_dirname)/big" volume => v3, classes => c("e");
reports:
  "classes: $(with)" with => join(",", sort(classesmatching("[abe]_.*"), "lex"));
}
body volume v1 { freespace => "10%"; }
body volume v2 { freespace => "100%"; sensible_size => "1"; sensible_count => "1"; }
body volume v3 { freespace => "1k"; sensible_count => "3"; }
body classes c(p) { promise_kept => { "$(p)_kept" }; promise_repaired => { "$(p)_repaired" };
  repair_failed => { "$(p)_failed" }; repair_denied => { "$(p)_denied" };
  repair_timeout => { "$(p)_timeout" }; }
"""


def test_volume_messages_and_classes_match_cf_agent(tmp_path: Path) -> None:
    from tests.edit import cfagent
    from tests.files.agentrun import run_agent
    if not cfagent.available():
        pytest.skip("needs cf-agent 3.21")
    (tmp_path / "small").mkdir()
    (tmp_path / "small" / "f").write_text("abc")
    (tmp_path / "big").mkdir()
    for name in "xyz":
        (tmp_path / "big" / name).write_bytes(b"x" * 400)
    policy = tmp_path / "v.cf"
    policy.write_text(VOLUMES)
    policy.chmod(0o600)
    _, theirs = cfagent.run_cf_agent(tmp_path, policy)
    _, ours = run_agent(tmp_path, policy)

    def lines(out: str) -> list[str]:
        return [line for line in out.splitlines() if line.startswith(("R:", "   error:"))
                or "seems to be sensible" in line]
    assert lines(ours) == lines(theirs)
    assert "R: classes: a_failed,b_failed,b_kept,e_kept" in ours
