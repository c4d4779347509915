#!/bin/bash
# End-to-end test of pbgen sample on a real Slurm: installs Debian's
# slurm-wlm and munge (as root), starts munged, slurmctld and slurmd for a
# single-node cluster on localhost, submits examples/slurm/submit.sh (a
# job array of one chain per task, then a merge job with
# --dependency=afterok), waits at most SLURM_TEST_TIMEOUT seconds, and
# checks that
#
#   - every chain file (chain_N.csv) equals the one of a local run with
#     the same seed and settings, byte for byte (cmp, nothing masked: the
#     wall-clock times, which cannot repeat, are in the chain_N.timing.json
#     sidecars, which are only checked to exist), and
#   - the merged summary equals the local run's, apart from the columns
#     and lines computed from those times (ESS_bulk/s, the chains' times,
#     "Warmup took ...").
#
# The daemons started here are stopped on exit (by their pid files). Run
# from the repository root: `make slurm-test` (sudo make slurm-test when
# not root).
set -euo pipefail

CHAINS=${CHAINS:-4}
SEED=${SEED:-20261125}
FLAGS=${FLAGS:-"-sampler smmala -method fs -warmup 150 -samples 150"}
PROBLEM=${PROBLEM:-networks/petab/CaMKII/problem.yaml}
TIMEOUT=${SLURM_TEST_TIMEOUT:-600}

die() { echo "slurm-test: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (installs packages, starts the Slurm daemons): sudo make slurm-test"
[ -f "$PROBLEM" ] || die "no $PROBLEM: run from the repository root"

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
	echo "slurm-test: installing slurm-wlm and munge"
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge
fi

work=$(mktemp -d /tmp/pbgen-slurm-test.XXXXXX)
chmod 755 "$work"
state=$work/state
mkdir -p "$state/ctld" "$state/d" "$state/munge" "$work/local" "$work/slurm"
echo "slurm-test: working in $work"

cleanup() {
	local pids=()
	for f in "$state/slurmd.pid" "$state/slurmctld.pid" "$state/munge/munged.pid"; do
		if [ -s "$f" ]; then pids+=("$(cat "$f")"); fi
	done
	[ ${#pids[@]} -gt 0 ] || return 0
	kill "${pids[@]}" 2>/dev/null || true
	for _ in $(seq 20); do # wait up to 10 s for them to exit
		local alive=0
		for p in "${pids[@]}"; do
			if kill -0 "$p" 2>/dev/null; then alive=1; fi
		done
		[ $alive = 1 ] || return 0
		sleep 0.5
	done
}
trap cleanup EXIT

go build -o "$work/pbgen" ./cmd/pbgen

# munge: a fresh key and a daemon of our own (socket in our state folder,
# so that a munged already running elsewhere is left alone).
sock=$state/munge/munge.socket
dd if=/dev/urandom of="$state/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$state/munge/munge.key"
munged --force --key-file="$state/munge/munge.key" --socket="$sock" \
	--pid-file="$state/munge/munged.pid" --log-file="$state/munge/munged.log" --seed-file="$state/munge/munged.seed"
munge --socket="$sock" -n </dev/null | unmunge --socket="$sock" >/dev/null || die "munge does not work: see $state/munge/munged.log"

# A single-node cluster on localhost: no cgroups (proctrack/linuxproc,
# task/none), no accounting, consumable cores.
cpus=$(nproc)
mem=$(awk '/MemTotal/ {print int($2/1024*0.9)}' /proc/meminfo)
conf=$work/slurm.conf
cat >"$conf" <<EOF
ClusterName=pbgentest
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/d
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
MinJobAge=3600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$conf
slurmctld -c -f "$conf" || die "slurmctld did not start: $(tail -5 "$state/slurmctld.log" 2>/dev/null)"
slurmd -f "$conf" -N localhost || die "slurmd did not start: $(tail -5 "$state/slurmd.log" 2>/dev/null)"
for _ in $(seq 60); do
	st=$(sinfo -h -N -o %T 2>/dev/null | head -1 || true)
	case $st in idle*) break ;; esac
	sleep 1
done
[[ $st == idle* ]] || die "node not idle after 60 s (state '$st'): $(tail -5 "$state/slurmd.log" "$state/slurmctld.log")"
echo "slurm-test: cluster up ($cpus CPUs): $(sinfo -h -o '%P %a %D %T')"

# The local reference: all chains in one process.
# shellcheck disable=SC2086
"$work/pbgen" sample -chains "$CHAINS" -seed "$SEED" $FLAGS -o "$work/local" "$PROBLEM" >"$work/local-run.txt"
"$work/pbgen" sample -merge "$work/local" >"$work/local-summary.txt"

# The same analysis through Slurm.
# shellcheck disable=SC2086
read -r array merge < <(PBGEN="$work/pbgen" examples/slurm/submit.sh "$PROBLEM" "$work/slurm" "$CHAINS" "$SEED" $FLAGS)
echo "slurm-test: submitted array job $array and merge job $merge"
deadline=$((SECONDS + TIMEOUT))
while squeue -h -j "$array,$merge" 2>/dev/null | grep -q .; do
	[ $SECONDS -lt $deadline ] || { squeue; die "jobs not done after $TIMEOUT s"; }
	sleep 2
done
mstate=$(scontrol show job "$merge" | grep -o 'JobState=[A-Z_]*' | head -1)
[ "$mstate" = JobState=COMPLETED ] || {
	scontrol show job "$array"
	tail -n 20 "$work"/slurm/*.out 2>/dev/null
	die "merge job $merge: $mstate"
}

# Compare.
# The summary without what wall-clock times feed: the "Warmup took" line,
# ESS_bulk/s (10th of 11 fields in the parameter rows) and the chains'
# time (8th of 8 fields in the chain rows).
mask() {
	awk '/^Warmup took/ {next}
		NF == 11 && $1 != "Mean" {$10 = "-"}
		NF == 8 && $1 ~ /^[0-9]+$/ {$8 = "-"}
		{print}' "$1"
}
fail=0
for c in $(seq "$CHAINS"); do
	f=chain_$c.csv
	for d in local slurm; do
		[ -s "$work/$d/$f" ] || die "no $d/$f (files kept in $work)"
		[ -s "$work/$d/chain_$c.timing.json" ] || die "no $d/chain_$c.timing.json (files kept in $work)"
	done
	if ! cmp "$work/local/$f" "$work/slurm/$f" >&2; then
		echo "slurm-test: $f differs between the local run and Slurm:" >&2
		diff "$work/local/$f" "$work/slurm/$f" | head -20 >&2
		fail=1
	fi
done
[ -s "$work/slurm/summary.txt" ] || die "the merge job wrote no summary.txt"
if ! cmp -s <(mask "$work/local-summary.txt") <(mask "$work/slurm/summary.txt"); then
	echo "slurm-test: merged summaries differ:" >&2
	diff <(mask "$work/local-summary.txt") <(mask "$work/slurm/summary.txt") >&2 || true
	fail=1
fi
[ $fail = 0 ] || die "FAIL (files kept in $work)"
n=$(ls "$work"/slurm/pbgen-chain-*.out | wc -l)
echo "slurm-test: PASS: $CHAINS chains from $n array tasks byte-identical to the local run; merged summary:"
cat "$work/slurm/summary.txt"
