"""Generated cases: references to groups in regular expressions -- ``\\N``, ``\\gN``,
``\\g{N}``, ``\\g{-N}``, ``\\k<n>``, ``(?P=n)``, calls ``(?N)`` ``(?&n)``, conditions
``(?(N)`` ``(?(<n>)`` -- to groups that are there, later, open or missing, as cf-agent
3.21's PCRE compiles and matches them (cf-lite: cfpromise/eval/functions/pcrerefs.py).

Each pattern is given to regcmp(): PCRE's error ("reference to non-existent subpattern"
at the pattern's end, the reference's end or after a condition's ``)``; "a numbered
reference must not be zero"; "subpattern name expected"...) and its offset, or whether
it matches each subject.  The patterns are groups before and after a reference, with
text after it; none has ten groups (cf-agent's regcmp matches no pattern that has: its
capture vector holds nine).  Calls of groups that are there (``CALLS``) are matched as
PCRE 8 runs them: atomic, capturing nothing, under the options of the called group,
with ``(?(DEFINE)...)``.  A recursion (a call inside the group it calls, ``(?R)``) is
left out: cf-lite refuses it with "recursion, subroutine calls and branch reset are not
supported" (docs/language.md, "Regular expressions").
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
SUBJECTS = ("aa", "aax", "aba", "abab", "8", "A", "ab", "aA", "AA", "aab", "abb", "abba")
CALLS = {
    "call_atomic": "(a|ab)(?1)b", "call_atomic_end": "(a|ab)(?1)", "call_quantified": "(a)(?1)+",
    "call_optional": "(b)?(?1)?a", "call_forward": "(?1)(a|b)", "call_named_amp": "(?<n>a|b)(?&n)",
    "call_named_p": "(?P<n>a|b)(?P>n)", "call_minus": "(a)(b)(?-2)", "call_plus": "(?+1)(b|a)",
    "call_backref_after": "(a|b)(?1)\\1", "call_nested": "(a)(b(?1))(?2)",
    "call_chain": "(a)(?1)(b(?1))(?2)?", "call_alternatives": "(a)|(b)(?1)",
    "call_inside_other": "(a)((?1)b)", "call_in_lookahead": "(a)(?=(?1))a",
    "options_defined": "(?i)(a)(?-i)(?1)", "options_at_call": "(a)(?i)(?1)",
    "options_inside": "((?i)a)(?1)", "options_scoped": "(?i:(a))(?1)", "options_off": "(?i)(?-i:(a))(?1)",
    "define": "(?(DEFINE)(?<n>a|b))(?&n)(?&n)", "define_alone": "(?(DEFINE)(?<n>a))b",
    "define_numbered": "(?(DEFINE)(a|A))(?1)b", "define_then_group": "(?(DEFINE)(?<n>a))(b)(?&n)\\2?",
}

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
PATTERNS.update(CALLS)

NAMES = sorted(PATTERNS)

