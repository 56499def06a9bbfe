"""The language tables (``data/syntax.json``) read from generated Python, and its generator.

Every program start needs the tables, and decoding 160 KB of JSON (plus importing
json) was about 10 M instructions of a 240 M cold ``cf-lite-promises`` check.  So
the same tables are generated as Python (``_syntaxtab.py``, by ``python -m
cfpromise.fast.syntaxtab``, ``make tables``), which the interpreter keeps
byte-compiled.  A run uses a small part of them (a cold check of lib/files.cf: 9
of 30 promise types, 17 of 41 body types, 20 of 186 functions), so each promise
type, body type and function is kept there as marshal's bytes of its entry and
unmarshalled when first asked for (:class:`Lazy`, :data:`LAZY_SECTIONS`), and the
attributes of type data, which every parse needs, are listed ready.

The JSON file stays the source.  The generated module is used only while the
CRC-32 of the JSON file's content is the one it was made from and its marshal
version is this interpreter's; otherwise the JSON file is read, and a ``-v`` line
says so (:mod:`cfpromise.fast`).  Reading and hashing the 160 KB costs about 1 M
instructions (a third of them importing zlib), a hundredth of a one-report run, so
the digest is kept beside the byte code (``__pycache__/syntaxtab.verified``: the
file's path, size and mtime, and the CRC-32 of the content they had), as the
interpreter keeps a ``.pyc`` beside its source: while the file's size and mtime
are those, its content is the one hashed then; when they change it is read and
hashed again (and the note rewritten where it can be, unless byte code is not
written: ``-B``).  Under ``CF_LITE_PLAIN`` the JSON file is always read.

The entries' bytes are written by :func:`dumps`, not ``marshal.dumps``, which
marks a string interned or shared according to the interpreter's reference
counts and interning, so 3.11 and 3.13 wrote different bytes for the same
tables; :func:`dumps` writes marshal's format 4 the same way everywhere (every
dict key interned, each string written once and referred back to after), and
every interpreter with marshal 4 reads it.
"""
from __future__ import annotations

import marshal
import os

from cfpromise import fast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

SOURCE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      "data", "syntax.json")
TARGET = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_syntaxtab.py")

# The sections the generated module keeps as marshal's bytes of each entry.
LAZY_SECTIONS = ("bodyTypes", "functions", "promiseTypes")


class Lazy(dict):  # type: ignore[type-arg]
    """name -> value, each value built from the raw table on first access."""

    def __init__(self, raw: dict[str, Any], build: Callable[[Any], Any]) -> None:
        super().__init__()
        self._raw = raw
        self._build = build

    def __missing__(self, key: str) -> Any:
        value = self._build(self._raw[key])
        self[key] = value
        return value

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        return self[key] if key in self._raw else default

    def __contains__(self, key: object) -> bool:
        return key in self._raw

    def __iter__(self) -> Any:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def keys(self) -> Any:  # type: ignore[override]
        return self._raw.keys()

    def items(self) -> Any:  # type: ignore[override]
        return ((k, self[k]) for k in self._raw)

    def values(self) -> Any:  # type: ignore[override]
        return (self[k] for k in self._raw)


def load_source() -> dict[str, Any]:
    """The tables as syntax.json holds them, each function with its name."""
    import json
    with open(SOURCE, encoding="utf-8") as fh:
        raw = json.load(fh)
    for name, f in raw["functions"].items():
        f.setdefault("name", name)
    return raw


def data_lvals_of(raw: dict[str, Any]) -> frozenset[str]:
    """Attributes of type data anywhere (a string given to them is an inline container)."""
    return frozenset(name for t in raw["promiseTypes"].values()
                     for name, a in t["attributes"].items() if a["type"] == "data")


def source_digest(data: bytes) -> int:
    """The content hash the generated module records of syntax.json."""
    from zlib import crc32
    return crc32(data)


_VERIFIED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__",
                         "syntaxtab.verified")


def current_digest() -> int:
    """The CRC-32 of syntax.json's content now (from the note beside the byte code when
    the file's path, size and mtime are those the note was made for)."""
    st = os.stat(SOURCE)
    key = f"{SOURCE}\0{st.st_size}\0{st.st_mtime_ns}\0".encode("utf-8", "surrogateescape")
    try:
        with open(_VERIFIED, "rb") as fh:
            note = fh.read()
        if note.startswith(key):
            return int(note[len(key):])
    except (OSError, ValueError):
        pass
    import sys
    return write_note(key) if not sys.dont_write_bytecode else _hash()


def _hash() -> int:
    with open(SOURCE, "rb") as fh:
        return source_digest(fh.read())


def write_note(key: bytes | None = None) -> int:
    """Hash syntax.json and keep the digest beside the byte code (``make compile`` does
    it even when byte code is not written at run time); returns the digest."""
    if key is None:
        st = os.stat(SOURCE)
        key = f"{SOURCE}\0{st.st_size}\0{st.st_mtime_ns}\0".encode("utf-8", "surrogateescape")
    digest = _hash()
    from cfpromise.atomic import UMASK, write_atomically
    try:
        write_atomically(_VERIFIED, key + str(digest).encode(), mode=UMASK, fsync=False)
    except OSError:                   # a read-only install: hashed at every start
        pass
    return digest


def tables() -> tuple[dict[str, Any], frozenset[str] | None]:
    """The generated copy of the tables when it is current (with its entries unmarshalled
    on first use, and the data attributes), else the JSON file's tables (and None)."""
    if fast.PLAIN:
        return load_source(), None
    try:
        from cfpromise.fast import _syntaxtab
        digest = current_digest()
        if (_syntaxtab.SOURCE_CRC32, _syntaxtab.MARSHAL) == (digest, marshal.version):
            raw = dict(_syntaxtab.SYNTAX)
            for section in LAZY_SECTIONS:
                raw[section] = Lazy(raw[section], marshal.loads)
            return raw, _syntaxtab.DATA_LVALS
        why = ("data/syntax.json changed since it was made (run `make tables`)"
               if _syntaxtab.SOURCE_CRC32 != digest else
               f"made for marshal {_syntaxtab.MARSHAL}, this is {marshal.version}")
    except (ImportError, AttributeError, OSError) as exc:
        why = f"{exc.__class__.__name__}: {exc}"
    fast.fallback(f"Generated language tables not used ({why}): reading data/syntax.json")
    return load_source(), None


# --- the generator ----------------------------------------------------------------

HEADER = ('"""Generated by ``python -m cfpromise.fast.syntaxtab`` from data/syntax.json: '
          'do not edit."""\n')


def dumps(value: Any) -> bytes:
    """``marshal.dumps(value)`` for JSON-shaped values, the same bytes on every interpreter
    (see the module docstring); ``marshal.loads`` gives ``value`` back."""
    out = bytearray()
    refs: dict[str, int] = {}
    w = out.extend

    def put(v: Any, key: bool = False) -> None:
        if v is None:
            w(b"N")
        elif v is True or v is False:
            w(b"T" if v else b"F")
        elif type(v) is int:
            if -2 ** 31 <= v < 2 ** 31:
                w(b"i" + v.to_bytes(4, "little", signed=True))
            else:
                digits, rest = [], abs(v)
                while rest:
                    digits.append(rest & 0x7FFF)
                    rest >>= 15
                count = len(digits) if v > 0 else -len(digits)
                w(b"l" + count.to_bytes(4, "little", signed=True))
                w(b"".join(d.to_bytes(2, "little") for d in digits))
        elif type(v) is float:
            import struct
            w(b"g" + struct.pack("<d", v))
        elif type(v) is str:
            if v in refs:
                w(b"r" + refs[v].to_bytes(4, "little"))
                return
            refs[v] = len(refs)              # each string is the next back-reference
            if v.isascii():
                data = v.encode("ascii")
                short = len(data) < 256
                kind = (b"Z" if short else b"A") if key else (b"z" if short else b"a")
                size = len(data).to_bytes(1 if short else 4, "little")
            else:
                data = v.encode("utf-8", "surrogatepass")
                kind, size = (b"t" if key else b"u"), len(data).to_bytes(4, "little")
            w(bytes([kind[0] | 0x80]) + size + data)
        elif type(v) is list:
            w(b"[" + len(v).to_bytes(4, "little"))
            for item in v:
                put(item)
        elif type(v) is dict:
            w(b"{")
            for k, item in v.items():
                put(k, key=True)
                put(item)
            w(b"0")
        else:
            raise TypeError(f"not a JSON value: {type(v).__name__}")

    put(value)
    return bytes(out)


def render() -> str:
    """The module's text: the JSON file's CRC-32, marshal's version, the attributes of type
    data, then the tables (key order kept), one line per type and per function so that a
    change shows as a small diff; in LAZY_SECTIONS each entry as :func:`dumps`' bytes."""
    raw = load_source()
    with open(SOURCE, "rb") as fh:
        digest = source_digest(fh.read())
    lines = [HEADER.rstrip("\n"), "# flake8: noqa",
             f"SOURCE_CRC32 = {digest}", f"MARSHAL = {marshal.version}",
             f"DATA_LVALS = frozenset({sorted(data_lvals_of(raw))!r})", "SYNTAX = {"]
    for section, table in raw.items():
        if isinstance(table, dict):
            lines.append(f"    {section!r}: {{")
            for name, entry in table.items():
                value = dumps(entry) if section in LAZY_SECTIONS else entry
                lines.append(f"        {name!r}: {value!r},")
            lines.append("    },")
        else:
            lines.append(f"    {section!r}: {table!r},")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> None:
    text = render()
    from cfpromise.atomic import UMASK, write_atomically
    write_atomically(TARGET, text, mode=UMASK, fsync=False)
    print(f"{TARGET}: {len(text)} bytes")


if __name__ == "__main__":
    main()
