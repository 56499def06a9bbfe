"""Generated cases: where ``-f PATH`` finds the policy, for cf-agent and cf-promises 3.21
(issue #26): a path not starting with ``/`` or ``.`` is in WORKDIR/inputs even when the
working directory has such a file (``-f p.cf``, ``-f sub/p.cf``, ``-f sub/../p.cf``),
one starting with a dot is from the working directory (``./p.cf``, ``../cwd/p.cf``,
``.p.cf``), an absolute one is itself; and what each says when the file is missing (in
both places, in one of them) or is a directory.

Each case: the files WORKDIR/inputs holds (each agent's own WORKDIR), the files the
working directory holds, the ``-f`` argument (``CWD/`` in it stands for the working
directory's absolute path; ``ARG:`` first, the command's argument instead of ``-f``:
that one is from the working directory whatever its form) and the program.  Every copy of the entry file says where it
is (a report with ``$(this.promise_filename)`` and ``sys.policy_entry_*``), reads an
input beside it and makes an error naming its file.
"""
from __future__ import annotations

_ENTRY = """body common control {{ bundlesequence => {{ "main", "inc" }}; inputs => {{ "inc.cf" }}; }}
bundle agent main
{{
vars:
  "n" string => "a b";
  "$(n)" string => "x";
reports:
  "{label} file=$(this.promise_filename) entry=$(sys.policy_entry_filename)";
  "{label} dir=$(sys.policy_entry_dirname) base=$(sys.policy_entry_basename)";
}}
bundle common where
{{
vars:
  "file" string => "{label} $(this.promise_filename)";
  "entry" string => "$(sys.policy_entry_filename) $(sys.policy_entry_dirname)";
}}
"""
_INC = 'bundle agent inc {{ reports: "{label} inc=$(this.promise_filename)"; }}\n'
# an input with an error the validating cf-promises names by file and line (as it was
# given: ./inc.cf beside -f ./p.cf), then the failsafe
_INC_BROKEN = 'bundle agent inc {{ reports: "{label}" nosuch => "x"; }}\n'

# name -> (files in WORKDIR/inputs, files in the working directory, -f argument)
_SHAPES: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = {
    "bare_both": (("p.cf",), ("p.cf",), "p.cf"),
    "bare_inputs_only": (("p.cf",), (), "p.cf"),
    "bare_cwd_only": ((), ("p.cf",), "p.cf"),
    "bare_neither": ((), (), "p.cf"),
    "sub_both": (("sub/p.cf",), ("sub/p.cf",), "sub/p.cf"),
    "sub_inputs_only": (("sub/p.cf",), (), "sub/p.cf"),
    "sub_cwd_only": ((), ("sub/p.cf",), "sub/p.cf"),
    "sub_neither": ((), (), "sub/p.cf"),
    "sub_dotdot": (("p.cf",), ("p.cf", "sub/p.cf"), "sub/../p.cf"),
    "dot_both": (("p.cf",), ("p.cf",), "./p.cf"),
    "dot_inputs_only": (("p.cf",), (), "./p.cf"),
    "dot_sub_inputs_only": (("sub/p.cf",), (), "./sub/p.cf"),
    "dot_sub_cwd": ((), ("sub/p.cf",), "./sub/p.cf"),
    "dotdot_cwd": ((), ("p.cf",), "../cwd/p.cf"),
    "dotdot_missing": (("p.cf",), (), "../cwd/p.cf"),
    "hidden_inputs_only": ((".p.cf",), (), ".p.cf"),
    "hidden_cwd": ((), (".p.cf",), ".p.cf"),
    "absolute": (("p.cf",), ("p.cf",), "CWD/p.cf"),
    "absolute_missing": (("p.cf",), (), "CWD/p.cf"),
    "dir_bare": (("sub/p.cf",), ("sub/p.cf",), "sub"),
    "dir_dot": (("sub/p.cf",), ("sub/p.cf",), "./sub"),
    "dir_absolute": ((), ("sub/p.cf",), "CWD/sub"),
    "empty": (("p.cf",), ("p.cf",), ""),
    # the file as the command's argument, not -f: from the working directory
    "arg_bare_both": (("p.cf",), ("p.cf",), "ARG:p.cf"),
    "arg_bare_inputs_only": (("p.cf",), (), "ARG:p.cf"),
    "arg_sub_cwd": (("sub/p.cf",), ("sub/p.cf",), "ARG:sub/p.cf"),
    "arg_dot": (("p.cf",), ("p.cf",), "ARG:./p.cf"),
}

# the shapes whose input has an error, for both programs
_BROKEN = ("bare_both", "sub_inputs_only", "sub_dotdot", "dot_both", "dot_sub_cwd",
           "dotdot_cwd", "absolute", "arg_dot", "arg_bare_both", "arg_sub_cwd", "hidden_cwd")

CASES: list[tuple[str, tuple[str, ...], tuple[str, ...], str, str, bool]] = [
    (f"{program}_{name}", inputs, cwd, given, program, False)
    for program in ("agent", "promises")
    for name, (inputs, cwd, given) in _SHAPES.items()] + [
    (f"{program}_broken_{name}", *_SHAPES[name], program, True)
    for program in ("agent", "promises") for name in _BROKEN]
NAMES = [c[0] for c in CASES]

# Known differences, each with its reason (the test fails when one starts agreeing).
EXPECTED_DIFFERENCES: dict[str, str] = {}


def tree(files: tuple[str, ...], label: str, broken: bool = False) -> dict[str, str]:
    """The entry files ``files`` (relative paths) with an inc.cf beside each, labelled
    (``broken``: inc.cf has an error)."""
    out: dict[str, str] = {}
    for rel in files:
        where = f"{label}:{rel}"
        out[rel] = _ENTRY.format(label=where)
        out[rel.rpartition("/")[0] + ("/" if "/" in rel else "") + "inc.cf"] = \
            (_INC_BROKEN if broken else _INC).format(label=where)
    return out
