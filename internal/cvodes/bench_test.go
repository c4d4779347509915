//go:build cvodes

package cvodes

import (
	"fmt"
	"testing"

	"github.com/pbgen/pbgen/runtime/model"
)

var sink float64

// benchSolve times one Solve of m on [0, tEnd] with outputs at t = 1..tEnd,
// at the paper's tolerances, and reports CVODES's counters per solve.
func benchSolve(b *testing.B, m model.Model, tEnd int, opt Options) {
	nx, np := model.NumStates(m), model.NumParams(m)
	p := defaults(m)
	x0 := make([]float64, nx)
	m.InitialState(x0, p)
	tout := make([]float64, tEnd)
	for k := range tout {
		tout[k] = float64(k + 1)
	}
	s, err := New(m, opt)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	x := make([]float64, tEnd*nx)
	var S []float64
	if opt.Sens {
		S = make([]float64, tEnd*nx*np)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := s.Solve(p, x0, 0, tout, x, S); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	sink = x[len(x)-1]
	st := s.LastStats()
	b.ReportMetric(float64(st.Steps), "steps/op")
	b.ReportMetric(float64(st.FEvals), "f/op")
	b.ReportMetric(float64(st.SensFEvals), "fS/op")
	b.ReportMetric(float64(st.LUs), "LU/op")
}

func paperOpt(sens, errcon bool) Options {
	return Options{RTol: 1e-5, ATol: 1e-6, MaxSteps: -1, Sens: sens, ErrCon: errcon}
}

func BenchmarkRobertson(b *testing.B) {
	for _, c := range []struct {
		name         string
		sens, errcon bool
	}{{"x", false, false}, {"FS", true, false}, {"FSErrCon", true, true}} {
		b.Run(c.name, func(b *testing.B) { benchSolve(b, robModel{}, 40, paperOpt(c.sens, c.errcon)) })
	}
}

// BenchmarkChain runs the mass-action chain at the sizes of the paper's
// PKA (nx 11) and CaMKII (nx 21) networks over [0, 600].
func BenchmarkChain(b *testing.B) {
	for _, n := range []int{11, 21} {
		m := chainModel(n)
		for _, c := range []struct {
			name         string
			sens, errcon bool
		}{{"x", false, false}, {"FS", true, false}, {"FSErrCon", true, true}} {
			b.Run(fmt.Sprintf("nx%d/%s", n, c.name), func(b *testing.B) { benchSolve(b, m, 600, paperOpt(c.sens, c.errcon)) })
		}
	}
}

// BenchmarkCallbacks times the cgo round trip of CVODES's right-hand side
// callback on a tiny model, where the model's own work is negligible.
func BenchmarkCallbacks(b *testing.B) {
	benchSolve(b, linModel{}, 10, Options{RTol: 1e-10, ATol: 1e-12, MaxSteps: -1})
}

// BenchmarkSolveOverhead times the fixed cost of a solve, without steps: the
// cgo call, InitialSens, CVodeReInit and CVodeSensReInit with np = 40, the
// counters, and the copies of an output at t0.
func BenchmarkSolveOverhead(b *testing.B) {
	m := chainModel(21)
	p := defaults(m)
	x0 := make([]float64, 21)
	m.InitialState(x0, p)
	s, err := New(m, paperOpt(true, true))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	x, S := make([]float64, 21), make([]float64, 21*40)
	tout := []float64{0}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Solve(p, x0, 0, tout, x, S); err != nil {
			b.Fatal(err)
		}
	}
}
