package sens

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbgen/pbgen/internal/scalenet"
	"github.com/pbgen/pbgen/runtime/model"
)

// chainCase is a scalenet chain of about n states with its default
// parameters, outputs every 1 on [0, t1] and the first 20 parameters as
// the columns of S (the setting of pbbench -scale).
func chainCase(n int, t1 float64) (*scalenet.Network, []float64, []float64, []int) {
	net := scalenet.New(scalenet.Chain, n)
	p := make([]float64, model.NumParams(net))
	net.DefaultParams(p)
	ps := make([]int, min(20, len(p)))
	for j := range ps {
		ps[j] = j
	}
	return net, p, uniform(0, t1, int(t1)), ps
}

// fsRef is S by FS with error control at rtol 1e-10 (the reference of the
// accuracy tests).
func fsRef(t *testing.T, m model.Model, p, ts []float64, ps []int) *Result {
	t.Helper()
	return mustSolve(t, m, p, ts, &Options{Method: FS, ErrCon: true, RTol: 1e-10, ATol: 1e-12, Params: ps})
}

// TestSparseExpMatchesDense: on scalenet chains of 48 to 198 states the
// sparse exponential actions give S as accurate against FS (rtol 1e-10)
// as the dense exponentials, for the default PBSR and Exp, the paper's
// PBSR and Exp, and PBS (which takes no exponential step by default but
// shares the engine). The sparse path steps with An = Jb on every step
// where the dense one reuses cached exponentials with the W-method
// correction, so the two differ by the step's error, not by rounding:
// the sparse error must stay within 1.5 times the dense error (plus
// 1e-2 rtol for errors far below the tolerance).
func TestSparseExpMatchesDense(t *testing.T) {
	sizes := []int{48, 99, 198}
	if testing.Short() {
		sizes = sizes[:1]
	}
	const rtol = 1e-5
	for _, n := range sizes {
		net, p, ts, ps := chainCase(n, 10)
		ref := fsRef(t, net, p, ts, ps)
		for _, o := range []Options{{Method: PBSR}, {Method: Exp}, {Method: PBSR, Paper: true}, {Method: Exp, Paper: true}} {
			// Order 2 steps on both paths: the dense path would take
			// order 3 steps from order3States states on (the sparse path
			// has none), a different method.
			o.RTol, o.ATol, o.Params, o.Tuning.Order = rtol, 1e-6, ps, 2
			var errs [2]float64
			for i, ea := range []ExpAction{ExpActionDense, ExpActionSparse} {
				o.Tuning.ExpAction = ea
				s := NewSolver(net, &o)
				if got := s.en.sparse != nil; got != (ea == ExpActionSparse) {
					t.Fatalf("n=%d %s %v: sparse path %v", n, describe(&o), ea, got)
				}
				var r Result
				if err := s.Solve(&r, p, nil, 0, ts); err != nil {
					t.Fatalf("n=%d %s %v: %v", n, describe(&o), ea, err)
				}
				errs[i] = maxRelFro(&r, ref)
			}
			if *verbose {
				fmt.Printf("n=%d %-10s dense %.3g sparse %.3g\n", n, describe(&o), errs[0], errs[1])
			}
			if !(errs[1] <= 1.5*errs[0]+1e-2*rtol) {
				t.Errorf("n=%d %s: error against FS %.3g with sparse actions, %.3g with dense exponentials", n, describe(&o), errs[1], errs[0])
			}
		}
	}
}

// TestSparseExpLarge: at 999 states (where the dense path would form
// exponentials of 999 x 999 matrices) the automatic choice is the sparse
// path, and the default PBSR and Exp meet their accuracy on the chain
// against FS at rtol 1e-10: PBSR within 10 times its tolerance, Exp within
// 1e-3 (the dense path at 198 states: 3.7e-5 and 1e-4 at rtol 1e-5).
func TestSparseExpLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("999 states")
	}
	net, p, ts, ps := chainCase(999, 10)
	ref := fsRef(t, net, p, ts, ps)
	for _, c := range []struct {
		m     Method
		bound float64
	}{{PBSR, 1e-4}, {Exp, 1e-3}} {
		o := Options{Method: c.m, RTol: 1e-5, ATol: 1e-6, Params: ps}
		s := NewSolver(net, &o)
		if s.en.sparse == nil {
			t.Fatalf("%v: the automatic choice at 999 states is the dense path", c.m)
		}
		var r Result
		if err := s.Solve(&r, p, nil, 0, ts); err != nil {
			t.Fatal(err)
		}
		e := maxRelFro(&r, ref)
		t.Logf("%v: error against FS %.3g, %d steps, %d actions", c.m, e, r.Stats.ExpSteps, r.Stats.Exponentials)
		if !(e <= c.bound) {
			t.Errorf("%v at 999 states: error against FS %.3g, want <= %g", c.m, e, c.bound)
		}
	}
}

// TestSparseExpFrozenAndStiff: the sparse path's frozen steps near
// equilibrium (a horizon of 2000, where the chain settles) and its shift-and-invert steps (binding made 1e4 times
// faster, so that steps with ||hJx||_1 beyond stiffActionNorm occur) are
// as accurate as the dense path's.
func TestSparseExpFrozenAndStiff(t *testing.T) {
	for _, c := range []struct {
		name  string
		ts    []float64
		scale float64 // of the kon parameters
	}{{"equilibrium", uniform(0, 2000, 2000), 1}, {"stiff", uniform(0, 10, 10), 1e4}} {
		net, p, _, ps := chainCase(48, 1)
		ts := c.ts
		for j, name := range net.ParamNames() {
			if len(name) > 3 && name[:3] == "kon" {
				p[j] *= c.scale
			}
		}
		ref := fsRef(t, net, p, ts, ps)
		var errs [2]float64
		var st Stats
		for i, ea := range []ExpAction{ExpActionDense, ExpActionSparse} {
			o := Options{RTol: 1e-5, ATol: 1e-6, Params: ps, Tuning: Tuning{ExpAction: ea}}
			s := NewSolver(net, &o)
			var r Result
			if err := s.Solve(&r, p, nil, 0, ts); err != nil {
				t.Fatalf("%s %v: %v", c.name, ea, err)
			}
			errs[i] = maxRelFro(&r, ref)
			st = r.Stats
			if ea == ExpActionSparse && c.name == "stiff" && s.en.sparse.stiff == nil {
				t.Errorf("%s: no step took the shift-and-invert action", c.name)
			}
			if ea == ExpActionSparse && c.name == "equilibrium" {
				t.Logf("%s: %d frozen steps", c.name, s.en.sparse.frozen)
				if s.en.sparse.frozen == 0 {
					t.Errorf("%s: no frozen step", c.name)
				}
			}
		}
		t.Logf("%s: dense %.3g sparse %.3g (sparse: %d steps)", c.name, errs[0], errs[1], st.ExpSteps)
		if !(errs[1] <= 1.5*errs[0]+1e-7) {
			t.Errorf("%s: error against FS %.3g with sparse actions, %.3g with dense exponentials", c.name, errs[1], errs[0])
		}
	}
}

// TestSparseExpNoAllocs: after the first Solve, the sparse path allocates
// nothing (the stiff action is made at the first stiff step, here in the
// first Solve).
func TestSparseExpNoAllocs(t *testing.T) {
	net, p, ts, ps := chainCase(48, 5)
	for _, o := range []*Options{{Method: PBSR}, {Method: Exp}, {Method: PBSR, Paper: true}, {Method: Exp, Paper: true}} {
		o.Params = ps
		o.Tuning.ExpAction = ExpActionSparse
		s := NewSolver(net, o)
		var res Result
		if err := s.Solve(&res, p, nil, 0, ts); err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(3, func() {
			if err := s.Solve(&res, p, nil, 0, ts); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s sparse: %v allocations per Solve, want 0", describe(o), allocs)
		}
	}
}

// TestUseSparseExp: the automatic choice keeps the paper's networks (21
// states, half-full Jacobians) dense and takes the sparse path for large
// sparse ones; Tuning.ExpAction overrides it either way.
func TestUseSparseExp(t *testing.T) {
	for _, c := range []struct {
		e       ExpAction
		nx, nnz int
		want    bool
	}{
		{ExpActionAuto, 21, 260, false},    // CaMKII
		{ExpActionAuto, 11, 60, false},     // PKA
		{ExpActionAuto, 48, 208, false},    // a small chain
		{ExpActionAuto, 99, 429, true},     // a chain past the crossover
		{ExpActionAuto, 300, 45000, false}, // half full
		{ExpActionAuto, 2000, -1, true},
		{ExpActionDense, 2000, 8000, false},
		{ExpActionSparse, 21, 260, true},
	} {
		if got := useSparseExp(c.e, c.nx, c.nnz); got != c.want {
			t.Errorf("useSparseExp(%v, %d, %d) = %v, want %v", c.e, c.nx, c.nnz, got, c.want)
		}
	}
	if err := (&Options{Tuning: Tuning{ExpAction: ExpActionSparse + 1}}).Validate(); err == nil {
		t.Error("an unknown ExpAction validated")
	}
}

// TestMulJSparse checks the W-method product of a large sparse Jx on the
// dense exponential path (mulJ by the columns of the pattern, a chain of
// 99 states with ExpActionDense) against the dense scatter and product
// it replaces, to rounding.
func TestMulJSparse(t *testing.T) {
	net, _, _, ps := chainCase(99, 1)
	cfg, err := resolve(&Options{Method: PBSR, Tuning: Tuning{ExpAction: ExpActionDense}})
	if err != nil {
		t.Fatal(err)
	}
	en := newEngine(net, &cfg, ps)
	if !en.sparseJProd {
		t.Fatal("a chain of 99 states with dense exponentials should take the sparse products")
	}
	nx := en.nx
	rng := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, nx*nx)
	v := make([]float64, en.jac.jx.NNZ())
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	got, want := make([]float64, nx*nx), make([]float64, nx*nx)
	for i := range got {
		got[i] = rng.NormFloat64()
		want[i] = got[i]
	}
	en.mulJ(got, x, v, -0.5)
	en.sparseJProd = false
	en.ad = make([]float64, nx*nx)
	en.mulJ(want, x, v, -0.5)
	for i, w := range want {
		if math.Abs(got[i]-w) > 1e-13*(1+math.Abs(w)) {
			t.Fatalf("entry %d: %v, dense product %v", i, got[i], w)
		}
	}
}

// TestRefRelLarge checks which reuse distance of the cached exponentials
// an engine takes: refRelExpLarge for Exp on a model of
// SparseExpMinStates states or more with dense exponentials, refRel for
// PBSR there and for Exp on a small model.
func TestRefRelLarge(t *testing.T) {
	small, _, _, sps := chainCase(21, 1)
	large, _, _, lps := chainCase(99, 1)
	for _, c := range []struct {
		m    model.Model
		ps   []int
		meth Method
		want float64
	}{
		{large, lps, Exp, refRelExpLarge},
		{large, lps, PBSR, refRel},
		{small, sps, Exp, refRel},
	} {
		cfg, err := resolve(&Options{Method: c.meth, Tuning: Tuning{ExpAction: ExpActionDense}})
		if err != nil {
			t.Fatal(err)
		}
		if got := newEngine(c.m, &cfg, c.ps).refRel; got != c.want {
			t.Errorf("%v on %d states: refRel %g, want %g", c.meth, model.NumStates(c.m), got, c.want)
		}
	}
}

// TestDoubleSlot checks the matrix functions that doubleSlot makes from a
// slot of step h/2 against a fresh exponential of step h with the same
// reference matrix (a chain of 99 states, dense exponentials), to 1e-12
// of their largest entries.
func TestDoubleSlot(t *testing.T) {
	net, p, _, ps := chainCase(99, 1)
	cfg, err := resolve(&Options{Method: Exp, Tuning: Tuning{ExpAction: ExpActionDense}})
	if err != nil {
		t.Fatal(err)
	}
	nx := model.NumStates(net)
	x := make([]float64, nx)
	net.InitialState(x, p)
	for i := range x {
		x[i] += 0.1 * float64(i%3)
	}
	jv := make([]float64, net.JxPattern().NNZ())
	net.Jx(jv, 0, x, p)
	for _, h := range []float64{0.01, 1, 50} {
		en := newEngine(net, &cfg, ps)
		en.stats = &Stats{}
		if !en.doubleSlots {
			t.Fatal("a chain of 99 states with dense exponentials should double slots")
		}
		en.slotFor(jv, jv, h/2)
		got := en.doubleSlot(jv, jv, h)
		if got == nil {
			t.Fatalf("h %g: no slot of step h/2 found", h)
		}
		ref := newEngine(net, &cfg, ps)
		ref.stats = &Stats{}
		want, fresh := ref.slotFor(jv, jv, h)
		if !fresh {
			t.Fatal("a new engine reused a slot")
		}
		for _, c := range []struct {
			name      string
			got, want []float64
		}{{"E", got.e, want.e}, {"Wt", got.wt, want.wt}, {"Ph", got.ph, want.ph}, {"[Wt Ph]^T", got.wpT, want.wpT}} {
			var mx, d float64
			for i, w := range c.want {
				mx = math.Max(mx, math.Abs(w))
				d = math.Max(d, math.Abs(c.got[i]-w))
			}
			if d > 1e-12*mx {
				t.Errorf("h %g: %s off by %.3g (largest entry %.3g)", h, c.name, d, mx)
			}
		}
	}
}

// TestCorrFilterSparse checks the order 3 corrector's filter by sparse
// solves (corrFilter, a chain of 99 states with dense exponentials)
// against the dense filter it replaces: S within 1e-9 of it relative to
// ||S||_F, with the same steps.
func TestCorrFilterSparse(t *testing.T) {
	net, p, ts, ps := chainCase(99, 10)
	o := &Options{Method: PBSR, RTol: 1e-8, ATol: 1e-10, Params: ps, Tuning: Tuning{Order: 3, ExpAction: ExpActionDense}}
	var r [2]Result
	for i := range r {
		s := NewSolver(net, o)
		if s.en.corrector.sparse == nil {
			t.Fatal("no sparse filter on a chain of 99 states with dense exponentials")
		}
		if i == 1 {
			s.en.corrector.sparse = nil
		}
		if err := s.Solve(&r[i], p, nil, 0, ts); err != nil {
			t.Fatal(err)
		}
	}
	if r[0].Stats.Intervals != r[1].Stats.Intervals || r[0].Stats.Corrections == 0 {
		t.Fatalf("steps %d (%d corrections) with the sparse filter, %d with the dense one", r[0].Stats.Intervals, r[0].Stats.Corrections, r[1].Stats.Intervals)
	}
	var d, n float64
	for i, v := range r[1].S {
		d += (r[0].S[i] - v) * (r[0].S[i] - v)
		n += v * v
	}
	if e := math.Sqrt(d / n); !(e <= 1e-9) {
		t.Errorf("S with the sparse filter %.3g from the dense filter's (relative)", e)
	}
}
