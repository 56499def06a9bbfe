"""cf-lite-agent: run policy (being built: see the agent core issue)."""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    print("cf-lite-agent: not implemented yet", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
