"""CFEngine Enterprise and LDAP built-ins, as the community cf-agent 3.21 has them.

They exist so that policy using them parses and behaves as it does under the community
agent: ``hubknowledge()`` gives an empty string; ``hostswithclass()`` and the LDAP
functions fail, saying "Host class counting is only available in CFEngine Enterprise" or
"LDAP support only available in CFEngine Enterprise" (the variable is not defined, a class
is not set).  ``cf-lite-promises --lint`` names them as not supported.
"""
from __future__ import annotations

from cfpromise.eval.functions.api import builtin
from cfpromise.eval.functions.common import argv

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Sequence

    from cfpromise.eval.functions.api import FunctionContext, Value

    Impl = Callable[[FunctionContext, Sequence[Value]], Value]

_LDAP = ("ldaparray", "ldaplist", "ldapvalue", "regldap")
_CACHED = frozenset({"hubknowledge", "ldaplist", "ldapvalue", "regldap"})


@builtin("hubknowledge", cached=True)
def hubknowledge(ctx: FunctionContext, args: Sequence[Value]) -> Value:
    """The community agent's: no hub to ask, an empty string."""
    argv("hubknowledge", args, 1)
    return ""


def _refused(name: str, key: str) -> Impl:
    def impl(ctx: FunctionContext, args: Sequence[Value]) -> Value:
        from cfpromise.eval.functions import messages
        raise messages.fail(key)
    impl.__name__ = name
    impl.__doc__ = f"{name}(): fails, as in the community agent ({key})."
    return impl


builtin("hostswithclass")(_refused("hostswithclass", "enterprise.hosts"))
for _name in _LDAP:
    builtin(_name, cached=_name in _CACHED)(_refused(_name, "enterprise.ldap"))
