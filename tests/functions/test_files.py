"""File system and file reading built-ins (on files under tmp_path)."""
from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

import pytest

from cfpromise.eval.functions.api import FunctionError
from tests.functions.fakectx import FakeContext


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "one.txt").write_text("foo\n")
    (tmp_path / "two.txt").write_text("a\nb\n")
    (tmp_path / "list.txt").write_text("a,b\n# comment\nc\n\nd,\n")
    (tmp_path / "ints.txt").write_text("1 2\n3\n")
    (tmp_path / "reals.txt").write_text("1.5 x\n")
    (tmp_path / "table.txt").write_text("# header\nalpha:1:2\nbeta:3\n\nalpha:9\n")
    (tmp_path / "data.json").write_text('{"a": [1, 2.5], "b": "x"}')
    (tmp_path / "bad.json").write_text('{"a": ')
    (tmp_path / "prim.json").write_text('"x"')
    (tmp_path / "data.yaml").write_text("a: 1\nb:\n  - on\n  - 'q'\n")
    (tmp_path / "data.csv").write_bytes(b'a,b\r\n1,"x,y"\r\n"q""q",1\r\nbad,"x"y\r\n\r\nlast,x')
    (tmp_path / "data.env").write_text("# c\nA=1\nB = \"two words\"\nC='x\"y'\nBAD\nD=a\\nb\nE=x\"y\n")
    (tmp_path / "filter.csv").write_bytes(
        b"name,class,v\r\nz,any,1\r\ny,nosuch,2\r\n# comment\r\na,any,3\r\n")
    (tmp_path / "sub" / "dir").mkdir(parents=True)
    (tmp_path / "sub" / "dir" / "deep.txt").write_text("deep\n")
    os.symlink("one.txt", tmp_path / "link")
    os.symlink("missing", tmp_path / "dangling")
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    (tmp_path / "hosts").write_text(f"# peers\nh1\nh2\n{socket.gethostname()}\nh4\nh5\n")
    return tmp_path


def run(ctx: FakeContext, root: Path, name: str, *args: Any) -> Any:
    return ctx.call(name, *[a.replace("{t}", str(root)) if isinstance(a, str) else a
                            for a in args])


CASES: list[tuple[str, tuple[Any, ...], Any]] = [
    ("fileexists", ("{t}/one.txt",), True),
    ("fileexists", ("{t}/dangling",), True),
    ("fileexists", ("{t}/nosuch",), False),
    ("isdir", ("{t}/sub",), True),
    ("isdir", ("{t}/one.txt",), False),
    ("islink", ("{t}/link",), True),
    ("isplain", ("{t}/link",), False),
    ("isplain", ("{t}/one.txt",), True),
    ("isexecutable", ("{t}/run.sh",), True),
    ("isexecutable", ("{t}/one.txt",), False),
    ("isexecutable", ("{t}/nosuch",), False),
    ("filesize", ("{t}/one.txt",), "4"),
    ("filesexist", ('["{t}/one.txt", "{t}/two.txt"]',), True),
    ("filesexist", ('["{t}/one.txt", "{t}/dangling"]',), False),
    ("filesexist", ("[]",), False),
    ("filestat", ("{t}/one.txt", "size"), "4"),
    ("filestat", ("{t}/one.txt", "basename"), "one.txt"),
    ("filestat", ("{t}/sub/dir", "dirname"), "{t}/sub"),
    ("filestat", ("{t}/link", "type"), "symlink"),
    ("filestat", ("{t}/sub", "type"), "directory"),
    ("filestat", ("{t}/link", "linktarget"), "{t}/one.txt"),
    ("filestat", ("{t}/link", "linktarget_shallow"), "one.txt"),
    ("filestat", ("{t}/run.sh", "permoct"), "755"),
    ("filestat", ("{t}/run.sh", "permstr"), "-rwxr-xr-x"),
    ("filestat", ("{t}/run.sh", "modeoct"), "100755"),
    ("dirname", ("/a/b/",), "/a"),
    ("dirname", ("a",), "."),
    ("dirname", ("/",), "/"),
    ("dirname", ("/a",), "/"),
    ("basename", ("/a/b/",), "b"),
    ("basename", ("/a/b.txt", ".txt"), "b"),
    ("basename", ("b.txt", "b.txt"), "b.txt"),
    ("basename", ("",), ""),
    ("translatepath", ("/a\\b/c",), "/a\\b/c"),
    ("findfiles", ("{t}/*.json", "{t}/**/deep.txt", "relative/*"),
     ["{t}/bad.json", "{t}/data.json", "{t}/prim.json", "{t}/sub/dir/deep.txt"]),
    ("findfiles_up", ("{t}/sub/dir", "one.txt", "5"), ["{t}/one.txt"]),
    ("findfiles_up", ("{t}/sub/dir", "one.txt", "1"), []),
    ("search_up", ("{t}/sub/dir", "*.txt", "0"), ["{t}/sub/dir/deep.txt"]),
    ("makerule", ("{t}/nosuch", "{t}/one.txt"), True),
    ("makerule", ("{t}/one.txt", '["{t}/nosuch"]'), False),
    ("readfile", ("{t}/one.txt",), "foo"),
    ("readfile", ("{t}/two.txt",), "a\nb\n"),
    ("readfile", ("{t}/two.txt", "2"), "a"),
    ("readfile", ("{t}/two.txt", "3"), "a\nb"),
    ("readfile", ("{t}/one.txt", "inf"), "foo"),
    ("readstringlist", ("{t}/list.txt", "#[^\n]*", "[,\n]", "99", "9999"),
     ["a", "b", "c", "d"]),
    ("readstringlist", ("{t}/list.txt", "", "[,\n]", "2", "9999"), ["a", "b"]),
    ("readintlist", ("{t}/ints.txt", "", "\\s+", "99", "9999"), ["1", "2", "3"]),
    ("data_readstringarray", ("{t}/table.txt", "#[^\n]*", ":", "99", "9999"),
     {"beta": ["3"], "alpha": ["9"]}),
    ("data_readstringarrayidx", ("{t}/table.txt", "#[^\n]*", ":", "2", "9999"),
     [["alpha", "1", "2"], ["beta", "3"]]),
    ("readjson", ("{t}/data.json",), {"a": [1, 2.5], "b": "x"}),
    ("readyaml", ("{t}/data.yaml",), {"a": 1, "b": [True, "q"]}),
    ("readcsv", ("{t}/data.csv",), [["a", "b"], ["1", "x,y"], ['q"q', "1"], [""],
                                    ["last", "x"]]),
    ("readenvfile", ("{t}/data.env",), {"A": "1", "B": "two words", "C": 'x"y', "D": "a\nb"}),
    ("readdata", ("{t}/data.yaml", "auto"), {"a": 1, "b": [True, "q"]}),
    ("readdata", ("{t}/data.json", "JSON"), {"a": [1, 2.5], "b": "x"}),
    ("countlinesmatching", ("[a-z]+:.*", "{t}/table.txt"), "3"),
    ("countlinesmatching", ("x", "{t}/nosuch"), "0"),
    ("regline", ("b.*", "{t}/table.txt"), True),
    ("regline", ("b", "{t}/table.txt"), False),
    ("regline", ("b.*", "{t}/nosuch"), False),
    ("classfiltercsv", ("{t}/filter.csv", "true", "1"), [{"name": "z", "v": "1"},
                                                            {"name": "a", "v": "3"}]),
    ("classfiltercsv", ("{t}/filter.csv", "true", "1", "0"), [{"name": "a", "v": "3"},
                                                                 {"name": "z", "v": "1"}]),
    ("peerleaders", ("{t}/hosts", "#[^\n]*", "2"), ["h1", "localhost", "h5"]),
    ("peerleaders", ("{t}/hosts", "#.*", "2"), []),
]


def _subst(value: Any, root: Path) -> Any:
    if isinstance(value, str):
        return value.replace("{t}", str(root))
    if isinstance(value, list):
        return [_subst(v, root) for v in value]
    if isinstance(value, dict):
        return {k: _subst(v, root) for k, v in value.items()}
    return value


@pytest.mark.parametrize("name,args,expected", CASES)
def test_file_functions(tree: Path, name: str, args: tuple[Any, ...], expected: Any) -> None:
    assert run(FakeContext(), tree, name, *args) == _subst(expected, tree)


ERRORS = [
    ("filesize", ("{t}/nosuch",), "cannot stat"),
    ("filestat", ("{t}/nosuch", "size"), "cannot stat"),
    ("isnewerthan", ("{t}/nosuch", "{t}/one.txt"), "cannot stat"),
    ("readfile", ("{t}/nosuch",), "failed to read"),
    ("readfile", ("{t}/one.txt", "-1"), "less than 0"),
    ("readintlist", ("{t}/list.txt", "", ",", "99", "999"), "has no recognizable value"),
    ("readreallist", ("{t}/reals.txt", "", " ", "99", "999"), "has no recognizable value"),
    ("readjson", ("{t}/bad.json",), "error parsing JSON"),
    ("readjson", ("{t}/prim.json",), "non-container"),
    ("readjson", ("{t}/data.json", "5"), "truncating"),
    ("readjson", ("{t}/nosuch",), "data error parsing JSON file .*: No such file or directory"),
    ("readcsv", ("{t}/nosuch",), "cannot open"),
    ("data_readstringarray", ("{t}/nosuch", "", ":", "9", "99"), "error reading"),
    ("getfields", (".*", "{t}/nosuch", ":", "f"), "could not be read"),
    ("findfiles_up", ("relative", "x"), "not an absolute path"),
    ("findfiles_up", ("{t}/one.txt", "x"), "not a directory"),
    ("findfiles_up", ("{t}", "/abs"), "cannot be an absolute path"),
    ("classfiltercsv", ("{t}/filter.csv", "true", "7"), "out of bounds"),
    ("peers", ("{t}/hosts", "", "1"), "nonsensical group size"),
    ("peerleader", ("{t}/nosuch", "", "2"), "cannot read"),
]


@pytest.mark.parametrize("name,args,message", ERRORS)
def test_file_errors(tree: Path, name: str, args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(FunctionError, match=message):
        run(FakeContext(), tree, name, *args)


def test_time_comparisons(tree: Path) -> None:
    old, new = tree / "one.txt", tree / "two.txt"
    os.utime(old, (1000, 1000))
    os.utime(new, (2000, 2000))
    ctx = FakeContext()
    assert ctx.call("isnewerthan", str(new), str(old)) is True
    assert ctx.call("isnewerthan", str(old), str(new)) is False
    assert ctx.call("accessedbefore", str(old), str(new)) is True
    assert ctx.call("changedbefore", str(old), str(new)) is False


def test_lsdir(tree: Path) -> None:
    ctx = FakeContext()
    assert sorted(ctx.call("lsdir", str(tree / "sub"), "", "false")) == [".", "..", "dir"]
    assert ctx.call("lsdir", str(tree / "sub"), "d.*", "true") == [f"{tree}/sub/dir"]
    assert ctx.call("lsdir", str(tree / "nosuch"), "", "false") == []


def test_array_readers_define_variables(tree: Path) -> None:
    ctx = FakeContext()
    table = str(tree / "table.txt")
    assert ctx.call("readstringarray", "ra", table, "#[^\n]*", ":", "99", "999") == "3"
    values = {k: v.value for k, v in ctx.variables()}
    assert values == {"default:t.ra[alpha][0]": "alpha", "default:t.ra[alpha][1]": "9",
                      "default:t.ra[alpha][2]": "2", "default:t.ra[beta][0]": "beta",
                      "default:t.ra[beta][1]": "3"}
    ctx = FakeContext()
    assert ctx.call("readintarray", "ia", str(tree / "ints.txt"), "", " ", "99", "99") == "2"
    assert ctx.vars["default:t.ia[1][1]"].type == "int"
    ctx = FakeContext()
    assert ctx.call("parsestringarrayidx", "pa", "x y\nz", "", " ", "9", "99") == "2"
    assert {k: v.value for k, v in ctx.variables()} == {
        "default:t.pa[0][0]": "x", "default:t.pa[0][1]": "y", "default:t.pa[1][0]": "z"}
    assert ctx.call("parsestringarray", "pb", "k v\n", "", " ", "9", "0") == "0"
    with pytest.raises(FunctionError, match="to int"):
        ctx.call("parseintarray", "pi", "1 x", "", " ", "9", "99")
    assert ctx.call("parserealarray", "pr", "1.5 2k", "", " ", "9", "99") == "1"
    assert ctx.call("readstringarray", "nf", str(tree / "nosuch"), "", " ", "9", "99") == "0"


def test_getfields(tree: Path) -> None:
    ctx = FakeContext()
    assert ctx.call("getfields", "alpha.*", str(tree / "table.txt"), ":", "gf") == "2"
    assert {k: v.value for k, v in ctx.variables()} == {
        "default:t.gf[1]": "alpha", "default:t.gf[2]": "1", "default:t.gf[3]": "2"}


def test_peers(tree: Path) -> None:
    ctx = FakeContext()
    ctx.set("sys.uqhost", socket.gethostname())
    hosts = str(tree / "hosts")
    assert ctx.call("peers", hosts, "#[^\n]*", "2") == ["h4"]
    assert ctx.call("peerleader", hosts, "#[^\n]*", "2") == "localhost"
    assert ctx.call("peerleader", hosts, "#[^\n]*", "3") == "h1"


def test_hashes(tree: Path) -> None:
    ctx = FakeContext()
    one = str(tree / "one.txt")
    assert ctx.call("file_hash", one, "md5") == "d3b07384d113edec49eaa6238ad5ff00"
    assert ctx.call("hashmatch", one, "md5", "d3b07384d113edec49eaa6238ad5ff00") is True
    assert ctx.call("hashmatch", one, "sha1", "d3b07384d113edec49eaa6238ad5ff00") is False
    assert ctx.call("hashmatch", str(tree / "nosuch"), "md5", "x") is False
    assert ctx.call("file_hash", str(tree / "nosuch"), "md5") == "0" * 32


def test_diskfree(tree: Path) -> None:
    ctx = FakeContext()
    assert int(ctx.call("diskfree", str(tree))) > 0
    assert ctx.call("diskfree", str(tree / "nosuch")) == "0"
