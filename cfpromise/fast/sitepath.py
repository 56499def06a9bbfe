"""The source checkout on ``sys.path`` of a development venv without a ``.pth`` file.

``make install`` installs cf-lite editable (pip's compat mode): pip writes
``__editable__.cf_lite-*.pth`` naming the checkout, and ``site`` reads it at every
start.  Python 3.13's ``site`` decodes each ``.pth`` as ``utf-8-sig``, which imports
``encodings.utf_8_sig`` through the path finder (listing the encodings package):
the one ``.pth`` cost 1.7 M instructions of a start on pyenv's 3.13 against 0.35 M
on 3.11 (valgrind; issue #29 wants 3.13 within 15% of 3.11).  An installed wheel has
no ``.pth`` at all.  So ``python -m cfpromise.fast.sitepath`` (run by ``make
install``) puts the same directories on ``sys.path`` from a ``sitecustomize``
module in the venv's site-packages instead, which ``site`` imports anyway (it looks
for one at every start), byte-compiled, and removes pip's ``.pth``.

Guard: the interpreter has no ``sitecustomize`` of its own (Debian's has one, found
before the venv's, so there the ``.pth`` stays), the venv has exactly pip's one
``.pth`` for cf-lite, and no other ``sitecustomize`` is in the venv.  Fallback: the
``.pth`` is left as pip wrote it (the same ``sys.path``, at the old cost).  The plain
switch (``CF_LITE_PLAIN``) does not apply: this is the venv's layout, not a run.  A
``sitecustomize`` of one's own put first on ``PYTHONPATH`` hides this one (and the
checkout with it: name the checkout on ``PYTHONPATH`` too, as tests/cli/test_scripts.py
does).
"""
from __future__ import annotations

import glob
import os
import py_compile
import sys
import sysconfig

MARK = "# cf-lite's checkout on sys.path (python -m cfpromise.fast.sitepath)"


def _base_has_sitecustomize() -> bool:
    """Whether the interpreter's own library (not the venv) has a sitecustomize module."""
    for where in (sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]):
        if glob.glob(os.path.join(where, "sitecustomize.*")):
            return True
    return False


def install(site_packages: str, base_has_sitecustomize: bool) -> str:
    """Replace pip's editable ``.pth`` in ``site_packages`` by a ``sitecustomize``; what
    was done, as a sentence."""
    pths = glob.glob(os.path.join(site_packages, "__editable__.cf_lite-*.pth"))
    target = os.path.join(site_packages, "sitecustomize.py")
    if base_has_sitecustomize:
        return "kept the .pth: the interpreter has a sitecustomize of its own"
    if len(pths) != 1:
        return f"nothing to do: {len(pths)} editable .pth files for cf-lite"
    if os.path.exists(target):
        with open(target, encoding="utf-8") as f:
            if MARK not in f.read():
                return "kept the .pth: the venv has another sitecustomize"
    with open(pths[0], encoding="utf-8") as f:
        lines = [line.strip() for line in f]
    dirs = [line for line in lines if line and not line.startswith(("#", "import "))]
    if len(dirs) != len([line for line in lines if line]):
        return "kept the .pth: it holds more than directories"
    with open(target, "w", encoding="utf-8") as f:
        f.write(f'"""{MARK[2:]}: instead of pip\'s {os.path.basename(pths[0])}."""\n')
        f.write(f"{MARK}\nimport sys\n\n")
        for d in dirs:
            f.write(f"if {d!r} not in sys.path:\n    sys.path.append({d!r})\n")
    py_compile.compile(target, doraise=True)
    os.unlink(pths[0])
    return f"{os.path.basename(pths[0])} replaced by sitecustomize.py"


def main() -> int:
    print(f"cfpromise.fast.sitepath: "
          f"{install(sysconfig.get_paths()['purelib'], _base_has_sitecustomize())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
