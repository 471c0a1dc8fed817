# Quick start: `make demo` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test sanitize bench bench-folded fuzz clean

# Install quietly: -qq keeps pip's errors and drops its notices; INSTALL_WARNINGS drops setuptools'
# notice that [tool.setuptools.ext-modules] (pyproject.toml) is experimental (it is, and we pin nothing on it).
INSTALL_WARNINGS := PYTHONWARNINGS='ignore:`[tool.setuptools.ext-modules]`'

$(STAMP): pyproject.toml tests/constraints.txt src/flamespace/collect/_alloc.c src/flamespace/collect/_waiter.c src/flamespace/collect/_tracer.c src/flamespace/formats/_folded.c src/flamespace/formats/_pprof.c src/flamespace/stats/_maxt.c src/flamespace/collect/remote/_remote.c src/flamespace/collect/remote/_unwind.c
	@echo "Installing flamespace and its test tools into $(VENV) (once; about 30 s)"
	@$(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install -qq --upgrade pip
	@$(INSTALL_WARNINGS) $(PY) -m pip install -qq -c tests/constraints.txt -e '.[test,store,cluster,serve]'
	@touch $(STAMP)

# The demo shows the profile store too: the install above includes the store extra (DuckDB, pyarrow).
demo: $(STAMP)
	@$(PY) examples/demo.py

# Lint and format check (pyproject.toml's [tool.ruff]) and types first (pyproject.toml's [tool.mypy]: strict on core, formats, stats), then the page scripts'
# unit tests (Node's test runner over tests/js/; without Node 20 a skip, under CI=true a failure), then the tests.
# Tests marked `quiet` measure wall time: they run alone, after the parallel part.
# Every part runs even when one fails, so one run reports all failures; make fails if any did.
test: $(STAMP)
	@status=0; \
	echo "$(PY) -m ruff check"; $(PY) -m ruff check --quiet src tests benchmarks examples || status=1; \
	echo "$(PY) -m ruff format --check"; $(PY) -m ruff format --check --quiet src tests benchmarks examples || status=1; \
	echo "$(PY) -m mypy"; $(PY) -m mypy || status=1; \
	echo "$(PY) -m tests.run_js"; $(PY) -m tests.run_js || status=1; \
	echo '$(PY) -m pytest -q -n 2 -m "not quiet"'; $(PY) -m pytest -q -n 2 -m "not quiet" || status=1; \
	echo "$(PY) -m pytest -q -m quiet"; $(PY) -m pytest -q -m quiet || status=1; \
	exit $$status

# The C extensions' tests under AddressSanitizer and UndefinedBehaviorSanitizer (tests/sanitize.py;
# .ci/run runs it after make test).
sanitize: $(STAMP)
	@$(PY) tests/sanitize.py

# The one table of docs/performance.md: every command beside its Perl or Python peer, whole
# processes (benchmarks/bench_commands.py; peers from FLAMEGRAPH_DIR, default /tmp/FlameGraph).
# BENCH_ARGS passes options on, e.g. BENCH_ARGS="--repeat 3 --repeat-big 0".
bench: $(STAMP)
	$(PY) benchmarks/bench_commands.py $(BENCH_ARGS)

# The library's side of the folded format (read, write, sum in process; pyrometry as a peer).
bench-folded: $(STAMP)
	$(INSTALL_WARNINGS) $(PY) -m pip install -qq -e '.[bench]'
	$(PY) benchmarks/bench_folded.py

# The fuzz campaign over every reader (benchmarks/fuzz_readers.py): findings and summary.json in
# fuzz-out/; FUZZ_ARGS passes options on, e.g. FUZZ_ARGS="--seconds 300 --formats chrome gecko".
fuzz: $(STAMP)
	nice $(PY) benchmarks/fuzz_readers.py $(FUZZ_ARGS)

clean:
	rm -rf $(VENV) demo-output test-artifacts fuzz-out
