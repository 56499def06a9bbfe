"""Generated cases for what cf-agent 3.21 prints when a policy function fails at run time
(issue #26): a missing or unreadable file, a bad regular expression, bad JSON/YAML/CSV, a
bad format string, a command that does not exist, a value that is not a number...

A case is one failing call (:data:`CALLS`: the call, what it returns) placed in one
context (:data:`CONTEXTS`): a vars promise of ``main``, a classes promise, a report's
text (through ``with``), a bundle ``main`` calls through methods, the argument of
another call, a common bundle.  Each is run once under both agents at their default
log level; :func:`observe` keeps the lines cf-agent prints for such errors (everything
but the reports and the end-of-run lines, which are compared too).

cf-agent prints a failing call's error each time it calls it, and a failed call stays a
call in the promise, so every later evaluation calls it again (3.21's expand.c,
docs/language.md "Function errors"): :func:`observe` gives both the lines as printed
and the distinct lines in the order they first appear.
"""
from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MISSING = "/nonexistent/funcerr"

# name -> (call, what it returns: string, slist, data, int, class)
CALLS: dict[str, tuple[str, str]] = {
    "readfile_missing": (f'readfile("{MISSING}")', "string"),
    "readfile_dir": ('readfile("/")', "string"),
    "readstringlist_missing": (f'readstringlist("{MISSING}", "", "\\n", 10, 100)', "slist"),
    "readintlist_text": ('readintlist("/etc/passwd", "", ":", 10, 1000)', "ilist"),
    "readreallist_missing": (f'readreallist("{MISSING}", "", ",", 10, 100)', "rlist"),
    "readstringarray_missing": (f'readstringarray("arr", "{MISSING}", "", ",", 10, 100)', "int"),
    "readstringarrayidx_missing": (f'readstringarrayidx("arr", "{MISSING}", "", ",", 10, 100)',
                                   "int"),
    "data_readstringarray_missing": (f'data_readstringarray("{MISSING}", "", ",", 10, 100)',
                                     "data"),
    "data_readstringarrayidx_missing": (f'data_readstringarrayidx("{MISSING}", "", ",", 10, '
                                        '100)', "data"),
    "readjson_missing": (f'readjson("{MISSING}")', "data"),
    "readjson_bad": ('readjson("/etc/passwd")', "data"),
    "readyaml_missing": (f'readyaml("{MISSING}")', "data"),
    "readdata_missing": (f'readdata("{MISSING}", "auto")', "data"),
    "readdata_json_missing": (f'readdata("{MISSING}.json", "auto")', "data"),
    "readdata_csv_missing": (f'readdata("{MISSING}", "CSV")', "data"),
    "readcsv_missing": (f'readcsv("{MISSING}")', "data"),
    "readenvfile_missing": (f'readenvfile("{MISSING}")', "data"),
    "parsejson_bad": ('parsejson("{ nope")', "data"),
    "parseyaml_bad": ('parseyaml("a: [")', "data"),
    "getfields_missing": (f'getfields("x.*", "{MISSING}", ":", "arr")', "int"),
    "countlinesmatching_missing": (f'countlinesmatching("x", "{MISSING}")', "int"),
    "lsdir_missing": (f'lsdir("{MISSING}", ".*", "false")', "slist"),
    "regcmp_bad": ('regcmp("(", "x")', "class"),
    "regextract_bad": ('regextract("(", "x", "arr")', "class"),
    "regex_replace_bad": ('regex_replace("abc", "(", "x", "g")', "string"),
    "splitstring_bad": ('splitstring("a,b", "(", 10)', "slist"),
    "format_short": ('format("%s and %s", "one")', "string"),
    "format_modifier": ('format("%Qd", "one")', "string"),
    "execresult_missing": ('execresult("/nonexistent/cmd", "noshell")', "string"),
    "execresult_relative": ('execresult("nosuchcmd_x", "noshell")', "string"),
    "returnszero_missing": ('returnszero("/nonexistent/cmd", "noshell")', "class"),
    "file_hash_missing": (f'file_hash("{MISSING}", "md5")', "string"),
    "classfiltercsv_missing": (f'classfiltercsv("{MISSING}", "true", 0)', "data"),
    "usemodule_missing": ('usemodule("nosuch_module_x", "")', "class"),
    "mergedata_scalar": ('mergedata("nosuch_var_x")', "data"),
    # no argument at all: an error at the default level (found in soumyadipdm's my_test.cf)
    "mergedata_no_args": ("mergedata()", "data"),
    "mergedata_no_args_nested": ('mergedata(mergedata(), \'{ "a": 1 }\')', "data"),
    # more bad regular expressions: each function as cf-agent treats a pattern that
    # does not compile (an error and no match, the text whole, nothing said...)
    "grep_bad": ('grep("(", \'[ "a" ]\')', "slist"),
    "filter_bad": ('filter("(", \'[ "a" ]\', "true", "false", 10)', "slist"),
    "data_regextract_bad": ('data_regextract("(", "x")', "data"),
    "classesmatching_bad": ('classesmatching("(")', "slist"),
    "string_split_bad": ('string_split("a,b", "(", 3)', "slist"),
    "regline_bad": ('regline("(", "/etc/hostname")', "class"),
    "countlinesmatching_bad": ('countlinesmatching("(", "/etc/hostname")', "int"),
    "lsdir_bad": ('lsdir("/", "(", "false")', "slist"),
    "readstringlist_badcomment": ('readstringlist("/etc/hostname", "(", "\\n", 10, 100)',
                                  "slist"),
    # more bad data, values and files
    "parseyaml_bad2": ('parseyaml("[")', "data"),
    "readjson_dir": ('readjson("/")', "data"),
    "format_S_undefined": ('format("%S", "nosuch_var_x")', "string"),
    "storejson_undefined": ('storejson("nosuch_var_x")', "string"),
    "string_mustache_bad": ('string_mustache("{{#a}}")', "string"),
    "filestat_missing": (f'filestat("{MISSING}", "size")', "string"),
    "peers_missing": (f'peers("{MISSING}", "#.*", 2)', "slist"),
    "sum_text": ('sum(\'[ "a", "1" ]\')', "string"),
    "int_text": ('int("abc")', "int"),
    "eval_bad": ('eval("1+", "math", "infix")', "string"),
    "nth_out_of_range": ('nth(\'[ "a" ]\', 5)', "string"),
    "variablesmatching_bad": ('variablesmatching("(")', "slist"),
    "cf_version_after_bad": ('cf_version_after("abc")', "class"),
    "cf_version_between_bad": ('cf_version_between("1.2", "x.y")', "class"),
    "findfiles_up_file": ('findfiles_up("/etc/hostname", "x")', "data"),
    "findfiles_up_absglob": ('findfiles_up("/", "/x")', "data"),
    "findfiles_relative": ('findfiles("rel*")', "slist"),
    "classfiltercsv_index": ('classfiltercsv("/etc/passwd", "false", 10)', "data"),
    "classfiltercsv_lines": ('classfiltercsv("@ROOT@/bad.csv", "true", 0, 0)', "data"),
    "classfiltercsv_sort": ('classfiltercsv("@ROOT@/bad.csv", "true", 0, 7)', "data"),
    # a call of no function among the arguments: FnCallEvaluate's "No such FnCall", naming
    # the promise's file as given and its line (the parser rejects one at the top)
    "unknown_nested": ('concat("a", nosuchfn_cflite("x"))', "string"),
    "unknown_deeper": ('format("%s", concat("b", nosuchfn_cflite2("x", "y")))', "string"),
    "unknown_in_list": ('join(",", nosuchfn_cflite3())', "string"),
    # IntFromString/DoubleFromString on a text argument (not checked as an int): nth()'s
    # index in a list, the numbers isgreaterthan() compares
    "nth_index_text": ('nth(\'[ "a", "b" ]\', "abc")', "string"),
    "nth_index_ending": ('nth(\'[ "a", "b" ]\', "1 2")', "string"),
    "nth_index_suffix": ('nth(\'[ "a", "b" ]\', "12abc")', "string"),
    "nth_index_empty": ('nth(\'[ "a", "b" ]\', "")', "string"),
    "isgreaterthan_ending": ('isgreaterthan("12abc", "1")', "class"),
    "islessthan_ending": ('islessthan("1", "2 x")', "class"),
    "readintlist_ending": ('readintlist("@ROOT@/ints.txt", "", ",", 10, 100)', "ilist"),
}

# files the calls read (@ROOT@: the test's directory)
FILES = {"bad.csv": 'cls,a,b\nany,1,2\nany,1\nany,"x\n', "ints.txt": "1,12ab,3 4,5"}


def materialize(root: Any, text: str) -> str:
    """``text`` with @ROOT@ made ``root``, whose :data:`FILES` are written."""
    for name, content in FILES.items():
        (root / name).write_text(content)
    return text.replace("@ROOT@", str(root))

# how a call of each return kind becomes a string, and a class
_AS_TEXT = {"string": "{c}", "int": "{c}", "slist": 'join(",", {c})',
            "ilist": 'join(",", {c})', "rlist": 'join(",", {c})', "data": "storejson({c})",
            "class": 'ifelse({c}, "yes", "no")'}
_AS_CLASS = {"string": 'strcmp({c}, "zz")', "int": 'strcmp({c}, "zz")',
             "slist": 'strcmp(join(",", {c}), "zz")', "ilist": 'strcmp(join(",", {c}), "zz")',
             "rlist": 'strcmp(join(",", {c}), "zz")', "data": 'strcmp(storejson({c}), "zz")',
             "class": "{c}"}
_VAR_TYPE = {"string": "string", "int": "int", "slist": "slist", "ilist": "ilist",
             "rlist": "rlist", "data": "data",
             "class": "string"}

CONTEXTS = ("vars", "classes", "report", "other_bundle", "nested", "common")


def _vars_line(call: str, kind: str) -> str:
    if kind == "class":
        return f'"v" string => {_AS_TEXT[kind].format(c=call)};'
    return f'"v" {_VAR_TYPE[kind]} => {call};'


def policy_text(call: str, kind: str, context: str) -> str:
    main = ["bundle agent main", "{"]
    extra: list[str] = []
    if context == "vars":
        main += ["  vars:", "    " + _vars_line(call, kind)]
    elif context == "classes":
        main += ["  classes:", f'    "k" expression => {_AS_CLASS[kind].format(c=call)};']
    elif context == "report":
        main += ["  reports:", f'    "with=$(with)" with => {_AS_TEXT[kind].format(c=call)};']
    elif context == "other_bundle":
        main += ["  methods:", '    "o" usebundle => other;']
        extra += ["bundle agent other", "{", "  vars:", "    " + _vars_line(call, kind), "}"]
    elif context == "nested":
        main += ["  vars:", f'    "v" string => concat("n:", {_AS_TEXT[kind].format(c=call)});']
    elif context == "common":
        extra += ["bundle common g", "{", "  vars:", "    " + _vars_line(call, kind), "}"]
    main += ["  reports:", '    "end of main";', "}"]
    return "\n".join(main + extra) + "\n"


# several failing calls in one policy, each in its own context: the order in which
# their lines first appear (cf-promises' rounds, then the agent's)
MIXED: dict[str, tuple[tuple[str, str], ...]] = {
    "mixed_files": (("readjson_missing", "vars"), ("readfile_missing", "common"),
                    ("lsdir_missing", "classes"), ("data_readstringarray_missing", "report"),
                    ("readyaml_missing", "other_bundle")),
    "mixed_regex": (("regcmp_bad", "report"), ("splitstring_bad", "vars"),
                    ("regex_replace_bad", "common"), ("classesmatching_bad", "nested")),
    "mixed_exec": (("execresult_missing", "classes"), ("format_short", "vars"),
                   ("parsejson_bad", "common"), ("usemodule_missing", "report"),
                   ("readintlist_text", "other_bundle")),
}


def mixed_text(parts: tuple[tuple[str, str], ...]) -> str:
    """One policy holding each (call, context) of ``parts``: each context's bundle
    renamed after its place, main calling the other bundles."""
    mains: list[str] = []
    extra: list[str] = []
    for i, (fn, context) in enumerate(parts):
        call, kind = CALLS[fn]
        text = policy_text(call, kind, context)
        text = text.replace("bundle agent main", f"bundle agent part{i}")
        text = text.replace("bundle common g", f"bundle common g{i}")
        text = text.replace("usebundle => other", f"usebundle => other{i}")
        text = text.replace("bundle agent other", f"bundle agent other{i}")
        text = text.replace('"end of main"', f'"end of part{i}"')
        text = text.replace('"v"', f'"v{i}"').replace('"k"', f'"k{i}"')
        mains.append(f'    "p{i}" usebundle => part{i};')
        extra.append(text)
    main = "bundle agent main\n{\n  methods:\n" + "\n".join(mains) + "\n}\n"
    return main + "".join(extra)

# malformed YAML: libyaml stops at the error and cf-agent 3.21 keeps what its events built
# until then (open containers closed, a key without its value left out), silently
_BAD_YAML = ("[", "a: [", "a: 1\nb: [", "- a\n- [", "{", "a: {b: 1", "[1, 2", "a: 'x",
             "x: 1\nx", "a: 1\n b", "- 1\n-: [", "a:\n  - 1\n  - [", "[a, b",
             "{a: 1, b: [2", "a: b: c", "- [1, {x: 2", "a: |\n  x\n b: [")
for _i, _text in enumerate(_BAD_YAML):
    CALLS[f"parseyaml_partial{_i}"] = (f'parseyaml("{_text}")', "data")


def cases() -> list[tuple[str, str]]:
    """(name, policy text)."""
    out = [(f"{fn}-{context}", policy_text(call, kind, context))
           for fn, (call, kind) in CALLS.items() for context in CONTEXTS]
    out += [(name, mixed_text(parts)) for name, parts in MIXED.items()]
    return out


# where the reports differ for a reason outside this family (the lines agree)
EXPECTED_DIFFERENCES: dict[str, str] = {}

# the lines as printed, counts and order: cf-agent calls a failing function each time it
# evaluates the promise (docs/language.md, "Function errors"), cf-lite says each line once
REPETITION = ("cf-agent 3.21 prints a failing call's error at each of its evaluations (a "
              "failed call stays a call, so the ExpandDeRefPromise copy, VerifyVarPromise's "
              "EvaluateFinalRval and the agent's extra VerifyVarPromise each call it again, in "
              "every PolicyResolve round of cf-promises and of the agent, the preliminary "
              "convergence and each pass); cf-lite prints each distinct line once, in the "
              "order cf-agent first prints it (docs/language.md, \"Function errors\")")

_NOISE = re.compile(r"^\s*(?:info|verbose|debug):")


def observe(stdout: str, stderr: str, returncode: int, workdir: str) -> dict[str, object]:
    """The lines of the run (stdout, then stderr; the work directory masked), and the
    distinct ones in the order they first appear."""
    text = (stdout + stderr).replace(workdir, "WORKDIR")
    lines = [line for line in text.splitlines() if not _NOISE.match(line)]
    distinct = list(dict.fromkeys(lines))
    return {"lines": lines, "distinct": distinct, "exit": returncode}
