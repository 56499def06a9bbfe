"""CFEngine Enterprise and LDAP built-ins, which cf-lite does not provide.

They exist so that policy using them parses and fails with a clear message
naming the function instead of "unknown function".  ``hostswithclass`` needs
the Enterprise hub database too.
"""
from __future__ import annotations

from cfpromise.eval.functions.api import NotSupported, builtin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Sequence

    from cfpromise.eval.functions.api import FunctionContext, Value

    Impl = Callable[[FunctionContext, Sequence[Value]], Value]

_ENTERPRISE = ("hubknowledge", "hostswithclass")      # remotescalar & co: functions/remote.py
_LDAP = ("ldaparray", "ldaplist", "ldapvalue", "regldap")
_CACHED = frozenset({"hubknowledge", "ldaplist", "ldapvalue", "regldap"})


def _unsupported(name: str, what: str) -> Impl:
    def impl(ctx: FunctionContext, args: Sequence[Value]) -> Value:
        raise NotSupported(f"{name}() requires {what}: not supported by cf-lite")
    impl.__name__ = name
    impl.__doc__ = f"{name}(): {what} only; raises NotSupported."
    return impl


for _name in _ENTERPRISE:
    builtin(_name, cached=_name in _CACHED)(_unsupported(_name, "CFEngine Enterprise"))
for _name in _LDAP:
    builtin(_name, cached=_name in _CACHED)(_unsupported(_name, "CFEngine Enterprise/LDAP"))
