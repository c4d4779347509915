package ode

import (
	"math"
	"math/rand/v2"
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
