"""cf-lite-monitord: the monitord daemon (not yet implemented: it has its own issue)."""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    print("cf-lite-monitord: not implemented yet", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
