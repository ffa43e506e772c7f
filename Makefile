# The two commands of the README. Each creates .venv and installs what it needs on a fresh machine.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
# Real datasets: the shared mirror beside this checkout, unless the caller points elsewhere.
# Without either, loaders use the user cache and download (and verify) on first use.
export PERFSTUDY_DATA ?= $(wildcard $(abspath $(CURDIR)/../shared/datasets))

.PHONY: report report-quick test test-fast calibrate lint wheel-check bench bench-suite bench-run bench-ci clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# --no-compile: bytecode is written on first import instead of for every installed file (a fresh
	# install of the extras took 74 s so, against 139 s, on 2 cores with an empty pip cache)
	$(PY) -m pip install --quiet --no-compile -e '.[all,test]'
	# Apache Otava, a peer of notebook 10: its analysis needs only numpy and scipy, but the package pins
	# numpy 2.2 and pulls in database and cloud clients, so it is installed without its dependencies.
	$(PY) -m pip install --quiet --no-deps 'apache-otava==0.8.0'
	# Bytecode, once, on both cores: where PYTHONDONTWRITEBYTECODE is set (as on this project's machines), no
	# import ever writes it, and every process compiled pandas, matplotlib and scipy again from source (the
	# explorers' imports took 9.5 s so, 2.9 s compiled; compiling all of .venv took 36 s).
	$(PY) -m compileall -qq -j 0 $(VENV)/lib perfstudy || true
	touch $(STAMP)

## Run every notebook through papermill into build/, figures into figures/.
report: $(STAMP)
	$(PY) -m perfstudy report

## The same at quick sizes (seconds per notebook).
report-quick: $(STAMP)
	$(PY) -m perfstudy report --quick

## Unit, reference, calibration, notebook (quick) and CLI tests.
test: $(STAMP)
	$(PY) -m pytest

## The edit loop: everything but the slow, notebook and browser tests (under 5 minutes on 2 cores).
test-fast: $(STAMP)
	$(PY) -m pytest -m "not slow and not notebook and not browser"

## What make test proves once, proved again: every notebook at a second seed, the full-size real bisect trial under
## a toggled load, notebook 09 under load (about 15 minutes on 2 cores).
calibrate: $(STAMP)
	$(PY) -m pytest -m calibration

## ruff: lint and format check of the package, tests, benchmarks and notebooks.
lint: $(STAMP)
	$(VENV)/bin/ruff check perfstudy tests benchmarks notebooks
	$(VENV)/bin/ruff format --check perfstudy tests benchmarks notebooks
	$(VENV)/bin/basedpyright

## Build a wheel, install it into a fresh virtualenv outside the checkout, run notebook 01 and load a dataset.
wheel-check: $(STAMP)
	bash .ci/wheel-check

## Speed benchmarks; prints medians against their targets.
bench: $(STAMP)
	$(PY) benchmarks/run.py --repeat 5

## perfstudy compare beside benchstat at 200, 2,000 and 10,000 Go benchmarks ($$BENCHSTAT or PATH;
## benchmarks/build_benchstat.sh builds it offline), and beside pyperf compare_to at 200 and 2,000.
bench-suite: $(STAMP)
	$(PY) benchmarks/suite.py --repeat 5
	$(PY) benchmarks/pyperf_suite.py --repeat 5

## perfstudy run's own cost beside hyperfine's: 200 runs of /bin/true and of a 5 ms command (needs hyperfine).
bench-run: $(STAMP)
	$(PY) benchmarks/run_overhead.py --repeat 7

## A pull request's Go suite on a shared runner: perfstudy interleaved and duet against -count 10 + benchstat and a
## 2% gate, 8 pull requests, 2 machine-minutes a method each, under a toggled load (about 70 minutes; needs go).
bench-ci: $(STAMP)
	$(PY) benchmarks/ci_trial.py

clean:
	rm -rf build .pytest_cache
