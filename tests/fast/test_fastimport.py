"""cfpromise.fast.fastimport: cf-lite's plain modules load straight from their checked byte code;
anything the finder is not sure of goes the standard way, which then behaves as before."""
from __future__ import annotations

import importlib.util
import os
import py_compile
import subprocess
import sys
import time
from pathlib import Path

import pytest

import cfpromise
from cfpromise.fast import fastimport
from cfpromise.fast.fastimport import Finder

PACKAGE = Path(cfpromise.__file__).parent


def _module(directory: Path, text: str, compiled: bool = True, **how: object) -> Path:
    source = directory / "fake_mod.py"
    source.write_text(text)
    if compiled:
        py_compile.compile(str(source), doraise=True, **how)   # type: ignore[arg-type]
    return source


def _load(spec: importlib.machinery.ModuleSpec) -> object:
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)                           # type: ignore[union-attr]
    return module


def test_the_finder_comes_first_and_loads_modules_and_packages() -> None:
    import cfpromise.agent.engine as engine
    import cfpromise.syntax as syntax_package
    assert sys.meta_path[0] is Finder
    assert type(engine.__spec__.loader).__name__ == "_Loader"
    assert engine.__file__ == str(PACKAGE / "agent" / "engine.py")
    assert engine.__cached__ == str(PACKAGE / "agent" / "__pycache__" /
                                    f"engine.{sys.implementation.cache_tag}.pyc")
    assert engine.__package__ == "cfpromise.agent" and not hasattr(engine, "__path__")
    assert not engine.__spec__.loader.is_package("cfpromise.agent.engine")
    assert type(syntax_package.__spec__.loader).__name__ == "_Loader"
    assert syntax_package.__path__ == [str(PACKAGE / "syntax")]
    assert syntax_package.__spec__.submodule_search_locations is syntax_package.__path__
    assert syntax_package.__file__ == str(PACKAGE / "syntax" / "__init__.py")
    assert syntax_package.__package__ == "cfpromise.syntax"
    assert syntax_package.__spec__.loader.is_package("cfpromise.syntax")
    assert Finder.find_spec("json", None) is None                  # not cf-lite's
    assert Finder.find_spec("cfpromise.agent.engine", ["a", "b"]) is None
    assert Finder.find_spec("cfpromise.no_such_module", [str(PACKAGE)]) is None


def test_the_module_is_made_with_the_attributes_the_standard_way_sets(tmp_path: Path) -> None:
    """create_module sets them (so that the import system finds each set rather than
    failing a getattr); they are the ones the standard loader gives the same file."""
    package = tmp_path / "fake_pkg"
    package.mkdir()
    _module(package, "X = 1\n")
    (package / "__init__.py").write_text("Y = 2\n")
    py_compile.compile(str(package / "__init__.py"), doraise=True)
    standard = importlib.machinery.PathFinder
    for name, path in (("cfpromise.fake_pkg", str(tmp_path)),
                       ("cfpromise.fake_pkg.fake_mod", str(package))):
        mine, theirs = _load(Finder.find_spec(name, [path])), \
            _load(standard.find_spec(name, [path]))
        for attr in ("__name__", "__file__", "__cached__", "__package__", "__path__"):
            assert getattr(mine, attr, None) == getattr(theirs, attr, None), (name, attr)
        assert mine.__spec__.parent == theirs.__spec__.parent
        assert mine.__spec__.submodule_search_locations == \
            theirs.__spec__.submodule_search_locations
        assert mine.__loader__ is mine.__spec__.loader


def test_resources_of_a_package_read_as_the_standard_loader_reads_them() -> None:
    import importlib.resources

    import cfpromise.schema
    assert type(cfpromise.schema.__spec__.loader).__name__ == "_Loader"
    names = {p.name for p in importlib.resources.files("cfpromise.schema").iterdir()}
    assert "__init__.py" in names and "values.py" in names
    text = importlib.resources.files("cfpromise.schema").joinpath("values.py").read_text()
    assert text == (PACKAGE / "schema" / "values.py").read_text()


def test_a_package_without_current_byte_code_goes_the_standard_way(tmp_path: Path) -> None:
    package = tmp_path / "fake_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("Y = 2\n")
    assert Finder.find_spec("cfpromise.fake_pkg", [str(tmp_path)]) is None
    py_compile.compile(str(package / "__init__.py"), doraise=True)
    assert Finder.find_spec("cfpromise.fake_pkg", [str(tmp_path)]).origin == \
        str(package / "__init__.py")
    # a module of that name without byte code: the standard way decides (a package wins)
    (tmp_path / "fake_pkg.py").write_text("Y = 3\n")
    assert Finder.find_spec("cfpromise.fake_pkg", [str(tmp_path)]) is None


def test_current_byte_code_is_used(tmp_path: Path) -> None:
    _module(tmp_path, "X = 1\ndef f():\n    raise ValueError('here')\n")
    spec = Finder.find_spec("cfpromise.fake_mod", [str(tmp_path)])
    assert spec is not None and spec.origin == str(tmp_path / "fake_mod.py")
    module = _load(spec)
    assert module.X == 1 and module.__file__ == spec.origin
    assert module.f.__code__.co_filename == spec.origin           # tracebacks show the source
    assert "raise ValueError('here')" in spec.loader.get_source("cfpromise.fake_mod")
    assert spec.loader.get_filename("cfpromise.fake_mod") == spec.origin
    assert spec.loader.get_data(spec.origin).startswith(b"X = 1")


def test_a_stale_missing_or_hash_based_pyc_goes_the_standard_way(tmp_path: Path) -> None:
    source = _module(tmp_path, "X = 1\n")
    time.sleep(0.01)
    source.write_text("X = 22\n")                                 # changed after compiling
    os.utime(source, (time.time() + 5, time.time() + 5))
    assert Finder.find_spec("cfpromise.fake_mod", [str(tmp_path)]) is None
    _module(tmp_path, "X = 3\n", compiled=False)
    for pyc in (tmp_path / "__pycache__").iterdir():
        pyc.unlink()
    assert Finder.find_spec("cfpromise.fake_mod", [str(tmp_path)]) is None
    _module(tmp_path, "X = 4\n", invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
    assert Finder.find_spec("cfpromise.fake_mod", [str(tmp_path)]) is None
    (tmp_path / "__pycache__" / f"fake_mod.{sys.implementation.cache_tag}.pyc").write_bytes(
        b"junk")
    assert Finder.find_spec("cfpromise.fake_mod", [str(tmp_path)]) is None


def test_get_code_compiles_a_source_changed_since(tmp_path: Path) -> None:
    source = _module(tmp_path, "X = 1\n")
    spec = Finder.find_spec("cfpromise.fake_mod", [str(tmp_path)])
    source.write_text("X = 2\n")
    os.utime(source, (time.time() + 5, time.time() + 5))
    assert _load(spec).X == 1                                     # what was checked
    code = spec.loader.get_code("cfpromise.fake_mod")             # asked again: the source
    namespace: dict = {}
    exec(code, namespace)
    assert namespace["X"] == 2


def test_run_as_a_script_with_python_m() -> None:
    proc = subprocess.run([sys.executable, "-m", "cfpromise.cli.promises", "--version"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("cf-lite-promises "), proc.stderr


@pytest.mark.parametrize("flags", [["-O"], ["-X", "pycache_prefix=/nonexistent"]])
def test_not_installed_where_byte_code_lives_elsewhere(flags: list[str]) -> None:
    probe = "import sys, cfpromise.fast.fastimport as f\nprint(f.Finder in sys.meta_path)\n"
    proc = subprocess.run([sys.executable, *flags, "-c", probe], capture_output=True,
                          text=True, timeout=60)
    assert proc.stdout.strip() == "False", proc.stderr


def test_no_module_shadows_a_package_of_the_same_name() -> None:
    """The standard finder prefers a package directory to a module of the same name; this
    finder would take the module, so there must be none."""
    for directory, dirs, files in os.walk(PACKAGE):
        for name in dirs:
            assert f"{name}.py" not in files, os.path.join(directory, name)
    assert fastimport._PREFIX == "cfpromise."


# the speed mechanisms themselves: skipped under CF_LITE_PLAIN=1 (tests/conftest.py)
pytestmark = pytest.mark.fast_path
