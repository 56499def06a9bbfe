"""cfpromise.fast.cmodules: deque and array without importing the collections package,
and the same objects as the standard imports give."""
from __future__ import annotations

import json
import os
import subprocess
import sys

# In a fresh interpreter: what array_module() and deque leave imported, and that the
# real collections modules still import afterwards, with array registered.
PROBE = """
import json, sys
from cfpromise.fast import cmodules
array = cmodules.array_module()
after = {"collections": "collections" in sys.modules,
         "collections.abc": "collections.abc" in sys.modules,
         "array": sys.modules.get("array") is array}
buf = array.array("B", bytes(4))
buf[1] = 7
import collections, collections.abc
after["registered"] = isinstance(buf, collections.abc.MutableSequence)
after["real"] = (collections.abc.__name__ == "collections.abc"
                 and hasattr(collections, "OrderedDict"))
after["deque"] = cmodules.deque is collections.deque
import operator
after["attrgetter"] = cmodules.attrgetter is operator.attrgetter
after["buffer"] = buf.tolist()
print(json.dumps(after))
"""


def _probe(plain: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "CF_LITE_PLAIN"}
    if plain:
        env["CF_LITE_PLAIN"] = "1"
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_array_is_imported_without_the_collections_package() -> None:
    found = _probe(plain=False)
    assert found == {"collections": False, "collections.abc": False, "array": True,
                     "registered": True, "real": True, "deque": True, "attrgetter": True,
                     "buffer": [0, 7, 0, 0]}


def test_the_plain_path_imports_them_the_standard_way() -> None:
    found = _probe(plain=True)
    assert found["collections"] and found["collections.abc"]
    assert found["registered"] and found["real"] and found["deque"] and found["attrgetter"]


def test_an_array_imported_before_is_returned_as_it_is() -> None:
    import array

    from cfpromise.fast import cmodules
    assert cmodules.array_module() is array
    assert sys.modules.get("collections.abc") is None or \
        sys.modules["collections.abc"].__name__ == "collections.abc"
