"""users promises: local accounts as cf-agent 3.21 keeps them on Linux.

``policy`` present (default), locked or absent.  The state is read from
/etc/passwd, /etc/shadow and /etc/group (:mod:`.accounts`); changes go through
the shadow utilities as in cf-agent: ``useradd [-u] [-c] [-g] [-G] [-d] [-s] -M``
(no home directory is made: ``home_bundle`` is for that), ``usermod`` for the
attributes that differ, ``userdel`` (the home directory stays), ``chpasswd -e``
for a hash and ``chpasswd`` (PAM hashes it) for a plaintext password.

Locking is cf-agent's: a '!' in front of the hash and the account expiry set to
1970-01-02 (``usermod -e``); unlocking removes the '!' and clears the expiry.  A
new account gets the hash "x" (no password matches it) rather than useradd's
"!", so that it does not count as locked.  A plaintext password is checked
against the stored hash with crypt(3); a hash is compared as text.  With policy
locked the password is still kept behind the '!' (cf-agent 3.21 ignores it), so
unlocking gives the promised password back.

``home_bundle`` runs only when the account is created, with the caller's classes
when ``home_bundle_inherit`` is true, as in 3.21.

Unlike 3.21, everything is checked before anything changes -- the groups exist,
the uid is free, the hash is a crypt(3) hash, the tools are installed -- so a
promise fails with one message naming its cause and leaves no account half
made (a creation whose later step fails is undone with userdel).  Warn-only and
dry run name each difference and change nothing.
"""
from __future__ import annotations

import os
import subprocess
from typing import Any

import attrs

from cfpromise.agent.outcome import Outcome
from cfpromise.promises.api import BundleCall, PromiseRun, handler
from cfpromise.promises.users import accounts

TOOL_DIRS: tuple[str, ...] = ("/usr/sbin", "/sbin", "/usr/bin", "/bin")
LOCK_DATE = "1970-01-02"          # the expiry cf-agent sets on Linux to lock (day 1)


class UserError(Exception):
    """The promise cannot be kept (the message names the cause)."""


def tool(name: str) -> str:
    for d in TOOL_DIRS:
        path = os.path.join(d, name)
        if os.access(path, os.X_OK):
            return path
    raise UserError(f"'{name}' not found (looked in {', '.join(TOOL_DIRS)})")


@attrs.define
class Wanted:
    """What the promise asks for, validated against the host."""

    policy: str
    uid: int | None = None
    description: str | None = None
    group: accounts.Group | None = None
    secondary: list[str] | None = None       # group names, in the promise's order
    home: str | None = None
    shell: str | None = None
    pw_format: str | None = None             # "hash" or "plaintext"
    pw_data: str | None = None

    @property
    def locked(self) -> bool:
        return self.policy == "locked"


@handler("users")
def verify(run: PromiseRun) -> Outcome:
    name = run.promiser
    try:
        if not name or any(c in name for c in ":,\n ") or name.startswith("-"):
            raise UserError(f"'{name}' is not a valid user name")
        table = accounts.users()
        current = table.get(name)
        policy = run.attributes.get("policy") or "present"
        if policy == "absent":
            return _remove(run, current)
        wanted = _wanted(run, policy, table)
        if current is None:
            return _create(run, wanted)
        return _modify(run, current, wanted)
    except (UserError, accounts.AccountsError) as exc:
        run.agent.log("error", f"Cannot keep {run.where()}: {exc}")
        return Outcome.FAILED


def _wanted(run: PromiseRun, policy: str, table: dict[str, accounts.Account]) -> Wanted:
    a = run.attributes
    w = Wanted(policy)
    uid = a.get("uid")
    if uid not in (None, ""):
        w.uid = int(str(uid))
        other = next((u.name for u in table.values() if u.uid == w.uid and u.name != run.promiser),
                     None)
        if other is not None:
            raise UserError(f"uid {w.uid} is already used by user '{other}'")
    if isinstance(a.get("description"), str):
        w.description = a["description"]
        if ":" in w.description or "\n" in w.description:
            raise UserError("the description cannot contain ':' or a newline")
    groups = accounts.groups()
    primary = a.get("group_primary")
    if isinstance(primary, str) and primary:
        w.group = accounts.find_group(primary, groups)
        if w.group is None:
            raise UserError(f"primary group '{primary}' does not exist")
    secondary = a.get("groups_secondary")
    if isinstance(secondary, str):
        secondary = [secondary]
    if isinstance(secondary, list):
        found = [accounts.find_group(g, groups) for g in secondary]
        missing = [g for g, f in zip(secondary, found) if f is None]
        if missing:
            raise UserError("secondary group(s) " + ", ".join(f"'{g}'" for g in missing)
                            + " do not exist")
        w.secondary = list(dict.fromkeys(f.name for f in found if f is not None))
    for attr, field in (("home_dir", "home"), ("shell", "shell")):
        value = a.get(attr)
        if isinstance(value, str) and value:
            if ":" in value or "\n" in value:
                raise UserError(f"{attr} cannot contain ':' or a newline")
            setattr(w, field, value)
    if "password" in a:
        body = run.body("password")
        fmt, data = body.get("format"), body.get("data")
        if not fmt or data is None:
            raise UserError("both 'data' and 'format' must be specified in the password body")
        if data != "":
            if fmt == "hash":
                problem = accounts.hash_problem(data)
                if problem:
                    raise UserError(problem)
            elif "\n" in data or "\r" in data:
                raise UserError("a password cannot contain a newline")
            w.pw_format, w.pw_data = fmt, data
    return w


# -- absent -----------------------------------------------------------------------------
def _remove(run: PromiseRun, current: accounts.Account | None) -> Outcome:
    if current is None:
        return Outcome.KEPT
    name = run.promiser
    if run.warn_only:
        run.agent.log("warning", f"Need to remove user '{name}' ({run.where()})")
        return Outcome.WARN
    _run(run, [tool("userdel"), name], "removing")
    run.agent.log("info", f"Removed user '{name}'")
    run.agent.note_change(run, kind="user", user=name, action="remove",
                          old={"uid": current.uid, "home": current.home}, new=None)
    return Outcome.REPAIRED


# -- create -----------------------------------------------------------------------------
def _create(run: PromiseRun, w: Wanted) -> Outcome:
    name = run.promiser
    argv = [tool("useradd")]
    if w.uid is not None:
        argv += ["-u", str(w.uid)]
    if w.description is not None:
        argv += ["-c", w.description]
    if w.group is not None:
        argv += ["-g", w.group.name]
    if w.secondary is not None and w.secondary:
        argv += ["-G", ",".join(w.secondary)]
    if w.home is not None:
        argv += ["-d", w.home]
    if w.shell is not None:
        argv += ["-s", w.shell]
    argv += ["-M", name]
    tool("chpasswd")
    if w.locked:
        tool("usermod")
    if run.warn_only:
        # cf-agent 3.21 (DoCreateUser): the warning, then its caller's verdict, failed
        run.agent.log("verbose", f"Would create user '{name}' with command '{_show(argv)}' "
                                 f"({run.where()})")
        run.agent.log("warning", f"Need to create user '{name}'.")
        run.agent.log("error", f"Failed to create user '{name}'")
        return Outcome.FAILED
    _run(run, argv, "creating")
    try:
        _set_password(run, w.pw_format or "hash", w.pw_data if w.pw_data else "x")
        if w.locked:
            _lock(run, True)
    except UserError:
        _undo_create(run)
        raise
    run.agent.log("info", f"Created user '{name}'")
    created = accounts.users().get(name)
    run.agent.note_change(run, kind="user", user=name, action="create", old=None,
                          new=_describe(created, w))
    outcome = Outcome.REPAIRED
    call = run.attributes.get("home_bundle")
    if isinstance(call, BundleCall):
        inherit = run.attributes.get("home_bundle_inherit") in ("true", "yes", "on")
        result = run.agent.run_bundle(run, call, inherit=inherit)
        if result.not_kept:
            outcome = result
    return outcome


def _undo_create(run: PromiseRun) -> None:
    try:
        _run(run, [tool("userdel"), run.promiser], "removing the half-created")
    except UserError as exc:
        run.agent.log("error", f"Could not undo the creation of user '{run.promiser}': {exc}")


def _describe(account: accounts.Account | None, w: Wanted) -> dict[str, Any]:
    if account is None:
        return {}
    return {"uid": account.uid, "gid": account.gid, "description": account.gecos,
            "home": account.home, "shell": account.shell, "locked": account.locked,
            "groups_secondary": sorted(accounts.secondary_groups(account.name,
                                                                 accounts.groups()))}


# -- modify -----------------------------------------------------------------------------
def _modify(run: PromiseRun, cur: accounts.Account, w: Wanted) -> Outcome:
    name = run.promiser
    diffs: list[tuple[str, Any, Any]] = []
    argv: list[str] = []
    if w.uid is not None and w.uid != cur.uid:
        diffs.append(("uid", cur.uid, w.uid))
        argv += ["-u", str(w.uid)]
    if w.description is not None and w.description != cur.gecos:
        diffs.append(("description", cur.gecos, w.description))
        argv += ["-c", w.description]
    if w.group is not None and w.group.gid != cur.gid:
        diffs.append(("group_primary", cur.gid, w.group.gid))
        argv += ["-g", w.group.name]
    if w.home is not None and w.home != cur.home:
        diffs.append(("home_dir", cur.home, w.home))
        argv += ["-d", w.home]
    if w.shell is not None and w.shell != cur.shell:
        diffs.append(("shell", cur.shell, w.shell))
        argv += ["-s", w.shell]
    if w.secondary is not None:
        have = accounts.secondary_groups(name, accounts.groups())
        if have != set(w.secondary):
            diffs.append(("groups_secondary", sorted(have), sorted(w.secondary)))
            argv += ["-G", ",".join(w.secondary)]
    attribute_change = len(diffs) > 0
    if attribute_change:
        tool("usermod")
    base = cur.hash[1:] if cur.locked and cur.hash else (cur.hash or "")
    password_change = False
    if w.pw_data is not None:
        ok = base == w.pw_data if w.pw_format == "hash" else \
            accounts.password_matches(w.pw_data, base)
        if not ok:
            password_change = True
            diffs.append(("password", "(hidden)", "(hidden)"))
            tool("chpasswd")
    lock_change = (not cur.locked or not cur.expired) if w.locked else \
        (cur.locked or cur.expire == "1")
    if lock_change:
        diffs.append(("locked", cur.locked, w.locked))
        tool("usermod")
        if (cur.locked != w.locked) or password_change:
            tool("chpasswd")
    if not diffs:
        return Outcome.KEPT
    if run.warn_only:
        for field, old, new in diffs:
            if field == "password":
                run.agent.log("warning", f"Need to change password for user '{name}' "
                                         f"({run.where()})")
            elif field == "locked":
                run.agent.log("warning", f"Need to {'lock' if new else 'unlock'} account for "
                                         f"user '{name}' ({run.where()})")
            else:
                run.agent.log("warning", f"Need to change {field} of user '{name}' from "
                                         f"'{_text(old)}' to '{_text(new)}' ({run.where()})")
        return Outcome.WARN
    if attribute_change:
        _run(run, [tool("usermod")] + argv + [name], "modifying")
    if password_change:
        _set_password(run, w.pw_format or "hash", w.pw_data or "x")
    if lock_change:
        _lock(run, w.locked)
    run.agent.log("info", f"Modified user '{name}'")
    for field, old, new in diffs:
        run.agent.note_change(run, kind="user", user=name, action="modify", field=field,
                              old=old, new=new)
    return Outcome.REPAIRED


def _text(value: Any) -> str:
    return ",".join(value) if isinstance(value, list) else str(value)


# -- passwords and locking ----------------------------------------------------------------
def _set_password(run: PromiseRun, fmt: str, data: str) -> None:
    argv = [tool("chpasswd")] + (["-e"] if fmt == "hash" else [])
    _run(run, argv, "setting the password of", stdin=f"{run.promiser}:{data}\n", show=False)


def _lock(run: PromiseRun, lock: bool) -> None:
    """Put or take away the '!' and the expiry (cf-agent's lock)."""
    account = accounts.users().get(run.promiser)
    hashed = account.hash if account is not None and account.hash is not None else "x"
    if lock and not hashed.startswith("!"):
        _set_password(run, "hash", "!" + hashed)
    elif not lock and hashed.startswith("!"):
        _set_password(run, "hash", hashed[1:] or "x")    # never a passwordless account
    _run(run, [tool("usermod"), "-e", LOCK_DATE if lock else "", run.promiser],
         "locking" if lock else "unlocking")


# -- running the tools ------------------------------------------------------------------
def _show(argv: list[str]) -> str:
    import shlex
    return " ".join(shlex.quote(a) for a in argv)


def _run(run: PromiseRun, argv: list[str], doing: str, *, stdin: str | None = None,
         show: bool = True) -> None:
    shown = _show(argv)
    run.agent.log("verbose", f"{doing.capitalize()} user '{run.promiser}' (command: '{shown}')")
    try:
        proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=120,
                              env={**os.environ, "LC_ALL": "C"})
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UserError(f"error while {doing} user '{run.promiser}': '{shown}': {exc}") from None
    if proc.returncode != 0:
        why = " ".join((proc.stderr or proc.stdout or "").split())
        raise UserError(f"error while {doing} user '{run.promiser}': '{shown}' returned "
                        f"{proc.returncode}" + (f": {why}" if why else ""))
