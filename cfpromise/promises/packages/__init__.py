"""The ``packages`` promise type.

Two interfaces live under one promise type, as in cf-agent 3.21:

* package *modules* (3.7+, ``policy``/``version``/``architecture``/``options``/
  ``package_module``): :mod:`.handler` decides the interface and runs these
  through :mod:`.protocol` (the line protocol spoken to the module process)
  and :mod:`.inventory` (the installed/updates caches in WORKDIR/state);
* the legacy ``package_method`` bodies: :mod:`.legacy`.
"""
