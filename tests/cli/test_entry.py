"""cfpromise/cli/entry.py: the entry code every program shares (version line, Ctrl-C)."""
from __future__ import annotations

import contextlib
import io
import re

import pytest

from cfpromise import CFENGINE_COMPAT_VERSION, __version__
from cfpromise.cli import entry


@pytest.mark.parametrize("module, line", [
    ("agent", f"cf-lite-agent {__version__} (CFEngine {CFENGINE_COMPAT_VERSION} language)"),
    ("promises", f"cf-lite-promises {__version__} (CFEngine {CFENGINE_COMPAT_VERSION} language)"),
    ("monitord", f"cf-lite-monitord {__version__} (CFEngine {CFENGINE_COMPAT_VERSION} language)"),
    ("serverd", f"cf-lite-serverd {__version__} (CFEngine Core 3.21 protocol)"),
    ("runagent", f"cf-lite-runagent {__version__} (CFEngine Core 3.21 protocol)"),
    ("hub", f"cf-lite-hub {__version__}"),
    ("key", f"cf-lite {__version__} (cf-key compatible)"),
])
def test_every_program_prints_its_version_line_and_exits_0(module, line):
    import importlib
    main = importlib.import_module(f"cfpromise.cli.{module}").main
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["-V"])
    assert (code, out.getvalue()) == (0, line + "\n")


def test_getopt_main_gives_argv_and_a_fresh_log_and_ends_ctrl_c_with_1(monkeypatch):
    seen = []

    def run(argv, log):
        seen.append((argv, log))
        if argv == ["stop"]:
            raise KeyboardInterrupt
        return 7
    main = entry.getopt_main(run, object)
    assert main(["a", "b"]) == 7
    monkeypatch.setattr("sys.argv", ["prog", "x"])
    assert main() == 7
    assert main(["stop"]) == 1
    assert [a for a, _ in seen] == [["a", "b"], ["x"], ["stop"]]
    assert len({id(log) for _, log in seen}) == 3


def test_no_program_writes_its_own_version_line():
    from pathlib import Path
    folder = Path(entry.__file__).parent
    for path in folder.glob("*.py"):
        if path.name != "entry.py":
            assert not re.search(r"__version__\}", path.read_text()), path.name
