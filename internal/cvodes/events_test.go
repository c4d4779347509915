//go:build cvodes

package cvodes

import (
	"math"
	"testing"

	"github.com/pbgen/pbgen/internal/testmodels"
	"github.com/pbgen/pbgen/runtime/model"
)

// decayModel is x' = -k x, x(0) = 1, with parameters k, a (the dose) and
// T (the first dose time), which only the dosing wrapper uses.
type decayModel struct{}

func (decayModel) Name() string                  { return "decay" }
func (decayModel) StateNames() []string          { return []string{"x"} }
func (decayModel) ParamNames() []string          { return []string{"k", "a", "T"} }
func (decayModel) DefaultParams(dst []float64)   { copy(dst, []float64{0.8, 0.5, 0.7}) }
func (decayModel) InitialState(dst, p []float64) { dst[0] = 1 }
func (decayModel) InitialSens(dst, p []float64)  { clear(dst) }
func (decayModel) JxPattern() *model.Pattern     { return &decayJx }
func (decayModel) JpPattern() *model.Pattern     { return &decayJp }
func (decayModel) F(dst []float64, t float64, x, p []float64) {
	dst[0] = -p[0] * x[0]
}
func (decayModel) Jx(dst []float64, t float64, x, p []float64) { dst[0] = -p[0] }
func (decayModel) Jp(dst []float64, t float64, x, p []float64) { dst[0] = -x[0] }

var (
	decayJx = model.Pattern{Rows: 1, Cols: 1, RowPtr: []int{0, 1}, ColIdx: []int{0}}
	decayJp = model.Pattern{Rows: 1, Cols: 3, RowPtr: []int{0, 1}, ColIdx: []int{0}}
)

// TestEventSolverDoses: three doses a at T, T+1, T+2 on x' = -k x give
// x = e^{-kt} + a sum e^{-k(t-T_i)} over the doses before t, so dx/dk =
// -t e^{-kt} - a sum (t-T_i) e^{-k(t-T_i)}, dx/da = sum e^{-k(t-T_i)} and
// dx/dT = a k sum e^{-k(t-T_i)}: CVODES's root finding and restarts with
// the S jumps give them to its tolerance, without allocating.
func TestEventSolverDoses(t *testing.T) {
	m, err := testmodels.NewDosing(decayModel{}, 0, 1, 2, 1, 0, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEvents(m, Options{RTol: 1e-10, ATol: 1e-12, Sens: true, ErrCon: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	p := []float64{0.8, 0.5, 0.7}
	ts := []float64{0, 0.5, 1, 2.2, 3, 4}
	xs, ss := make([]float64, len(ts)), make([]float64, 3*len(ts))
	if err := e.Solve(p, []float64{1}, 0, ts, xs, ss); err != nil {
		t.Fatal(err)
	}
	if e.Fired() != 3 {
		t.Errorf("fired %d, want 3", e.Fired())
	}
	k, a, T := p[0], p[1], p[2]
	for i, tt := range ts {
		x := math.Exp(-k * tt)
		want := []float64{-tt * x, 0, 0}
		for d := 0; d < 3; d++ {
			if ti := T + float64(d); ti <= tt {
				e := math.Exp(-k * (tt - ti))
				x += a * e
				want[0] -= a * (tt - ti) * e
				want[1] += e
				want[2] += a * k * e
			}
		}
		if math.Abs(xs[i]-x) > 1e-8 {
			t.Errorf("x(%g) = %.12g, want %.12g", tt, xs[i], x)
		}
		for j, w := range want {
			if g := ss[3*i+j]; math.Abs(g-w) > 1e-7*math.Max(1, math.Abs(w)) {
				t.Errorf("t=%g: dx/d%s = %.12g, want %.12g", tt, m.ParamNames()[j], g, w)
			}
		}
	}
	x0 := []float64{1}
	if n := testing.AllocsPerRun(5, func() { _ = e.Solve(p, x0, 0, ts, xs, ss) }); n != 0 {
		t.Errorf("Solve allocates %v times", n)
	}
}
