"""cf-lite: a convergent configuration engine that speaks the CFEngine 3 policy language."""
from __future__ import annotations

__version__ = "0.1.0"

# The CFEngine language version whose behaviour cf-lite reproduces.
CFENGINE_COMPAT_VERSION = "3.21.0"

# cf-lite's own modules are imported straight from their byte code (cfpromise.fast.fastimport)
from cfpromise.fast import fastimport as _fastimport  # noqa: E402

_fastimport.install()
