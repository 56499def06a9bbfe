"""Generated cases: services promises whose service_method body names a bundle of the
policy (``service_bundle``), as cf-agent 3.21 calls it (issue #26).

The bundle is called as a methods promise calls one (VerifyMethod), with
``$(this.service_policy)`` (default ``start``) defined while the body is expanded; the
body's ``service_args`` goes nowhere by itself (a bundle gets it only through an
argument).  Without a service_method body, a bundle named ``service_`` + the
canonified promiser in the promise's namespace is called with (promiser, policy), else
``default:standard_services``.  Every called bundle only reports what it got: no
service of the host is touched.  Compared as :mod:`agentmisc` compares a run (the
messages, the exit code) and the outcome classes a last bundle reports."""
from __future__ import annotations

CASES: list[tuple[str, dict[str, str], tuple[str, ...]]] = []

_CONTROL = 'body common control\n{\n  bundlesequence => { "main", "show" };\n}\n'
_SHOW = """bundle agent show
{
  vars:
    "c" slist => sort(classesmatching("o_.*"), "lex");
  reports:
    "class $(c)";
}
body classes o(p)
{
  promise_repaired => { "o_$(p)_repaired" };
  promise_kept => { "o_$(p)_kept" };
  repair_failed => { "o_$(p)_failed" };
}
"""
POLICIES = {"start": "start", "stop": "stop", "restart": "restart", "reload": "reload",
            "custom": "mycustom", "unset": None, "from_var": "$(word)"}
# the bundle's arguments, the first n of them for a bundle of n parameters
_ARGS = ('"$(this.promiser)"', '"$(this.service_policy)"', '"$(a)"')


def _bundle(n: int) -> str:
    params = ", ".join(f"p{i}" for i in range(1, n + 1))
    lines = "".join(f'    "sb{n} {{$(this.bundle)}} p{i}=$(p{i})";\n' for i in range(1, n + 1))
    return (f"bundle agent sb{n}{f'({params})' if n else ''}\n{{\n  reports:\n"
            f'    "sb{n} called";\n{lines}    "sb{n} policy=$(this.service_policy)";\n}}\n')


def _arity_policy(n: int, service_args: bool) -> str:
    promises = "".join(
        f'    "svc_{name}"{"" if word is None else f" service_policy => {chr(34)}{word}{chr(34)},"}'
        f' service_method => m("arg_{name}"), classes => o("{name}");\n'
        for name, word in POLICIES.items())
    call = f"sb{n}({', '.join(_ARGS[:n])})" if n else "sb0"
    body = (f"body service_method m(a)\n{{\n  service_bundle => {call};\n"
            + ('  service_args => "--flag $(a)";\n' if service_args else "") + "}\n")
    return (_CONTROL + 'bundle agent main\n{\n  vars:\n    "word" string => "viaword";\n'
            "  services:\n" + promises + "}\n" + body + _bundle(n) + _SHOW)


for _n in range(4):
    for _with_args in (False, True):
        CASES.append((f"arity{_n}{'_service_args' if _with_args else ''}",
                      {"promises.cf": _arity_policy(_n, _with_args)}, ()))


def _case(name: str, main: str, rest: str = "", *args: str) -> None:
    CASES.append((name, {"promises.cf": _CONTROL + "bundle agent main\n{\n" + main + "}\n"
                         + rest + _SHOW}, args))


_SB2 = _bundle(2)
_M2 = 'body service_method m2\n{\n  service_bundle => sb2("$(this.promiser)", "$(this.service_policy)");\n}\n'
# the default bundle: service_ + the canonified promiser (with the promiser and policy)
_case("default_named_bundle",
      '  services:\n    "web one" service_policy => "restart", classes => o("d");\n'
      '    "db.x" service_policy => "stop", classes => o("e");\n',
      'bundle agent service_web_one(s, p)\n{\n  reports:\n    "special s=$(s) p=$(p)";\n}\n'
      'bundle agent service_db_x(s, p)\n{\n  reports:\n    "special2 s=$(s) p=$(p)";\n}\n')
_case("default_named_bundle_wrong_arity",
      '  services:\n    "one" service_policy => "restart", classes => o("d");\n',
      'bundle agent service_one(s)\n{\n  reports:\n    "special s=$(s)";\n}\n')
_case("default_named_bundle_no_params",
      '  services:\n    "one" service_policy => "restart", classes => o("d");\n',
      'bundle agent service_one\n{\n  reports:\n    "special $(this.service_policy)";\n}\n')
_case("default_missing_standard_services",
      '  services:\n    "one" service_policy => "start", classes => o("d");\n'
      '  reports:\n    "after";\n')
_case("no_args_to_two_params",
      '  services:\n    "one" service_method => m0, classes => o("d");\n',
      'body service_method m0\n{\n  service_bundle => sb2;\n}\n' + _SB2)
_case("quoted_name",
      '  services:\n    "one" service_method => mq, classes => o("d");\n',
      'body service_method mq\n{\n  service_bundle => "sb0";\n}\n' + _bundle(0))
_case("iterated_promiser",
      '  vars:\n    "svcs" slist => { "a", "b c" };\n  services:\n'
      '    "$(svcs)" service_policy => "reload", service_method => m2, classes => o("i");\n',
      _M2 + _SB2)
_case("warn_only",
      '  services:\n    "one" service_policy => "stop", service_method => m2, action => w,'
      ' classes => o("w");\n',
      _M2 + _SB2 + 'body action w\n{\n  action_policy => "warn";\n}\n')
_case("dry_run",
      '  services:\n    "one" service_policy => "stop", service_method => m2, classes => o("n");\n',
      _M2 + _SB2, "-n")
_case("depends_on_itself",
      '  services:\n    "one" service_dependencies => { "x", "one" }, service_method => m2,'
      ' classes => o("s");\n    "two" service_dependencies => { "one" }, service_method => m2,'
      ' classes => o("t");\n',
      _M2 + _SB2)
_case("service_type",
      '  services:\n    "win" service_method => mw, classes => o("w");\n'
      '    "gen" service_method => mg, classes => o("g");\n',
      'body service_method mw\n{\n  service_type => "windows";\n'
      '  service_bundle => sb2("$(this.promiser)", "$(this.service_policy)");\n}\n'
      'body service_method mg\n{\n  service_type => "generic";\n'
      '  service_bundle => sb2("$(this.promiser)", "$(this.service_policy)");\n}\n' + _SB2)
_case("body_args_calls",
      '  services:\n    "one" service_policy => "restart", service_method => mc(canonify("a b")),'
      ' classes => o("c");\n',
      'body service_method mc(x)\n{\n  service_bundle => sb2("$(x)", canonify("$(this.promiser) z"));\n}\n'
      + _SB2)
_case("bundle_outcome_repaired",
      '  services:\n    "one" service_method => mr, classes => o("r");\n',
      'body service_method mr\n{\n  service_bundle => rb("$(this.promiser)");\n}\n'
      'bundle agent rb(s)\n{\n  files:\n    "$(sys.workdir)/out/$(s)" create => "true";\n'
      '  reports:\n    "rb $(s)";\n}\n')
_case("bundle_outcome_failed",
      '  services:\n    "one" service_method => mf, classes => o("f");\n',
      'body service_method mf\n{\n  service_bundle => fb("$(this.promiser)");\n}\n'
      'bundle agent fb(s)\n{\n  commands:\n    "/bin/false";\n  reports:\n    "fb $(s)";\n}\n')

NAMES = [c[0] for c in CASES]

# Known differences, each with its reason (the test fails when one starts agreeing).
EXPECTED_DIFFERENCES: dict[str, str] = {}
