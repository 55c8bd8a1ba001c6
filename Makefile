# Two commands on a fresh machine (Python >= 3.10, pip, git, make, node/npm):
#   make demo   create .venv, install every distribution, grade the bundled sample server
#   make test   the same install plus test tools, reference MCP servers and Chromium; run the suite

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check
DISTS  := toolscore_core toolscore_adapters toolscore_mcp plugins/toolscore_providers toolscore_agent toolscore_export plugins/toolscore_judge plugins/toolscore_pytest plugins/toolscore_ray
PYPROJECTS := $(foreach d,$(DISTS),$(d)/pyproject.toml) examples/third_party_plugin/pyproject.toml
SERVERS := .cache/mcp-servers
PYTEST_ARGS ?=

.PHONY: demo test install install-dev servers browser wheelhouse lint bench clean help

help:
	@echo "make demo   - install and grade the bundled sample MCP server (toolscore demo)"
	@echo "make test   - install everything needed and run the whole test suite"
	@echo "make lint   - ruff and mypy"
	@echo "make bench  - run the benchmarks in bench/ (results: bench/RESULTS.md)"

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

# Every distribution, editable, in ONE pip call (so the unpublished pins resolve locally).
# Editable installs are not byte-compiled, and with PYTHONDONTWRITEBYTECODE set (as on this
# project's machines) every run would compile the sources again: compile them once here.
COMPILE := $(PY) -m compileall -q $(foreach d,$(DISTS),$(d)/src) examples/third_party_plugin/src >/dev/null

$(VENV)/.installed: $(PY) $(PYPROJECTS)
	$(PIP) install -q $(foreach d,$(DISTS),-e ./$(d))
	@$(COMPILE)
	@touch $@

$(VENV)/.dev-installed: $(PY) $(PYPROJECTS) requirements-dev.txt
	$(PIP) install -q -r requirements-dev.txt
	@$(COMPILE)
	@touch $(VENV)/.installed $@

install: $(VENV)/.installed
install-dev: $(VENV)/.dev-installed

demo: install
	$(VENV)/bin/toolscore demo

# The official MCP reference servers, pinned, into a local cache (npm registry only).
$(SERVERS)/.installed: tests/servers/package.json tests/servers/package-lock.json
	mkdir -p $(SERVERS)
	cp tests/servers/package.json tests/servers/package-lock.json $(SERVERS)/
	cd $(SERVERS) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

servers: $(SERVERS)/.installed

# Third-party wheels for the packaging test, which installs `toolscore` and `toolscore-agent`
# into a clean venv with --no-index: the list comes from the pyprojects, not from a hand-kept file.
WHEELHOUSE := .cache/wheelhouse
$(WHEELHOUSE)/.done: $(PY) pyproject.toml $(PYPROJECTS) $(wildcard plugins/*/pyproject.toml) scripts/wheelhouse_requirements.py
	mkdir -p $(WHEELHOUSE)
	$(PY) scripts/wheelhouse_requirements.py toolscore toolscore-agent > $(WHEELHOUSE)/requirements.txt
	$(PIP) wheel -q -r $(WHEELHOUSE)/requirements.txt -w $(WHEELHOUSE)
	@touch $@

wheelhouse: $(WHEELHOUSE)/.done

# Debian's Chromium, for the tests that open HTML reports in a real headless browser.
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium for the HTML report tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

test: install-dev servers browser wheelhouse
	TOOLSCORE_MCP_SERVERS=$(abspath $(SERVERS)) $(PY) -m pytest $(PYTEST_ARGS)

lint: install-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy $(foreach d,$(DISTS),$(d)/src) examples/third_party_plugin/src

bench: install-dev
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) .cache .pytest_cache .mypy_cache .ruff_cache
