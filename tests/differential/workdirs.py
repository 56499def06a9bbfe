"""Generated cases: the work directory cf-agent 3.21 makes and checks at start (issue #26,
:mod:`cfpromise.agent.workdir`).  Each case is a WORKDIR before the run -- none at all,
or some directories already there with given modes -- and one run of a policy that
reports; compared: the exit code, the lines said (each once: cf-agent's checks are made
again by the cf-promises it runs) and every directory of WORKDIR after the run with its
mode (WORKDIR/bin's programs and cf-lite's own state/policy_cache left out).
"""
from __future__ import annotations

# name -> ({directory ("." is WORKDIR itself): mode}, whether WORKDIR/bin holds the programs)
CASES: dict[str, tuple[dict[str, int], bool]] = {
    "fresh": ({}, False),
    "only_bin": ({".": 0o755, "bin": 0o700}, True),
    "private_workdir": ({".": 0o700, "bin": 0o700}, True),
}
for mode in (0o777, 0o775, 0o770, 0o750, 0o711, 0o757):
    CASES[f"workdir_{mode:o}"] = ({".": mode, "bin": 0o700}, True)
for sub, modes in (("state", (0o777, 0o775, 0o720, 0o755, 0o700)),
                   ("modules", (0o777, 0o775, 0o757, 0o755, 0o750)),
                   ("ppkeys", (0o777, 0o750, 0o705, 0o701, 0o700)),
                   ("inputs", (0o777, 0o755)), ("outputs", (0o777,)), ("reports", (0o755,)),
                   ("lastseen", (0o777,)), ("state/diff", (0o777,))):
    for mode in modes:
        CASES[f"{sub.replace('/', '_')}_{mode:o}"] = ({".": 0o755, "bin": 0o700, sub: mode},
                                                      True)
CASES["all_open"] = ({".": 0o777, "bin": 0o700, "state": 0o777, "modules": 0o777,
                      "ppkeys": 0o755, "inputs": 0o777}, True)
NAMES = sorted(CASES)

POLICY = 'bundle agent main { reports: "hello"; }\n'

# Known differences, each with its reason (the test fails when one starts agreeing).
_STATE_OPEN = ("cf-lite reads no persistent classes or monitor data from a state directory "
               "others may write, and says so (a warning cf-agent does not give)")
EXPECTED_DIFFERENCES: dict[str, str] = {
    name: _STATE_OPEN for name in ("state_777", "state_775", "state_720", "all_open")}
