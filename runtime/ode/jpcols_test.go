package ode

import (
	"math"
	"slices"
	"testing"

	"github.com/pbgen/pbgen/internal/testode"
	"github.com/pbgen/pbgen/runtime/model"
)

// colModel adds model.JpColumns to a model: its functions evaluate the
// full Jp and copy the chosen columns' entries; full and cols count the
// evaluations of Jp and of the column functions, so that a test sees
// which one the solver used.
type colModel struct {
	model.Model
	full, cols *int
}

func (m colModel) Jp(dst []float64, t float64, x, p []float64) {
	*m.full++
	m.Model.Jp(dst, t, x, p)
}

func (m colModel) JpColumns(cols []int) model.JpFunc {
	pat := m.Model.JpPattern()
	want := make([]bool, pat.Cols)
	for _, j := range cols {
		want[j] = true
	}
	buf := make([]float64, pat.NNZ())
	return func(dst []float64, t float64, x, p []float64) {
		*m.cols++
		m.Model.Jp(buf, t, x, p)
		for k, j := range pat.ColIdx {
			if want[j] {
				dst[k] = buf[k]
			}
		}
	}
}

// TestJpColumns checks that FS with a subset of the parameters evaluates
// Jp through model.JpColumns and gets the sensitivities of the full Jp
// bit for bit (the same values reach the same arithmetic), also when one
// solver alternates between all parameters and the subset, and that a
// non-finite entry of a column outside the subset, left in the values by
// an earlier solve with all parameters, does not fail the subset's solve.
func TestJpColumns(t *testing.T) {
	pr := testode.Hires()
	np := model.NumParams(pr.Model)
	if np < 3 {
		t.Fatalf("HIRES has %d parameters, the test needs 3", np)
	}
	params := []int{np - 1, 0}
	p, x0 := setup(pr)
	tout := []float64{1, 10, 100, pr.TEnd}
	nx := model.NumStates(pr.Model)
	solve := func(s *Solver, ps []int) []float64 {
		t.Helper()
		var tr Trajectory
		dst := make([]float64, len(tout)*nx*len(ps))
		if err := s.IntegrateSens(&tr, dst, p, x0, nil, 0, tout, &SensSettings{Params: ps, ErrCon: true}); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	set := &Settings{RTol: 1e-8, ATol: 1e-10}
	want := solve(NewSolver(pr.Model, set), params)
	all := make([]int, np)
	for j := range all {
		all[j] = j
	}
	wantAll := solve(NewSolver(pr.Model, set), all)

	var full, cols int
	cm := colModel{Model: pr.Model, full: &full, cols: &cols}
	s := NewSolver(cm, set)
	if got := solve(s, params); !slices.Equal(got, want) {
		t.Errorf("subset through JpColumns: S differs from the full Jp's")
	}
	if full != 0 || cols == 0 {
		t.Errorf("subset: %d full Jp and %d column evaluations, want 0 and some", full, cols)
	}
	full, cols = 0, 0
	if got := solve(s, all); !slices.Equal(got, wantAll) {
		t.Errorf("all parameters after the subset: S differs")
	}
	if full == 0 || cols != 0 {
		t.Errorf("all parameters: %d full Jp and %d column evaluations, want some and 0", full, cols)
	}
	// A stale NaN outside the subset (as a failed full solve could leave).
	for k, j := range s.jpPat.ColIdx {
		if !slices.Contains(params, j) {
			s.jpv[k] = math.NaN()
		}
	}
	if got := solve(s, params); !slices.Equal(got, want) {
		t.Errorf("subset again: S differs")
	}
}
