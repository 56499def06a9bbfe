# cf-lite: the two set-up commands are `make run` and `make test`.
# The interpreter: the distribution's Python 3.11 when it has one with venv, otherwise
# python3 (PYTHON=... overrides).  Debian builds its Python with PGO and LTO and links
# it statically; cf-lite starts, imports and runs about 20% faster on it than on an
# unoptimised shared build such as pyenv's default (one-report run 83 -> 71 ms, cold
# check of lib/files.cf 139 -> 103 ms, best of 20-25 alternating runs), and cron
# starts it every five minutes.
PYTHON ?= $(shell /usr/bin/python3.11 -c 'import ensurepip, venv' >/dev/null 2>&1 \
                  && echo /usr/bin/python3.11 || echo python3)
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
ARGS   ?=
EXTRAS ?= test,databases

.PHONY: install compile run test test-all conformance conformance-update conformance-masterfiles \
        conformance-masterfiles-update bench clean tables manpages

$(STAMP): setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check -e '.[$(EXTRAS)]' --config-settings editable_mode=compat
	$(BIN)/python -m cfpromise.fast.sitepath
	$(BIN)/python -m compileall -q cfpromise
	$(BIN)/python -c 'from cfpromise.fast import syntaxtab; syntaxtab.write_note()'
	touch $(STAMP)

install: $(STAMP)

# Byte-compile once so that start-up does not compile (PYTHONDONTWRITEBYTECODE may be set),
# and note syntax.json's content hash beside the byte code (cfpromise/fast/syntaxtab.py).
compile: $(STAMP)
	$(BIN)/python -m compileall -q cfpromise
	$(BIN)/python -c 'from cfpromise.fast import syntaxtab; syntaxtab.write_note()'

# Run the agent on the shipped default policy, against the embedded default workdir.
run: $(STAMP) compile
	$(BIN)/cf-lite-agent -I -f $(CURDIR)/policy/promises.cf

# The default run leaves out the tests marked slow (a few minutes each: the parser
# against cf-promises over the whole acceptance corpus, RSS over 10,000 TLS
# connections), and runs in two lanes side by side (tests/conftest.py: the
# conformance ratchets and the tests that change the host's packages, beside the
# rest), so that CI's whole run stays under 30 minutes; `make test-all` runs them all.
LANES = -n 2
test: $(STAMP) compile
	$(BIN)/python -m pytest -m "not slow" $(LANES)

test-all: $(STAMP) compile
	$(BIN)/python -m pytest $(LANES)

# CFEngine's acceptance suite against cf-lite (ARGS=10_files, ARGS=--reference, ...).
conformance: $(STAMP)
	$(BIN)/python tests/conformance/runner.py $(ARGS)

# Regenerate tests/conformance/expected-pass.txt (the ratchet only grows).
conformance-update: $(STAMP)
	$(BIN)/python tests/conformance/runner.py --update-expected $(ARGS)

# masterfiles 3.21.0's own tests/acceptance, run as its testall runs them, side by side with
# cf-agent 3.21 (ARGS=30_custom_promise_types, ARGS=--unsafe as root on a throwaway host, ...).
conformance-masterfiles: $(STAMP)
	$(BIN)/python tests/conformance/runner.py --masterfiles --reference $(ARGS)

# Grow tests/conformance/masterfiles-expected-pass.txt.
conformance-masterfiles-update: $(STAMP)
	$(BIN)/python tests/conformance/runner.py --masterfiles --update-expected $(ARGS)

# Regenerate the generated tables after changing the grammar, the lexer's rules, the
# AST's declaration, a start-path regex or the language tables: PLY's
# (cfpromise/syntax/_parsetab.py, _lextab.py), the AST classes and the policy cache's
# codec (cfpromise/syntax/ast.py, cfpromise/fast/astcodec.py, from
# cfpromise/syntax/astdecl.py), the precompiled regexes (cfpromise/fast/_sretab.py, which holds the
# scanner's pattern), and data/syntax.json as Python (cfpromise/fast/_syntaxtab.py).
# The same files come out whichever supported Python runs this; the SRE table lists
# the SRE engine of each supported Python found here (TABLE_PYTHONS) whose code is
# the same, so that each of them uses it.
TABLE_PYTHONS ?= $(wildcard /usr/bin/python3.11 /usr/bin/python3.12 /usr/bin/python3.13 \
                   $(HOME)/.pyenv/versions/3.1[123].*/bin/python3)
tables: $(STAMP)
	$(BIN)/python -m cfpromise.syntax.astgen
	$(BIN)/python -m cfpromise.syntax.parser
	$(BIN)/python -m cfpromise.fast.sregen $(TABLE_PYTHONS)
	$(BIN)/python -m cfpromise.fast.syntaxtab

# Regenerate the man pages (cfpromise/data/man/) after changing a program's options.
manpages: $(STAMP)
	$(BIN)/python -m cfpromise.cli.manpage

bench: $(STAMP)
	$(BIN)/python bench/parse.py

clean:
	rm -rf $(VENV) build *.egg-info conformance-results
