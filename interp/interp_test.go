package interp_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/pbgen/pbgen/internal/testnet"
	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/symbolic"
)

// refEval evaluates n with symbolic.Eval, the tree-walking definition of
// the numerical semantics.
func refEval(n *symbolic.Node, t float64, x, p map[string]float64) float64 {
	return symbolic.Eval(n, func(s *symbolic.Node) float64 {
		switch s.Kind {
		case symbolic.KindState:
			return x[s.Name]
		case symbolic.KindParam:
			return p[s.Name]
		case symbolic.KindTime:
			return t
		}
		panic("bad symbol " + s.Name)
	})
}

func names(m model.Model) (xs, ps []string) { return m.StateNames(), m.ParamNames() }

func toMap(names []string, v []float64) map[string]float64 {
	out := make(map[string]float64, len(names))
	for i, n := range names {
		out[n] = v[i]
	}
	return out
}

// point returns a random state and parameter vector near the defaults.
func point(rng *rand.Rand, m model.Model) (float64, []float64, []float64) {
	nx, np := model.NumStates(m), model.NumParams(m)
	x := make([]float64, nx)
	p := make([]float64, np)
	m.DefaultParams(p)
	for j := range p {
		p[j] *= 0.5 + rng.Float64()
	}
	for i := range x {
		x[i] = 0.1 + 3*rng.Float64()
	}
	return 10 * rng.Float64(), x, p
}

func nanFill(v []float64) {
	for i := range v {
		v[i] = math.NaN()
	}
}

func systems() map[string]*symbolic.System {
	return map[string]*symbolic.System{
		"toy":       testnet.Toy(),
		"random8x5": testnet.Random(rand.New(rand.NewPCG(1, 1)), 8, 5),
	}
}

func TestFAgainstReference(t *testing.T) {
	for name, sys := range systems() {
		m, err := interp.New(sys)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 1))
		xn, pn := names(m)
		maxRel := 0.0
		for range 50 {
			tt, x, p := point(rng, m)
			got := make([]float64, len(x))
			nanFill(got)
			m.F(got, tt, x, p)
			for i, f := range sys.F {
				want := refEval(f, tt, toMap(xn, x), toMap(pn, p))
				if !scalar.EqualWithinAbsOrRel(got[i], want, 1e-13, 1e-12) {
					t.Errorf("%s: f[%d] at t=%g = %v, want %v", name, i, tt, got[i], want)
				}
				if want != 0 {
					maxRel = math.Max(maxRel, math.Abs(got[i]-want)/math.Abs(want))
				}
			}
			out := make([]float64, len(sys.ODE.Outputs))
			m.OutputsTo(out, tt, x, p)
			for i, o := range sys.ODE.Outputs {
				if want := refEval(o.Expr, tt, toMap(xn, x), toMap(pn, p)); !scalar.EqualWithinAbsOrRel(out[i], want, 1e-13, 1e-12) {
					t.Errorf("%s: output %s = %v, want %v", name, o.Name, out[i], want)
				}
			}
		}
		t.Logf("%s: max relative difference of F from symbolic.Eval: %.3g", name, maxRel)
	}
}

// TestJacobiansFiniteDifferences checks Jx, Jp and InitialSens against
// central differences of F and InitialState, and that the patterns hold
// every non-zero of the dense difference quotients.
func TestJacobiansFiniteDifferences(t *testing.T) {
	for name, sys := range systems() {
		m, err := interp.New(sys)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 1))
		nx, np := model.NumStates(m), model.NumParams(m)
		jxp, jpp := m.JxPattern(), m.JpPattern()
		if err := jxp.Validate(); err != nil {
			t.Fatal(err)
		}
		for range 20 {
			tt, x, p := point(rng, m)
			fd := func(v []float64, i int, eval func(dst []float64)) []float64 {
				h := 1e-6 * math.Max(1, math.Abs(v[i]))
				fp, fm := make([]float64, nx), make([]float64, nx)
				old := v[i]
				v[i] = old + h
				eval(fp)
				v[i] = old - h
				eval(fm)
				v[i] = old
				for k := range fp {
					fp[k] = (fp[k] - fm[k]) / (2 * h)
				}
				return fp
			}
			check := func(what string, pat *model.Pattern, vals []float64, v []float64, eval func(dst []float64)) {
				dense := make([]float64, pat.Rows*pat.Cols)
				pat.ScatterTo(dense, vals)
				for j := 0; j < pat.Cols; j++ {
					col := fd(v, j, eval)
					for i := 0; i < pat.Rows; i++ {
						if !scalar.EqualWithinAbsOrRel(dense[i*pat.Cols+j], col[i], 1e-6, 1e-6) {
							t.Errorf("%s: %s[%d,%d] = %v, finite difference %v", name, what, i, j, dense[i*pat.Cols+j], col[i])
						}
					}
				}
			}
			jx := make([]float64, jxp.NNZ())
			nanFill(jx)
			m.Jx(jx, tt, x, p)
			check("Jx", jxp, jx, x, func(dst []float64) { m.F(dst, tt, x, p) })
			jp := make([]float64, jpp.NNZ())
			nanFill(jp)
			m.Jp(jp, tt, x, p)
			check("Jp", jpp, jp, p, func(dst []float64) { m.F(dst, tt, x, p) })
			s0 := make([]float64, nx*np)
			nanFill(s0)
			m.InitialSens(s0, p)
			full := &model.Pattern{Rows: nx, Cols: np, RowPtr: make([]int, nx+1)}
			for i := 0; i < nx; i++ {
				for j := 0; j < np; j++ {
					full.ColIdx = append(full.ColIdx, j)
				}
				full.RowPtr[i+1] = len(full.ColIdx)
			}
			check("dx0/dp", full, s0, p, func(dst []float64) { m.InitialState(dst, p) })
		}
	}
}

func TestOperatorSemantics(t *testing.T) {
	b := symbolic.NewBuilder()
	a := b.Sym("a", symbolic.KindState)
	c := b.Sym("c", symbolic.KindParam)
	k := b.Const
	nan := k(math.NaN())
	cases := []struct {
		name string
		expr *symbolic.Node
		a, c float64
		want float64
	}{
		{"first true wins", b.Piecewise(k(1), b.Rel(symbolic.OpGt, a, k(0)), k(2), b.Rel(symbolic.OpGt, a, k(-1)), k(3)), 0.5, 0, 1},
		{"second true", b.Piecewise(k(1), b.Rel(symbolic.OpGt, a, k(0)), k(2), b.Rel(symbolic.OpGt, a, k(-1)), k(3)), -0.5, 0, 2},
		{"otherwise", b.Piecewise(k(1), b.Rel(symbolic.OpGt, a, k(0)), k(2), b.Rel(symbolic.OpGt, a, k(-1)), k(3)), -2, 0, 3},
		{"no otherwise is NaN", b.Piecewise(k(1), b.Rel(symbolic.OpGt, a, k(0)), nan), -2, 0, math.NaN()},
		{"numeric condition", b.Piecewise(a, c, k(7)), 4, 0.25, 4},
		{"NaN condition is true", b.Piecewise(a, b.Mul(c, a), k(7)), 4, math.NaN(), 4},
		{"relational is 1/0", b.Add(b.Rel(symbolic.OpLeq, a, c), b.Rel(symbolic.OpEq, a, c)), 2, 2, 2},
		{"xor of three", b.Logic(symbolic.OpXor, b.Rel(symbolic.OpGt, a, k(0)), b.Rel(symbolic.OpGt, c, k(0)), a), 1, 1, 1},
		{"not", b.Logic(symbolic.OpNot, a), 0, 0, 1},
		{"and", b.Logic(symbolic.OpAnd, a, c), 3, 0, 0},
		{"or", b.Logic(symbolic.OpOr, a, c), 0, -1, 1},
		{"factorial", b.Func(symbolic.OpFactorial, a), 5, 0, 120},
		{"division", b.Div(a, c), 1, 3, 1.0 / 3},
		{"cube", b.Pow(a, k(3)), 1.1, 0, 1.1 * 1.1 * 1.1},
		{"inverse square", b.Mul(c, b.Pow(a, k(-2))), 2, 3, 0.75},
		{"negated quotient", b.Mul(k(-1), c, b.Pow(a, k(-1))), 4, 2, -0.5},
		{"sqrt", b.Pow(a, k(0.5)), 2, 0, math.Sqrt2},
		{"inverse sqrt", b.Pow(a, k(-0.5)), 4, 0, 0.5},
		{"general power", b.Pow(a, c), 2, 0.3, math.Pow(2, 0.3)},
		{"sec", b.Func(symbolic.OpSec, a), 0.3, 0, 1 / math.Cos(0.3)},
		{"acoth", b.Func(symbolic.OpAcoth, a), 3, 0, math.Atanh(1.0 / 3)},
		{"acsch", b.Func(symbolic.OpAcsch, a), 3, 0, math.Asinh(1.0 / 3)},
		{"floor", b.Func(symbolic.OpFloor, a), -1.5, 0, -2},
	}
	for _, tc := range cases {
		ode := &symbolic.ODE{B: b, Name: "ops",
			States: []symbolic.State{{Name: "a", Rate: tc.expr, Init: k(0)}},
			Params: []symbolic.Param{{Name: "c"}}}
		m, err := interp.New(&symbolic.System{ODE: ode, B: b, F: []*symbolic.Node{tc.expr}, X0: []*symbolic.Node{k(0)}})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := []float64{0}
		m.F(got, 0, []float64{tc.a}, []float64{tc.c})
		if math.IsNaN(tc.want) != math.IsNaN(got[0]) || !math.IsNaN(tc.want) && !scalar.EqualWithinAbsOrRel(got[0], tc.want, 1e-15, 1e-15) {
			t.Errorf("%s: got %v, want %v", tc.name, got[0], tc.want)
		}
	}
}

func TestNewErrors(t *testing.T) {
	b := symbolic.NewBuilder()
	x := b.Sym("x", symbolic.KindState)
	q := b.Sym("q", symbolic.KindOther)
	mk := func(f, x0 *symbolic.Node, jx []symbolic.Entry) *symbolic.System {
		ode := &symbolic.ODE{B: b, Name: "bad", States: []symbolic.State{{Name: "x", Rate: f, Init: x0}}}
		return &symbolic.System{ODE: ode, B: b, F: []*symbolic.Node{f}, X0: []*symbolic.Node{x0}, Jx: jx}
	}
	cases := map[string]*symbolic.System{
		"unresolved symbol":     mk(b.Mul(q, x), b.Const(1), nil),
		"state in x0":           mk(x, x, nil),
		"time in x0":            mk(x, b.Time(), nil),
		"jacobian out of range": mk(x, b.Const(1), []symbolic.Entry{{Row: 0, Col: 1, Expr: b.Const(1)}}),
		"unsorted jacobian": mk(x, b.Const(1), []symbolic.Entry{
			{Row: 0, Col: 0, Expr: b.Const(1)}, {Row: 0, Col: 0, Expr: b.Const(1)}}),
	}
	for name, sys := range cases {
		if _, err := interp.New(sys); err == nil {
			t.Errorf("%s: New succeeded", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

func TestPanicsOnLengthMismatch(t *testing.T) {
	m, err := interp.New(testnet.Toy())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r != "interp: F: x length mismatch" {
			t.Errorf("recovered %v", r)
		}
	}()
	m.F(make([]float64, 4), 0, make([]float64, 3), make([]float64, 7))
}

func TestConcurrentUse(t *testing.T) {
	m, err := interp.New(testnet.Toy())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 16
	type pt struct {
		t    float64
		x, p []float64
		f    []float64
		jx   []float64
	}
	pts := make([]pt, n)
	for i := range pts {
		tt, x, p := point(rng, m)
		pts[i] = pt{t: tt, x: x, p: p, f: make([]float64, len(x)), jx: make([]float64, m.JxPattern().NNZ())}
		m.F(pts[i].f, tt, x, p)
		m.Jx(pts[i].jx, tt, x, p)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*n)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := make([]float64, len(pts[0].f))
			jx := make([]float64, len(pts[0].jx))
			for it := range 200 {
				q := pts[(g+it)%n]
				m.F(f, q.t, q.x, q.p)
				m.Jx(jx, q.t, q.x, q.p)
				for i := range f {
					if f[i] != q.f[i] {
						errs <- fmt.Sprintf("goroutine %d: f[%d] = %v, want %v", g, i, f[i], q.f[i])
						return
					}
				}
				for i := range jx {
					if jx[i] != q.jx[i] {
						errs <- fmt.Sprintf("goroutine %d: jx[%d] = %v, want %v", g, i, jx[i], q.jx[i])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestNoAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	m, err := interp.New(testnet.Toy())
	if err != nil {
		t.Fatal(err)
	}
	tt, x, p := point(rand.New(rand.NewPCG(1, 1)), m)
	f := make([]float64, len(x))
	jx := make([]float64, m.JxPattern().NNZ())
	jp := make([]float64, m.JpPattern().NNZ())
	s0 := make([]float64, len(x)*len(p))
	allocs := testing.AllocsPerRun(200, func() {
		m.F(f, tt, x, p)
		m.Jx(jx, tt, x, p)
		m.Jp(jp, tt, x, p)
		m.InitialState(f, p)
		m.InitialSens(s0, p)
	})
	if allocs != 0 {
		t.Errorf("evaluation allocates %v times per run", allocs)
	}
}

func BenchmarkToyF(b *testing.B) {
	m, err := interp.New(testnet.Toy())
	if err != nil {
		b.Fatal(err)
	}
	tt, x, p := point(rand.New(rand.NewPCG(1, 1)), m)
	f := make([]float64, len(x))
	b.ReportAllocs()
	for b.Loop() {
		m.F(f, tt, x, p)
	}
}

func BenchmarkToyJx(b *testing.B) {
	m, err := interp.New(testnet.Toy())
	if err != nil {
		b.Fatal(err)
	}
	tt, x, p := point(rand.New(rand.NewPCG(1, 1)), m)
	jx := make([]float64, m.JxPattern().NNZ())
	b.ReportAllocs()
	for b.Loop() {
		m.Jx(jx, tt, x, p)
	}
}
