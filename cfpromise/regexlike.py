"""Is a text meant as a regular expression?  CFEngine's IsRegex (libpromises), which
decides both how a files promiser's path components are read (cfpromise.promises.files)
and how cf-serverd reads an access rule's address or host name (cfpromise.server): one
port of it, shared by both."""
from __future__ import annotations


def is_regex(text: str) -> bool:
    """IsRegex: does ``text`` look like a regular expression (not a plain name)?"""
    ret = False
    special = "norepeat"
    bracket = paren = 0
    for i, ch in enumerate(text):
        if special == "literal":
            special = "norm"
            continue
        if ch == "\\":
            special = "literal"
            continue
        if bracket and ch != "]":
            if ch == "[":
                return False
            continue
        if ch == "^":
            special = "norepeat" if i == 0 else "norm"
        elif ch in "*+":
            if special == "norepeat":
                return False
            special = "norepeat"
            ret = True
        elif ch == "[":
            special = "norm"
            bracket += 1
            ret = True
        elif ch == "]":
            if bracket == 0:
                return False
            bracket = 0
            special = "norm"
        elif ch == "(":
            special = "norepeat"
            paren += 1
        elif ch == ")":
            special = "norm"
            paren -= 1
            if paren < 0:
                return False
        elif ch == "|":
            special = "norepeat"
            if paren > 0:
                ret = True
        else:
            special = "norm"
    if bracket or paren or special == "literal":
        return False
    return ret
