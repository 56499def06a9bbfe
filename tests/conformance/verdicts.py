"""Test cases and verdicts of the acceptance suites: what a test is (from its path) and
how one agent run's output decides its verdict (the rules of the suite's README:
``R: ... <test> Pass``/``FAIL``, ``*.x.cf`` must be rejected, ``XFAIL``/``SFAIL``,
``Wait/N`` for timed tests, ``Skip/...``).  Split from :mod:`runner`, which re-exports
these names."""
from __future__ import annotations

import enum
import re
import signal

import attrs

class Verdict(enum.Enum):
    """The outcome of one test for one agent."""

    PASS = "Pass"
    FAIL = "FAIL"
    SKIP = "Skip"
    XFAIL = "XFAIL"
    SFAIL = "SFAIL"
    FLAKEY = "FLAKEY"
    CRASH = "crash"
    TIMEOUT = "timeout"
    WAIT = "Wait"  # intermediate: a timed test asked to be run again later


class Kind(enum.Enum):
    """How a test's verdict is decided, from its file name."""

    NORMAL = "normal"
    ERROREXIT = "errorexit"  # *.x.cf: must be rejected with an error
    ERRORLOG = "errorlog"  # *.error.cf: must log an error but exit 0


@attrs.frozen
class TestCase:
    """One test file, named by its path relative to the suite (no leading ``./``)."""

    __test__ = False  # not a pytest class, despite the name
    path: str

    @property
    def arg(self) -> str:
        return "./" + self.path

    @property
    def kind(self) -> Kind:
        if self.path.endswith(".x.cf"):
            return Kind.ERROREXIT
        if self.path.endswith(".error.cf"):
            return Kind.ERRORLOG
        return Kind.NORMAL

    def _in(self, folder: str) -> bool:
        return f"/{folder}/" in "/" + self.path

    @property
    def staging(self) -> bool:
        return self._in("staging")

    @property
    def unsafe(self) -> bool:
        return self._in("unsafe")

    @property
    def network(self) -> bool:
        return self._in("network")

    @property
    def timed(self) -> bool:
        return self._in("timed")

    @property
    def serial(self) -> bool:
        return self.unsafe or re.search(r"[/_]serial[/_.]", "/" + self.path) is not None

    @property
    def row(self) -> str:
        """The summary row: the top-level folder; staging tests are reported apart."""
        top = self.path.split("/", 1)[0] if "/" in self.path else "."
        return f"{top} (staging)" if self.staging else top

    @property
    def flat_name(self) -> str:
        return re.sub(r"[./]", "_", self.path)


@attrs.frozen
class Outcome:
    """What one agent run said: the verdict, why, and for ``Wait`` how long."""

    verdict: Verdict
    detail: str = ""
    wait: int = 0


@attrs.frozen
class TestResult:
    """The final verdict of one test for one agent."""

    __test__ = False
    test: str
    agent: str
    verdict: Verdict
    detail: str
    returncode: int | None = None
    duration: float = 0.0
    passes: int = 0

    def to_json(self) -> dict[str, object]:
        return {"verdict": self.verdict.value, "detail": self.detail,
                "returncode": self.returncode, "duration": round(self.duration, 2),
                "passes": self.passes}


# --------------------------------------------------------------------------- verdicts

_ERROR_LINE = re.compile(r"\berror:\s*(.*)")
_ERROREXIT_EVIDENCE = re.compile(r"error:|aborted on defined class")
_TRACEBACK = "Traceback (most recent call last):"
_DCS = r"dcs\.sub\.cf|dcs\.cf\.sub"


def first_error(output: str) -> str:
    """The first ``error:`` line of an agent's output, without its timestamp."""
    for line in output.splitlines():
        match = _ERROR_LINE.search(line)
        if match:
            return "error: " + match.group(1).strip()
    return ""


def _traceback_summary(output: str) -> str | None:
    lines = output.splitlines()
    for index, line in enumerate(lines):
        if line.startswith(_TRACEBACK):
            tail = [ln for ln in lines[index + 1:] if ln.strip() and not ln.startswith(" ")]
            return tail[0].strip() if tail else "Python traceback"
    return None


def _outcome_words(test: TestCase, output: str) -> list[str]:
    """Each verdict word a line ``R: ...<test|dcs.sub.cf> WORD`` names, in order."""
    pattern = re.compile(r"R: .*(?:" + re.escape(test.arg) + "|" + _DCS + r") (\S+)")
    return [m.group(1) for m in map(pattern.search, output.splitlines()) if m]


def _with_error(reason: str, output: str) -> str:
    error = first_error(output)
    return f"{reason}; {error}" if error else reason


def classify(test: TestCase, output: str, returncode: int, *,
             traceback_is_crash: bool = True) -> Outcome:
    """Decide the verdict of one agent run, per the suite's README.

    A signal (negative return code) or a Python traceback is a crash.  ``*.x.cf``
    passes when the agent exits 1..127 and printed an error.  Otherwise: an
    ``XFAIL``/``SFAIL`` line (with no ``Pass`` and no other verdict) is a known
    failure; a non-zero exit, ``FAIL/no_ticket_number`` or any ``FAIL`` line is a
    failure; ``Wait/N`` asks for another pass; ``Pass`` passes; ``Skip/...`` skips;
    no verdict at all fails.
    """
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = str(-returncode)
        return Outcome(Verdict.CRASH, f"killed by signal {name}")
    trace = _traceback_summary(output) if traceback_is_crash else None
    if trace is not None:
        return Outcome(Verdict.CRASH, f"Python traceback: {trace}")
    if test.kind is Kind.ERROREXIT:
        if returncode == 0:
            return Outcome(Verdict.FAIL, "exited 0, expected an error exit")
        if returncode >= 128:
            return Outcome(Verdict.CRASH, f"exit code {returncode} (>= 128)")
        if _ERROREXIT_EVIDENCE.search(output):
            return Outcome(Verdict.PASS)
        return Outcome(Verdict.FAIL, f"exit code {returncode} but no error printed")
    if test.kind is Kind.ERRORLOG:
        if returncode != 0:
            return Outcome(Verdict.FAIL, _with_error(f"exit code {returncode}, expected 0", output))
        if "error: " in output:
            return Outcome(Verdict.PASS)
        return Outcome(Verdict.FAIL, "exited 0 but no error printed")
    return _classify_normal(test, output, returncode)


def _classify_normal(test: TestCase, output: str, returncode: int) -> Outcome:
    words = _outcome_words(test, output)
    heads = [re.sub(r"[^A-Za-z].*", "", w) for w in words]  # "XFAIL/CFE-1" -> "XFAIL"
    waits = [int(m.group(1)) for m in (re.match(r"Wait/(\d+)", w) for w in words) if m]
    soft = [w for w, h in zip(words, heads) if h in ("XFAIL", "SFAIL")]
    if soft and not waits:
        if "Pass" in heads:
            return Outcome(Verdict.FAIL, "the test passed, but failure was expected")
        if any(not re.match(r"[XS]?FAIL", w) for w in words):
            return Outcome(Verdict.FAIL, "failure was expected, but the test printed "
                           "another outcome: " + " ".join(words))
        head, _, ticket = soft[0].partition("/")
        return Outcome(Verdict(head), ticket)
    if returncode != 0:
        return Outcome(Verdict.FAIL, _with_error(f"exit code {returncode}", output))
    if "FAIL/no_ticket_number" in words:
        return Outcome(Verdict.FAIL, "tried to suppress a failure without a ticket number")
    if waits:
        if not test.timed:
            return Outcome(Verdict.FAIL, "printed Wait/ but is not in a timed/ directory")
        return Outcome(Verdict.WAIT, f"Wait/{waits[0]}", waits[0])
    flakey = [w for w, h in zip(words, heads) if h == "FLAKEY"]
    if flakey and "Pass" not in heads:
        return Outcome(Verdict.FLAKEY, flakey[0].partition("/")[2])
    if "FAIL" in heads:
        also = " (and Pass)" if "Pass" in heads else ""
        return Outcome(Verdict.FAIL, _with_error("printed FAIL" + also, output))
    if "Pass" in heads:
        return Outcome(Verdict.PASS)
    for word in words:
        if word in ("Skip/unsupported", "Skip/needs_work"):
            return Outcome(Verdict.SKIP, word.split("/")[1])
    return Outcome(Verdict.FAIL, _with_error(_no_verdict_reason(test, output), output))


def _no_verdict_reason(test: TestCase, output: str) -> str:
    loose = re.compile(r"R: .*/" + re.escape(test.path) + r" (Pass|FAIL)\b")
    if any(loose.search(line) for line in output.splitlines()):
        return "no verdict (a verdict names the test without its ./ path spelling)"
    return "no verdict"
