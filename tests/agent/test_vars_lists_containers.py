"""cf-lite-agent end to end: list and data container semantics of vars and bundle calls
(cf_null, policy => "ifdefined", JSON null, @(...) references, meta pre-evaluation)."""
from __future__ import annotations

from pathlib import Path

from tests.agent.test_agent_run import agent, reports


def test_cf_null_is_iterated_like_any_element(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  vars:
      "l" slist => { "1", "cf_null", "2" };
  reports:
      "[$(l)]";
}
""")
    assert reports(proc) == ["[1]", "[cf_null]", "[2]"]


def test_ifdefined_drops_only_undefined_whole_lists(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  vars:
      "x" slist => { "a", "b" };
      "x1" slist => { @(x), @(undefined1), "$(undef3)", "q" }, policy => "ifdefined";
      "x2" slist => { @(undefined1), @(undefined2) }, policy => "ifdefined";
      "x3" slist => { @(x), @(undefined1) };
      "j1" string => join(",", x1);
      "j2" string => join(",", x2);
      "j3" string => join(",", x3);
  reports:
      "x1=$(j1)";
      "x2=$(j2)";
      "x3=$(j3)";
}
""")
    # values still holding a reference are defined (and reported) in the last pass
    assert sorted(reports(proc)) == ["x1=a,b,$(undef3),q", "x2=", "x3=a,b,@(undefined1)"]


def test_whole_list_reference_with_an_inner_reference(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  vars:
      "k" string => "one";
      "arr[$(k)]" slist => { "a", "b" };
      "two" slist => { "c" };
      "both" slist => { @(arr[$(k)]), @(two) };
  reports:
      "$(both)";
}
""")
    assert reports(proc) == ["a", "b", "c"]


def test_json_null_skips_the_promise(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
bundle agent main
{
  vars:
      "d" data => '{ "a": null, "b": "x", "l": [ "p", null, "q" ] }';
      "k" slist => getindices(d);
  reports:
      "a=$(d[a])";
      "$(k)=$(d[$(k)])";
      "l=$(d[l])";
      "missing=$(d[zz])";
}
""")
    assert reports(proc) == ["b=x", "l=p", "l=q", "missing=$(d[zz])"]


def test_meta_tags_of_every_bundle_are_known_before_it_runs(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
body common control { bundlesequence => { "main" }; }
bundle agent main
{
  vars:
      "auto" slist => bundlesmatching(".*", "autorun");
  methods:
      "$(auto)";
}
bundle agent first { meta: "tags" slist => { "autorun" }; reports: "first"; }
bundle agent second(x) { meta: "tags" slist => { "autorun" }; }
bundle agent third { meta: "tags" slist => { "autorun" }; reports: "third"; }
""")
    # cf-agent lists the matching bundles last defined first; second(x) needs an argument
    assert reports(proc) == ["third", "first"]


def test_data_array_passed_whole_to_a_bundle_stays_data(tmp_path: Path) -> None:
    proc = agent(tmp_path, """
body common control { bundlesequence => { "main" }; }
bundle agent main
{
  vars:
      "d" data => '[ { "a": 1 }, "s" ]';
      "strings" data => '[ "x", "y" ]';
  methods:
      "" usebundle => show(@(d));
      "" usebundle => show(@(strings));
}
bundle agent show(p)
{
  vars:
      "s" string => format("%S", p);
  reports:
      "$(s)";
}
""")
    assert reports(proc) == ['[{"a":1},"s"]', '["x","y"]']
