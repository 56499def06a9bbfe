"""``deque``, ``attrgetter`` and the ``array`` module without the Python modules around them.

A one-report run used one thing from ``collections`` (``deque``, in
:mod:`cfpromise.schema.depends`), and ``array`` (the SIOCGIFCONF buffer in
:mod:`cfpromise.eval.hostinfo`) imports ``collections.abc`` to register itself as
a ``MutableSequence``, which imports the package first.  The package builds
``OrderedDict``, ``Counter``, ``ChainMap`` and the ``User*`` classes and imports
``itertools``, ``reprlib``, ``keyword`` and ``operator`` on the way: 3.7 M
instructions of a 101 M one-report run on Python 3.11 and 4.9 M on 3.13 (valgrind,
pyenv's builds), one of the parts of a start that cost 3.13 a third more than 3.11
(issue #29: 3.13 within 15% of 3.11).

* :data:`deque` is the C type itself, from ``_collections`` (``collections.deque``
  is that same object), and :data:`attrgetter` from ``_operator``, without
  ``operator``'s Python functions (1.1 M instructions on 3.11, 1.3 M on 3.13), as
  ``operator.attrgetter`` is.
* :func:`array_module` imports ``array`` while ``sys.modules["collections.abc"]``
  is ``_collections_abc`` (already imported by ``os`` at start), which is what
  ``collections/abc.py`` re-exports, and ``sys.modules["collections"]`` an empty
  stand-in (``PyImport_Import``, which array's initialisation calls, imports the
  top-level package of a dotted name first, then takes the module from
  ``sys.modules``): ``array.array`` is registered with the same
  ``MutableSequence`` class, and both entries are removed again at once, so that a
  later ``import collections`` or ``import collections.abc`` imports the real
  modules, as it would have.

Guard: CPython's ``_collections``, ``_operator`` and ``_collections_abc`` are there
(3.11-3.13).  Fallback, and under ``CF_LITE_PLAIN`` (:mod:`cfpromise.fast`):
``collections.deque``, ``operator.attrgetter`` and a plain ``import array``.
"""
from __future__ import annotations

import sys

from cfpromise import fast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

try:
    if fast.PLAIN:
        raise ImportError("CF_LITE_PLAIN")
    from _collections import deque
    from _operator import attrgetter
except ImportError:
    from collections import deque      # noqa: F401  (the plain path)
    from operator import attrgetter    # noqa: F401


def array_module() -> ModuleType:
    """The ``array`` module (see the module docstring)."""
    modules = sys.modules
    abc = modules.get("_collections_abc")
    if fast.PLAIN or abc is None or "array" in modules or "collections.abc" in modules:
        import array
        return array
    package = type(sys)("collections")     # a stand-in, there only while array is imported
    modules["collections"] = package
    modules["collections.abc"] = abc
    try:
        import array
    finally:
        for name, stand_in in (("collections.abc", abc), ("collections", package)):
            if modules.get(name) is stand_in:
                del modules[name]
    return array
