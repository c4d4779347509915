#!/usr/bin/env bash
# python-test.sh builds libpbgen, pbgen's C ABI (go build
# -buildmode=c-shared ./cmd/libpbgen), into python/pbgen/ and runs the
# Python package's tests (python/tests, unittest) with Debian's python3
# and its numpy and scipy: results against the Go API bit for bit
# (python/tests/goref), fits with scipy.optimize, bad input. When numpy
# or scipy is missing and we are root, it installs python3-numpy and
# python3-scipy with apt-get (once); where that is impossible it says so
# and exits 0, since the Go tests do not need Python. A failing test
# exits non-zero. PBGEN_PYTHON overrides the interpreter (default
# /usr/bin/python3: the pyenv python3 on PATH lacks Debian's packages).
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PBGEN_PYTHON:-/usr/bin/python3}
have() { [ -x "$py" ] && "$py" -c 'import numpy, scipy' 2>/dev/null; }
if ! have && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-numpy python3-scipy) >/dev/null 2>&1 || true
fi
if ! have; then
	echo "warning: no numpy and scipy for $py (python3-numpy, python3-scipy); skipped the Python tests"
	exit 0
fi
go build -buildmode=c-shared -o python/pbgen/libpbgen.so ./cmd/libpbgen
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/goref" ./python/tests/goref
cd python
PBGEN_GOREF="$tmp/goref" "$py" -m unittest discover -s tests
# A short run of the overhead measurement (one round, a few evaluations)
# so that it keeps working; `make python-bench` is the measurement.
PBGEN_GOREF="$tmp/goref" ROUNDS=1 BUDGET=0.02 "$py" tests/bench_overhead.py
