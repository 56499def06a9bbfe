"""Generated address rules and addresses for the FuzzySetMatch tests, and a runner
that asks cf-agent 3.21 (its isipinsubnet() calls the same FuzzySetMatch as
cf-serverd) for the verdicts."""
from __future__ import annotations

import json
import os
import random
import re
import subprocess
import tempfile

CF_AGENT = "/usr/bin/cf-agent"
CF_KEY = "/usr/bin/cf-key"
CF_PROMISES = "/usr/bin/cf-promises"


def have_cf_agent() -> bool:
    return all(os.access(p, os.X_OK) for p in (CF_AGENT, CF_KEY, CF_PROMISES))


def _octet(r: random.Random) -> str:
    return str(r.choice([0, 1, 2, 10, 12, 19, 100, 127, 199, 200, 255, r.randrange(256)]))


def v4(r: random.Random) -> str:
    return ".".join(_octet(r) for _ in range(4))


def v6(r: random.Random) -> str:
    groups = [r.choice(["0", "1", "a", "fe80", "12", "ff", "db8", "2001", "3"]) for _ in range(8)]
    text = ":".join(groups)
    if r.random() < 0.5:
        return str(__import__("ipaddress").IPv6Address(text))      # compressed form
    return text


def _near_v4(r: random.Random, ip: str) -> str:
    parts = ip.split(".")
    i = r.randrange(4)
    parts[i] = r.choice([parts[i] + r.choice("0123456789"), parts[i][:-1] or "0",
                         _octet(r), parts[i]])
    return ".".join(parts)


def rule_for(r: random.Random, ip: str) -> str:
    """A rule near ``ip`` (so that both verdicts occur)."""
    if ":" in ip:
        kind = r.choice(["exact", "prefix", "cidr", "cidr", "range", "garbage"])
        groups = ip.split(":")
        if kind == "exact":
            return ip
        if kind == "prefix":
            return ":".join(groups[:r.randrange(1, len(groups))]) + r.choice(["", ":", "::"])
        if kind == "cidr":
            return f"{ip}/{r.choice([0, 8, 12, 16, 32, 48, 64, 120, 128, 129])}"
        if kind == "range":
            parts = ip.split(":")
            i = r.randrange(len(parts))
            lo = r.randrange(0, 20)
            parts[i] = f"{lo:x}-{lo + r.randrange(0, 40):x}"
            return ":".join(parts)
        return r.choice(["fe80::x", "1::1-5", "::1-5", "g::1", "1:2", "::/8"])
    parts = ip.split(".")
    kind = r.choice(["exact", "prefix", "prefix", "cidr", "cidr", "range", "range",
                     "near", "garbage"])
    if kind == "exact":
        return ip
    if kind == "prefix":
        n = r.randrange(1, 4)
        return ".".join(parts[:n]) + r.choice(["", "", "."])
    if kind == "cidr":
        base = _near_v4(r, ip) if r.random() < 0.3 else ip
        return f"{base}/{r.choice([0, 1, 8, 16, 23, 24, 25, 30, 31, 32, 33, 99])}"
    if kind == "range":
        n = r.choice([3, 4, 4, 4, 5])
        out = (parts + ["7"])[:n]
        i = r.randrange(n)
        lo = r.randrange(0, 256)
        hi = r.choice([lo, lo + r.randrange(0, 60), max(lo - 3, 0), 255])
        out[i] = r.choice([f"{lo}-{hi}", f"{lo}-{hi}", f"{lo}-", f"-{hi}", f"{lo}-x"])
        return ".".join(out)
    if kind == "near":
        return _near_v4(r, ip)
    return r.choice(["1.2.x.4", "01.2.3.4", "1.2.3.4x", "1..2.3", ".1.2.3", "1.2.3.4.5",
                     "a.b.c.d", "1.2.3.4/", "/8", "1.2.3.4/8-9", "1.2.3.4 ", "1.2.3"])


def cases(seed: int, n: int) -> list[tuple[str, str]]:
    r = random.Random(seed)
    out = []
    for _ in range(n):
        ip = v6(r) if r.random() < 0.2 else v4(r)
        rule = rule_for(r, ip)
        if r.random() < 0.1:           # a rule of the other family, or another address
            ip = v6(r) if ":" not in ip else v4(r)
        out.append((rule, ip))
    return out


_SAFE = re.compile(r"[0-9A-Za-z.:/ -]*\Z")


def cf_agent_verdicts(pairs: list[tuple[str, str]]) -> list[bool | None]:
    """isipinsubnet(rule, ip) by cf-agent 3.21 for each pair (None: the function
    failed, i.e. FuzzyMatchParse refused the rule)."""
    assert all(_SAFE.match(a) and _SAFE.match(b) for a, b in pairs)
    with tempfile.TemporaryDirectory() as wd:
        os.makedirs(os.path.join(wd, "bin"))
        os.symlink(CF_PROMISES, os.path.join(wd, "bin", "cf-promises"))
        env = dict(os.environ, CFENGINE_TEST_OVERRIDE_WORKDIR=wd)
        subprocess.run([CF_KEY], env=env, check=True, capture_output=True)
        data = json.dumps([list(p) for p in pairs])
        policy = os.path.join(wd, "t.cf")
        with open(policy, "w") as f:
            f.write("bundle agent main {\n vars:\n  \"p\" data => '" + data + "';\n"
                    "  \"i\" slist => getindices(p);\n classes:\n"
                    "  \"m_$(i)\" expression => isipinsubnet(\"$(p[$(i)][0])\", "
                    "\"$(p[$(i)][1])\");\n"
                    "  \"n_$(i)\" not => isipinsubnet(\"$(p[$(i)][0])\", \"$(p[$(i)][1])\");\n"
                    " reports:\n  \"Y $(i)\" if => \"m_$(i)\";\n  \"N $(i)\" if => \"n_$(i)\";\n}\n")
        os.chmod(policy, 0o600)
        out = subprocess.run([CF_AGENT, "-K", "-f", policy], env=env, capture_output=True,
                             text=True, timeout=600).stdout
    verdict: list[bool | None] = [None] * len(pairs)
    for line in out.splitlines():
        m = re.match(r"R: ([YN]) (\d+)$", line)
        if m:
            verdict[int(m.group(2))] = m.group(1) == "Y"
    return verdict


def parse_refuses(rule: str) -> bool:
    """cf-agent's FuzzyMatchParse refusal (isipinsubnet fails; FuzzySetMatch is not
    asked): a rule that starts as an IPv6 address (hex digits, at most 3 decimal
    digits in a row, then ':') and mixes in '.' or both '/' and '-'."""
    count = 0
    for c in rule:
        if c not in "0123456789abcdefABCDEF:":
            return False
        if c == ":":
            break
        count = count + 1 if c.isdigit() else 0
        if count > 3:
            return False
    else:
        return False
    return "." in rule or ("/" in rule and "-" in rule)
