"""Tests of host discovery: hard classes, sys/const variables and time classes.

Three kinds of evidence, all taken from the reference cf-agent 3.21:

* tables recorded from cf-agent runs: time classes at fixed instants and time
  zones (cf-agent under faketime), and the distribution classes, flavor and
  friends for fake release files (cf-agent in a private mount namespace with
  the fake files bound over /etc);
* the same two comparisons live, marked ``reference``, when cf-agent is
  installed (and, for release files, when we are root and may ``unshare -m``);
* a differential run of cf-agent on this host: every hard class and every
  ``sys``/``const``/``mon`` variable it defines must come out of discover()
  with the same tags, types and values (volatile counters excepted).
"""
from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import time
from pathlib import Path

import attrs
import pytest

from cfpromise import resources
from cfpromise.eval import hostinfo, netclasses
from cfpromise.eval.canon import canonify
from cfpromise.eval.hardclasses import HostFacts, discover, parse_policy_server, split_host_name
from cfpromise.eval.hostinfo import scanf
from cfpromise.eval.timeclasses import TIME_CLASS_TAGS, time_classes, time_vars
from tests.eval.hardclass_cases import DISTRIBUTIONS, TIME_CASES

CF_AGENT = shutil.which("cf-agent")
needs_cf_agent = pytest.mark.skipif(CF_AGENT is None, reason="needs the reference cf-agent 3.21")
SHARED = Path(__file__).resolve().parents[3] / "shared"
ACCEPTANCE = SHARED / "conformance" / "cfengine-acceptance"
NOW = 1767618600  # Mon Jan 5 13:10:00 2026 UTC

INV = ("inventory", "attribute_name=none", "source=agent")
TAG_CODES: dict[str, tuple[str, ...]] = {
    "inv": INV + ("hardclass",),
    "virt": ("inventory", "attribute_name=Virtual host", "source=agent", "hardclass"),
    "flavor": INV + ("derived-from=sys.flavor", "hardclass"),
    "agent": ("source=agent", "hardclass"),
}


def tags_of(code: str) -> tuple[str, ...]:
    """Expand a tag code of hardclass_cases; a path means derived-from-file=<path>."""
    if code in TAG_CODES:
        return TAG_CODES[code]
    return INV + (f"derived-from-file={code}", "hardclass")


# ---------------------------------------------------------------------------
# canonify, scanf, small helpers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("linux", "linux"),
        ("127.0.0.1", "127_0_0_1"),
        ("fe80::fc:ff:fe00:1", "fe80__fc_ff_fe00_1"),
        ("#1 SMP PREEMPT_DYNAMIC @0", "_1_SMP_PREEMPT_DYNAMIC__0"),
        ("aé-b.c", "a___b_c"),  # one underscore per UTF-8 byte, as cf-agent
        ("", ""),
    ],
)
def test_canonify(text: str, expected: str) -> None:
    assert canonify(text) == expected


@pytest.mark.parametrize(
    ("fmt", "text", "expected"),
    [
        ("%d.%d", "12.11", [12, 11]),
        ("%d.%d", "trixie/sid", []),
        ("%d.%d", "9 (Shrike)", [9]),
        ("%25[^/]", "trixie/sid", ["trixie"]),
        ("%*s %*s %255[^./]", "Debian GNU/Linux 12", ["12"]),
        ("%*s %255[^.].%255s", "Ubuntu 22.04.3 LTS", ["22", "04.3"]),
        ("Slackware %d.%d.%d", "Slackware 15.0", [15, 0]),
        ("%255[-_a-zA-Z0-9]", "sles-11-sp2 (x86_64)", ["sles-11-sp2"]),
        ("VERSION = %d", "VERSION = 11", [11]),
        ("%*s %*s %*s %*s %127s", "Amazon Linux release 2 (Karoo)", ["(Karoo)"]),
    ],
)
def test_scanf(fmt: str, text: str, expected: list[object]) -> None:
    assert scanf(fmt, text) == expected


@pytest.mark.parametrize(
    ("nodename", "dnsname", "expected"),
    [
        ("vm", "vm", ("vm", "vm", "")),
        ("web1", "web1.example.com", ("web1.example.com", "web1", "example.com")),
        ("web1.example.com", "", ("web1.example.com", "web1", "example.com")),
        ("a", "b.example.org", ("b.example.org", "a", "")),
    ],
)
def test_split_host_name(nodename: str, dnsname: str, expected: tuple[str, str, str]) -> None:
    assert split_host_name(nodename, dnsname) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10.1.2.3\n", ("10.1.2.3", "5308")),
        ("10.1.2.3:5309", ("10.1.2.3", "5309")),
        ("[fd00::2]:99", ("fd00::2", "99")),
        ("fd00::2", ("fd00::2", "5308")),
        ("hub.example.com", ("hub.example.com", "5308")),
    ],
)
def test_parse_policy_server(text: str, expected: tuple[str, str]) -> None:
    assert parse_policy_server(text) == expected


def test_natural_order_is_ifconfigs() -> None:
    names = ["lo", "eth10", "eth2", "ifb0", "eth0:1", "eth0"]
    ordered = ["eth0", "eth0:1", "eth2", "eth10", "ifb0", "lo"]
    assert sorted(names, key=hostinfo.natural_key) == ordered


# The key of the reference install; cf-agent prints sys.key_digest MD5=590a64b2...
PUBKEY = """-----BEGIN RSA PUBLIC KEY-----
MIIBCgKCAQEAvtCYkhWtKrLP4Po0SXalJZ05JT7s1zGojuxxEX0iWMRUHwXI5ccr
X6zpEetaXjkhVv75gPcqXviSuyMaJRVh67NbtrAoAEc8qE6wcPaWVHNS5b8zOWn5
dj3HvxrPIgBAB27OvzOvK6eW2lPK10yLqLCSqzqcYn9YlJMKVRiRDI1Shyx6Y3xF
hOd7bSwpNeis/6To0/mTded0TX0wPid5j5iC2A0PyZiYRfbDhpXl/WQLjBTEySVy
b0D7z1cuyhpJFo/hz7OEFzwlSXtGKJLmfl8jSA+QNI5EnojUBS7dadPUoDeKepFu
3kFjSuk7nu/wQclJ1QtNLFG8iGdW86ceYQIDAQAB
-----END RSA PUBLIC KEY-----
"""


def test_pubkey_digest() -> None:
    assert hostinfo.pubkey_digest(PUBKEY) == "MD5=590a64b21c3cc42deba1cdefc5579d03"


def test_pubkey_digest_of_acceptance_key() -> None:
    keys = sorted(ACCEPTANCE.glob("root-MD5=*.pub"))
    if not keys:
        pytest.skip("no acceptance suite beside the repository")
    for key in keys:
        assert hostinfo.pubkey_digest(key.read_text()) == key.name[len("root-"):-len(".pub")]


# ---------------------------------------------------------------------------
# Time classes


def test_time_classes_recorded_from_cf_agent() -> None:
    zoneinfo = pytest.importorskip("zoneinfo")
    for tz_name, instant, expected in TIME_CASES:
        try:
            tz = zoneinfo.ZoneInfo(tz_name)
        except zoneinfo.ZoneInfoNotFoundError:
            pytest.skip("no time zone data")
        classes = time_classes(instant, tz=tz)
        assert set(classes) == expected, (tz_name, instant)
        assert all(tags == TIME_CLASS_TAGS for tags in classes.values())


def test_time_classes_rules() -> None:
    from datetime import datetime, timezone

    now = datetime(2026, 11, 21, 7, 58, 44, tzinfo=timezone.utc)
    names = set(time_classes(now, tz=timezone.utc))
    assert {"Hr07", "Hr7", "Hr07_Q4", "Q4", "Min58", "Min55_00", "Morning", "Saturday",
            "November", "Day21", "Yr2026", "Lcycle_1"} <= names
    assert {"GMT_" + n for n in ("Hr07", "Hr7", "Min55_00", "Lcycle_1")} <= names
    assert len(names) == 24  # Hr07 != Hr7: twelve local, twelve GMT


def test_time_vars() -> None:
    from datetime import timezone

    values = {k: v[1] for k, v in time_vars(1795247924, tz=timezone.utc).items()}
    assert values == {
        "systime": "1795247924",
        "sysday": "20778",
        "date": "Sat Nov 21 07:58:44 2026",
        "cdate": "Sat_Nov_21_07_58_44_2026",
    }
    assert time_vars(1793521800, tz=timezone.utc)["date"][1] == "Sun Nov  1 08:30:00 2026"


# ---------------------------------------------------------------------------
# Distributions from fake release files


def make_root(base: Path, files: dict[str, str]) -> Path:
    for path, content in files.items():
        target = base / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    base.mkdir(parents=True, exist_ok=True)
    return base


def new_classes(facts: HostFacts, baseline: HostFacts) -> dict[str, tuple[str, ...]]:
    return {
        name: tags for name, tags in facts.classes.items()
        if name not in baseline.classes and "time_based" not in tags
    }


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> HostFacts:
    root = tmp_path_factory.mktemp("empty-root")
    return discover(str(root / "w"), root=str(root), now=NOW)


@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
def test_distribution(name: str, tmp_path: Path, baseline: HostFacts) -> None:
    files, classes, variables = DISTRIBUTIONS[name]
    root = make_root(tmp_path / "root", files)
    facts = discover(str(tmp_path / "w"), root=str(root), now=NOW)
    assert new_classes(facts, baseline) == {k: tags_of(v) for k, v in classes.items()}
    for var, value in variables.items():
        got = facts.sys_vars.get(var)
        assert (got[1] if got else None) == value, var


def test_crontab_follows_distribution(tmp_path: Path) -> None:
    user = pwd.getpwuid(os.getuid()).pw_name
    files = DISTRIBUTIONS["rhel8"][0]
    facts = discover(str(tmp_path / "w"), root=str(make_root(tmp_path / "r", files)), now=NOW)
    assert facts.sys_vars["crontab"][1] == f"/var/spool/cron/{user}"
    facts = discover(str(tmp_path / "w"), root=str(make_root(tmp_path / "e", {})), now=NOW)
    assert facts.sys_vars["crontab"][1] == f"/var/spool/cron/crontabs/{user}"


def test_systemd_and_virtualisation(tmp_path: Path, baseline: HostFacts) -> None:
    root = make_root(tmp_path / "root", {
        "/proc/1/cmdline": "/sbin/init\0splash\0",
        "/lib/systemd/systemd": "",
        "/proc/xen/capabilities": "control_d\n",
        "/proc/self/status": "Name: x\n",
        "/proc/vz/placeholder": "",
    })
    (root / "sbin").mkdir()
    (root / "sbin" / "init").symlink_to("/lib/systemd/systemd")
    facts = discover(str(tmp_path / "w"), root=str(root), now=NOW)
    assert new_classes(facts, baseline) == {
        "systemd": tags_of("inv"),
        "xen": tags_of("virt"),
        "xen_dom0": tags_of("virt"),
        "virt_guest_vz": tags_of("virt"),
    }


# ---------------------------------------------------------------------------
# /proc/net and ifconfig


def test_proc_net_matches_acceptance_expectation(tmp_path: Path) -> None:
    base = ACCEPTANCE / "00_basics" / "environment"
    if not (base / "proc").is_dir():
        pytest.skip("no acceptance suite beside the repository")
    expected = json.loads((base / "proc-net.cf.sub.expected.json").read_text())
    facts = discover(str(tmp_path / "w"), root=str(base / "proc"), now=NOW)
    for name in ("inet", "inet6", "interfaces_data"):
        assert facts.sys_vars[name][1] == expected[name], name
        assert facts.sys_vars[name][2] == ("networking", "/proc", "source=agent", "procfs")
    assert "ipv4_gw_192_168_2_1" in facts.classes


IPV6_ROUTE = (
    "fd000000000000000000000000000000 40 00000000000000000000000000000000 00 "
    "00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0\n"
    "00000000000000000000000000000000 00 00000000000000000000000000000000 00 "
    "fd000000000000000000000000000001 00000400 00000002 00000000 00000003     eth0\n"
    "00000000000000000000000000000001 80 00000000000000000000000000000000 00 "
    "00000000000000000000000000000000 00000000 00000009 0000020b 80200001       lo\n"
    "00000000000000000000000000000000 00 00000000000000000000000000000000 00 "
    "00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo\n"
)


def test_ipv6_routes_keep_cf_agent_quirks() -> None:
    routes = netclasses.parse_ipv6_route(IPV6_ROUTE)
    # 'use' 0000020b has hex letters: cf-agent drops the line
    assert [r["interface"] for r in routes] == ["eth0", "eth0", "lo"]
    assert routes[0]["dest"] == "0:0:0:0:0:0:0:0"  # printed from the source column
    assert routes[0]["flags"] == ["up", "net", "local"]
    assert routes[1]["next_hop"] == "fd00:0:0:0:0:0:0:1"
    assert routes[1]["metric"] == 1024 and routes[1]["flags"] == ["up", "net", "gateway"]
    assert routes[2]["metric"] == -1 and routes[2]["flags"] == ["down", "net", "local"]


def test_ipv4_routes_and_default_gateway(tmp_path: Path) -> None:
    root = make_root(tmp_path / "root", {
        "/proc/net/route": (
            "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
            "eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
            "eth0\t00000000\t010200C0\t0003\t0\t0\t100\t00000000\t0\t0\t0\n"
            "eth1\t00000000\t010300C0\t0003\t0\t0\t50\t00000000\t0\t0\t0\n"
        ),
    })
    facts = discover(str(tmp_path / "w"), root=str(root), now=NOW)
    inet = facts.sys_vars["inet"][1]
    assert isinstance(inet, dict)
    assert inet["default_gateway"] == "192.0.2.1"  # 3.21: the first default route wins
    assert [r["active_default_gateway"] for r in inet["routes"]] == [False, True, True]
    assert inet["routes"][0]["flags"] == ["up", "net", "not_default", "local"]
    assert inet["routes"][0]["mask"] == "255.255.255.0"
    assert "ipv4_gw_192_0_2_1" in facts.classes


def test_ifconfig_facts_from_proc_and_sys(tmp_path: Path, baseline: HostFacts) -> None:
    root = make_root(tmp_path / "root", {
        "/sbin/ifconfig": "",
        "/proc/net/dev": (
            "Inter-|   Receive    |  Transmit\n face |bytes packets|bytes\n"
            + "".join(f"{n}: " + " ".join(["0"] * 16) + "\n" for n in ("lo", "eth10", "eth2"))
        ),
        "/proc/net/if_inet6": (
            "00000000000000000000000000000001 01 80 10 80       lo\n"
            "fe8000000000000000fc00fffe000001 03 40 20 80    eth10\n"
            "fd000000000000000000000000000002 02 40 00 80     eth2\n"
            "fd000000000000000000000000000003 03 40 00 80    eth10\n"
            "fe800000000000000000000000001234 03 40 20 80    eth10\n"
        ),
        "/sys/class/net/eth2/type": "1\n",
        "/sys/class/net/eth2/address": "02:00:00:00:00:02\n",
        "/sys/class/net/eth10/type": "1\n",
        "/sys/class/net/eth10/address": "02:00:00:00:00:10\n",
        "/sys/class/net/lo/type": "772\n",
        "/sys/class/net/lo/address": "00:00:00:00:00:00\n",
    })
    facts = discover(str(tmp_path / "w"), root=str(root), now=NOW)
    sys_vars = facts.sys_vars
    # ifconfig order: natural name order, then /proc/net/if_inet6 order; ::1 left out
    ipv6 = ["fd00::2", "fe80::fc:ff:fe00:1", "fd00::3", "fe80::1234"]
    assert sys_vars["ip_addresses"][1] == ipv6
    for address in ipv6:
        assert canonify(address) in facts.classes
        assert "ipv6_" + canonify(address) in facts.classes
    assert sys_vars["hardware_mac[eth2]"] == ("string", "02:00:00:00:00:02",
                                             ("source=agent", "derived-from=ifconfig"))
    assert sys_vars["hardware_addresses"][1] == ["02:00:00:00:00:02", "02:00:00:00:00:10"]
    assert "hardware_mac[lo]" not in sys_vars
    addresses = sys_vars["inet6"][1]["addresses"]  # type: ignore[index]
    # the last address of an interface wins, but never a link-local one
    assert addresses["eth10"]["address"] == "fd00:0:0:0:0:0:0:3"


# ---------------------------------------------------------------------------
# discover() on this host


def test_discover_basics(tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    (workdir / "bin").mkdir(parents=True)
    (workdir / "bin" / "cf-agent").write_text("")
    policy = tmp_path / "p.cf"
    facts = discover(str(workdir), policy_file=str(policy), now=NOW)
    with pytest.raises(AttributeError):
        facts.classes = {}  # type: ignore[misc]
    for name in ("any", "agent", "cfengine", "cfengine_3", "cfengine_3_21", "cfengine_3_21_0",
                 "community_edition", "compiled_on_linux_gnu", "feature_xml", "Monday",
                 "GMT_Hr13", "Lcycle_1"):
        assert name in facts.classes, name
    assert facts.classes["any"] == ("source=agent", "hardclass")
    uname = os.uname()
    assert canonify(f"linux_{uname.machine}") in facts.classes
    sys_vars = facts.sys_vars
    values = {k: v[1] for k, v in sys_vars.items()}
    w = str(workdir)
    assert values["workdir"] == w and values["logdir"] == w and values["piddir"] == w
    assert values["inputdir"] == w + "/inputs" and values["statedir"] == w + "/state"
    assert values["masterdir"] == w + "/masterfiles"
    # cf-lite's own standard library until WORKDIR/inputs/lib holds one (cfpromise.resources)
    assert values["libdir"] == resources.libdir(w + "/inputs")
    assert values["bindir"] == w + "/bin"
    assert values["default_policy_path"] == w + "/inputs/promises.cf"
    assert values["cf_agent"] == f'"{w}/bin/cf-agent"' and values["cf_twin"] == values["cf_agent"]
    assert values["policy_entry_filename"] == str(policy)
    assert values["policy_entry_basename"] == "p.cf"
    assert values["systime"] == str(NOW) and sys_vars["systime"][0] == "int"
    assert values["cf_version"] == "3.21.0"
    assert values["os"] == "linux" and values["release"] == uname.release
    assert sys_vars["cpus"][0] == "string" and sys_vars["user_data"][0] == "data"
    assert {k: v[1] for k, v in facts.const_vars.items()} == {
        "at": "@", "dollar": "$", "n": "\n", "r": "\r", "t": "\t", "endl": "\n", "dirsep": "/",
    }
    assert facts.def_vars["jq"][1].startswith("jq --compact-output")


def test_discover_bootstrap_key_and_monitor(tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    for sub in ("ppkeys", "state", "masterfiles"):
        (workdir / sub).mkdir(parents=True)
    (workdir / "ppkeys" / "localhost.pub").write_text(PUBKEY)
    (workdir / "policy_server.dat").write_text("[fd00::2]:99\n")
    (workdir / "state" / "am_policy_hub").write_text("")
    (workdir / "masterfiles" / "cf_promises_validated").write_text("{}")
    (workdir / "state" / "env_data").write_text('loadavg_high\nusers=3\n@listy={"a","b"}\n')
    facts = discover(str(workdir), now=time.time())
    values = {k: v[1] for k, v in facts.sys_vars.items()}
    assert values["key_digest"] == "MD5=590a64b21c3cc42deba1cdefc5579d03"
    assert "PK_MD5_590a64b21c3cc42deba1cdefc5579d03" in facts.classes
    assert values["policy_hub"] == "fd00::2" and values["policy_hub_port"] == "99"
    assert facts.sys_vars["policy_hub"][2] == ("source=bootstrap",)
    assert "last_policy_update" in values
    assert facts.classes["policy_server"] == (
        "inventory", "attribute_name=CFEngine roles", "source=bootstrap", "hardclass")
    assert facts.classes["loadavg_high"] == ("monitoring", "source=environment", "hardclass")
    assert facts.mon_vars["users"] == ("string", "3", ("monitoring", "source=environment"))
    assert facts.mon_vars["listy"][1] == ["a", "b"]
    old = time.time() - 7200
    os.utime(workdir / "state" / "env_data", (old, old))
    assert discover(str(workdir)).mon_vars == {}


# ---------------------------------------------------------------------------
# Differential: the reference cf-agent on this host

DUMP_POLICY = """
body common control { bundlesequence => { "main" }; }
bundle agent main {
vars:
  "d" data => variablesmatching_as_data("default:(sys|const|mon)\\..*");
  "s" string => storejson("d");
  "v" slist => variablesmatching("default:(sys|const|mon)\\..*");
  "t[$(v)]" string => type("$(v)", "true");
  "g[$(v)]" slist => getvariablemetatags("$(v)");
  "gj[$(v)]" string => join(",", "g[$(v)]");
  "c" slist => classesmatching(".*", "hardclass");
  "ct[$(c)]" slist => getclassmetatags("$(c)");
  "ctj[$(c)]" string => join(",", "ct[$(c)]");
files:
  "OUTPUT" create => "true", content => "$(s)";
reports:
  "VAR $(v) $(t[$(v)]) $(gj[$(v)])";
  "CLASS $(c) $(ctj[$(c)])";
}
"""
TYPES = {"policy string": "string", "policy slist": "slist", "policy int": "int",
         "data object": "data", "data array": "data"}


def make_workdir(path: Path) -> Path:
    (path / "bin").mkdir(parents=True)
    (path / "ppkeys").mkdir(mode=0o700)
    cf_promises = shutil.which("cf-promises")
    if cf_promises:
        (path / "bin" / "cf-promises").symlink_to(cf_promises)
    return path


def run_reference(workdir: Path, tmp: Path, prefix: str = "") -> tuple[dict, dict, dict]:
    """Run cf-agent on the dump policy: (classes -> tags, var -> (type, tags), var -> value)."""
    output = tmp / "dump.json"
    policy = tmp / "dump.cf"
    policy.write_text(DUMP_POLICY.replace("OUTPUT", str(output)))
    command = [CF_AGENT or "cf-agent", "-K", "-w", str(workdir), "-f", str(policy)]
    if prefix:
        command = ["unshare", "-m", "bash", "-c", prefix + " ".join(command)]
    text = subprocess.run(command, capture_output=True, text=True, timeout=120).stdout
    classes: dict[str, tuple[str, ...]] = {}
    var_meta: dict[str, tuple[str, tuple[str, ...]]] = {}
    for line in text.splitlines():
        if line.startswith("R: CLASS "):
            _, _, name, tags = line.split(" ", 3)
            classes[name] = tuple(tags.split(","))
        elif line.startswith("R: VAR "):
            _, _, name, kind, sub, tags = line.split(" ", 5)
            var_meta[name] = (TYPES[f"{kind} {sub}"], tuple(tags.split(",")) if tags else ())
    assert output.exists(), text
    return classes, var_meta, json.loads(output.read_text())


def without_counters(value: object) -> object:
    if isinstance(value, dict):
        return {k: without_counters(v) for k, v in value.items()
                if k != "stats" and not k.startswith(("receive_", "transmit_"))}
    if isinstance(value, list):
        return [without_counters(v) for v in value]
    return value


def compare_with_reference(facts: HostFacts, classes: dict, var_meta: dict, values: dict) -> None:
    systime = int(values["default:sys.systime"])
    ref_time = {k for k, t in classes.items() if "time_based" in t}
    assert any(ref_time == set(time_classes(systime + d)) for d in (0, -1, 1))
    ref_other = {k: t for k, t in classes.items() if "time_based" not in t}
    mine_other = {k: t for k, t in facts.classes.items() if "time_based" not in t}
    assert mine_other == ref_other
    mine_vars = {f"default:sys.{k}": v for k, v in facts.sys_vars.items()}
    mine_vars.update({f"default:const.{k}": v for k, v in facts.const_vars.items()})
    mine_vars.update({f"default:mon.{k}": v for k, v in facts.mon_vars.items()})
    assert sorted(mine_vars) == sorted(var_meta)
    for name, (kind, tags) in var_meta.items():
        mine_kind, mine_value, mine_tags = mine_vars[name]
        assert (mine_kind, mine_tags) == (kind, tags), name
        ref = values[name]
        ref = str(ref) if isinstance(ref, int) else ref
        if name.endswith(("sys.inet", "sys.inet6", "sys.interfaces_data")):
            assert without_counters(mine_value) == without_counters(ref), name
        elif name == "default:sys.uptime":
            assert abs(int(str(mine_value)) - int(ref)) <= 1
        elif name == "default:sys.libdir" and not os.path.isfile(f"{ref}/stdlib.cf"):
            assert mine_value == resources.share_dir("bundles")   # documented fallback
        else:
            assert mine_value == ref, name


@pytest.mark.reference
@needs_cf_agent
def test_differential_plain_workdir(tmp_path: Path) -> None:
    workdir = make_workdir(tmp_path / "work")
    classes, var_meta, values = run_reference(workdir, tmp_path)
    facts = discover(str(workdir), policy_file=str(tmp_path / "dump.cf"),
                     now=int(values["default:sys.systime"]))
    compare_with_reference(facts, classes, var_meta, values)


@pytest.mark.reference
@needs_cf_agent
def test_differential_bootstrapped_workdir(tmp_path: Path) -> None:
    workdir = make_workdir(tmp_path / "work")
    cf_key = shutil.which("cf-key")
    if cf_key:
        subprocess.run([cf_key, "-f", str(workdir / "ppkeys" / "localhost")],
                       capture_output=True, timeout=120)
    (workdir / "policy_server.dat").write_text("127.0.0.1:5309\n")
    (workdir / "state").mkdir()
    (workdir / "state" / "am_policy_hub").write_text("")
    (workdir / "state" / "env_data").write_text('loadavg_high\nusers=3\n@listy={"a","b"}\n')
    (workdir / "masterfiles").mkdir()
    (workdir / "masterfiles" / "cf_promises_validated").write_text("{}")
    classes, var_meta, values = run_reference(workdir, tmp_path)
    facts = discover(str(workdir), policy_file=str(tmp_path / "dump.cf"),
                     now=int(values["default:sys.systime"]))
    compare_with_reference(facts, classes, var_meta, values)


def can_unshare() -> bool:
    if os.getuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "mount", "--bind", "/tmp", "/tmp"],
                           capture_output=True, timeout=30)
    return probe.returncode == 0


# /etc files cf-agent needs to start in a namespace where /etc is a fake tree.
RUNTIME_ETC = ("passwd", "group", "nsswitch.conf", "hosts", "host.conf", "resolv.conf",
               "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "services", "gai.conf", "localtime")


@pytest.mark.reference
@needs_cf_agent
def test_differential_distributions(tmp_path: Path) -> None:
    if not can_unshare():
        pytest.skip("needs root and unshare -m to show cf-agent fake release files")

    def reference(name: str, files: dict[str, str]) -> tuple[dict, dict]:
        root = make_root(tmp_path / name, files)
        (root / "etc").mkdir(exist_ok=True)
        (root / "usr" / "lib").mkdir(parents=True, exist_ok=True)
        (root / "usr" / "lib" / "os-release").write_text("")
        for entry in RUNTIME_ETC:
            if os.path.lexists(f"/etc/{entry}"):
                subprocess.run(["cp", "-a", f"/etc/{entry}", str(root / "etc")], check=True)
        binds = (f"mount --bind {root}/etc /etc && "
                 f"mount --bind {root}/usr/lib/os-release /usr/lib/os-release && ")
        workdir = make_workdir(tmp_path / f"{name}-work")
        classes, _, values = run_reference(workdir, tmp_path, prefix=binds)
        return classes, values

    base_classes, _ = reference("baseline", {})
    mine_base = discover(str(tmp_path / "w"), root=str(make_root(tmp_path / "mine-base", {})))
    for name, (files, _, _) in DISTRIBUTIONS.items():
        classes, values = reference(name, files)
        expected = {k: t for k, t in classes.items()
                    if k not in base_classes and "time_based" not in t}
        facts = discover(str(tmp_path / "w"), root=str(tmp_path / name))
        assert new_classes(facts, mine_base) == expected, name
        for var in ("flavor", "flavour", "os_release", "os_name_human", "os_version_major",
                    "crontab", "doc_root"):
            got = facts.sys_vars.get(var)
            assert (got[1] if got else None) == values.get(f"default:sys.{var}"), (name, var)


def test_proc_net_is_read_below_the_test_override(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    procdir = make_root(tmp_path / "procdir", {
        "/proc/net/route": (
            "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
            "eth9\t00000000\t010300C0\t0003\t0\t0\t50\t00000000\t0\t0\t0\n"
        ),
    })
    monkeypatch.setenv("CFENGINE_TEST_OVERRIDE_PROCDIR", str(procdir))
    facts = discover(str(tmp_path / "w"), root=str(make_root(tmp_path / "r", {})), now=NOW)
    inet = facts.sys_vars["inet"][1]
    assert isinstance(inet, dict) and inet["default_gateway"] == "192.0.3.1"
    assert "ipv4_gw_192_0_3_1" in facts.classes
