package dde

import (
	"testing"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

var benchSink *Result

func BenchmarkSolveLogistic(b *testing.B)     { benchSolve(b, logistic{}, false) }
func BenchmarkSolveSensLogistic(b *testing.B) { benchSolve(b, logistic{}, true) }

// benchSolve solves m over [0, 10] at rtol 1e-8 (BDF), with or without
// sensitivities.
func benchSolve(b *testing.B, m model.Model, withS bool) {
	p := make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	x0 := make([]float64, model.NumStates(m))
	m.InitialState(x0, p)
	ts := []float64{0, 1, 2.5, 4, 7, 10}
	set := &Settings{ODE: &ode.Settings{RTol: 1e-8, ATol: 1e-10}}
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if withS {
			benchSink, err = SolveSens(m, p, x0, nil, ts, set)
		} else {
			benchSink, err = Solve(m, p, x0, ts, set)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// Hutchinson's x' = -x(t-1) alone, and with hutchEv's two events that
// read the delayed value (three executions over [0, 10]).
func BenchmarkSolveHutch(b *testing.B)       { benchSolve(b, hutch{}, false) }
func BenchmarkSolveHutchEvents(b *testing.B) { benchSolve(b, hutchEv{}, false) }

// hutchEvS (x' = -x(t-1) with three events reading the delayed value,
// p = (T, a, c)) with and without its sensitivities through the events.
func BenchmarkSolveHutchEvS(b *testing.B)     { benchSolve(b, hutchEvS{}, false) }
func BenchmarkSolveSensHutchEvS(b *testing.B) { benchSolve(b, hutchEvS{}, true) }
