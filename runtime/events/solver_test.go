package events_test

import (
	"math"
	"testing"

	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/sens"
)

// TestSensSolverPieces: the refilling conversion (3 executions by t = 10)
// solved in one piece and in three continued ones (Continue in one
// SensSolver; Triggers across two SensSolvers) gives the same x and S,
// and a repeated solve allocates nothing.
func TestSensSolverPieces(t *testing.T) {
	m := conversion(t, true)
	p := []float64{1.2, 0.3, 0.5, 0.4}
	ts := []float64{0, 1, 2.5, 5, 7.5, 10}
	for _, meth := range []sens.Method{sens.FS, sens.PBSR, sens.Exp} {
		set := sensSet(meth)
		whole, err := events.SolveSens(m, p, nil, nil, ts, set)
		if err != nil {
			t.Fatal(err)
		}
		v1, err := events.NewSensSolver(m, set)
		if err != nil {
			t.Fatal(err)
		}
		v2, err := events.NewSensSolver(m, set)
		if err != nil {
			t.Fatal(err)
		}
		x0, s0 := whole.XAt(0), whole.SAt(0)
		var r1, r2, r3 sens.Result
		// Before t = 0 the trigger (B < c) is false: it fires at the start.
		if err := v1.SolveFrom(&r1, p, &events.SensStart{T0: 0, X0: []float64{1, 0}, S0: make([]float64, 8)}, ts[:3]); err != nil {
			t.Fatal(err)
		}
		if err := v1.SolveFrom(&r2, p, &events.SensStart{T0: 2.5, X0: r1.XAt(2), S0: r1.SAt(2), Continue: true}, ts[2:4]); err != nil {
			t.Fatal(err)
		}
		if v1.Pending() != 0 {
			t.Fatalf("%v: %d pending", meth, v1.Pending())
		}
		if err := v2.SolveFrom(&r3, p, &events.SensStart{T0: 5, X0: r2.XAt(1), S0: r2.SAt(1), Triggers: v1.Triggers()}, ts[3:]); err != nil {
			t.Fatal(err)
		}
		_ = x0
		_ = s0
		cmp := func(r *sens.Result, k, off int) {
			for i, v := range r.XAt(k) {
				if w := whole.XAt(off + k)[i]; math.Abs(v-w) > 1e-7*(1+math.Abs(w)) {
					t.Errorf("%v: x_%d(%g) = %.10g, whole %.10g", meth, i, ts[off+k], v, w)
				}
			}
			for i, v := range r.SAt(k) {
				if w := whole.SAt(off + k)[i]; math.Abs(v-w) > sensTol[meth]*(1+math.Abs(w)) {
					t.Errorf("%v: S[%d](%g) = %.10g, whole %.10g", meth, i, ts[off+k], v, w)
				}
			}
		}
		for k := range 3 {
			cmp(&r1, k, 0)
		}
		cmp(&r2, 1, 2)
		for k := range 3 {
			cmp(&r3, k, 3)
		}
		st := &events.SensStart{T0: 0, X0: []float64{1, 0}, S0: make([]float64, 8)}
		if n := testing.AllocsPerRun(5, func() {
			if err := v1.SolveFrom(&r1, p, st, ts); err != nil {
				t.Fatal(err)
			}
		}); n != 0 && !raceEnabled {
			t.Errorf("%v: %v allocations per solve", meth, n)
		}
		if len(v1.Fired()) != 3 {
			t.Errorf("%v: %d executions, want 3", meth, len(v1.Fired()))
		}
	}
}

// TestSensSolverOpen: x := x + a at t >= T. A solve ending Open at T
// reports x before the event and leaves it to the next solve, which
// executes it at its start (after the caller changed x there), with the
// triggers from the first.
func TestSensSolverOpen(t *testing.T) {
	m := decayReset(t)
	p := []float64{0.7, 0.4, 1.3}
	v, err := events.NewSensSolver(m, sensSet(sens.FS))
	if err != nil {
		t.Fatal(err)
	}
	var r sens.Result
	if err := v.SolveFrom(&r, p, &events.SensStart{T0: 0, X0: []float64{1}, S0: make([]float64, 3), Open: true}, []float64{1.3}); err != nil {
		t.Fatal(err)
	}
	if want := math.Exp(-0.7 * 1.3); math.Abs(r.X[0]-want) > 1e-8 || len(v.Fired()) != 0 {
		t.Fatalf("open end: x = %.10g (want %.10g before the event), %d executions", r.X[0], want, len(v.Fired()))
	}
	if tr := v.Triggers(); tr[0] {
		t.Fatal("open end: trigger already true")
	}
	trig := append([]bool(nil), v.Triggers()...)
	if err := v.SolveFrom(&r, p, &events.SensStart{T0: 1.3, X0: []float64{10}, S0: make([]float64, 3), Triggers: trig}, []float64{1.3}); err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.X[0]-10.4) > 1e-12 || len(v.Fired()) != 1 {
		t.Fatalf("continued: x = %.10g, want 10.4 (the event after the change), %d executions", r.X[0], len(v.Fired()))
	}
	// Without Open the first solve executes the event at its end.
	if err := v.SolveFrom(&r, p, &events.SensStart{T0: 0, X0: []float64{1}, S0: make([]float64, 3)}, []float64{1.3}); err != nil {
		t.Fatal(err)
	}
	if want := math.Exp(-0.7*1.3) + 0.4; math.Abs(r.X[0]-want) > 1e-8 {
		t.Fatalf("closed end: x = %.10g, want %.10g", r.X[0], want)
	}
	if err := v.SolveFrom(&r, p, &events.SensStart{T0: 1, X0: []float64{1}, S0: make([]float64, 3), Continue: true}, []float64{2}); err == nil {
		t.Fatal("Continue from another time: no error")
	}
}
