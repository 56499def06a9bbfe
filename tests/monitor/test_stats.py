"""cf-monitord 3.21's statistics: the first sample of a fresh database gives the values and
classes 3.21 wrote (../shared/reference/cf-monitord-3.21-env_data.sample: rootprocs 80 ->
av 48.00, dev 78.38, rootprocs_high_normal; users 1 -> users_high; a huge value such as
mem_total -> no class), time slot names, deviations and entropy purging."""
from __future__ import annotations

from cfpromise.monitor import stats


def _first(values: dict[str, float]) -> tuple[list[str], list[str]]:
    st = stats.Statistics()
    names = list(values)
    averages = st.update(values, names, {})
    entropy = [f"entropy_{n}_low" for n in names] + ["entropy_misc_in_low"]
    lines = st.arm(values, names, averages, entropy)
    st.done()
    return lines, entropy


def test_first_sample_as_3_21() -> None:
    lines, entropy = _first({"users": 1.0, "rootprocs": 80.0, "otherprocs": 0.0,
                             "mem_total": 24105.56, "mem_cached": 212.79})
    assert lines[:4] == ["users_high", "value_users=1.00", "av_users=0.60", "dev_users=0.98"]
    assert lines[4:8] == ["rootprocs_high_normal", "value_rootprocs=80.00", "av_rootprocs=48.00",
                          "dev_rootprocs=78.38"]
    assert "value_otherprocs=0.00" in lines and not any(l.startswith("otherprocs_") for l in lines)
    assert not any(l.startswith("mem_total_") for l in lines)        # var beyond the sane limit
    assert "mem_cached_high_normal" in lines
    # entropy classes of observables without deviation are dropped, the others stay
    assert "entropy_otherprocs_low" not in entropy and "entropy_mem_total_low" not in entropy
    assert "entropy_users_low" in entropy and "entropy_misc_in_low" in entropy


def test_deviation_classes_after_learning(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(stats.random, "random", lambda: 0.0)   # the jump is taken in full
    st = stats.Statistics(age=0)
    names = ["x"]
    lastweek: dict[str, tuple[float, float, float, float]] = {}
    for _ in range(30):                      # learn a steady value of 10
        lastweek = st.update({"x": 10.0}, names, lastweek)
        st.arm({"x": 10.0}, names, lastweek, [])
        st.done()
    values = {"x": 500.0}
    averages = st.update(values, names, lastweek)
    lines = st.arm(values, names, averages, [])
    # the jump inflates the deviation it is measured against (as in 3.21): _dev1, not beyond
    assert lines[0] == "x_high_dev1" and "x_high_dev2" not in lines
    assert lines[1] == "value_x=500.00"


def test_timekey_names_the_five_minute_slot_of_the_week() -> None:
    import calendar
    when = calendar.timegm((2026, 11, 24, 14, 23, 0, 0, 0, 0))      # a Tuesday, UTC
    assert stats.timekey(when) == "Tue:Hr14:Min20_25"
    assert stats.timekey(when + 35 * 60) == "Tue:Hr14:Min55_00"


def test_waverage_forget_rate_and_sanity() -> None:
    assert stats.waverage(10.0, 0.0, 0.0, 0.6) == 6.0          # young: new weighs forgetrate
    assert abs(stats.waverage(10.0, 0.0, 5.0, 0.6) - 4.0) < 1e-9  # old: new weighs 1-forgetrate
    assert stats.waverage(1e8, 3.0, 0.0, 0.6) == 3.0            # insane new value ignored
    assert stats.waverage(10.0, 0.0, 0.0, 0.95) == 6.0          # out-of-range rate -> 0.6
