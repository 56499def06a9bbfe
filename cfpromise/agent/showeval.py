"""The tables of ``--show-evaluated-vars`` and ``--show-evaluated-classes``, byte for byte
as cf-agent 3.21 prints them (GenericAgentShowVariablesFormatted and
GenericAgentShowContextsFormatted), so that people can diff the two agents' output.

What cf-agent does, and this module with it:

* every row is formatted first (``%-40s %-60s %-40s %-40s`` for variables,
  ``%-60s %-40s %-40s`` for classes) and the rows are sorted as byte strings;
* a scalar is written with each ``"`` preceded by a backslash and nothing else escaped
  (ScalarWrite); a list as `` {"a","b"}`` (with its leading space, the members quoted the
  same way) and an empty list as nothing at all; a data container as compact JSON
  (JsonWriteCompact: keys sorted, reals as ``%.4f``);
* a value holding any byte outside printable ASCII (a tab, a newline, UTF-8) is shown
  as ``<non-printable>``;
* the pattern is a PCRE matched anywhere in the name; one that does not compile gets
  two error lines and no table at all.
"""
from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

_LISTS = ("slist", "ilist", "rlist")

# Python's re error -> PCRE's text and where PCRE puts the offset ("end": the pattern's
# length; "pos": where re found it; "brace": at the closing brace of the quantifier).
_PCRE_ERRORS: tuple[tuple[str, str, str], ...] = (
    ("missing ), unterminated subpattern", "missing )", "end"),
    ("unterminated character set", "missing terminating ] for character class", "end"),
    ("nothing to repeat", "nothing to repeat", "pos"),
    ("multiple repeat", "nothing to repeat", "pos"),
    ("unbalanced parenthesis", "unmatched parentheses", "pos"),
    ("bad escape (end of pattern)", "\\ at end of pattern", "end"),
    ("missing >, unterminated name", "syntax error in subpattern name (missing terminator)",
     "end"),
    ("min repeat greater than max repeat", "numbers out of order in {} quantifier", "brace"),
    ("look-behind requires fixed-width pattern", "lookbehind assertion is not fixed length",
     "pos"),
)


def _pcre_error(pattern: str, exc: re.error) -> str:
    message, offset = exc.msg, exc.pos if exc.pos is not None else 0
    for python_text, pcre_text, where in _PCRE_ERRORS:
        if exc.msg.startswith(python_text):
            message = pcre_text
            if where == "end":
                offset = len(pattern.encode("utf-8", "surrogateescape"))
            elif where == "brace":
                offset = max(pattern.find("}", offset), offset)
            break
    return (f"Regular expression error: pcre_compile() '{message}' in expression "
            f"'{pattern}' (offset: {offset})")


def _matcher(agent: Any, pattern: str) -> Callable[[str], bool] | None:
    """RegexPartialMatch with cf-agent's options, or None (errors logged) when the
    pattern does not compile."""
    from cfpromise.eval.functions.pcre import translate
    try:
        rx = re.compile(translate(pattern).encode("utf-8", "surrogateescape"),
                        re.MULTILINE | re.DOTALL)
    except re.error as exc:
        agent.out.log("error", _pcre_error(pattern, exc))
        agent.out.log("error", f"Sorry, we could not compile regular expression {pattern}")
        return None
    except Exception as exc:     # the translator's own verdict, in pcre_compile()'s words
        found = re.match(r"Regular expression error: pcre_compile\(\) '(.*)' in expression '.*' "
                         r"(\(offset: \d+\))$", str(exc), re.DOTALL)
        what, where = (found[1], found[2]) if found else (str(exc), "")
        if what.startswith("unknown POSIX class name"):
            what = "unknown POSIX class name"
        if what == "\\ at end of pattern":
            where = f"(offset: {len(pattern)})"
        agent.out.log("error", f"Regular expression error: pcre_compile() '{what}' in "
                      f"expression '{pattern}' {where}" if found else str(exc))
        agent.out.log("error", f"Sorry, we could not compile regular expression {pattern}")
        return None
    return lambda text: rx.search(text.encode("utf-8", "surrogateescape")) is not None


def _printable(text: str) -> bool:
    """StringIsPrintable: isprint() of every byte in the C locale."""
    return all(" " <= c <= "~" for c in text)


def _scalar(text: str, quote: bool = False) -> str:
    """ScalarWrite: only the double quote is escaped."""
    text = text.replace('"', '\\"')
    return f'"{text}"' if quote else text


def list_text(members: list[str]) -> str:
    """RlistWrite: `` {"a","b"}`` (nothing for an empty list)."""
    return (" {" + ",".join(_scalar(str(v), True) for v in members) + "}") if members else ""


def value_text(var: Any) -> str:
    """The Variable value column for one variable (RvalWrite / JsonWriteCompact)."""
    value = var.value
    if var.type == "data":
        from cfpromise.eval.functions.jsondata import copy, dumps
        text = dumps(copy(value), pretty=False)      # what cf-agent holds: a copy
    elif var.type in _LISTS or isinstance(value, (list, tuple)):
        text = list_text(list(value))
    else:
        text = _scalar(str(value))
    return text if _printable(text) else "<non-printable>"


def _sort_key(line: str) -> bytes:
    return line.encode("utf-8", "surrogateescape")


def show_classes(agent: Any, pattern: str) -> None:
    """The table cf-agent prints for --show-evaluated-classes."""
    match = _matcher(agent, pattern)
    agent.out.flush()
    if match is None:
        return
    comments = agent.ctx.comments
    rows = sorted((f"{name:<60} {','.join(tags):<40} {comments.get(name, ''):<40}"
                   for name, tags in agent.ctx.classes_items() if match(name)), key=_sort_key)
    write = agent.out.stream.write
    write(f"{'Class name':<60} {'Meta tags':<40} {'Comment':<40}\n")
    for row in rows:
        write(row + "\n")


def show_vars(agent: Any, pattern: str) -> None:
    """The table cf-agent prints for --show-evaluated-vars."""
    match = _matcher(agent, pattern)
    agent.out.flush()
    if match is None:
        return
    comments = agent.ctx.comments
    rows = sorted((f"{key:<40} {value_text(var):<60} {','.join(var.tags):<40} "
                   f"{comments.get(key, ''):<40}"
                   for key, var in agent.ctx.vars.items() if match(key)), key=_sort_key)
    write = agent.out.stream.write
    write(f"{'Variable name':<40} {'Variable value':<60} {'Meta tags':<40} {'Comment':<40}\n")
    for row in rows:
        write(row + "\n")
