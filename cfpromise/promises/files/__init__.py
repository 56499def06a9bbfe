"""The ``files`` promise type, one module per attribute family.

:mod:`.handler` registers ``@handler("files")`` and runs a promise's
operations in cf-agent's order; :mod:`.attributes` reads the promise's
attributes; :mod:`.create`, :mod:`.perms`, :mod:`.delete`, :mod:`.rename`,
:mod:`.links`, :mod:`.copy`, :mod:`.select`, :mod:`.depth`, :mod:`.changes`,
:mod:`.transformer`, :mod:`.editing`/:mod:`.template` implement the families;
:mod:`.atomic` writes files crash-safe, :mod:`.diff` shows would-be changes,
:mod:`.bridge` is everything taken from the engine beyond AgentServices.
"""
