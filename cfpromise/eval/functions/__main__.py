"""``python -m cfpromise.eval.functions``: regenerate the lazy-import index."""
from __future__ import annotations

from cfpromise.eval.functions import write_index

print(write_index())
