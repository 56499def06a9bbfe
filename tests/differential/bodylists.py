"""Generated cases: a list given to a body as ``@(name)`` and used in a list attribute
as ``"$(param)"`` (issue #26, found in the EFL community library: ``copy_from =>
efl_cpf(..., "@{main.localhost}", ...)`` with ``servers => { "${server}" }``).

cf-agent 3.21 puts the list's items in the attribute: with ``localhost`` the copy is
local, with another host it connects there.  Without a key pair (these runs have none)
a connection fails quietly, as cf-agent's TLSClientInitialize says so at verbose level
only, and the copy finds no server.  The copies go under each agent's own
``$(sys.workdir)``; the source is the policy file itself.
"""
from __future__ import annotations

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []

_POLICY = """
bundle agent main
{{
vars:
  "srv" slist => {{ {servers} }};
  "name" string => "main.srv";
files:
  "$(sys.workdir)/copied" copy_from => c("$(this.promise_filename)", {arg});
reports:
  "copied" if => fileexists("$(sys.workdir)/copied");
}}
body copy_from c(f, s) {{ source => "$(f)"; servers => {{ {item} }}; compare => "digest"; }}
"""

_SERVERS = {
    "localhost": '"localhost"',
    "loopback_then_localhost": '"127.0.0.1", "localhost"',
    "loopback": '"127.0.0.1"',
}
_ARGS = {
    "at_braces": '"@{main.srv}"',
    "at_parens": '"@(main.srv)"',
    "at_expanded_name": '"@{${name}}"',
    "naked": "@(main.srv)",
    "scalar": '"localhost"',
}
_ITEMS = {
    "quoted_param": '"$(s)"',
    "braces_param": '"${s}"',
    "param_and_more": '"$(s)", "localhost"',
}
for sname, servers in _SERVERS.items():
    for aname, arg in _ARGS.items():
        for iname, item in _ITEMS.items():
            CASES.append((f"{sname}_{aname}_{iname}",
                          {"promises.cf": _POLICY.format(servers=servers, arg=arg, item=item)},
                          ()))

NAMES = [c[0] for c in CASES]
