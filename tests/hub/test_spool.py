"""The host's spool: deltas, acknowledgement, the bound, rebase when a delta cannot be served."""
from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from cfpromise.agent.outcome import Outcome
from cfpromise.hub import spool


def _record(promiser: str, outcome: str, ptype: str = "files", changes=()) -> SimpleNamespace:
    return SimpleNamespace(bundle="default:main", ptype=ptype, promiser=promiser, handle=None,
                           file="/p.cf", line=len(promiser), outcome=getattr(Outcome, outcome.upper()),
                           changes=[dict(c) for c in changes])


def _run(workdir: str, records, inventory=None, now: float = 1000.0) -> int:
    return spool.record_run(workdir, started=now, seconds=0.1, exit_code=0, release_id="r1",
                            promises=spool.promise_states(records),
                            inventory=inventory or {"sys.fqhost": "a.example"},
                            monitoring={}, now=now)


def test_a_converged_run_spools_only_its_counts(tmp_path) -> None:
    wd = str(tmp_path)
    records = [_record(f"/f{i}", "kept") for i in range(300)]
    _run(wd, records)
    seq = _run(wd, records)
    path = dict(spool.run_files(wd))[seq]
    run = spool._load_json(path)
    assert run["promises"] == [] and run["gone"] == [] and "inventory" not in run
    assert run["kept"] == 300
    assert os.path.getsize(path) < 400


def test_changed_outcomes_repairs_and_gone_promises_are_spooled(tmp_path) -> None:
    wd = str(tmp_path)
    _run(wd, [_record("/a", "kept"), _record("/b", "kept"), _record("/c", "kept")])
    seq = _run(wd, [_record("/a", "failed"), _record("/b", "repaired",
                                                        changes=[{"kind": "content"}])])
    run = spool._load_json(dict(spool.run_files(wd))[seq])
    assert {p["promiser"]: p["outcome"] for p in run["promises"]} == {"/a": "failed",
                                                                     "/b": "repaired"}
    assert len(run["gone"]) == 1
    assert run["notkept"] == 1 and run["repaired"] == 1


def test_vars_classes_and_skipped_are_not_promise_state(tmp_path) -> None:
    states = spool.promise_states([_record("v", "repaired", ptype="vars"),
                                   _record("c", "kept", ptype="classes"),
                                   _record("/s", "skipped"), _record("/x", "kept")])
    assert [s["promiser"] for s in states.values()] == ["/x"]


def test_iterations_merge_failure_wins(tmp_path) -> None:
    states = spool.promise_states([_record("/x", "kept"), _record("/x", "failed"),
                                   _record("/x", "repaired")])
    assert [s["outcome"] for s in states.values()] == ["failed"]


def test_delta_acknowledges_and_rebase_when_it_cannot_be_served(tmp_path) -> None:
    wd = str(tmp_path)
    for n in range(3):
        _run(wd, [_record("/a", "kept" if n % 2 else "repaired")], now=1000 + n)
    first = spool.answer(wd, "rebase")
    assert first["kind"] == "rebase" and [r["seq"] for r in first["runs"]] == [1, 2, 3]
    epoch = first["epoch"]
    delta = spool.answer(wd, "delta", epoch, 1)
    assert delta["kind"] == "delta" and [r["seq"] for r in delta["runs"]] == [2, 3]
    assert [s for s, _ in spool.run_files(wd)] == [2, 3]          # 1 acknowledged
    assert spool.answer(wd, "delta", epoch, 3)["runs"] == []
    assert spool.run_files(wd) == []
    # another epoch (the spool was recreated) or a hub behind what is left: rebase
    assert spool.answer(wd, "delta", "0000", 3)["kind"] == "rebase"
    _run(wd, [_record("/a", "kept")], now=2000)
    _run(wd, [_record("/a", "kept")], now=2001)
    os.unlink(dict(spool.run_files(wd))[4])
    behind = spool.answer(wd, "delta", epoch, 3)
    assert behind["kind"] == "rebase" and behind["current"]["seq"] == 5


def test_the_spool_is_bounded(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spool, "MAX_RUNS", 5)
    wd = str(tmp_path)
    for n in range(12):
        _run(wd, [_record("/a", "repaired")], now=1000 + n)
    assert [s for s, _ in spool.run_files(wd)] == [8, 9, 10, 11, 12]


def test_inventory_is_sent_when_it_changes_and_filtered_by_report_data_select(tmp_path) -> None:
    wd = str(tmp_path)
    inv = {"sys.fqhost": "a.example", "sys.flavor": "debian_12", "secret.token": "x"}
    _run(wd, [], inventory=inv)
    seq = _run(wd, [], inventory=inv)
    assert "inventory" not in spool._load_json(dict(spool.run_files(wd))[seq])
    select = {"variables_include": ["sys\\..*"]}
    answer = spool.answer(wd, "rebase", select=select)
    assert answer["current"]["inventory"] == {"sys.fqhost": "a.example",
                                              "sys.flavor": "debian_12"}
    assert all("secret.token" not in r.get("inventory", {}) for r in answer["runs"])


def test_enabled(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cfpromise.hub import enabled
    monkeypatch.delenv("CF_LITE_HUB_SPOOL", raising=False)
    assert not enabled(str(tmp_path))
    (tmp_path / "policy_server.dat").write_text("hub.example\n")
    assert enabled(str(tmp_path))
    monkeypatch.setenv("CF_LITE_HUB_SPOOL", "0")
    assert not enabled(str(tmp_path))


def test_report_data_select_every_list(tmp_path) -> None:
    """metatags, variables, classes, promise handles and monitoring values, include and
    exclude, as a report_data_select body names them."""
    wd = str(tmp_path)
    inventory = {"sys.fqhost": "a", "sys.flavor": "debian_12", "main.secret": "x",
                 "classes": ["debian", "internal_only"], "software": ["p,1,amd64,apt_get"],
                 spool.TAGS: {
                     "sys.fqhost": ["inventory", "attribute_name=Host name"],
                     "sys.flavor": ["inventory", "attribute_name=OS"],
                     "main.secret": ["report", "private"],
                     "class:debian": ["inventory"], "class:internal_only": ["private"]}}
    records = [SimpleNamespace(bundle="default:main", ptype="files", promiser=f"/{h}",
                               handle=h, file="/p.cf", line=n, outcome=Outcome.KEPT,
                               changes=[]) for n, h in enumerate(["web_conf", "ssh_conf"])]
    spool.record_run(wd, started=1, seconds=0.1, exit_code=0, release_id="",
                     promises=spool.promise_states(records), inventory=inventory,
                     monitoring={"value_load": 1.0, "value_secret_probe": 2.0}, now=1)
    answer = spool.answer(wd, "rebase", select={
        "metatags_exclude": ["private"], "promise_handle_include": ["web_.*"],
        "monitoring_exclude": ["value_secret.*"], "classes_include": ["deb.*", "internal.*"]})
    current = answer["current"]
    assert current["inventory"] == {"sys.fqhost": "a", "sys.flavor": "debian_12",
                                    "classes": ["debian"], "software": ["p,1,amd64,apt_get"]}
    assert [p["handle"] for p in current["promises"].values()] == ["web_conf"]
    assert current["monitoring"] == {"value_load": 1.0}
    [run] = answer["runs"]
    assert [p["handle"] for p in run["promises"]] == ["web_conf"]
    assert "main.secret" not in run["inventory"] and spool.TAGS not in run["inventory"]
    assert run["monitoring"] == {"value_load": 1.0}
    # no body: everything but the tags themselves
    everything = spool.answer(wd, "rebase")["current"]
    assert set(everything["inventory"]) == {"sys.fqhost", "sys.flavor", "main.secret",
                                            "classes", "software"}
