#!/usr/bin/env python3
"""Split the CPU samples of `pbgen petab -cpuprofile` into the phases of a
PEtab evaluation (docs/bench/chensize.md).

usage: scripts/profsplit.py PROFILE [PROFILE...] [-- PROFILE...]

With "--", the profiles after it are a second set (after a change) and the
table has a column per set.

Several profiles (repeated runs) are merged. Each sample goes to the first
phase whose pattern occurs anywhere on its stack (the order below), and
samples inside the integration or the steady state are split further by the
kernel they are in (the first kernel pattern that matches). Goroutines of
gonum's parallel dgemm do not carry their caller's stack; in pbgen petab
with FS they come from the conservation laws' SVD (objective.conservation,
the only large dense product of an FS evaluation), and are counted there.
"""
import re
import subprocess
import sys

PHASES = [
    ("read SBML", r"parser\.ReadFile|parser\.Read\b"),
    ("read tables", r"petab\.(readTable|readYAML|readParameters|readConditions|readObservables|readMeasurements|readExperiments|readMappings)"),
    ("SBML lowering (parser ODE)", r"parser\.\(\*Model\)\.ODE"),
    ("symbolic build (Jx, Jp, CSE)", r"symbolic\.Build\b"),
    ("interp build", r"interp\.New"),
    ("lowering other (observables, conditions)", r"petab\.\(\*lowering\)"),
    ("conservation laws (dense SVD)", r"objective\.conservation|gonum/blas/gonum\.dgemmParallel"),
    ("objective.New: other", r"objective\.New\b"),
    ("steady state", r"objective\.\(\*worker\)\.steady"),
    ("observables + data", r"objective\.\(\*worker\)\.(observePhase|datum)|objective\.\(\*core\)\.(sum|finish)"),
    ("integration", r"sens\.\(\*Solver\)\.SolveFrom|ode\.\(\*Solver\)|events\.\(\*SensSolver\)"),
    ("output (print, tables)", r"petab\.\(\*Problem\)\.WriteSimulations|fmt\.Fprint"),
    ("GC, runtime", r"^runtime\.|gcBgMarkWorker|bgsweep|bgscavenge"),
]

KERNELS = [
    ("f", r"\)\.F$|\)\.F \(inline\)$"),
    ("Jx", r"\)\.Jx$|\)\.Jx \(inline\)$"),
    ("Jp", r"\)\.Jp$|\)\.Jp \(inline\)$|\)\.JpCols"),
    ("sparse LU factor", r"sparse\.\(\*LU\)\.(Factor|Refactor|factor|refactor|symbolic|Analyze)|sparse\.AMD|sparse\.amd"),
    ("sparse LU solve", r"sparse\.\(\*LU\)\.(Solve|solve)"),
    ("dense LU / solve", r"dense\.(Factor|Solve|factor|solve|elim)"),
    ("dense vector kernels (S, Nordsieck arrays)", r"dense\.(Axpy|GatherRow|Predict|Scale|Dot|Finite|axpy|gather|predict|finite)"),
    ("S update (FS corrector)", r"ode\.\(\*Solver\)\.sens"),
    ("alloc, GC", r"runtime\.(mallocgc|gcAssist|growslice|newobject|makeslice)"),
]


def traces(paths):
    out = subprocess.run(["go", "tool", "pprof", "-traces"] + paths, capture_output=True, text=True, check=True).stdout
    blocks = out.split("-----------+-------------------------------------------------------")
    for b in blocks[1:]:
        lines = [l for l in b.splitlines() if l.strip()]
        if not lines:
            continue
        m = re.match(r"\s*([0-9.]+)(ms|s|us|µs|ns)\s+(.*)", lines[0])
        if not m:
            continue
        v = float(m.group(1)) * {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}[m.group(2)]
        stack = [m.group(3).strip()] + [l.strip() for l in lines[1:]]
        yield v, stack


def classify(stack, rules):
    for name, pat in rules:
        r = re.compile(pat)
        if any(r.search(f) for f in stack):
            return name
    return None


def split(paths):
    total = 0.0
    phase, kern = {}, {}
    for v, st in traces(paths):
        total += v
        p = classify(st, PHASES) or "other"
        phase[p] = phase.get(p, 0) + v
        if p in ("integration", "steady state"):
            k = classify(st, KERNELS) or "BDF and other"
            kern[(p, k)] = kern.get((p, k), 0) + v
    n = len(paths)
    rows = {}
    for name, v in phase.items():
        rows[name] = v / n
    for (p, k), v in kern.items():
        rows[(p, k)] = v / n
    return rows, total / n


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    sets = [args]
    if "--" in args:
        i = args.index("--")
        sets = [args[:i], args[i + 1:]]
    res = [split(s) for s in sets]
    head = "| phase | " + " | ".join("CPU s per run | %" for _ in res) + " |"
    print(head)
    print("|---|" + "---:|---:|" * len(res))
    def line(label, key):
        cells = []
        for rows, total in res:
            v = rows.get(key, 0.0)
            cells.append(f"{v:.3f} | {100 * v / total:.1f}" if v else "- | -")
        print(f"| {label} | " + " | ".join(cells) + " |")
    for name, _ in PHASES + [("other", "")]:
        if not any(name in rows for rows, _ in res):
            continue
        line(name, name)
        ks = {k for rows, _ in res for k in rows if isinstance(k, tuple) and k[0] == name}
        for key in sorted(ks, key=lambda k: -res[0][0].get(k, 0.0)):
            line("&nbsp;&nbsp;" + key[1], key)
    print("| total (samples) | " + " | ".join(f"{total:.3f} | 100" for _, total in res) + " |")


if __name__ == "__main__":
    main()
