"""``python -m cfpromise.eval.functions``: regenerate the lazy-import index."""
from __future__ import annotations

if __name__ == "__main__":      # a test importing every module must not rewrite the index
    from cfpromise.eval.functions import write_index
    print(write_index())
