#!/usr/bin/env bash
# sim-sweep.sh runs `pbgen sim` at its defaults, and with -method fs, pbsr
# and exp, on every SBML model of the PEtab benchmark collection under
# ../shared (or $PBGEN_SHARED) and prints a table: model, states,
# parameters, method, exit status, user+system CPU seconds, and the
# check's verdict (pass: exit 0 with -check on, the default; otherwise the
# first 160 characters of the error). GOMAXPROCS=1, one run at a time.
#
#	go build -o /tmp/pbgen ./cmd/pbgen && scripts/sim-sweep.sh /tmp/pbgen
set -uo pipefail
bin=${1:?usage: sim-sweep.sh path/to/pbgen}
shared=${PBGEN_SHARED:-$(dirname "$0")/../../shared}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-48s %6s %6s %-8s %4s %8s  %s\n' model states params method exit cpu_s check
for xml in "$shared"/petab-benchmark/*/*.xml; do
	name=$(basename "$(dirname "$xml")")
	case $(basename "$xml") in *allCombinations*) name+=" (allCombinations)" ;; esac
	info=$("$bin" check "$xml" 2>/dev/null)
	nx=$(awk '$1 == "states" {print $2}' <<<"$info")
	np=$(awk '$1 == "parameters" {print $2}' <<<"$info")
	for m in default fs pbsr exp; do
		args=()
		[ "$m" != default ] && args=(-method "$m")
		GOMAXPROCS=1 /usr/bin/time -f '%U %S' -o "$tmp/time" timeout 1200 \
			"$bin" sim "${args[@]}" -o "$tmp/out.tsv" "$xml" >/dev/null 2>"$tmp/err"
		rc=$?
		cpu=$(awk 'END {printf "%.2f", $1 + $2}' "$tmp/time" 2>/dev/null)
		verdict=pass
		if [ $rc -ne 0 ]; then
			verdict=$(grep -v '^Command exited' "$tmp/err" | tr '\n' ' ' | sed "s|$shared/petab-benchmark/||g" | cut -c1-160)
		fi
		printf '%-48s %6s %6s %-8s %4s %8s  %s\n' "$name" "${nx:-?}" "${np:-?}" "$m" "$rc" "${cpu:-?}" "$verdict"
	done
done
