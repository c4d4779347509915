package ode

import (
	"math"
	"testing"

	"github.com/pbgen/pbgen/internal/testode"
	"github.com/pbgen/pbgen/runtime/model"
)

var sinkErr error

// benchIntegrate integrates pr once per iteration with one solver and one
// trajectory (the steady-state, allocation-free use).
func benchIntegrate(b *testing.B, pr testode.Problem, st Settings) {
	m := pr.Model
	p := make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	x0 := make([]float64, model.NumStates(m))
	m.InitialState(x0, p)
	if pr.ATolMax != nil && st.ATolVec == nil {
		st.ATolVec = make([]float64, len(pr.ATolMax))
		for i := range st.ATolVec {
			st.ATolVec[i] = math.Min(pr.ATolMax[i], st.ATol)
		}
	}
	s := NewSolver(m, &st)
	var tr Trajectory
	tout := []float64{pr.TEnd}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sinkErr = s.Integrate(&tr, p, x0, pr.T0, tout)
	}
	b.StopTimer()
	if sinkErr != nil {
		b.Fatal(sinkErr)
	}
	b.ReportMetric(float64(s.Stats().Steps), "steps")
}

// benchSens integrates the state and all sensitivities.
func benchSens(b *testing.B, pr testode.Problem, st Settings) {
	m := pr.Model
	nx, np := model.NumStates(m), model.NumParams(m)
	p := make([]float64, np)
	m.DefaultParams(p)
	x0 := make([]float64, nx)
	m.InitialState(x0, p)
	if pr.ATolMax != nil && st.ATolVec == nil {
		st.ATolVec = make([]float64, len(pr.ATolMax))
		for i := range st.ATolVec {
			st.ATolVec[i] = math.Min(pr.ATolMax[i], st.ATol)
		}
	}
	s := NewSolver(m, &st)
	var tr Trajectory
	tout := []float64{pr.TEnd}
	dst := make([]float64, nx*np)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sinkErr = s.IntegrateSens(&tr, dst, p, x0, nil, pr.T0, tout, nil)
	}
	b.StopTimer()
	if sinkErr != nil {
		b.Fatal(sinkErr)
	}
	b.ReportMetric(float64(s.Stats().Steps), "steps")
}

func BenchmarkIntegrateHIRES(b *testing.B) {
	benchIntegrate(b, testode.Hires(), Settings{RTol: 1e-6, ATol: 1e-8})
}
func BenchmarkIntegrateHIRES4(b *testing.B) {
	benchIntegrate(b, testode.Hires(), Settings{RTol: 1e-4, ATol: 1e-6})
}
func BenchmarkIntegratePOLLU(b *testing.B) {
	benchIntegrate(b, testode.Pollu(), Settings{RTol: 1e-6, ATol: 1e-8})
}
func BenchmarkIntegratePOLLU5(b *testing.B) {
	benchIntegrate(b, testode.Pollu(), Settings{RTol: 1e-5, ATol: 1e-6})
}
func BenchmarkIntegrateROBER(b *testing.B) {
	benchIntegrate(b, testode.Rober(), Settings{RTol: 1e-6, ATol: 1e-10})
}
func BenchmarkIntegrateLinearDOPRI5(b *testing.B) {
	benchIntegrate(b, testode.Linear(1, 2), Settings{Method: DOPRI5, RTol: 1e-6, ATol: 1e-8})
}
func BenchmarkIntegrateSensHIRES(b *testing.B) {
	benchSens(b, testode.Hires(), Settings{RTol: 1e-6, ATol: 1e-8})
}
func BenchmarkIntegrateSensPOLLU5(b *testing.B) {
	benchSens(b, testode.Pollu(), Settings{RTol: 1e-5, ATol: 1e-6})
}
