#!/bin/bash
# Submit an MCMC analysis of a PEtab problem to Slurm: a job array with
# one chain per task (sample.sbatch), then a merge job (merge.sbatch) that
# starts when every chain has succeeded. Prints the two job ids.
#
#   examples/slurm/submit.sh problem.yaml OUT [CHAINS [SEED [pbgen sample flags...]]]
#
# e.g. examples/slurm/submit.sh networks/petab/CaMKII/problem.yaml runs/camkii 4 1 -warmup 1000 -samples 1000
#
# PBGEN names the pbgen binary (default: pbgen on PATH); give an absolute
# path when the compute nodes do not share your PATH. Extra sbatch options
# (partition, account, time limit) go in SBATCH_FLAGS.
set -euo pipefail
if [ $# -lt 2 ]; then
	echo "usage: $0 problem.yaml OUT [CHAINS [SEED [pbgen sample flags...]]]" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
problem=$(realpath "$1")
out=$(realpath -m "$2")
chains=${3:-4}
seed=${4:-1}
shift $(( $# < 4 ? $# : 4 ))
flags="$*"
pbgen=${PBGEN:-$(command -v pbgen || true)}
if [ -z "$pbgen" ]; then
	echo "$0: no pbgen on PATH; set PBGEN to the binary" >&2
	exit 1
fi
mkdir -p "$out"
export PBGEN="$pbgen" PROBLEM="$problem" OUT="$out" CHAINS="$chains" SEED="$seed" SAMPLE_FLAGS="$flags"
# shellcheck disable=SC2086
array=$(sbatch --parsable ${SBATCH_FLAGS:-} --chdir="$out" --array=0-$((chains - 1)) --export=ALL "$here/sample.sbatch")
array=${array%%;*} # --parsable prints "id" or "id;cluster"
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_FLAGS:-} --chdir="$out" --dependency=afterok:"$array" --kill-on-invalid-dep=yes --export=ALL "$here/merge.sbatch")
merge=${merge%%;*}
echo "$array $merge"
