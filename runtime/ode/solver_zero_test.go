package ode

import (
	"testing"

	"github.com/pbgen/pbgen/runtime/model"
)

// empty is a model without states (an SBML model whose quantities are all
// given by rules).
type empty struct{}

func (empty) Name() string                                { return "empty" }
func (empty) StateNames() []string                        { return nil }
func (empty) ParamNames() []string                        { return []string{"k"} }
func (empty) DefaultParams(dst []float64)                 { dst[0] = 1 }
func (empty) InitialState(dst, p []float64)               {}
func (empty) InitialSens(dst, p []float64)                {}
func (empty) F(dst []float64, t float64, x, p []float64)  {}
func (empty) JxPattern() *model.Pattern                   { return &model.Pattern{RowPtr: []int{0}} }
func (empty) Jx(dst []float64, t float64, x, p []float64) {}
func (empty) JpPattern() *model.Pattern                   { return &model.Pattern{Cols: 1, RowPtr: []int{0}} }
func (empty) Jp(dst []float64, t float64, x, p []float64) {}

func TestZeroStates(t *testing.T) {
	for _, m := range []Method{BDF, DOPRI5} {
		s := NewSolver(empty{}, &Settings{Method: m})
		var tr Trajectory
		tout := []float64{0, 0.5, 2}
		if err := s.Integrate(&tr, []float64{1}, nil, 0, tout); err != nil {
			t.Fatalf("method %d: %v", m, err)
		}
		if len(tr.Out) != len(tout) {
			t.Fatalf("method %d: %d outputs, want %d", m, len(tr.Out), len(tout))
		}
		for i, k := range tr.Out {
			if tr.T[k] != tout[i] {
				t.Errorf("method %d: output %d at t=%g, want %g", m, i, tr.T[k], tout[i])
			}
		}
	}
}
