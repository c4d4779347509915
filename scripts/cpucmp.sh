#!/bin/sh
# cpucmp.sh REPS PROBLEM.yaml "FLAGS" BIN... : CPU seconds (user + sys,
# GOMAXPROCS=1) of `BIN petab FLAGS PROBLEM.yaml` per binary, the runs
# interleaved (binary after binary, REPS rounds) so that the machine's
# load hits them alike; prints the median and the range per binary.
# Used for the before/after numbers of docs/bench/chensize.md.
reps=$1 prob=$2 flags=$3
shift 3
tmp=$(mktemp -d)
for r in $(seq "$reps"); do
	for b in "$@"; do
		GOMAXPROCS=1 /usr/bin/time -f '%U %S' -o "$tmp/t" "$b" petab $flags "$prob" >/dev/null || echo "$b failed" >&2
		awk '{print $1+$2}' "$tmp/t" >>"$tmp/$(basename "$b")"
	done
done
for b in "$@"; do
	sort -g "$tmp/$(basename "$b")" | awk -v n="$(basename "$b")" '{v[NR]=$1} END {printf "%-12s median %.2f s  (min %.2f, max %.2f, %d runs)\n", n, v[int((NR+1)/2)], v[1], v[NR], NR}'
done
rm -r "$tmp"
