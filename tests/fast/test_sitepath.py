"""cfpromise.fast.sitepath: pip's editable .pth replaced by a byte-compiled sitecustomize
that puts the same directories on sys.path, and left alone wherever its guard fails."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cfpromise.fast import sitepath

PTH = "__editable__.cf_lite-0.1.0.pth"


def _site(tmp_path: Path, pth: str) -> Path:
    site = tmp_path / "site-packages"
    site.mkdir()
    (site / PTH).write_text(pth)
    return site


def test_the_pth_becomes_a_sitecustomize_giving_the_same_path(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    site = _site(tmp_path, f"{checkout}\n")
    assert "replaced" in sitepath.install(str(site), base_has_sitecustomize=False)
    assert not (site / PTH).exists()
    assert list((site / "__pycache__").glob("sitecustomize.*.pyc"))
    # site imports it from site-packages, after adding site-packages: as the .pth did,
    # the checkout comes after site-packages, once.
    # (run by path: an interpreter's own sitecustomize, Debian's, would be found first)
    probe = ("import sys, site, runpy; site.addsitedir(sys.argv[1]); "
             "runpy.run_path(sys.argv[1] + '/sitecustomize.py'); print(sys.path[-2:])")
    out = subprocess.run([sys.executable, "-S", "-c", probe, str(site)], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    assert out.strip() == repr([str(site), str(checkout)])
    # Run again (make install twice): nothing to replace, the sitecustomize stays.
    assert "nothing to do" in sitepath.install(str(site), base_has_sitecustomize=False)
    assert (site / "sitecustomize.py").exists()


def test_the_pth_stays_where_the_guard_fails(tmp_path: Path) -> None:
    site = _site(tmp_path, "/somewhere\n")
    assert "kept" in sitepath.install(str(site), base_has_sitecustomize=True)
    assert (site / PTH).exists() and not (site / "sitecustomize.py").exists()
    (site / "sitecustomize.py").write_text("import sys\n")          # someone else's
    assert "another sitecustomize" in sitepath.install(str(site), False)
    assert (site / PTH).exists()
    assert (site / "sitecustomize.py").read_text() == "import sys\n"


def test_a_pth_with_code_stays(tmp_path: Path) -> None:
    site = _site(tmp_path, "/somewhere\nimport os; os.environ\n")
    assert "more than directories" in sitepath.install(str(site), False)
    assert (site / PTH).exists() and not (site / "sitecustomize.py").exists()
