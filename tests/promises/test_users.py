"""users promises: real accounts and groups (root only), end to end through cf-lite-agent.

Every user and group a test makes is named ``cflt_<random>`` and removed by the
fixture's finalizer, whatever the test's outcome.  Checks read /etc/passwd,
/etc/shadow and /etc/group directly.  The pure parts (hash checks, the handler's
answer when a tool is missing) are tested without root.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Callable, Iterator

import pytest

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.users import accounts, handler as users_handler
from tests.promises.fakes import FakeAgent, make_run

CLASSES = """
body classes c(p)
{
  promise_kept => { "$(p)_kept" };
  promise_repaired => { "$(p)_repaired" };
  repair_failed => { "$(p)_failed" };
}
"""
HASH = "dTloMVpjYt1w2"
HASH2 = "$6$saltsalt$KJ0QDKrK6lJTcVlZdA1gUo0f1m0L2yZ4ct7Pz3TiF0wqRzQv2D0fR2U5c0M0Pq1yUVt5F3yb0k7wlI6XbqwWr1"


# -- without root -----------------------------------------------------------------------
@pytest.mark.parametrize("value, ok", [
    (HASH, True), (HASH2, True), ("$y$j9T$abc$def", True), ("!" + HASH, True), ("x", True),
    ("*", True), ("notahash", False), ("has:colon", False), ("$6$a\n", False), ("", False),
])
def test_hash_validation(value: str, ok: bool) -> None:
    assert (accounts.hash_problem(value) is None) is ok


def test_password_matches_uses_crypt() -> None:
    stored = "$6$abcdefgh$" + "x" * 86
    assert not accounts.password_matches("secret", stored)
    real = accounts._crypt("secret", "$6$abcdefgh$")
    if real is None:
        pytest.skip("needs crypt(3)")
    assert accounts.password_matches("secret", real)
    assert accounts.password_matches("secret", "!" + real)      # locked: same password
    assert not accounts.password_matches("other", real)
    assert not accounts.password_matches("x", "x")


def test_missing_tool_is_one_clear_failure(monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    monkeypatch.setattr(users_handler, "TOOL_DIRS", (str(tmp_path),))
    monkeypatch.setattr(accounts, "ETC", str(tmp_path))
    for name in ("passwd", "shadow", "group"):
        (tmp_path / name).write_text("")
    agent = FakeAgent()
    run = make_run("cflt_nobody", agent, promise_type="users", policy="present")
    assert users_handler.verify(run) is Outcome.FAILED
    [message] = agent.messages("error")
    assert "users promise 'cflt_nobody'" in message and "'useradd' not found" in message


def test_bad_user_name_is_refused(tmp_path: Path) -> None:
    agent = FakeAgent()
    run = make_run("x; touch /tmp/owned", agent, promise_type="users", policy="present")
    assert users_handler.verify(run) is Outcome.FAILED
    assert "is not a valid user name" in agent.messages("error")[0]


# -- real accounts ------------------------------------------------------------------------
needs_root = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("useradd") is None,
                                reason="needs root and the shadow utilities (useradd)")


class Names:
    """Unique user and group names for one test; all removed afterwards."""

    def __init__(self) -> None:
        self.users: list[str] = []
        self.groups: list[str] = []

    def user(self) -> str:
        name = f"cflt_{uuid.uuid4().hex[:8]}"
        self.users.append(name)
        return name

    def group(self) -> str:
        name = f"cflt_{uuid.uuid4().hex[:8]}"
        subprocess.run(["groupadd", name], check=True, capture_output=True)
        self.groups.append(name)
        return name

    def cleanup(self) -> None:
        for name in self.users:
            subprocess.run(["userdel", name], capture_output=True)
            subprocess.run(["groupdel", name], capture_output=True)   # the user's own group
        for name in self.groups:
            subprocess.run(["groupdel", name], capture_output=True)


@pytest.fixture
def names() -> Iterator[Names]:
    n = Names()
    try:
        yield n
    finally:
        n.cleanup()


def agent(tmp_path: Path, body: str, *args: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "p.cf"
    path.write_text(f"""
bundle agent main
{{
  users:
{body}
  reports:
      "outcome $(cl)";
  vars:
      "cl" slist => sort(classesmatching("[a-z]_(kept|repaired|failed)"), "lex");
}}
body password hash(h) {{ format => "hash"; data => "$(h)"; }}
body password plain(p) {{ format => "plaintext"; data => "$(p)"; }}
body action warn {{ action_policy => "warn"; }}
""" + CLASSES)
    path.chmod(0o600)
    return subprocess.run([sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f", str(path),
                           "-w", str(tmp_path / "wd"), *args],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)


def outcomes(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line[len("R: outcome "):] for line in proc.stdout.splitlines()
            if line.startswith("R: outcome ")]


def free_uid() -> int:
    used = {u.uid for u in accounts.users().values()}
    return next(u for u in range(23000, 60000) if u not in used)


def shadow(name: str) -> list[str]:
    return accounts.shadow_entries()[name]


def group_members(group: str) -> tuple[str, ...]:
    return next(g.members for g in accounts.groups() if g.name == group)


@needs_root
def test_create_with_every_attribute_then_kept(tmp_path: Path, names: Names) -> None:
    user, g1, g2, g3 = names.user(), names.group(), names.group(), names.group()
    uid = free_uid()
    promise = f"""
      "{user}" policy => "present", uid => "{uid}", description => "Test User",
        group_primary => "{g1}", groups_secondary => {{ "{g2}", "{g3}" }},
        home_dir => "/home/{user}_h", shell => "/bin/bash", password => hash("{HASH}"),
        classes => c("a");"""
    proc = agent(tmp_path, promise, "--report", f"json={tmp_path / 'r.json'}")
    assert outcomes(proc) == ["a_repaired"], proc.stdout
    account = accounts.users()[user]
    gid1 = next(g.gid for g in accounts.groups() if g.name == g1)
    assert (account.uid, account.gid, account.gecos, account.home, account.shell) == \
        (uid, gid1, "Test User", f"/home/{user}_h", "/bin/bash")
    assert user in group_members(g2) and user in group_members(g3)
    assert shadow(user)[1] == HASH and not account.locked
    assert not Path(f"/home/{user}_h").exists()              # -M: home_bundle's job
    record = next(p for p in json.loads((tmp_path / "r.json").read_text())["promises"]
                  if p["promise_type"] == "users")
    change = record["changes"][0]
    assert (change["action"], change["old"], change["new"]["uid"]) == ("create", None, uid)
    assert outcomes(agent(tmp_path, promise)) == ["a_kept"]   # idempotent


@needs_root
def test_new_account_is_not_locked_and_lock_unlock_converge(tmp_path: Path,
                                                             names: Names) -> None:
    user = names.user()
    assert outcomes(agent(tmp_path, f'"{user}" policy => "present", classes => c("a");')) == \
        ["a_repaired"]
    assert shadow(user)[1] == "x"                            # not useradd's "!"
    locked = f'"{user}" policy => "locked", classes => c("a");'
    assert outcomes(agent(tmp_path, locked)) == ["a_repaired"]
    assert shadow(user)[1] == "!x" and shadow(user)[7] == "1"
    assert outcomes(agent(tmp_path, locked)) == ["a_kept"]
    unlock = f'"{user}" policy => "present", password => hash("{HASH}"), classes => c("a");'
    assert outcomes(agent(tmp_path, unlock)) == ["a_repaired"]
    assert shadow(user)[1] == HASH and shadow(user)[7] == ""
    assert outcomes(agent(tmp_path, unlock)) == ["a_kept"]
    assert outcomes(agent(tmp_path, locked)) == ["a_repaired"]
    assert shadow(user)[1] == "!" + HASH                     # the password stays behind '!'


@needs_root
def test_plaintext_password_is_hashed_and_checked(tmp_path: Path, names: Names) -> None:
    user = names.user()
    promise = f'"{user}" policy => "present", password => plain("S3cret!"), classes => c("a");'
    assert outcomes(agent(tmp_path, promise)) == ["a_repaired"]
    stored = shadow(user)[1]
    assert stored.startswith("$") and accounts.password_matches("S3cret!", stored)
    assert outcomes(agent(tmp_path, promise)) == ["a_kept"]
    other = promise.replace("S3cret!", "Other1")
    assert outcomes(agent(tmp_path, other)) == ["a_repaired"]
    assert accounts.password_matches("Other1", shadow(user)[1])


@needs_root
def test_modify_warn_and_dry_run_change_nothing(tmp_path: Path, names: Names) -> None:
    user, g1, g2 = names.user(), names.group(), names.group()
    subprocess.run(["useradd", "-M", "-c", "Old", "-G", g1, user], check=True,
                   capture_output=True)
    before = (Path("/etc/passwd").read_text(), Path("/etc/group").read_text(),
              Path("/etc/shadow").read_text())
    change = (f'"{user}" policy => "present", description => "New", shell => "/bin/bash", '
              f'groups_secondary => {{ "{g2}" }}, password => hash("{HASH}"), classes => c("a")')
    proc = agent(tmp_path, change + ', action => warn;')
    assert outcomes(proc) == ["a_failed"]
    for what in ("description", "shell", "groups_secondary", "password"):
        assert what in proc.stdout, (what, proc.stdout)
    proc = agent(tmp_path, change + ";", "-n")
    assert "Need to change description of user" in proc.stdout
    after = (Path("/etc/passwd").read_text(), Path("/etc/group").read_text(),
             Path("/etc/shadow").read_text())
    assert after == before
    proc = agent(tmp_path, change + ";", "--report", f"json={tmp_path / 'r.json'}")
    assert outcomes(proc) == ["a_repaired"]
    account = accounts.users()[user]
    assert (account.gecos, account.shell) == ("New", "/bin/bash")
    assert user in group_members(g2) and user not in group_members(g1)
    record = next(p for p in json.loads((tmp_path / "r.json").read_text())["promises"]
                  if p["promise_type"] == "users")
    fields = {c["field"]: (c["old"], c["new"]) for c in record["changes"]}
    assert fields["description"] == ("Old", "New")
    assert fields["groups_secondary"] == ([g1], [g2])
    assert outcomes(agent(tmp_path, change + ";")) == ["a_kept"]


@needs_root
def test_absent_removes_and_then_is_kept(tmp_path: Path, names: Names) -> None:
    user = names.user()
    subprocess.run(["useradd", "-M", user], check=True, capture_output=True)
    promise = f'"{user}" policy => "absent", classes => c("a");'
    proc = agent(tmp_path, promise, "-n")
    assert f"Need to remove user '{user}'" in proc.stdout
    assert "Need to repair reports promise: outcome a_failed" in proc.stdout
    assert user in accounts.users()
    assert outcomes(agent(tmp_path, promise)) == ["a_repaired"]
    assert user not in accounts.users()
    assert outcomes(agent(tmp_path, promise)) == ["a_kept"]


@needs_root
def test_bad_input_fails_with_one_message_and_changes_nothing(tmp_path: Path,
                                                              names: Names) -> None:
    u1, u2, u3, g = names.user(), names.user(), names.user(), names.group()
    before = (Path("/etc/passwd").read_text(), Path("/etc/group").read_text())
    proc = agent(tmp_path, f"""
      "{u1}" policy => "present", groups_secondary => {{ "{g}", "cflt_nosuchgroup" }},
        classes => c("a");
      "{u2}" policy => "present", uid => "0", classes => c("b");
      "{u3}" policy => "present", password => hash("not-a-hash"), classes => c("d");""")
    assert outcomes(proc) == ["a_failed", "b_failed", "d_failed"]
    errors = [line for line in proc.stdout.splitlines() if "error:" in line]
    assert len(errors) == 3, errors
    assert f"users promise '{u1}'" in errors[0] and "'cflt_nosuchgroup' do not exist" in errors[0]
    assert "uid 0 is already used by user 'root'" in errors[1]
    assert "is not a crypt(3) password hash" in errors[2]
    assert (Path("/etc/passwd").read_text(), Path("/etc/group").read_text()) == before


@needs_root
def test_home_bundle_runs_once_at_creation_with_inherit(tmp_path: Path, names: Names) -> None:
    user = names.user()
    marker = tmp_path / "home_bundle_ran"
    path = tmp_path / "p.cf"
    policy = f"""
bundle agent main
{{
  classes:
      "from_caller" expression => "any";
  users:
      "{user}" policy => "present", home_dir => "{tmp_path}/home",
        home_bundle => make_home("{tmp_path}/home"), home_bundle_inherit => "true";
}}
bundle agent make_home(dir)
{{
  files:
    from_caller::
      "$(dir)/." create => "true";
      "{marker}" create => "true", edit_line => count;
}}
bundle edit_line count {{ insert_lines: "ran $(sys.date)"; }}
"""
    path.write_text(policy)
    path.chmod(0o600)
    run: Callable[[], subprocess.CompletedProcess[str]] = lambda: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "cfpromise.cli.agent", "-K", "-f", str(path), "-w",
         str(tmp_path / "wd")], capture_output=True, text=True, timeout=120)
    proc = run()
    assert (tmp_path / "home").is_dir(), proc.stdout
    first = marker.read_text()
    time.sleep(1.1)
    run()
    assert marker.read_text() == first                      # existing user: not called again


def test_unreadable_database_is_one_clear_failure(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    monkeypatch.setattr(accounts, "ETC", str(tmp_path))
    (tmp_path / "passwd").mkdir()                 # reading it fails (IsADirectoryError)
    agent = FakeAgent()
    run = make_run("cflt_nobody", agent, promise_type="users", policy="present")
    assert users_handler.verify(run) is Outcome.FAILED
    [message] = agent.messages("error")
    assert f"cannot read {tmp_path}/passwd" in message
