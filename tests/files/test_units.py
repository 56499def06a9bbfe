"""Pure pieces of the files and edit_line promise types: modes, promiser regexes,
whitespace policies, field splitting, templates, safe writes, warning texts."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from cfpromise.promises.edit import matching
from cfpromise.promises.edit.buffer import join_continuations, join_lines, split_lines
from cfpromise.promises.edit.field_edits import split_values
from cfpromise.promises.files import atomic, diff
from cfpromise.promises.files.handler import is_path_regex, is_regex
from cfpromise.promises.files.links import abs_link_path, compress_path, relative_path
from cfpromise.promises.files.perms import parse_mode
from cfpromise.promises.files.template import TemplateError, parse_cfengine_template


@pytest.mark.parametrize("text, plus, minus", [
    ("0644", 0o644, 0o7133),
    ("644", 0o644, 0o7133),
    ("u+rwx,go-w", 0o700, 0o022),
    ("a=r", 0o444, 0o7333),
    ("o=x", 0o001, 0o006),
    ("ugo=wx", 0o333, 0o6444),
    ("u=x", 0o100, 0o4600),
    ("u+s", 0o4000, 0),
    ("g-s,o+t", 0o1000, 0o2000),
    ("13400", 0o3400, 0o4377),           # beyond 07777: masked (cf-agent on Linux)
    ("000", 0, 0o7777),
    ("0000", 0, 0o7777),
])
def test_parse_mode(text: str, plus: int, minus: int) -> None:
    assert parse_mode(text) == (plus, minus)


@pytest.mark.parametrize("text", ["+x", "0", "u+r+w", "q=r", "u=rwz"])
def test_parse_mode_invalid(text: str) -> None:
    errors: list[str] = []
    assert parse_mode(text, lambda level, msg: errors.append(msg)) is None
    assert errors


@pytest.mark.parametrize("text, regex", [
    ("file.txt", False), (".*", True), ("a[0-9]", True), ("*x", False),
    ("(a|b)", True), ("a|b", False), ("x\\*y", False), ("[abc", False), ("a+", True),
    ("f?", False),
])
def test_is_regex(text: str, regex: bool) -> None:
    assert is_regex(text) is regex


def test_is_path_regex_rejects_slash_inside_brackets() -> None:
    assert is_path_regex("/tmp/a.*")
    assert not is_path_regex("/tmp/(a/b)+")
    assert not is_path_regex("/tmp/plain/file")


@pytest.mark.parametrize("needle, haystack, policy, result", [
    ("hello world", "hello world", [], True),
    ("hello world", "  hello world", [], False),
    ("hello world", "  hello world", ["ignore_leading"], True),
    ("hello world", "hello world  ", ["ignore_trailing"], True),
    ("hello world", "hello    world", ["ignore_embedded"], True),
    ("a.b", "axb", ["ignore_leading"], False),              # '.' is escaped
    ("a b", "a b", ["exact_match"], True),
    ("a b", " a b", ["exact_match"], False),
])
def test_match_policy(needle: str, haystack: str, policy: list[str], result: bool) -> None:
    assert matching.match_policy(needle, haystack, policy) is result


def test_full_text_match_is_first_match_spanning() -> None:
    assert matching.full("a.*", "abc")
    assert not matching.full("a|ab", "ab")            # PCRE's first match is "a"
    assert matching.full("[x", "[x")                   # equal text matches uncompiled
    assert not matching.full("[x", "[y")


@pytest.mark.parametrize("text, values", [
    ("", []), ("a", ["a"]), ("a,b", ["a", "b"]), ("a,,b", ["a", "", "b"]), ("a,", ["a"]),
    (",a", ["", "a"]), ("a\\,b,c", ["a,b", "c"]),
])
def test_split_values(text: str, values: list[str]) -> None:
    assert split_values(text, ",") == values


def test_lines_round_trip() -> None:
    assert split_lines("") == []
    assert split_lines("a\nb\n") == ["a", "b"]
    assert split_lines("a\nb") == ["a", "b"]
    assert split_lines("a\n\n") == ["a", ""]
    assert join_lines(["a", "b"]) == "a\nb\n"
    assert join_continuations(["a \\", "b", "c"]) == ["b", "c"]      # as cf-agent 3.21


def test_cfengine_template_parse() -> None:
    text = ("one $(x)\n[%CFEngine BEGIN %]\nb1\nb2\n[%CFEngine END %]\n"
            "[%CFEngine linux:: %]\nonly linux\n[%CFEngine any:: %]\nlast\n")
    got = parse_cfengine_template(text, "t", lambda c: c == "any")
    assert [(p.text, p.context) for p in got] == [("one $(x)", "any"), ("b1\nb2", "any"),
                                                   ("last", "any")]


@pytest.mark.parametrize("text", ["[%CFEngine BEGIN %)\nx\n",
                                  "[%CFEngine BEGIN %]\n[%CFEngine BEGIN %]\n"])
def test_cfengine_template_errors(text: str) -> None:
    with pytest.raises(TemplateError):
        parse_cfengine_template(text, "t", lambda c: True)


def test_links_paths() -> None:
    assert compress_path("/a/./b/../c") == "/a/c"
    assert abs_link_path("/x/y/link", "../z") == "/x/z"
    assert relative_path("/d/t/lnk", "/d/s/src") == "./../s/src"


def test_item_warnings() -> None:
    assert diff.item_warnings(["a", "b"], ["a", "c"]) == ["edit_line warning promised: - b"]
    assert diff.item_warnings(["a"], ["a", "b"]) == [
        " ! edit_line change warning promised: (add) b"]
    assert diff.item_warnings([], ["a"]) == [
        "File content wants to change from from/to full/empty but only a warning promised"]


# --- safe writes -----------------------------------------------------------------------

def test_replace_file_keeps_mode_owner_and_backup(tmp_path: Path) -> None:
    target = tmp_path / "f"
    target.write_text("old\n")
    target.chmod(0o640)
    os.chown(target, 65534, 65534) if os.geteuid() == 0 else None
    before = target.stat()
    atomic.replace_file(str(target), b"new\n")
    after = target.stat()
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(after.st_mode) == 0o640
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)
    assert (tmp_path / "f.cf-before-edit").read_text() == "old\n"
    assert not (tmp_path / "f.cf-after-edit").exists()


def test_replace_file_backup_options(tmp_path: Path) -> None:
    target = tmp_path / "f"
    target.write_text("v1\n")
    atomic.replace_file(str(target), b"v2\n", backup="false")
    assert not (tmp_path / "f.cf-before-edit").exists()
    atomic.replace_file(str(target), b"v3\n", backup="timestamp")
    stamped = [p.name for p in tmp_path.iterdir() if p.name.endswith(".cf-before-edit")]
    assert len(stamped) == 1 and stamped[0].startswith(f"f_{atomic.start_time()}_")
    atomic.replace_file(str(target), b"v4\n", backup="rotate", rotate=2, rotated=set())
    assert (tmp_path / "f.cf-before-edit.1").read_text() == "v3\n"


def test_replace_file_through_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.write_text("a\n")
    link = tmp_path / "link"
    link.symlink_to(real)
    written = atomic.replace_file(str(link), b"b\n", backup="false")
    assert written == str(real)
    assert link.is_symlink() and real.read_text() == "b\n"


def test_replace_file_repository(tmp_path: Path) -> None:
    target = tmp_path / "f"
    target.write_text("old\n")
    repo = tmp_path / "repo"
    atomic.replace_file(str(target), b"new\n", repository=str(repo))
    archived = repo / (str(tmp_path / "f.cf-before-edit").replace("/", "_"))
    assert archived.read_text() == "old\n"
    assert not (tmp_path / "f.cf-before-edit").exists()


def test_timestamp_suffix_is_canonified_ctime() -> None:
    suffix = atomic.timestamp_suffix(0)
    assert suffix.startswith(f"_{atomic.start_time()}_")
    assert all(c.isalnum() or c == "_" for c in suffix)
