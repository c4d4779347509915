package ode

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/internal/scalenet"
	"github.com/pbgen/pbgen/runtime/model"
)

// TestCheckColsStable: the backward-error check of the exact corrector's
// first correction accepts the solve of the factorisation it checks and
// rejects a solution off by far more than rounding in one entry of a
// checked column, on both LUs, and checks every column in turn.
func TestCheckColsStable(t *testing.T) {
	m := scalenet.New(scalenet.Chain, 150)
	nx, np := model.NumStates(m), model.NumParams(m)
	p := make([]float64, np)
	m.DefaultParams(p)
	x0 := make([]float64, nx)
	m.InitialState(x0, p)
	const k = 7
	ps := make([]int, k)
	for j := range ps {
		ps[j] = j
	}
	for _, ls := range []LinearSolver{LinearDense, LinearSparse} {
		s := NewSolver(m, &Settings{LinearSolver: ls})
		s.freshCols = 1
		var tr Trajectory
		S := make([]float64, nx*k)
		// The solver ends holding the factors of M = I - gamma Jx with
		// Jx in s.jv and the last step's gamma, as after a corrector.
		if err := s.IntegrateSens(&tr, S, p, x0, nil, 0, []float64{2}, &SensSettings{Params: ps}); err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 1))
		b := make([]float64, nx*k)
		seen := make(map[int]bool)
		for round := 0; round < (k+sensCheckCols-1)/sensCheckCols; round++ {
			for i := range b {
				b[i] = rng.NormFloat64()
			}
			s.saveCheckCols(b)
			for _, c := range s.chkCol[:sensCheckCols] {
				seen[c] = true
			}
			s.solveBlock(b, k)
			if !s.checkColsStable(b) {
				t.Errorf("%v: the LU's own solve fails the backward-error check", ls)
			}
			c := s.chkCol[0]
			var big float64
			for i := 0; i < nx; i++ {
				big = math.Max(big, math.Abs(b[i*k+c]))
			}
			b[(nx/2)*k+c] += 1e-9 * big
			if s.checkColsStable(b) {
				t.Errorf("%v: a solution off by 1e-9 of its column passes the backward-error check", ls)
			}
		}
		if len(seen) != k {
			t.Errorf("%v: %d of %d columns checked in %d rounds", ls, len(seen), k, (k+sensCheckCols-1)/sensCheckCols)
		}
	}
}

// TestSensRefine: the exact corrector's refinement, taken when the
// backward-error check fails (forced here for every step), reaches the
// same S as the accepted first correction, within rounding propagated
// through the steps, and as accurate against a tight reference, with
// and without ErrCon (without it, the refinement sets the weights of S
// the step skipped).
func TestSensRefine(t *testing.T) {
	m := scalenet.New(scalenet.Chain, 150)
	nx, np := model.NumStates(m), model.NumParams(m)
	p := make([]float64, np)
	m.DefaultParams(p)
	x0 := make([]float64, nx)
	m.InitialState(x0, p)
	ps := make([]int, min(20, np))
	for j := range ps {
		ps[j] = j
	}
	tout := []float64{1, 5, 10}
	solve := func(rtol, atol float64, errcon, refine bool, fresh int) ([]float64, Stats) {
		s := NewSolver(m, &Settings{LinearSolver: LinearSparse, RTol: rtol, ATol: atol})
		s.freshCols = fresh
		s.refineAlways = refine
		S := make([]float64, len(tout)*nx*len(ps))
		var tr Trajectory
		if err := s.IntegrateSens(&tr, S, p, x0, nil, 0, tout, &SensSettings{Params: ps, ErrCon: errcon}); err != nil {
			t.Fatal(err)
		}
		return S, s.Stats()
	}
	ref, _ := solve(1e-11, 1e-13, true, false, 1<<30)
	for _, errcon := range []bool{false, true} {
		Sf, stf := solve(1e-6, 1e-8, errcon, false, 1)
		Sr, str := solve(1e-6, 1e-8, errcon, true, 1)
		ef, er, d := relDiff(Sf, ref), relDiff(Sr, ref), relDiff(Sr, Sf)
		t.Logf("errcon=%v: first correction: error %.3g (%d steps, %d iterations); refined: error %.3g (%d steps, %d iterations); apart %.3g",
			errcon, ef, stf.Steps, stf.SensNewtonIters, er, str.Steps, str.SensNewtonIters, d)
		if stf.Steps != str.Steps {
			t.Errorf("errcon=%v: %d steps refined, %d without", errcon, str.Steps, stf.Steps)
		}
		if !(str.SensNewtonIters > stf.SensNewtonIters) {
			t.Errorf("errcon=%v: the refinement took %d iterations, the first correction alone %d", errcon, str.SensNewtonIters, stf.SensNewtonIters)
		}
		if !(d <= 1e-9) || !(er <= 2*ef+1e-6) {
			t.Errorf("errcon=%v: refined S %.3g apart from the first correction's, errors %.3g and %.3g", errcon, d, er, ef)
		}
	}
}

// TestMemoryEstimateSparse: on the sparse LU path the estimate is
// O(nnz + nx np), with no nx x nx matrix: NewSolver's allocations on
// scalenet chains (their parameters grow with the chain) are within it
// and above 2/3 of it; with the parameters fixed it doubles with the
// states; and a 20,000-state model with an empty Jx, which the dense
// path refuses under a 1 GiB limit, passes it with the sparse LU
// (LinearAuto).
func TestMemoryEstimateSparse(t *testing.T) {
	for _, n := range []int{300, 1200} {
		m := scalenet.New(scalenet.Chain, n)
		nx, np := model.NumStates(m), model.NumParams(m)
		if !AutoSparse(nx, m.JxPattern().NNZ()) {
			t.Fatalf("chain %d: not on the sparse path", n)
		}
		need := MemoryEstimateFor(m, nil)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s := NewSolver(m, &Settings{MemoryLimit: -1})
		runtime.ReadMemStats(&after)
		got := int64(after.TotalAlloc - before.TotalAlloc)
		t.Logf("chain %d (%d states, %d parameters, nnz(Jx) %d): NewSolver allocated %d bytes, estimate %d (dense path %d)",
			n, nx, np, m.JxPattern().NNZ(), got, need, MemoryEstimate(nx, np))
		if !s.UsesSparse() || got > need || 3*got < 2*need {
			t.Errorf("chain %d: NewSolver allocated %d bytes, estimate %d", n, got, need)
		}
	}
	const np = 20
	a, b := MemoryEstimateSparse(1000, np, 5000, 2000), MemoryEstimateSparse(2000, np, 10000, 4000)
	if r := float64(b) / float64(a); !(r > 1.99 && r < 2.01) {
		t.Errorf("estimate grows by %.3f from 1000 to 2000 states at %d parameters, want 2", r, np)
	}
	var me *MemoryError
	w := wide{20000}
	if err := NewSolver(w, &Settings{MemoryLimit: 1 << 30, LinearSolver: LinearDense}).Err(); !errors.As(err, &me) {
		t.Errorf("dense path under 1 GiB: got %v, want a *MemoryError", err)
	}
	s := NewSolver(w, &Settings{MemoryLimit: 1 << 30})
	if err := s.Err(); err != nil || !s.UsesSparse() {
		t.Errorf("sparse path under 1 GiB: got %v (sparse %v)", err, s.UsesSparse())
	}
	if need := MemoryEstimateFor(w, nil); need >= 8*20000*20000/100 {
		t.Errorf("sparse estimate for 20000 states and one parameter: %d bytes", need)
	}
	// Over the limit, the sparse path's message says what it counts.
	if err := NewSolver(w, &Settings{MemoryLimit: 1 << 20}).Err(); !errors.As(err, &me) || !strings.Contains(me.Msg, "sparse LU") {
		t.Errorf("sparse path under 1 MiB: got %v", err)
	}
}
