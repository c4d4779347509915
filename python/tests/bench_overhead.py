"""The bridge's overhead: llh + gradient through Python against Go.

For each problem, in rounds: goref times N evaluations of llh and
gradient with objective.Eval in a Go program (CPU time of its process:
"Go proc"); then, in this process and thread, the library times the same
N evaluations in a Go loop (Problem.time_go: "Go lib") and this script N
calls of Problem.llh_grad ("Python"), CPU time of this process, which
includes the library's Go threads. Reported: the least per-evaluation
CPU time of each over the rounds, and the overhead Python - Go lib with
its share of Go lib. The issue's bound: at most 10% or 20 microseconds,
whichever is larger.

    make python-bench      (or: PBGEN_GOREF=goref python3 tests/bench_overhead.py)
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import pbgen  # noqa: E402
from helpers import CAMKII_PROBLEM, DECAY, PERELSON, goref  # noqa: E402

SHARED = os.environ.get("PBGEN_SHARED") or os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))), "shared")


def benchmark_problem(name):
    """A PEtab benchmark collection problem, if ../shared has it."""
    path = os.path.join(SHARED, "petab-benchmark", name, name + ".yaml")
    return path if os.path.exists(path) else None


PROBLEMS = [
    ("decay (2 states, 16 data)", dict(path=DECAY), lambda: pbgen.Problem(DECAY)),
    ("Perelson_Science1996 (4 states, 16 data)", dict(path=PERELSON), lambda: pbgen.Problem(PERELSON)),
    # Boehm_JProteomeRes2014's size (8 states, 48 data) where ../shared has them
    *[(f"{n} ({d})", dict(path=benchmark_problem(n)), (lambda n=n: pbgen.Problem(benchmark_problem(n))))
      for n, d in (("Rahman_MBS2016", "7 states, 23 data"), ("Okuonghae_ChaosSolitonsFractals2020", "9 states, 92 data"))
      if benchmark_problem(n)],
    ("CaMKII compiled (21 states, 66 data)", dict(compiled="camkiipetab"), lambda: pbgen.Problem.compiled("camkiipetab")),
    ("CaMKII interpreted", dict(path=CAMKII_PROBLEM), lambda: pbgen.Problem(CAMKII_PROBLEM)),
]


def python_side(prob, n):
    th = prob.nominal
    prob.llh_grad(th)
    c0 = time.process_time()
    for _ in range(n):
        prob.llh_grad(th)
    return (time.process_time() - c0) / n


def main():
    rounds = int(os.environ.get("ROUNDS", "15"))
    budget = float(os.environ.get("BUDGET", "0.5"))  # CPU seconds per side and round
    print(f"{'problem':56s} {'Go proc us':>10s} {'Go lib us':>10s} {'Python us':>10s} {'overhead us':>12s} {'share':>7s}  "
          "bound met")
    for name, req, make in PROBLEMS:
        prob = make()
        one = python_side(prob, 3)
        n = max(10, int(budget / max(one, 1e-7)))
        proc, lib, py = [], [], []
        for _ in range(rounds):
            r = goref([dict(kind="bench", n=n, **req)])
            if r is None:
                sys.exit("no Go toolchain and no $PBGEN_GOREF")
            proc.append(r[0]["cpu_per_eval"])
            # the Go loop and the Python loop back to back in this process
            lib.append(prob.time_go(prob.nominal, n, grad=True))
            py.append(python_side(prob, n))
        g, p = min(lib), min(py)
        d = p - g
        ok = d <= max(0.1 * g, 20e-6)
        print(f"{name:56s} {min(proc) * 1e6:10.2f} {g * 1e6:10.2f} {p * 1e6:10.2f} {d * 1e6:12.2f} {d / g:7.1%}  "
              f"{'yes' if ok else 'NO'}  (n={n}, {rounds} rounds)", flush=True)
        prob.close()


if __name__ == "__main__":
    main()
