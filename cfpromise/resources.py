"""Where cf-lite's own policy files are: the standard library and the default policy.

An installed cf-lite (a wheel or an sdist) carries them as package data in
``cfpromise/share/bundles`` and ``cfpromise/share/policy`` (``setup.py`` copies
the repository's top-level ``bundles/`` and ``policy/`` there at build time); a
source checkout (``make run``, an editable install) uses those top-level
directories themselves.  Policy reaches the library as ``$(sys.libdir)``: it is
WORKDIR/inputs/lib, as in cf-agent, once that holds a ``stdlib.cf`` (masterfiles'
lib, copied or pulled there), and cf-lite's own library until then.
"""
from __future__ import annotations

import os

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def share_dir(name: str) -> str:
    """The directory of ``name`` ("bundles" or "policy"): packaged, else the checkout's."""
    packaged = os.path.join(_PACKAGE, "share", name)
    if os.path.isdir(packaged):
        return packaged
    return os.path.join(os.path.dirname(_PACKAGE), name)


def libdir(inputdir: str) -> str:
    """``sys.libdir``: WORKDIR/inputs/lib when it has a standard library, else cf-lite's."""
    lib = os.path.join(inputdir, "lib")
    if os.path.isfile(os.path.join(lib, "stdlib.cf")):
        return lib
    return share_dir("bundles")


def shipped_policy(name: str) -> str | None:
    """A file of cf-lite's default policy by bare name (``promises.cf``), if it has one."""
    path = os.path.join(share_dir("policy"), name)
    return path if os.path.isfile(path) else None
