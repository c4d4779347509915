#!/usr/bin/env bash
# fitbench.sh is the fitting section of the benchmarks (make bench-fit,
# issue #25): for each PEtab benchmark problem of $PBGEN_FIT_PROBLEMS
# (default: the small ones below) in $PBGEN_SHARED/petab-benchmark
# (default ../shared/petab-benchmark) it runs, one process and one core
# at a time so that the CPU times compare,
#
#	GOMAXPROCS=1 pbgen fit -starts $PBGEN_FIT_STARTS -j 1 -hessian $PBGEN_FIT_HESSIAN -o results/fit/<problem> <problem.yaml>
#
# (defaults 50 starts, -hessian fim) and prints a table: estimated
# parameters, the starts within 0.1 of the nominal log posterior or better
# (the acceptance criterion of issue #25), the best minus the nominal log
# posterior, the exit reasons and the CPU time (user + system) of the
# whole run. Each problem's summary stays in results/fit/<problem>.txt.
#
# Run from anywhere; it works in the module's root.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${PBGEN_SHARED:-../shared}
bench=$shared/petab-benchmark
starts=${PBGEN_FIT_STARTS:-50}
hessian=${PBGEN_FIT_HESSIAN:-fim}
problems=${PBGEN_FIT_PROBLEMS:-"Perelson_Science1996 Bertozzi_PNAS2020 Rahman_MBS2016 Blasi_CellSystems2016 Liu_IFACPapersOnLine2025 Armistead_CellDeathDis2024 Zhao_QuantBiol2020 Giordano_Nature2020 Laske_PLOSComputBiol2019 Raia_CancerResearch2011 Okuonghae_ChaosSolitonsFractals2020 Oliveira_NatCommun2021 SalazarCavazos_MBoC2020"}
if [ ! -d "$bench" ]; then
	echo "fitbench: no PEtab benchmark collection at $bench (set PBGEN_SHARED)" >&2
	exit 1
fi
out=results/fit
mkdir -p "$out"
bin=$(mktemp -d)/pbgen
trap 'rm -rf "$(dirname "$bin")"' EXIT
${GO:-go} build -o "$bin" ./cmd/pbgen
printf '%-38s %6s %12s %14s  %-8s %s\n' problem params at-nominal best-nominal cpu-s "exit reasons"
for p in $problems; do
	yaml=$(ls "$bench/$p"/*.yaml 2>/dev/null | head -1 || true)
	if [ -z "$yaml" ]; then
		echo "$p: no problem YAML in $bench/$p" >&2
		continue
	fi
	txt=$out/$p.txt
	GOMAXPROCS=1 /usr/bin/time -f 'cpu %U %S' "$bin" fit -starts "$starts" -j 1 -hessian "$hessian" -o "$out/$p" "$yaml" >"$txt" 2>&1 || true
	awk -v p="$p" '
		/estimated parameters/ { for (i = 1; i <= NF; i++) if ($(i+1) == "estimated") n = $i }
		/^exit reasons:/ { sub(/^exit reasons: /, ""); sub(/; start points.*/, ""); ex = $0 }
		/best - nominal:/ { d = $NF; sub(/\)$/, "", d) }
		/of the nominal log posterior or better/ { at = $(NF-2) "/" $NF }
		/^cpu / { cpu = $2 + $3 }
		END { printf "%-38s %6s %12s %14s  %-8.2f %s\n", p, n, at, d, cpu, ex }' "$txt"
done
