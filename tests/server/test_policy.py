"""Server policy: body server control and server bundles evaluated into access tables."""
from __future__ import annotations

import os
from pathlib import Path

from cfpromise.server.policy import canonical_rule_path, load_server_policy
from tests.server.helpers import write_policy

POLICY = """
body common control { bundlesequence => { "x" }; inputs => { "lib.cf" }; }
body server control {
  port => "6001"; maxconnections => "7"; allowconnects => { "127.0.0.1", "10.0.0.0/8" };
  denyconnects => { "10.1.1.1" }; trustkeysfrom => { "127.0.0.1" }; allowusers => { "root" };
  cfruncommand => "/bin/true"; allowciphers => "AES256-SHA"; allowtlsversion => "1.2";
  denybadclocks => "false"; bindtointerface => "127.0.0.1";
}
bundle server x {
 vars: "dirs" slist => { "@DIR@/a", "@DIR@/b" };
 classes: "enabled" expression => "any";
 access:
  "$(dirs)" admit_ips => { "$(lib.net)" }, maproot => { "127.0.0.1" };
  enabled::
  "@DIR@/link" admit_keys => { "MD5=ab" };
  !enabled::
  "@DIR@/never" admit_ips => { "127.0.0.1" };
  any::
  "relative/path" admit_ips => { "127.0.0.1" };
  "no handle" resource_type => "literal", admit_ips => { "127.0.0.1" };
  "v" resource_type => "variable", admit_ips => { "127.0.0.1" };
  "q" resource_type => "query", admit_ips => { "127.0.0.1" };
  "b" resource_type => "bundle", admit_ips => { "127.0.0.1" };
  "@DIR@/a" deny_hostnames => { ".evil.example" }, shortcut => "adir";
 roles:
  "r_.*" authorize => { "alice", "bob" };
}
"""


def test_server_policy_tables(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    os.symlink(tmp_path / "a", tmp_path / "link")
    write_policy(str(tmp_path / "lib.cf"), 'bundle common lib { vars: "net" string => "127.0.0.1"; }\n')
    policy = write_policy(str(tmp_path / "s.cf"), POLICY.replace("@DIR@", str(tmp_path)))
    access = load_server_policy(policy, str(tmp_path / "wd"))
    assert (access.port, access.maxconnections, access.cfruncommand) == (6001, 7, "/bin/true")
    assert access.allowconnects == ["127.0.0.1", "10.0.0.0/8"] and access.denyconnects == ["10.1.1.1"]
    assert access.allowciphers == "AES256-SHA" and access.allowtlsversion == "1.2"
    assert access.denybadclocks is False and access.bindtointerface == "127.0.0.1"
    a, b = f"{tmp_path}/a/", f"{tmp_path}/b/"
    assert set(access.paths.entries) == {a, b}          # link resolved into a/, never skipped
    assert access.paths.entries[a].admit.ips == ["127.0.0.1"]      # from the common bundle
    assert access.paths.entries[a].admit.keys == ["MD5=ab"]        # the symlink's rule, on a/
    assert access.paths.entries[a].deny.hostnames == [".evil.example"]
    assert access.paths.entries[a].maps_root("127.0.0.1", "")
    assert access.shortcuts == {"adir": f"{tmp_path}/a"}
    assert any("relative" not in p for p in access.paths.entries)
    assert any("Failed to canonicalize path 'relative/path'" in e for e in access.errors)
    assert any("requires you to define a promise handle" in e for e in access.errors)
    assert set(access.variables.entries) == {"v"} and set(access.queries.entries) == {"q"}
    assert set(access.bundles.entries) == {"b"}
    assert access.roles.entries["r_.*"].admit.usernames == ["alice", "bob"]
    assert str(tmp_path / "lib.cf") in access.files and policy in access.files


def test_no_access_promise_serves_nothing(tmp_path: Path) -> None:
    policy = write_policy(str(tmp_path / "s.cf"), 'bundle server x { }\n')
    access = load_server_policy(policy, str(tmp_path / "wd"))
    assert not access.paths.check_path("/", "127.0.0.1", "", "")
    assert not access.paths.check_path("/etc/passwd", "127.0.0.1", "", "")


def test_canonical_rule_path(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    assert canonical_rule_path(str(tmp_path / "d")) == f"{tmp_path}/d/"
    assert canonical_rule_path(str(tmp_path / "d" / ".." / "d" / "")) == f"{tmp_path}/d/"
    assert canonical_rule_path("/no/such/dir/.") == "/no/such/dir/"
    assert canonical_rule_path("/no/such/file") == "/no/such/file"
    assert canonical_rule_path("rel") is None
