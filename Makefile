# pbgen developer targets. `make test` is the README's test command, which CI
# runs (see .ci/run).
GO ?= go

.PHONY: test generate check testsuite bench petabgen bench-ode bench-fit bench-adjoint fuzz cvodes demo petab-check lang-check slurm-test python python-test python-bench

# The default test run: every package, well under 10 minutes on 2 cores.
test:
	$(GO) test ./...

# Regenerate the shipped packages in generated/ from networks/.
generate:
	$(GO) generate ./generated/...

# Freshness and hygiene: generated code up to date, gofmt, vet.
check: generate
	git diff --exit-code -- generated
	test -z "$$(gofmt -l $$(git ls-files '*.go'))"
	$(GO) vet ./...

# The external suites live outside the repository: in $(PBGEN_SHARED), or
# ../shared beside the checkout (see internal/suites).
SHARED ?= $(or $(PBGEN_SHARED),../shared)

# SBML Test Suite through generated packages (the interpreted path runs in
# `make test`, on the vendored subset in testdata/ when the suite is absent).
testsuite:
	$(GO) run ./cmd/pbgen testsuite -gen $(SHARED)/sbml-test-suite/cases

cvodes:
	bash scripts/install-sundials.sh

# The PEtab benchmark collection's accuracy checks in full (issue #11):
# gradients of FS, PBSR and Exp against finite differences on every
# problem with at most 100 states, and the per-problem differences from
# the collection's simulation tables. `make test` runs the cheap subset of
# the gradient check. Tens of minutes on 2 cores.
petab-check:
	PBGEN_LONG=1 $(GO) test ./petab -run 'BenchmarkGradients|BenchmarkSimulationTable' -count=1 -v -timeout 3h

# S of Lang_PLOSComputBiol2024 (124 states, 317 parameters; issue #13) by
# FS, PBSR and Exp against FS at rtol 1e-10, with their CPU times: about
# 25 s of CPU (PBSR and Exp most of it).
lang-check:
	PBGEN_LONG=1 $(GO) test ./cmd/pbbench -run LangAccuracy -count=1 -v -timeout 1h

# The paper's experiments and the PEtab benchmark collection's problems
# (-petab, in $(SHARED)/petab-benchmark) side by side with FS and CVODES.
# The PEtab section runs every method, ours and CVODES FS, on the problems
# compiled by scripts/petabgen.sh (gitignored cmd/pbbench/_petabgen, built
# with the tag petabgen); a problem it left out runs interpreted, and
# results.json says which.
bench: cvodes petabgen
	PBGEN_SHARED=$(SHARED) $(GO) run -tags cvodes,petabgen ./cmd/pbbench -o results -petab -lang -adjoint -adjoint-problems "$(ADJOINT_PROBLEMS)"

# The adjoint section alone (issue #26): llh + gradient by our FS and our
# adjoint, CPU per Eval at GOMAXPROCS=1, on Lang_PLOSComputBiol2024 and the
# PEtab problems in ADJOINT_PROBLEMS (comma-separated problem.yaml files,
# e.g. synthetic scalenet problems; docs/bench/adjoint.md).
ADJOINT_PROBLEMS ?=
bench-adjoint:
	GOMAXPROCS=1 PBGEN_SHARED=$(SHARED) $(GO) run ./cmd/pbbench -o results -models "" -linear 0 -petab=false -sample=false -scale=false -events=false -wp=false -adjoint -adjoint-problems "$(ADJOINT_PROBLEMS)"

# The PEtab benchmark problems with at most 100 states compiled for
# pbbench (pbgen petab -gen) and their registry.
petabgen:
	PBGEN_SHARED=$(SHARED) GO=$(GO) bash scripts/petabgen.sh

# The fitting section (issue #25): pbgen fit with 50 seeded starts on the
# small PEtab benchmark problems; how many reach the nominal llh, CPU time.
bench-fit:
	PBGEN_SHARED=$(SHARED) GO=$(GO) bash scripts/fitbench.sh

# Work-precision table of the integrators on the stiff reference problems.
bench-ode:
	$(GO) test ./runtime/ode -run WorkPrecision -v -args -workprecision

fuzz:
	bash scripts/fuzz.sh

demo:
	$(GO) run ./cmd/pbgen sim -times networks/CaMKII-times.txt -o camkii.tsv -plot results networks/CaMKII.xml

# pbgen sample on a real single-node Slurm (installs slurm-wlm and munge;
# root): a job array of chains and a dependent merge job must reproduce a
# local run with the same seed.
slurm-test:
	bash scripts/slurm-test.sh

# The Python package (python/pbgen): the shared library libpbgen.so (the C
# ABI, cmd/libpbgen) built into the package's folder. Then
# `cd python && /usr/bin/python3 -c 'import pbgen'`, or PYTHONPATH=python.
python:
	$(GO) build -buildmode=c-shared -o python/pbgen/libpbgen.so ./cmd/libpbgen

# The Python tests as CI runs them (installs python3-numpy and
# python3-scipy when missing and root).
python-test:
	bash scripts/python-test.sh

# The bridge's overhead: llh + gradient through Python against the same in
# Go, on the shipped problems (docs/python.md).
python-bench: python
	$(GO) build -o python/goref ./python/tests/goref
	cd python && PBGEN_GOREF=$$PWD/goref /usr/bin/python3 tests/bench_overhead.py
