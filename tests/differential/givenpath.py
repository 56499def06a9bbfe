"""Generated cases: the policy file's name in cf-agent 3.21's messages is the path as
it was given (``-f ./promises.cf`` says ``./promises.cf``, an input beside it
``./lib/x.cf``, ``-f ../t/promises.cf`` says ``../t/promises.cf``), while
``$(this.promise_filename)`` is whole in both.  Found running the EFL library's tests
(``cd test/masterfiles; cf-agent -Kf ./promises.cf``).  Each case is a policy tree run
from a directory (``cwd``) with an ``-f`` path relative to it; the messages come from a
promise's error (its PromiseRef), the rxdirs warning, a bad mode, an illegal
variable name, a bare word naming nothing ("Apparent bundle") and a call of no
function ("No such FnCall"), in the entry file or in an input."""
from __future__ import annotations

CASES: list[tuple[str, dict[str, str], str, str]] = []    # name, files, cwd, -f path

_MESSAGES = {
    "process_count": ('processes:\n  "no_such_process_cflite_path" process_count => pc;\n',
                      'body process_count pc { match_range => irange("1", "2"); }\n'),
    "rxdirs": ('files:\n  "$(sys.workdir)/f" create => "true", perms => m("644");\n',
               'body perms m(x) { mode => "$(x)"; }\n'),
    "bad_mode": ('files:\n  "$(sys.workdir)/f" create => "true", perms => m("$(v)");\n'
                 'vars:\n  "v" string => "zzz";\n', 'body perms m(x) { mode => "$(x)"; }\n'),
    "illegal_name": ('vars:\n  "n" string => "a b";\n  "$(n)" string => "x";\n', ""),
    "report": ('reports:\n  "file=$(this.promise_filename)";\n', ""),
    "apparent": ('reports:\n  "r" comment => bare_word_naming_nothing;\n', ""),
    "no_such_fncall": ('vars:\n  "x" string => concat(nosuchfn_cflite("a"));\n', ""),
}
_WHERE = {          # where the promise is: the entry file, or an input in lib/
    "entry": None,
    "input": "lib/inc.cf",
}
_RUNS = {           # (directory to run from, -f path), relative to the tree
    "dot": (".", "./promises.cf"),
    "dotdot": ("sub", "../promises.cf"),
    "dot_sub": ("..", None),        # ./<tree name>/promises.cf
    "absolute": (".", ""),          # the absolute path
}
for mname, (promise, bodies) in _MESSAGES.items():
    for wname, inc in _WHERE.items():
        for rname, (cwd, given) in _RUNS.items():
            name = f"{mname}_{wname}_{rname}"
            bundle = f"bundle agent b\n{{\n{promise}}}\n{bodies}"
            inputs = f'inputs => {{ "{inc}" }}; ' if inc else ""
            files = {"promises.cf": (f'body common control {{ bundlesequence => {{ "b" }}; '
                                     f'{inputs}}}\n' + ("" if inc else bundle)),
                     "sub/.keep": ""}
            if inc:
                files[inc] = bundle
            f = given if given is not None else f"./{name}/promises.cf"
            CASES.append((name, files, cwd, f))

NAMES = [c[0] for c in CASES]
