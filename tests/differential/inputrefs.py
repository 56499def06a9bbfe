"""Generated cases: ``inputs`` items cf-agent 3.21 leaves out (issue #26).

An item of an inputs list that never resolves is said as cf-promises and cf-agent say it,
"Unresolved variable 'TEXT' in input list, cannot parse", TEXT expanded as far as it goes
(``gx/$(g.nosuch).cf``; a reference whose inner reference does not resolve is kept whole);
a function call in an inputs list is never called: "Non-file object in inputs list".
Both are said by the validating cf-promises and again by cf-agent as it loads the policy
cf-promises passed (not when validation fails), and the run goes on without that input.
Found by a third-party sweep (smotti/cfengine-vacana, Idealcoder/cfengine): cf-lite named
the item as written, said it once, and called the functions.
"""
from __future__ import annotations

_G = 'bundle common g { vars: "x" string => "gx"; "arr[a]" string => "1"; "l" slist => { "a" }; }\n'
_MAIN = 'bundle agent main { reports: "ran"; }\n'
_ITEMS = {
    "bundle_partial": '"$(g.x)/$(g.nosuch).cf"',
    "braces": '"${g.x}/${g.nosuch}.cf"',
    "mixed_brackets": '"${g.x}/$(g.nosuch).cf"',
    "unqualified": '"$(nosuch)/x.cf"',
    "sys_undefined": '"$(sys.nosuch)/$(sys.os).cf"',
    "dirname_beside": '"$(this.promise_dirname)/$(sys.os)-nosuch.cf"',
    "filename_beside": '"$(this.promise_filename).$(g.x)"',
    "list_undefined": '@(g.nosuch)',
    "list_in_text": '"$(g.x)/@(g.nosuch)"',
    "array_index": '"$(g.arr[nosuch])/x.cf"',
    "array_inner_undefined": '"$(g.arr[$(g.nosuch)])/x.cf"',
    "array_inner_known": '"$(g.arr[$(g.x)])/$(g.x).cf"',
    "nested": '"$(g.$(g.nosuch))/x.cf"',
    "nested_known": '"$(g.$(g.nosuch2))/$(g.x)"',
    "two": '"$(g.nosuch)", "$(g.nosuch2)/$(g.x)"',
    "twice": '"$(g.nosuch)", "$(g.nosuch)"',
    "beside_plain": '"$(g.nosuch)", "$(this.promise_dirname)/inc.cf"',
    "call": 'concat("$(g.x)", ".cf")',
    "call_unresolved": 'concat("$(g.nosuch)", ".cf")',
    "call_existing": 'concat("$(this.promise_dirname)", "/inc.cf")',
    "call_list": 'splitstring("$(g.x),b", ",", 5)',
    "calls_and_refs": '"$(g.nosuch)", concat("a", "b"), "$(g.x)/$(g.nosuch)"',
}
_INC = 'bundle agent inc { reports: "inc"; }\n'

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []
for _name, _items in _ITEMS.items():
    CASES.append((f"entry_{_name}", {
        "promises.cf": f"body common control {{ inputs => {{ {_items} }}; }}\n{_G}{_MAIN}",
        "inc.cf": _INC}, ()))
    CASES.append((f"input_{_name}", {
        "promises.cf": f'body common control {{ inputs => {{ "inc.cf" }}; }}\n{_G}{_MAIN}',
        "inc.cf": f"body file control {{ inputs => {{ {_items} }}; }}\n{_INC}"}, ()))
# ... when validation then fails (cf-agent does not load the policy: said once), under
# -n, with -b, and with a bundlesequence that waits for a common bundle
for _name in ("bundle_partial", "call", "calls_and_refs"):
    _items = _ITEMS[_name]
    CASES.append((f"invalid_{_name}", {
        "promises.cf": f"body common control {{ inputs => {{ {_items} }}; }}\n{_G}"
                       'bundle agent x { reports: "x"; }\n'}, ()))
    CASES.append((f"dry_run_{_name}", {
        "promises.cf": f"body common control {{ inputs => {{ {_items} }}; }}\n{_G}{_MAIN}"},
        ("-n",)))
    CASES.append((f"bundle_option_{_name}", {
        "promises.cf": f"body common control {{ inputs => {{ {_items} }}; }}\n{_G}{_MAIN}"},
        ("-b", "main")))
    CASES.append((f"sequence_{_name}", {
        "promises.cf": f"body common control {{ inputs => {{ {_items} }}; "
                       f"bundlesequence => {{ @(g.l), \"main\" }}; }}\n{_G}{_MAIN}"
                       'bundle agent a { reports: "a"; }\n'}, ()))

NAMES = [name for name, _, _ in CASES]
