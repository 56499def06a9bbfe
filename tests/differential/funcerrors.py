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
}

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


def cases() -> list[tuple[str, str, str, str]]:
    """(name, call, kind, context)."""
    return [(f"{fn}-{context}", call, kind, context)
            for fn, (call, kind) in CALLS.items() for context in CONTEXTS]


_NOISE = re.compile(r"^\s*(?:info|verbose|debug):")


def observe(stdout: str, stderr: str, returncode: int) -> dict[str, object]:
    """The lines of the run (stdout and stderr; the work directory masked), and the
    distinct ones in the order they first appear."""
    lines = [line for line in (stdout + stderr).splitlines() if not _NOISE.match(line)]
    distinct = list(dict.fromkeys(lines))
    return {"lines": lines, "distinct": distinct, "exit": returncode}
