"""Build the acceptance suite's own C helper tools, as upstream's build does before ``testall``.

Upstream's ``tests/acceptance/Makefile.am`` compiles a few programs into the suite's top
folder, where the tests find them: ``dcs.sub.cf`` looks commands up in
``$(G.paths[tests])`` (the suite's top folder) too, so ``$(G.mock_package_manager)`` and
``$(G.no_fds)`` resolve to the built programs, and ``30_custom_promise_types/13_binary_path.cf``
runs ``$(G.cwd)/custom_promise_binary``.  Upstream links two of them against CFEngine's own
libraries (libpromises, libutils) for a handful of helpers (``xasprintf``, ``Seq``, the help
writer); we do not have those, so :data:`SHIM` is a small header of our own that provides
the few functions these sources call, and ``platform.h`` & co. include it.

:func:`build_tools` compiles every tool whose source is in the suite, once per run, into a
directory of the runner's private temporary tree (the shared corpus stays read-only);
:func:`install_tools` then copies the results into each private copy of the suite.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import attrs


class ToolBuildError(Exception):
    """A support tool could not be built (no compiler, or the compiler failed)."""


@attrs.frozen
class Tool:
    """One helper: its C source and where the built file goes (both relative to the suite)."""

    source: str
    output: str
    shared: bool = False  # an LD_PRELOAD library rather than a program
    cflags: tuple[str, ...] = ()
    libs: tuple[str, ...] = ()
    needs: str | None = None  # a header directory without which the tool is left out


TOOLS: tuple[Tool, ...] = (
    Tool("mock_package_manager.c", "mock_package_manager"),
    Tool("no_fds.c", "no_fds"),
    Tool("30_custom_promise_types/custom_promise_binary.c", "custom_promise_binary"),
    Tool("dnswrapper.c", "dnswrapper.so", shared=True),
    Tool("fakesyslog.c", "fakesyslog.so", shared=True),
    Tool("xml-c14nize.c", "xml-c14nize", cflags=("-I/usr/include/libxml2",), libs=("-lxml2",),
         needs="/usr/include/libxml2/libxml/c14n.h"),
)

# The CFEngine headers the sources include, each standing for our one shim header.
SHIM_HEADERS = ("platform.h", "rlist.h", "generic_agent.h", "cf-windows-functions.h", "logging.h")

SHIM = r"""/* cf-lite: the few libpromises/libutils helpers the suite's tools call. */
#ifndef CF_LITE_TOOL_SHIM_H
#define CF_LITE_TOOL_SHIM_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void shim_die(void) { fputs("out of memory\n", stderr); exit(255); }
static inline void *xcalloc(size_t n, size_t size)
{ void *p = calloc(n, size); if (p == NULL) shim_die(); return p; }
static inline char *xstrdup(const char *s)
{ char *p = strdup(s); if (p == NULL) shim_die(); return p; }
static inline int xasprintf(char **out, const char *fmt, ...)
{ va_list ap; va_start(ap, fmt); int n = vasprintf(out, fmt, ap); va_end(ap);
  if (n < 0) shim_die(); return n; }
static inline int xsnprintf(char *buf, size_t size, const char *fmt, ...)
{ va_list ap; va_start(ap, fmt); int n = vsnprintf(buf, size, fmt, ap); va_end(ap);
  if (n < 0 || (size_t) n >= size) { fputs("string truncated\n", stderr); exit(255); }
  return n; }
static inline const char *GetErrorStr(void) { return strerror(errno); }

typedef struct { void **items; size_t length, capacity; } Seq;
static inline Seq *SeqNew(size_t capacity, void (*destroy)(void *))
{ (void) destroy; Seq *s = xcalloc(1, sizeof(Seq)); s->capacity = capacity ? capacity : 1;
  s->items = xcalloc(s->capacity, sizeof(void *)); return s; }
static inline void SeqAppend(Seq *s, void *item)
{ if (s->length == s->capacity) { s->capacity *= 2;
    s->items = realloc(s->items, s->capacity * sizeof(void *)); if (!s->items) shim_die(); }
  s->items[s->length++] = item; }
static inline size_t SeqLength(const Seq *s) { return s->length; }
static inline void *SeqAt(const Seq *s, size_t i) { return s->items[i]; }

#define CF_WEBSITE "https://cfengine.com"
#define CF_COPYRIGHT ""
typedef struct { const char *name; const char *website; const char *copyright; } Component;
typedef struct { FILE *file; } Writer;
static inline Writer *FileWriter(FILE *file)
{ Writer *w = xcalloc(1, sizeof(Writer)); w->file = file; return w; }
static inline void FileWriterDetach(Writer *w) { fflush(w->file); free(w); }
struct option;
static inline void WriterWriteHelp(Writer *w, const Component *c, const void *options,
                                   const char *const *hints, const void *extra,
                                   bool a, bool b)
{ (void) options; (void) extra; (void) a; (void) b;
  fprintf(w->file, "%s\n\nOPTIONS:\n", c->name);
  for (size_t i = 0; hints[i] != NULL; i++) fprintf(w->file, "  %s\n", hints[i]); }
#endif
"""


def compiler() -> str | None:
    """The C compiler: $CC if set, else ``cc`` on PATH."""
    name = os.environ.get("CC") or "cc"
    return shutil.which(name)


def wanted(suite: Path) -> list[Tool]:
    """The tools whose source the suite carries (and whose headers this host has)."""
    return [t for t in TOOLS if (suite / t.source).is_file()
            and (t.needs is None or Path(t.needs).exists())]


def digest(suite: Path, tools: list[Tool]) -> str:
    """A key for a set of builds: the shim and every source's bytes."""
    h = hashlib.sha256(SHIM.encode())
    for tool in tools:
        h.update(tool.source.encode() + b"\0" + (suite / tool.source).read_bytes())
    return h.hexdigest()[:16]


def build_tools(suite: Path, dest: Path, *, timeout: float = 120.0) -> dict[str, Path]:
    """Compile the suite's tools into ``dest`` (once: a stamp naming the sources'
    digest makes a second call with unchanged sources a no-op); return
    {output path relative to the suite: built file}.  Raises :class:`ToolBuildError`
    naming the compiler's complaint."""
    tools = wanted(suite)
    if not tools:
        return {}
    key = digest(suite, tools)
    stamp = dest / ".built"
    built = {t.output: dest / t.output for t in tools}
    if stamp.is_file() and stamp.read_text() == key and all(p.is_file() for p in built.values()):
        return built
    cc = compiler()
    if cc is None:
        raise ToolBuildError(
            "no C compiler (cc) on PATH: the acceptance suite's helper tools ("
            + ", ".join(t.output for t in tools) + ") must be built; install gcc")
    include = dest / "include"
    include.mkdir(parents=True, exist_ok=True)
    (include / "cf_lite_tool_shim.h").write_text(SHIM)
    for header in SHIM_HEADERS:
        (include / header).write_text('#include "cf_lite_tool_shim.h"\n')
    for tool in tools:
        out = dest / tool.output
        argv = [cc, "-std=gnu99", "-O1", "-w", "-I", str(include), *tool.cflags]
        argv += ["-shared", "-fPIC"] if tool.shared else []
        argv += ["-o", str(out), str(suite / tool.source), *tool.libs]
        if tool.shared:
            argv.append("-ldl")
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ToolBuildError(f"cannot build {tool.output} from {tool.source}: {exc}") from None
        if proc.returncode != 0:
            complaint = (proc.stderr or proc.stdout).strip().splitlines()[:5]
            raise ToolBuildError(f"cannot build {tool.output} from {tool.source} "
                                 f"({Path(cc).name} exit {proc.returncode}): "
                                 + " | ".join(complaint))
    stamp.write_text(key)
    return built


def install_tools(built: dict[str, Path], suite_copy: Path) -> None:
    """Copy built tools into a private copy of the suite (mode 0755)."""
    for rel, path in built.items():
        target = suite_copy / rel
        target.unlink(missing_ok=True)
        shutil.copyfile(path, target)
        os.chmod(target, 0o755)
