"""Generated cases: references to groups in regular expressions -- ``\\N``, ``\\gN``,
``\\g{N}``, ``\\g{-N}``, ``\\k<n>``, ``(?P=n)``, calls ``(?N)`` ``(?&n)``, conditions
``(?(N)`` ``(?(<n>)`` -- to groups that are there, later, open or missing, as cf-agent
3.21's PCRE compiles and matches them (cf-lite: cfpromise/eval/functions/pcrerefs.py).

Each pattern is given to regcmp(): PCRE's error ("reference to non-existent subpattern"
at the pattern's end, the reference's end or after a condition's ``)``; "a numbered
reference must not be zero"; "subpattern name expected"...) and its offset, or whether
it matches each subject.  The patterns are groups before and after a reference, with
text after it; none has ten groups (cf-agent's regcmp matches no pattern that has: its
capture vector holds nine).  A call of a group that is there is the one known
difference: cf-lite has no recursion, and says "recursion, subroutine calls and branch
reset are not supported" where cf-agent compiles it.
"""
from __future__ import annotations

BEFORE = {"none": "", "one": "(a)", "named": "(?<n>a)", "two": "(a)(b)"}
AFTER = {"end": "", "text": "x", "group": "(c)"}
REFERENCES = {
    "digit1": "\\1", "digit2": "\\2", "digit3": "\\3", "digit8": "\\8", "digit9": "\\9",
    "digit10": "\\10", "octal": "\\101", "g1": "\\g1", "g2": "\\g2", "gbrace2": "\\g{2}",
    "gminus1": "\\g{-1}", "gminus2": "\\g-2", "gplus": "\\g{+1}", "gzero": "\\g{0}",
    "gbare": "\\g", "gname": "\\g{n}", "kangle": "\\k<n>", "kquote": "\\k'n'",
    "kbrace": "\\k{n}", "kmissing": "\\k<m>", "kempty": "\\k<>", "kbare": "\\k",
    "pname": "(?P=n)", "pmissing": "(?P=m)", "pempty": "(?P=)", "callmissing": "(?&m)",
    "pcallmissing": "(?P>m)", "call3": "(?3)", "callminus3": "(?-3)", "callplus2": "(?+2)",
    "callzero": "(?+0)", "cond1": "(?(1)a|b)", "cond3": "(?(3)a|b)",
    "condname": "(?(<n>)a|b)", "condmissing": "(?(<m>)a|b)", "condbare": "(?(m)a|b)",
}
SUBJECTS = ("aa", "aax", "aba", "abab", "8", "A", "ab")

PATTERNS: dict[str, str] = {}
for bname, before in BEFORE.items():
    for rname, ref in REFERENCES.items():
        for aname, after in AFTER.items():
            PATTERNS[f"{bname}_{rname}_{aname}"] = before + ref + after
        PATTERNS[f"{rname}_then_{bname}"] = ref + before     # a reference to a later group
PATTERNS["open_group_ref"] = "(a\\1)"
PATTERNS["forward_named"] = "\\k<n>(?<n>a)"
PATTERNS["twice_named"] = "(?<n>a)(?<n>b)"
PATTERNS["missing_then_open"] = "(a)\\2("

NAMES = sorted(PATTERNS)

