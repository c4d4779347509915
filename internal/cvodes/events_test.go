//go:build cvodes

package cvodes

import (
	"math"
	"strings"
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

// TestEventSolverPieces: the doses of TestEventSolverDoses solved in
// pieces as the objective cuts an experiment. Continue goes on where the
// last solve ended and gives the one-piece solution; Open at a dose time
// leaves the dose to the next solve, whose start executes it from the
// trigger values handed over (Triggers); a Continue at another time or
// with other parameters is an error, not a wrong solution; SolveFrom
// allocates nothing.
func TestEventSolverPieces(t *testing.T) {
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
	// x and dx/dp in closed form (TestEventSolverDoses), doses at T, T+1,
	// T+2 before or at tt (at: when at is set).
	exact := func(tt float64, at bool) (float64, []float64) {
		k, a, T := p[0], p[1], p[2]
		x := math.Exp(-k * tt)
		s := []float64{-tt * x, 0, 0}
		for d := 0; d < 3; d++ {
			if ti := T + float64(d); ti < tt || at && ti == tt {
				ex := math.Exp(-k * (tt - ti))
				x += a * ex
				s[0] -= a * (tt - ti) * ex
				s[1] += ex
				s[2] += a * k * ex
			}
		}
		return x, s
	}
	check := func(what string, tt float64, at bool, x float64, s []float64) {
		t.Helper()
		wx, ws := exact(tt, at)
		if strings.HasPrefix(what, "after the open end") {
			// The dose executes at the solve's start, a fixed time (a
			// PEtab period's), as in runtime/events: its dependence on T
			// through the cut is not carried.
			s, ws = s[:2], ws[:2]
		}
		if math.Abs(x-wx) > 1e-8 {
			t.Errorf("%s: x(%g) = %.12g, want %.12g", what, tt, x, wx)
		}
		for j, w := range ws {
			if math.Abs(s[j]-w) > 1e-7*math.Max(1, math.Abs(w)) {
				t.Errorf("%s: t=%g: dx/d%s = %.12g, want %.12g", what, tt, m.ParamNames()[j], s[j], w)
			}
		}
	}
	x1, s1 := make([]float64, 2), make([]float64, 6)
	x2, s2 := make([]float64, 2), make([]float64, 6)
	st := &EventStart{T0: 0, X0: []float64{1}}
	if err := e.SolveFrom(p, st, []float64{0.5, 1.2}, x1, s1); err != nil {
		t.Fatal(err)
	}
	check("first piece", 1.2, true, x1[1], s1[3:])
	cont := &EventStart{T0: 1.2, Continue: true}
	if err := e.SolveFrom(p, cont, []float64{2.2, 4}, x2, s2); err != nil {
		t.Fatal(err)
	}
	check("continued", 2.2, true, x2[0], s2[:3])
	check("continued", 4, true, x2[1], s2[3:])
	if e.Fired() != 2 {
		t.Errorf("the continued solve fired %d doses, want 2", e.Fired())
	}
	if err := e.SolveFrom(p, &EventStart{T0: 3, Continue: true}, []float64{5}, x1[:1], s1[:3]); err == nil {
		t.Error("Continue at t=3 after a solve that ended at 4: no error")
	}
	e.SolveFrom(p, st, []float64{1}, x1[:1], s1[:3])
	q := []float64{0.9, 0.5, 0.7}
	if err := e.SolveFrom(q, &EventStart{T0: 1, Continue: true}, []float64{2}, x1[:1], s1[:3]); err == nil {
		t.Error("Continue with other parameters: no error")
	}

	// Open at the first dose (T = 0.7): the state before it, the trigger
	// still false; the next solve starts with the dose.
	open := &EventStart{T0: 0, X0: []float64{1}, Open: true}
	if err := e.SolveFrom(p, open, []float64{0.3, 0.7}, x1, s1); err != nil {
		t.Fatal(err)
	}
	check("open end", 0.7, false, x1[1], s1[3:])
	if e.Fired() != 0 {
		t.Errorf("the open solve fired %d doses at its end, want 0", e.Fired())
	}
	trig := append([]bool(nil), e.Triggers()...)
	next := &EventStart{T0: 0.7, X0: x1[1:], S0: s1[3:], Triggers: trig}
	if err := e.SolveFrom(p, next, []float64{0.7, 2.5}, x2, s2); err != nil {
		t.Fatal(err)
	}
	check("after the open end", 0.7, true, x2[0], s2[:3])
	check("after the open end", 2.5, true, x2[1], s2[3:])
	if e.Fired() != 2 {
		t.Errorf("the solve after the open end fired %d doses, want 2 (0.7 and 1.7)", e.Fired())
	}
	if e.LastStats().Steps == 0 || e.LastStats().Steps > e.Stats().Steps {
		t.Errorf("last solve %d steps, all solves %d", e.LastStats().Steps, e.Stats().Steps)
	}
	if n := testing.AllocsPerRun(5, func() {
		_ = e.SolveFrom(p, st, []float64{0.5, 1.2}, x1, s1)
		_ = e.SolveFrom(p, cont, []float64{2.2, 4}, x2, s2)
	}); n != 0 {
		t.Errorf("SolveFrom allocates %v times", n)
	}
}
