package sens

import (
	"math"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/internal/testmodels"
	"github.com/pbgen/pbgen/runtime/model"
)

// A solve restarted at t1 from the state and sensitivities it had reached
// there continues the solve that did not stop: SolveFrom carries S0.
func TestSolveFromContinues(t *testing.T) {
	m := testmodels.NewIsomerization()
	p := make([]float64, 2)
	m.DefaultParams(p)
	for _, meth := range []Method{FS, PBSR, Exp} {
		opt := &Options{Method: meth, RTol: 1e-8, ATol: 1e-10}
		whole, err := Solve(m, p, []float64{0, 1, 2}, opt)
		if err != nil {
			t.Fatal(err)
		}
		s := NewSolver(m, opt)
		var first, second Result
		if err := s.Solve(&first, p, nil, 0, []float64{1}); err != nil {
			t.Fatal(err)
		}
		st := &Start{T0: 1, X0: first.XAt(0), S0: append([]float64(nil), first.SAt(0)...)}
		if err := s.SolveFrom(&second, p, st, []float64{2}); err != nil {
			t.Fatal(err)
		}
		want, got := whole.SAt(2), second.SAt(0)
		for i := range want {
			if d := math.Abs(got[i] - want[i]); d > 1e-5*(1+math.Abs(want[i])) {
				t.Errorf("%v: S[%d] restarted %.8g, whole %.8g", meth, i, got[i], want[i])
			}
		}
		// Without S0 the restart treats x(1) as independent of p.
		if err := s.SolveFrom(&second, p, &Start{T0: 1, X0: first.XAt(0)}, []float64{2}); err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(second.SAt(0)[0] - want[0]); d < 1e-3*math.Abs(want[0]) {
			t.Errorf("%v: a restart without S0 matched the whole solve; the test cannot tell S0 is used", meth)
		}
	}
}

// With no sensitivity columns the Peano-Baker engine does not run: the
// state is the whole result, and it equals the state of a solve with S.
func TestNoColumnsSkipsEngine(t *testing.T) {
	m := testmodels.NewChua()
	p := make([]float64, 2)
	m.DefaultParams(p)
	ts := []float64{0, 1, 2, 5}
	for _, meth := range []Method{PBSR, Exp, PBS, FS} {
		with, err := Solve(m, p, ts, &Options{Method: meth})
		if err != nil {
			t.Fatal(err)
		}
		without, err := Solve(m, p, ts, &Options{Method: meth, Params: []int{}})
		if err != nil {
			t.Fatal(err)
		}
		if without.NS != 0 || len(without.S) != 0 {
			t.Fatalf("%v: %d columns, %d S values with Params empty", meth, without.NS, len(without.S))
		}
		st := without.Stats
		if st.Exponentials != 0 || st.Intervals != 0 || st.PBSSteps != 0 || st.JacEvals != 0 {
			t.Errorf("%v without columns: engine ran (%+v)", meth, st)
		}
		for i := range with.X {
			if with.X[i] != without.X[i] {
				t.Fatalf("%v: x differs without columns at %d: %g vs %g", meth, i, without.X[i], with.X[i])
			}
		}
	}
}

// oneEvent is a model that declares an event (its behaviour is irrelevant:
// a Solver must refuse it before integrating).
type oneEvent struct{ *testmodels.Isomerization }

func (oneEvent) NumEvents() int                                      { return 1 }
func (oneEvent) EventInfo(int) model.EventInfo                       { return model.EventInfo{} }
func (oneEvent) TriggersTo([]bool, float64, []float64, []float64)    {}
func (oneEvent) NumRoots() int                                       { return 1 }
func (oneEvent) RootsTo([]float64, float64, []float64, []float64)    {}
func (oneEvent) Delay(int, float64, []float64, []float64) float64    { return 0 }
func (oneEvent) Priority(int, float64, []float64, []float64) float64 { return 0 }
func (oneEvent) EventTargets(int) []int                              { return nil }
func (oneEvent) EventAssign(int, float64, []float64, []float64, []float64) {
}

// A Solver refuses a model with events (it would step over them and return
// the numbers of another model) and names runtime/events instead.
func TestEventModelRefused(t *testing.T) {
	m := oneEvent{testmodels.NewIsomerization()}
	p := make([]float64, 2)
	m.DefaultParams(p)
	for _, meth := range []Method{FS, PBSR, Exp} {
		s := NewSolver(m, &Options{Method: meth})
		var res Result
		err := s.Solve(&res, p, nil, 0, []float64{0, 1})
		if err == nil || !strings.Contains(err.Error(), "runtime/events") || !strings.Contains(err.Error(), "1 events") {
			t.Errorf("%v: error %v, want a refusal naming runtime/events", meth, err)
		}
	}
}
