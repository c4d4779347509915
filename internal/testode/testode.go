// Package testode holds reference initial value problems for testing and
// benchmarking the integrators in runtime/ode: the stiff test set problems
// ROBER, HIRES, VDPOL (eps form), OREGO, E5 and POLLU with high-precision
// reference values, and problems with closed-form solutions and
// sensitivities (a linear two-compartment chain, and y' = p y^2, which blows
// up in finite time).
//
// Every problem is a hand-written model.Model: the problem's constants are
// its parameters, Jx and Jp are analytic in fixed sparsity patterns.
//
// The reference values are facts written into this package: a
// recomputation of the stiff problems with Hairer's RADAU5 and RADAU in
// quadruple precision (18 significant digits, the two codes agreeing to
// 3e-19 relative or better), made for the project's ODE reference notes,
// which live outside the repository. They are more accurate than the
// published values of Mazzia and Magherini's "Test Set for Initial Value
// Problem Solvers" (release 2.4, 2008): for E5 the published y2, y3 at
// 1e13 are good to only 3 digits.
package testode

import (
	"fmt"

	"github.com/pbgen/pbgen/runtime/model"
)

// Checkpoint is a reference solution x(T).
type Checkpoint struct {
	T float64
	X []float64
}

// Problem is a reference problem: a model with its default parameters, the
// interval [T0, TEnd], and reference values at some times (the last one at
// TEnd).
type Problem struct {
	Name  string
	Model model.Model
	T0    float64
	TEnd  float64
	Refs  []Checkpoint
	Stiff bool
	// ATolMax caps the absolute tolerance per state where the problem's
	// magnitudes require it (nil = no cap): E5 needs about 1e-24 to resolve
	// its final values at all, and ROBER's y2 (at most 4e-5, 8e-14 at the
	// end) needs 1e-14, as in CVODE's cvRoberts example; with a looser atol
	// on y2 the computed y2 can turn negative and the solution diverge
	// (CVODE does this at rtol 1e-6, atol 1e-8).
	ATolMax []float64
}

// All returns the stiff reference problems in a fixed order.
func All() []Problem {
	return []Problem{Rober(), Hires(), VdPol(), Orego(), E5(), Pollu()}
}

// meta implements the descriptive part of model.Model.
type meta struct {
	name     string
	states   []string
	params   []string
	p0, x0   []float64
	jxp, jpp *model.Pattern
}

func (m *meta) Name() string                { return m.name }
func (m *meta) StateNames() []string        { return m.states }
func (m *meta) ParamNames() []string        { return m.params }
func (m *meta) DefaultParams(dst []float64) { copy(dst, m.p0) }
func (m *meta) InitialState(dst []float64, p []float64) {
	copy(dst, m.x0)
}
func (m *meta) InitialSens(dst []float64, p []float64) { clear(dst) }
func (m *meta) JxPattern() *model.Pattern              { return m.jxp }
func (m *meta) JpPattern() *model.Pattern              { return m.jpp }

// pattern builds a CSR pattern from (row, col) entries listed in row-major
// sorted order, which is the order the Jx and Jp methods write values in.
func pattern(rows, cols int, entries [][2]int) *model.Pattern {
	p := &model.Pattern{Rows: rows, Cols: cols, RowPtr: make([]int, rows+1)}
	for _, e := range entries {
		p.RowPtr[e[0]+1]++
		p.ColIdx = append(p.ColIdx, e[1])
	}
	for i := 0; i < rows; i++ {
		p.RowPtr[i+1] += p.RowPtr[i]
	}
	for k := 1; k < len(entries); k++ {
		a, b := entries[k-1], entries[k]
		if a[0] > b[0] || (a[0] == b[0] && a[1] >= b[1]) {
			panic(fmt.Sprintf("testode: pattern entries not sorted at %v", b))
		}
	}
	if err := p.Validate(); err != nil {
		panic("testode: " + err.Error())
	}
	return p
}

func names(prefix string, n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("%s%d", prefix, i+1)
	}
	return s
}
