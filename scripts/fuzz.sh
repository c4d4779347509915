#!/usr/bin/env bash
# Runs every fuzz target for a bounded time (FUZZTIME, default 30s each).
# The SBML reader's corpus is seeded by the target itself from SBML Test
# Suite cases (the full suite when internal/suites finds it, else the
# vendored subset in testdata/); failures are written to testdata/fuzz as usual.
set -euo pipefail
cd "$(dirname "$0")/.."
t=${FUZZTIME:-30s}
go test -run '^$' -fuzz '^FuzzRead$' -fuzztime "$t" ./parser
go test -run '^$' -fuzz '^FuzzExpr$' -fuzztime "$t" ./symbolic
go test -run '^$' -fuzz '^FuzzPEtab$' -fuzztime "$t" ./petab
go test -run '^$' -fuzz '^FuzzPandasTable$' -fuzztime "$t" ./petab
go test -run '^$' -fuzz '^FuzzSimArgs$' -fuzztime "$t" ./cmd/pbgen
