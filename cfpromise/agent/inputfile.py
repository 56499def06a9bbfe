"""The policy file ``-f`` names, found as cf-agent 3.21 finds it, and what is said when it
cannot be read (cf-agent, cf-promises and the daemons alike: GenericAgentConfigSetInputFile).

A path given is one of three kinds (libntech's FilePathGetType):

* absolute (``/...``): itself;
* relative, its first character a dot (``./p.cf``, ``../t/p.cf``, even ``.p.cf``): from
  the working directory the program started in (cf-lite keeps it as that directory, a
  slash, then the path, so that messages can name it as given:
  :func:`cfpromise.promises.api.shown_path`);
* non-anchored, anything else (``p.cf``, ``sub/p.cf``, even the empty path): WORKDIR/inputs,
  a slash, then the path -- whether or not the working directory has such a file.

No ``-f`` at all is WORKDIR/inputs/promises.cf.  The file given as an argument instead
(``cf-promises p.cf``, ``cf-agent p.cf``) is never in WORKDIR/inputs: relative paths of
every kind are from the working directory.  cf-lite adds one thing: a bare name that
WORKDIR/inputs lacks but cf-lite's shipped default policy has (``-f promises.cf`` on a
fresh install) is the shipped file.

A missing file is named as given when relative, as found otherwise: cf-agent says "There
is no readable input file at 'PATH'. (stat: ...)" and falls back to the failsafe, without
running its validation; cf-promises says "Can't stat file 'PATH' for parsing. (stat: ...)".
A directory is "Can't parse directory 'PATH'." for both (cf-agent's validation fails).
"""
from __future__ import annotations

import os

NO_SUCH_FILE = "(stat: No such file or directory)"


def is_relative(name: str) -> bool:
    """A path from the working directory (a dot first), not from WORKDIR/inputs."""
    return name.startswith(".")


def input_file(name: str | None, workdir: str, option: bool = True) -> str:
    """The file the policy path ``name`` (None: not given) names, for a run in ``workdir``;
    ``option``: given with -f, else as the command's argument."""
    inputs = os.path.join(workdir, "inputs")
    if name is None:
        return os.path.join(inputs, "promises.cf")
    if os.path.isabs(name):
        return name
    if is_relative(name) or not option:
        return os.path.join(os.getcwd(), name)
    found = inputs + os.sep + name
    if os.sep not in name and not os.path.exists(found):
        from cfpromise.resources import shipped_policy
        return shipped_policy(name) or found
    return found


def shown(name: str | None, path: str, option: bool = True) -> str:
    """``path`` (from :func:`input_file`) as cf-agent names it in these messages."""
    if name is not None and (is_relative(name) or not option):
        return name
    return path


def entry_problem(name: str | None, path: str, agent: bool, option: bool = True
                  ) -> str | None:
    """What cf-agent (``agent``) or cf-promises says of an entry file it cannot parse, or
    None when it can be read."""
    if os.path.isdir(path):
        return f"Can't parse directory '{shown(name, path, option)}'."
    if os.path.exists(path):
        return None
    if agent:
        return f"There is no readable input file at '{shown(name, path, option)}'. {NO_SUCH_FILE}"
    return f"Can't stat file '{shown(name, path, option)}' for parsing. {NO_SUCH_FILE}"
