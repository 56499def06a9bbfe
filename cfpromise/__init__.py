"""cf-lite: a convergent configuration engine that speaks the CFEngine 3 policy language."""
from __future__ import annotations

__version__ = "0.1.0"

# The CFEngine language version whose behaviour cf-lite reproduces.
CFENGINE_COMPAT_VERSION = "3.21.0"
