"""``json.dumps`` without importing the json package.

The json package imports re for its scanner and string patterns, and re imports
enum for its flags: 12 M instructions, a tenth of a one-report cron run, which
needs JSON only to write a validated marker and to compare promises by their
attributes (:mod:`cfpromise.agent.engine`); and a cold parse of masterfiles' lib/
only for the canonical text of its inline data containers
(:func:`cfpromise.syntax.convert.canonical_json`).  ``json.dumps`` itself hands the work
to ``_json.make_encoder``, the encoder's C core, with the arguments below; this
module calls it the same way.  Where the C core is missing, or under ``CF_LITE_PLAIN``
(:mod:`cfpromise.fast`), json does the work.
"""
from __future__ import annotations

from cfpromise import fast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

try:
    from _json import encode_basestring_ascii as _quote, make_encoder as _make_encoder
except ImportError:                     # an interpreter without the accelerator
    _quote = _make_encoder = None
    fast.fallback("json's C encoder missing: JSON is written by the json package")
if fast.PLAIN:
    _make_encoder = None


def _refuse(obj: Any) -> Any:
    raise TypeError(f"Object of type {obj.__class__.__name__} is not JSON serializable")


def dumps(obj: Any, *, sort_keys: bool = False, default: Callable[[Any], Any] | None = None,
          separators: tuple[str, str] = (", ", ": ")) -> str:
    """``json.dumps(obj, sort_keys=sort_keys, default=default, separators=separators)``."""
    if _make_encoder is None:
        import json
        return json.dumps(obj, sort_keys=sort_keys, default=default, separators=separators)
    if isinstance(obj, str):
        return _quote(obj)
    item_separator, key_separator = separators
    encode = _make_encoder({}, default or _refuse, _quote, None, key_separator, item_separator,
                           sort_keys, False, True)
    return "".join(encode(obj, 0))
