"""``lru_cache`` without importing functools.

The start path memoizes a few pure functions (reference segments, variable-reference
hashes, index splits, the schema, range regexes).  ``functools.lru_cache`` is a C
wrapper, ``_functools._lru_cache_wrapper``, that functools wraps in Python; importing
functools to get it also imports ``types`` and builds functools' own classes and its
``CacheInfo`` namedtuple: 2.9 M instructions of an 82 M one-report run (valgrind,
Debian's 3.11), for nothing the run uses.  :func:`lru_cache` here makes the same C
wrapper, with the attributes ``functools.update_wrapper`` copies and
``cache_parameters``; ``cache_info()`` gives a plain tuple (hits, misses, maxsize,
currsize), in the namedtuple's order.

Guard: ``_functools`` has ``_lru_cache_wrapper`` (CPython 3.11-3.13 do).  Fallback,
and under ``CF_LITE_PLAIN`` (:mod:`cfpromise.fast`): ``functools.lru_cache`` itself.
"""
from __future__ import annotations

from cfpromise import fast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

try:
    if fast.PLAIN:
        raise ImportError("CF_LITE_PLAIN")
    from _functools import _lru_cache_wrapper
except ImportError:
    from functools import lru_cache as lru_cache        # noqa: F401  (the plain path)
    C_WRAPPER = False
else:
    C_WRAPPER = True
    _COPIED = ("__module__", "__name__", "__qualname__", "__doc__")

    def _cache_info(hits: int, misses: int, maxsize: int | None,
                    currsize: int) -> tuple[int, int, int | None, int]:
        return (hits, misses, maxsize, currsize)

    def _wrap(fn: Callable[..., Any], maxsize: int | None, typed: bool) -> Any:
        wrapper = _lru_cache_wrapper(fn, maxsize, typed, _cache_info)
        for name in _COPIED:
            try:
                setattr(wrapper, name, getattr(fn, name))
            except AttributeError:
                pass
        wrapper.__dict__.update(getattr(fn, "__dict__", {}))
        wrapper.__wrapped__ = fn
        wrapper.cache_parameters = lambda: {"maxsize": maxsize, "typed": typed}
        return wrapper

    def lru_cache(maxsize: Any = 128, typed: bool = False) -> Any:   # type: ignore[no-redef]
        """``functools.lru_cache`` (see the module docstring)."""
        if isinstance(maxsize, int):
            maxsize = max(maxsize, 0)
        elif callable(maxsize) and isinstance(typed, bool):
            return _wrap(maxsize, 128, typed)              # @lru_cache without arguments
        elif maxsize is not None:
            raise TypeError("Expected first argument to be an integer, a callable, or None")
        return lambda fn: _wrap(fn, maxsize, typed)
