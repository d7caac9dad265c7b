# Two commands do all the set-up on a new machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint docs bench statements

# Container-format tasks run in bubblewrap sandboxes over a root of their own: bwrap, a static
# busybox (pid 2 of each sandbox), mmdebstrap (builds the base root from Debian's archive) and
# passt's pasta (a public network that never reaches the host).
SANDBOX_PACKAGES := bubblewrap busybox-static mmdebstrap passt
SANDBOX_TOOLS := /usr/bin/bwrap /bin/busybox /usr/bin/mmdebstrap /usr/bin/pasta
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Another install holding the dpkg lock is waited for (5 minutes), not failed on.
APT_GET := $(SUDO) apt-get -o DPkg::Lock::Timeout=300

# Reports and the viewer are tested in a real headless browser: Debian's chromium, driven by
# Playwright (never `playwright install`: the system browser is the one used).
CHROMIUM := /usr/bin/chromium

$(BIN)/assay: pyproject.toml
	@echo "Python environment: $(VENV) with assay and its dev extra (a few minutes the first time)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --progress-bar off -e '.[dev]'
	touch $@

.PHONY: sandbox-tools
sandbox-tools: $(BIN)/assay
	@for tool in $(SANDBOX_TOOLS); do [ -x $$tool ] || missing=1; done; \
	if [ -n "$$missing" ] || ! $(BIN)/python -c 'import sys; from assay.world.container.host import is_static, BUSYBOX; sys.exit(not is_static(BUSYBOX))' 2>/dev/null; then \
		echo "sandbox tools: apt-get install $(SANDBOX_PACKAGES)"; \
		$(APT_GET) update -qq && $(APT_GET) install -y -qq $(SANDBOX_PACKAGES); \
	fi

$(CHROMIUM):
	@echo "the browser the report tests drive: apt-get install chromium"
	$(APT_GET) update -qq
	$(APT_GET) install -y -qq chromium

# The SFTP listener is tested with OpenSSH's own client (tests/conformance/test_sftp.py).
SFTP_CLIENT := /usr/bin/sftp

$(SFTP_CLIENT):
	$(SUDO) apt-get update -qq
	$(SUDO) apt-get install -y -qq openssh-client

demo: $(BIN)/assay sandbox-tools
	$(BIN)/assay run worlds/shop --agent reference

# ruff, mypy strict on the packages pyproject.toml's [tool.mypy] names, then the layers: no
# module imports a layer below its own (docs/concepts.md#layers).
lint: $(BIN)/assay
	$(BIN)/ruff check src tests worlds bench examples docs/hooks.py
	$(BIN)/ruff format --check src tests worlds bench examples docs/hooks.py
	$(BIN)/mypy
	$(BIN)/pytest -q -p no:cacheprovider tests/test_layers.py

# The records store's statements compiled for SQLite, after editing its tables.py or statements.py
# (a test fails until they are made again).
statements: $(BIN)/assay
	$(BIN)/python -m assay.runs.store.generate

# The documentation site, built offline into site/; --strict fails on a broken link or anchor.
docs: $(BIN)/assay
	$(BIN)/mkdocs build --strict --site-dir site

# `make test BUSY=1` runs the suite beside a busy loop holding one core (CI does), as on a shared
# machine: a test that guesses how long something takes, rather than waiting for it, fails there.
BUSY ?=
# Two test processes a core: much of a test's time is spent waiting on processes it started (a
# server coming up, a sandbox, an install), and the second process uses the core meanwhile.
WORKERS ?= $(shell echo $$(( $$(nproc) * 2 )))

# Bytecode is written even where the environment asks for none (PYTHONDONTWRITEBYTECODE=1):
# otherwise every test process rewrites each test module's asserts from source as it collects
# (about 6 s of CPU each), and every `assay` process the tests start compiles assay anew.
test: lint docs sandbox-tools $(CHROMIUM) $(SFTP_CLIENT)
	@if [ -n "$(BUSY)" ]; then \
		echo "BUSY=$(BUSY): a busy loop holds one core while the suite runs"; \
		sh -c 'while :; do :; done' & hog=$$!; trap 'kill $$hog' EXIT; \
	fi; \
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n $(WORKERS) --dist loadfile

bench: $(BIN)/assay sandbox-tools
	$(BIN)/python bench/taskruns.py
	$(BIN)/python bench/agents.py
	$(BIN)/python bench/validate.py
	$(BIN)/python bench/records.py
	$(BIN)/python bench/postgres.py
	$(BIN)/python bench/api.py
	$(BIN)/python bench/sandbox.py
	$(BIN)/python bench/sandbox_tasks.py
	$(BIN)/python bench/agents_concurrency.py
	$(BIN)/python bench/scaling.py
	$(BIN)/python bench/healthcare.py
	$(BIN)/python bench/fhir_server.py
	$(BIN)/python bench/gym.py
	$(BIN)/python bench/protocols.py
	$(BIN)/python bench/large_world.py
	$(BIN)/python bench/retail.py
	$(BIN)/python bench/versus.py
	$(BIN)/python bench/startup.py
	$(BIN)/python bench/inflight.py --sizes 10,100
