package sens

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/internal/testmodels"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// TestBadOptions: every option a user can pass that cannot be used (pbgen
// sim -rtol -1 panicked in ode.NewSolver; -rtol 1e300 returned whatever
// one step gives) makes NewSolver record an error wrapping ode.ErrInvalid,
// returned by Validate, Err, Solve and SolveFrom; nothing panics. A
// parameter index given twice (each Jp entry feeds one column) is refused
// the same way instead of leaving a column zero.
func TestBadOptions(t *testing.T) {
	m := testmodels.NewChua()
	p := make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	nan, inf := math.NaN(), math.Inf(1)
	for _, o := range []Options{
		{RTol: -1}, {RTol: 1e300}, {RTol: 1}, {RTol: nan}, {RTol: 1e-20}, {Tuning: Tuning{SensRTol: 1e-17}}, {ATol: -1}, {ATol: inf}, {ATol: nan},
		{Tuning: Tuning{SensRTol: -1}}, {Tuning: Tuning{SensRTol: 2}}, {Tuning: Tuning{SensATol: -1}}, {Tuning: Tuning{SensATol: nan}},
		{Method: 9}, {Method: -1}, {Method: FS, Tuning: Tuning{Grid: GridDyadic}}, {Method: PBS, Tuning: Tuning{Grid: GridDyadic}},
		{Tuning: Tuning{JacTol: nan}}, {Tuning: Tuning{NIntFactor: -1}}, {Tuning: Tuning{NIntFactor: inf}}, {Tuning: Tuning{NMax: -1}}, {Tuning: Tuning{MaxDepth: -1}}, {Tuning: Tuning{MaxDepth: 1 << 40}}, {Tuning: Tuning{Order: 1}}, {Tuning: Tuning{Order: 4}}, {Tuning: Tuning{Order: -3}},
		{Tuning: Tuning{Norm: 9}}, {Tuning: Tuning{Interp: 9}}, {Tuning: Tuning{ExpStep: 9}}, {Tuning: Tuning{Refine: 9}}, {Tuning: Tuning{Grid: 9}},
		{Tuning: Tuning{ReuseTol: nan}}, {Tuning: Tuning{RefTheta: inf}}, {Tuning: Tuning{StateTolFactor: -1}}, {Tuning: Tuning{StateTolFactor: 1e9}},
		{ODE: ode.Settings{RTol: -1}}, {ODE: ode.Settings{MaxSteps: -1}}, {ODE: ode.Settings{Method: 5}},
		{ODE: ode.Settings{ATolVec: []float64{1}}},
		{Params: []int{1, 1}}, {Params: []int{-1}}, {Params: []int{len(p)}},
	} {
		desc := fmt.Sprintf("%+v", o)
		s := NewSolver(m, &o)
		if !errors.Is(s.Err(), ode.ErrInvalid) || !strings.HasPrefix(s.Err().Error(), "sens: ") {
			t.Errorf("%s: Err returned %v", desc, s.Err())
			continue
		}
		if o.Params == nil && o.ODE.ATolVec == nil {
			if err := o.Validate(); !errors.Is(err, ode.ErrInvalid) {
				t.Errorf("%s: Validate returned %v", desc, err)
			}
		}
		var r Result
		if err := s.Solve(&r, p, nil, 0, []float64{0, 1}); !errors.Is(err, ode.ErrInvalid) {
			t.Errorf("%s: Solve returned %v", desc, err)
		}
		if _, err := Solve(m, p, []float64{0, 1}, &o); !errors.Is(err, ode.ErrInvalid) {
			t.Errorf("%s: sens.Solve returned %v", desc, err)
		}
	}
	var nilOpt *Options
	if err := nilOpt.Validate(); err != nil {
		t.Error(err)
	}
	// Arguments: lengths and times from user data.
	s := NewSolver(m, nil)
	ns := model.NumStates(m) * len(p)
	var r Result
	for name, err := range map[string]error{
		"short p":     s.Solve(&r, p[:1], nil, 0, []float64{1}),
		"short x0":    s.Solve(&r, p, []float64{1}, 0, []float64{1}),
		"short S0":    s.SolveFrom(&r, p, &Start{X0: make([]float64, model.NumStates(m)), S0: make([]float64, ns-1)}, []float64{1}),
		"descending":  s.Solve(&r, p, nil, 0, []float64{2, 1}),
		"NaN time":    s.Solve(&r, p, nil, 0, []float64{nan}),
		"before t0":   s.Solve(&r, p, nil, 1, []float64{0}),
		"no outputs":  s.Solve(&r, p, nil, 0, nil),
		"Solve empty": func() error { _, err := Solve(m, p, nil, nil); return err }(),
	} {
		if !errors.Is(err, ode.ErrInvalid) {
			t.Errorf("%s: got %v, want an error wrapping ode.ErrInvalid", name, err)
		}
	}
}

// wide is a model of n states and np parameters with empty Jacobian
// patterns: only its size matters.
type wide struct{ n, np int }

func (w wide) Name() string                             { return "wide" }
func (w wide) StateNames() []string                     { return make([]string, w.n) }
func (w wide) ParamNames() []string                     { return make([]string, w.np) }
func (wide) DefaultParams(dst []float64)                {}
func (wide) InitialState(dst, p []float64)              { clear(dst) }
func (wide) InitialSens(dst, p []float64)               { clear(dst) }
func (wide) F(dst []float64, t float64, x, p []float64) { clear(dst) }
func (w wide) JxPattern() *model.Pattern {
	return &model.Pattern{Rows: w.n, Cols: w.n, RowPtr: make([]int, w.n+1)}
}
func (wide) Jx(dst []float64, t float64, x, p []float64) {}
func (w wide) JpPattern() *model.Pattern {
	return &model.Pattern{Rows: w.n, Cols: w.np, RowPtr: make([]int, w.n+1)}
}
func (wide) Jp(dst []float64, t float64, x, p []float64) {}

// TestMemoryLimit: a network of 20,000 species ran out of memory in the
// dense nx x nx blocks. NewSolver now estimates the memory first and, over
// the limit, allocates nothing; Solve returns a *ode.MemoryError saying
// how much is needed and what would fit.
func TestMemoryLimit(t *testing.T) {
	const nx, np = 20000, 30
	m := wide{nx, np}
	for _, c := range []struct {
		o    Options
		want string // in the message
	}{
		// 20000^2 x 8 x 48 = 154 GB for PBSR with dense exponentials;
		// FS needs 3.3 GB.
		{Options{Method: PBSR, MemoryLimit: 8 << 30, Tuning: Tuning{ExpAction: ExpActionDense}}, "Method FS would need"},
		{Options{Method: Exp, MemoryLimit: 8 << 30, Tuning: Tuning{ExpAction: ExpActionDense}}, "Method FS would need"},
		// FS on the dense LU; on this model's empty Jx the automatic
		// choice is the sparse LU (below).
		{Options{Method: FS, MemoryLimit: 1 << 30, ODE: ode.Settings{LinearSolver: ode.LinearDense}}, "No method fits"},
	} {
		need := MemoryEstimate(nx, np, &c.o)
		if need < 8*nx*nx {
			t.Fatalf("%v: estimate %d below one dense matrix", c.o.Method, need)
		}
		s := NewSolver(m, &c.o)
		var me *ode.MemoryError
		if !errors.As(s.Err(), &me) || me.Need != need || me.Limit != c.o.MemoryLimit {
			t.Fatalf("%v: got %v, want a MemoryError of %d bytes", c.o.Method, s.Err(), need)
		}
		msg := me.Error()
		t.Log(msg)
		if !strings.Contains(msg, c.o.Method.String()) || !strings.Contains(msg, c.want) || !strings.Contains(msg, "GB") {
			t.Errorf("%v: message %q lacks the method, the size or %q", c.o.Method, msg, c.want)
		}
		var r Result
		if err := s.Solve(&r, make([]float64, np), nil, 0, []float64{1}); !errors.As(err, &me) {
			t.Errorf("%v: Solve returned %v", c.o.Method, err)
		}
	}
	// The sparse LU path counts O(nnz + nx np), not a dense nx x nx.
	if need := MemoryEstimate(nx, np, &Options{Method: FS}); need >= 8*nx*nx {
		t.Errorf("FS on the automatic (sparse) path: estimate %d, want below one dense matrix (%d)", need, 8*nx*nx)
	}
	// The sparse exponential actions, the automatic choice at this size,
	// need no nx x nx matrix: PBSR and Exp then need their nx x ns
	// blocks, 5.1 times FS's 163 MB here (FS's own estimate counts the
	// sparse LU), far below the 154 GB of dense ones.
	for _, m := range []Method{PBSR, Exp} {
		o := Options{Method: m, MemoryLimit: 8 << 30}
		sp, fs := MemoryEstimate(nx, np, &o), MemoryEstimate(nx, np, &Options{Method: FS})
		if sp > 6*fs || sp >= 8*nx*nx {
			t.Errorf("%v with sparse actions: estimate %d, want below 6x FS's %d and one dense matrix", m, sp, fs)
		}
		if sp >= o.MemoryLimit {
			t.Errorf("%v with sparse actions: estimate %d above 8 GB", m, sp)
		}
	}
	// Fewer parameters: the nx x ns blocks dominate.
	o := Options{Method: FS, MemoryLimit: 700e6}
	err := NewSolver(wide{2000, 2000}, &o).Err()
	if err == nil || !strings.Contains(err.Error(), "sensitivity parameters (Params) would fit") {
		t.Errorf("2000 x 2000 FS at 700 MB: %v", err)
	} else {
		t.Log(err)
	}
	// The default limit refuses what fits no machine (200,000 species:
	// 15 TB for PBSR with dense exponentials; with the automatic sparse
	// paths the same model needs a few MB, so they are forced dense).
	if ode.DefaultMemoryLimit() > 0 {
		o := Options{Method: PBSR, Tuning: Tuning{ExpAction: ExpActionDense}}
		if err := NewSolver(wide{200000, 1}, &o).Err(); err == nil {
			t.Error("200000 states accepted under the default limit")
		}
	}
	// The result of a solve counts too.
	cm := testmodels.NewChua()
	p := make([]float64, model.NumParams(cm))
	cm.DefaultParams(p)
	s := NewSolver(cm, &Options{MemoryLimit: 1 << 20})
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	var r Result
	var me *ode.MemoryError
	if err := s.Solve(&r, p, nil, 0, uniform(0, 1, 20000)); !errors.As(err, &me) || !strings.Contains(err.Error(), "output times") {
		t.Errorf("20000 outputs at 1 MB: %v", err)
	}
	if err := s.Solve(&r, p, nil, 0, uniform(0, 1, 10)); err != nil {
		t.Error(err)
	}
}

// TestResolveDefaults: what a zero Tuning resolves to, per method and
// mode (the package documentation's "what runs by default"), and that a
// Tuning field overrides it.
func TestResolveDefaults(t *testing.T) {
	for _, c := range []struct {
		o                 Options
		grid              Grid
		step              ExpStep
		refine            Refine
		interp            Interp
		stateRTol, reuse  float64
		maxDepth, nmax    int
		srtol, interpolat float64
	}{
		{Options{}, GridDyadic, ExpEndpoint, RefineLocalError, InterpDense, 1e-8, 1e-9, 8, 10, 1e-6, 1},
		{Options{Method: Exp, RTol: 1e-4}, GridDyadic, ExpEndpoint, RefineLocalError, InterpDense, 1e-6, 1e-7, 8, 10, 1e-4, 1},
		{Options{Paper: true}, GridState, ExpFrozen, RefineNInt, InterpLinear, 1e-6, 0, 8, 10, 1e-6, 0},
		{Options{Method: PBS}, GridState, ExpMagnus, RefineLocalError, InterpDense, 1e-6, 1e-9, 8, 10, 1e-6, 0},
		{Options{Tuning: Tuning{Grid: GridState, StateTolFactor: 0.5, MaxDepth: 3, NMax: 7, SensRTol: 2e-6}},
			GridState, ExpMagnus, RefineLocalError, InterpDense, 5e-7, 1e-9, 3, 7, 2e-6, 0},
	} {
		r, err := resolve(&c.o)
		if err != nil {
			t.Fatal(err)
		}
		ip := 0.0
		if r.interpolate {
			ip = 1
		}
		if r.grid != c.grid || r.expStep != c.step || r.refine != c.refine || r.interp != c.interp ||
			!nearRel(r.ode.RTol, c.stateRTol) || !nearRel(r.reuseTol, c.reuse) || r.maxDepth != c.maxDepth ||
			r.nmax != c.nmax || r.srtol != c.srtol || ip != c.interpolat {
			t.Errorf("%+v resolved to grid %v step %v refine %v interp %v state rtol %g reuse %g depth %d nmax %d srtol %g interpolate %v",
				c.o, r.grid, r.expStep, r.refine, r.interp, r.ode.RTol, r.reuseTol, r.maxDepth, r.nmax, r.srtol, r.interpolate)
		}
	}
}

// nearRel reports whether a and b agree to rounding.
func nearRel(a, b float64) bool { return math.Abs(a-b) <= 1e-14*math.Abs(b) }
