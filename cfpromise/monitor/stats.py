"""cf-monitord 3.21's statistics: weekly averages per time slot, the local (since start)
averages, leap detection, and the classes and variables it publishes in env_data.

For every observable and sample (as cf-monitord's EvalAvQ / ArmClasses / SetClasses):

* the time slot ``Tue:Hr14:Min20_25`` (the 5-minute slot of the week) keys last week's
  (q, expect, var); a sample too far from it is damped (RejectAnomaly);
* ``expect`` and ``var`` are weighted averages (WAverage) with the forget rate (0.6 unless
  ``body monitor control`` sets ``forgetrate``; a young database learns eagerly);
* classes: ``X_high`` / ``X_low`` / ``X_normal`` (both the weekly and the local averages
  agree on the direction), then ``_normal`` / ``_dev1`` (within sqrt 2 deviations or not),
  ``_dev2`` (> 2 sqrt 2), ``_anomaly`` (> 3 sqrt 2); below the noise threshold (a change
  of less than 6) only ``X_high|low|normal`` and maybe ``_microanomaly``; nothing when a
  deviation is still zero (and then no ``entropy_X*`` class either);
* variables ``value_X`` (the sample), ``av_X`` (the weekly expectation), ``dev_X`` (the
  combined standard deviation), with two decimals;
* leap detection over the last 10 samples adds ``X_high_ldt`` / ``X_low_ldt``.
"""
from __future__ import annotations

import math
import random
import time
import attrs

NOISE_THRESHOLD = 6.0
THRESHOLD_HIGH = 1000000.0
SANE_LIMIT = 9999999.0
LDT_BUFSIZE = 10
SECONDS_PER_WEEK = 7 * 24 * 3600
MEASURE_INTERVAL = 5.0 * 60.0
DEFAULT_FORGETRATE = 0.6
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def timekey(when: float) -> str:
    """The week's 5-minute slot of ``when`` (UTC), as cf-monitord names it."""
    t = time.gmtime(when)
    start = t.tm_min - t.tm_min % 5
    return f"{DAYS[t.tm_wday]}:Hr{t.tm_hour:02d}:Min{start:02d}_{(start + 5) % 60:02d}"


def waverage(new: float, old: float, age: float, forgetrate: float) -> float:
    if old > SANE_LIMIT and new > SANE_LIMIT:
        return 0.0
    if old > SANE_LIMIT:
        return new
    if new > SANE_LIMIT:
        return old
    if forgetrate > 0.9 or forgetrate < 0.1:
        forgetrate = 0.6
    if age < 2.0:
        w_new, w_old = forgetrate, 1.0 - forgetrate
    else:
        w_new, w_old = 1.0 - forgetrate, forgetrate
    if old == 0 and new == 0:
        return 0.0
    average = w_new * new + w_old * old
    return 0.0 if average < 0 else average


def reject_anomaly(new: float, average: float, variance: float, localav: float,
                   localvar: float) -> float:
    dev = math.sqrt(max(variance + localvar, 0.0))
    if average == 0:
        return new
    if new > THRESHOLD_HIGH * 4.0:
        return 0.0
    if new > THRESHOLD_HIGH:
        return average
    if (new - average) ** 2 < NOISE_THRESHOLD ** 2:
        return new
    delta = math.sqrt((new - average) ** 2 + (new - localav) ** 2)
    if delta > 4.0 * dev and random.random() >= 0.7:
        return average + 2.0 * dev if new > average else average - 2.0 * dev
    return new


@attrs.define
class Local:
    """The averages since the daemon started (cf-monitord's LOCALAV), per observable."""
    expect: float = 0.0
    var: float = 0.0


@attrs.define
class Leap:
    """Leap detection state of one observable."""
    buf: list[float] = attrs.field(factory=lambda: [0.0] * LDT_BUFSIZE)
    anomaly: list[bool] = attrs.field(factory=lambda: [False] * LDT_BUFSIZE)
    total: float = 0.0
    avg: float = 0.0
    maximum: float = 0.0
    chi: float = 0.0
    chi_limit: float = 0.1


class Statistics:
    """The in-memory part of cf-monitord's learning (the weekly part lives in the store)."""

    def __init__(self, age: float = 0.0, forgetrate: float = DEFAULT_FORGETRATE) -> None:
        self.age = age
        self.forgetrate = forgetrate
        self.iteration = 0
        self.local: dict[str, Local] = {}
        self.leaps: dict[str, Leap] = {}
        self.ldt_pos = 0
        self.ldt_full = False

    @property
    def weekly_age(self) -> float:
        return self.age / SECONDS_PER_WEEK * MEASURE_INTERVAL

    def update(self, values: dict[str, float], names: list[str],
               lastweek: dict[str, tuple[float, float, float, float]]
               ) -> dict[str, tuple[float, float, float, float]]:
        """EvalAvQ: the new (q, expect, var, dq) of every observable in ``names``."""
        self.age += 1
        wage = self.weekly_age
        out: dict[str, tuple[float, float, float, float]] = {}
        for name in names:
            _q, l_ex, l_var, _dq = (max(v, 0.0) for v in lastweek.get(name, (0.0, 0.0, 0.0, 0.0)))
            local = self.local.setdefault(name, Local())
            this = reject_anomaly(values.get(name, 0.0), l_ex, l_var, local.expect, local.var)
            expect = waverage(this, l_ex, wage, self.forgetrate)
            local.expect = waverage(expect, local.expect, self.iteration, self.forgetrate)
            delta2 = (this - l_ex) ** 2
            if l_var > delta2 * 2.0:
                var = delta2
            else:
                var = waverage(delta2, l_var, wage, self.forgetrate)
            local.var = waverage(var, local.var, self.iteration, self.forgetrate)
            out[name] = (this, expect, var, 0.0)
        return out

    def leap_detection(self, values: dict[str, float], names: list[str]) -> None:
        last_pos = self.ldt_pos
        self.ldt_pos += 1
        if self.ldt_pos >= LDT_BUFSIZE:
            self.ldt_pos = 0
            self.ldt_full = True
        n = float(LDT_BUFSIZE)
        for name in names:
            leap = self.leaps.setdefault(name, Leap())
            this = values.get(name, 0.0)
            if leap.buf[last_pos] > 0 and this / leap.buf[last_pos] > 1000:
                this = values[name] = leap.buf[last_pos]
            leap.avg += this / (n + 1.0)
            d = n * (n + 1) * leap.avg
            if self.ldt_full and self.ldt_pos == 0:
                n2 = leap.total - n * leap.maximum
                leap.chi_limit = 0.5 if d < 0.001 else 0.2 + math.sqrt(n2 * n2 / d)
                leap.maximum = 0.0
            leap.maximum = max(leap.maximum, this)
            n1 = leap.total - n * this
            leap.chi = 0.0 if d < 0.001 else math.sqrt(n1 * n1 / d)
            leap.avg -= leap.buf[self.ldt_pos] / (n + 1.0)
            leap.buf[self.ldt_pos] = this
            leap.total = leap.total - leap.buf[self.ldt_pos] + this

    def arm(self, values: dict[str, float], names: list[str],
            averages: dict[str, tuple[float, float, float, float]],
            entropy: list[str]) -> list[str]:
        """ArmClasses: the env_data lines of the observables, in slot order (entropy
        classes of observables without deviation are dropped from ``entropy``).  The
        caller ends the sample with :meth:`done`."""
        lines: list[str] = []
        for name in names:
            this = values.get(name, 0.0)
            _q, expect, var, _dq = averages[name]
            local = self.local.get(name, Local())
            sig = _classes(name, this, expect, var, local.expect, local.var, lines, entropy)
            lines += [f"value_{name}={this:.2f}", f"av_{name}={expect:.2f}",
                      f"dev_{name}={sig:.2f}"]
            leap = self.leaps.get(name)
            if leap is not None:
                leap.anomaly[self.ldt_pos] = False
                if self.ldt_full and leap.chi > leap.chi_limit:
                    leap.anomaly[self.ldt_pos] = True
                    lines.append(f"{name}_high_ldt" if this > expect else f"{name}_low_ldt")
        return lines


    def done(self) -> None:
        self.iteration += 1


def _classes(name: str, this: float, expect: float, var: float, l_expect: float, l_var: float,
             lines: list[str], entropy: list[str]) -> float:
    delta = this - expect
    sigma = math.sqrt(max(var, 0.0))
    ldelta = this - l_expect
    lsigma = math.sqrt(max(l_var, 0.0))
    sig = math.sqrt(sigma * sigma + lsigma * lsigma)
    if sigma == 0.0 or lsigma == 0.0:
        prefix = f"entropy_{name}"
        entropy[:] = [c for c in entropy if not c.startswith(prefix)]
        return sig
    base = name + ("_high" if delta > 0 and ldelta > 0 else
                   "_low" if delta < 0 and ldelta < 0 else "_normal")
    dev = math.sqrt(delta * delta / (1.0 + sigma * sigma)
                    + ldelta * ldelta / (1.0 + lsigma * lsigma))
    if abs(delta) < NOISE_THRESHOLD:
        lines.append(base)
        if dev > 2.0 * math.sqrt(2.0):
            lines.append(base + "_microanomaly")
        return sig
    lines.append(base + ("_normal" if dev <= math.sqrt(2.0) else "_dev1"))
    if dev > 2.0 * math.sqrt(2.0):
        lines.append(base + "_dev2")
    if dev > 3.0 * math.sqrt(2.0):
        lines.append(base + "_anomaly")
    return sig


def event_average(old: tuple[float, float, float] | None, value: float
                  ) -> tuple[float, float, float]:
    """A scalar measurement's (q, expect, var) after a new value (cf-monitord's
    NovaNamedEvent: QAverage with weight 0.7)."""
    if old is None:
        return (value, value, 0.0)
    _q, expect, var = old
    if math.isnan(expect):
        expect = value
    if math.isnan(var):
        var = 0.0
    new_expect = 0.7 * value + 0.3 * expect
    new_var = 0.7 * (value - new_expect) ** 2 + 0.3 * var
    return (value, new_expect, new_var)
