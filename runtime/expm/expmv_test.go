package expm

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pbgen/pbgen/internal/scalenet"
	"github.com/pbgen/pbgen/runtime/internal/dense"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sparse"
)

// stiffCSR returns an n x n sparse matrix with about perRow off-diagonal
// N(0, off) entries a row and a negative diagonal -10^U(0, log10 dmax):
// eigenvalues spread over [-dmax, 0], non-normal.
func stiffCSR(rng *rand.Rand, n, perRow int, off, dmax float64) *sparse.CSR {
	p := &model.Pattern{Rows: n, Cols: n, RowPtr: make([]int, n+1)}
	for i := 0; i < n; i++ {
		cols := []int{i}
		for k := 0; k < perRow; k++ {
			cols = append(cols, rng.IntN(n))
		}
		slices.Sort(cols)
		cols = slices.Compact(cols)
		p.ColIdx = append(p.ColIdx, cols...)
		p.RowPtr[i+1] = len(p.ColIdx)
	}
	a := sparse.New(p)
	for i := 0; i < n; i++ {
		for q := p.RowPtr[i]; q < p.RowPtr[i+1]; q++ {
			if p.ColIdx[q] == i {
				a.Val[q] = -math.Pow(10, rng.Float64()*math.Log10(dmax))
			} else {
				a.Val[q] = off * rng.NormFloat64()
			}
		}
	}
	return a
}

// networkCSR returns Jx of a scalenet network at a perturbed initial state.
func networkCSR(shape scalenet.Shape, n int) *sparse.CSR {
	net := scalenet.New(shape, n)
	nx, np := model.NumStates(net), model.NumParams(net)
	x, p := make([]float64, nx), make([]float64, np)
	net.DefaultParams(p)
	net.InitialState(x, p)
	for i := range x {
		x[i] += 0.3
	}
	a := sparse.New(net.JxPattern())
	net.Jx(a.Val, 0, x, p)
	return a
}

func randBlock(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// denseAction returns e^{tA} b + t phi1(tA) g0 + t^2 phi2(tA) g1 with the
// dense Padé method (ExpInt2To) as the reference.
func denseAction(a *sparse.CSR, t float64, b, g0, g1 []float64, k int) []float64 {
	n := a.Pat.Rows
	ad := make([]float64, n*n)
	a.Pat.ScatterTo(ad, a.Val)
	e, wi, psi := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	NewWorkspace(n).ExpInt2To(e, wi, psi, ad, t)
	out := make([]float64, n*k)
	for _, pr := range []struct{ m, v []float64 }{{e, b}, {wi, g0}, {psi, g1}} {
		if pr.v != nil {
			dense.MulAdd(out, pr.m, pr.v, n, n, k, 1, 1)
		}
	}
	return out
}

// actErr is max|got - want| / max|want|.
func actErr(got, want []float64) float64 {
	var d, m float64
	for i := range want {
		d = math.Max(d, math.Abs(got[i]-want[i]))
		m = math.Max(m, math.Abs(want[i]))
		if got[i] != got[i] {
			return math.NaN()
		}
	}
	return d / m
}

func TestExpActionAgainstDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	type tc struct {
		name string
		a    *sparse.CSR
		t    float64
	}
	var cases []tc
	for _, dmax := range []float64{1, 1e2, 1e4} {
		cases = append(cases, tc{fmt.Sprintf("stiff dmax=%g", dmax), stiffCSR(rng, 80, 3, 1, dmax), 1})
	}
	if !testing.Short() { // about 2e5 block products
		cases = append(cases, tc{"stiff dmax=1e5", stiffCSR(rng, 30, 3, 1, 1e5), 1})
	}
	cases = append(cases, tc{"stiff t=-0.01", stiffCSR(rng, 60, 3, 1, 1e3), -0.01})
	for _, shape := range []scalenet.Shape{scalenet.Chain, scalenet.Grid} {
		for _, tt := range []float64{0.1, 10, 300} {
			if tt > 100 && testing.Short() {
				continue
			}
			cases = append(cases, tc{fmt.Sprintf("%s t=%g", shape, tt), networkCSR(shape, 150), tt})
		}
	}
	for _, c := range cases {
		n := c.a.Pat.Rows
		for _, k := range []int{1, 20} {
			b := randBlock(rng, n*k)
			bc := slices.Clone(b)
			w := NewAction(n, k)
			got := make([]float64, n*k)
			for i := range got {
				got[i] = math.NaN()
			}
			w.ExpTo(got, c.a, c.t, b)
			if !slices.Equal(b, bc) {
				t.Fatalf("%s: b modified", c.name)
			}
			want := denseAction(c.a, c.t, b, nil, nil, k)
			e := actErr(got, want)
			t.Logf("%s k=%d: ||tA||_1 %.3g m %d s %d products %d estimated %v: error %.2g",
				c.name, k, w.Last.Norm, w.Last.M, w.Last.S, w.Last.Products, w.Last.Estimated, e)
			// Each of the s steps adds rounding errors of its own, so the
			// forward error grows with ||tA|| (and so does that of the
			// reference): 1e-12 up to norms of 2e3, then linearly.
			if tol := math.Max(1e-12, 5e-16*w.Last.Norm); !(e <= tol) {
				t.Errorf("%s k=%d: relative error %g against the dense exponential (tol %g)", c.name, k, e, tol)
			}
		}
	}
}

func TestPhiActionAgainstDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, c := range []struct {
		name  string
		a     *sparse.CSR
		t     float64
		gsc   float64 // scale of the forcing
		b, g1 bool
	}{
		{"stiff", stiffCSR(rng, 70, 3, 1, 1e3), 1, 1, true, true},
		{"stiff large forcing", stiffCSR(rng, 70, 3, 1, 1e2), 1, 1e6, true, true},
		{"stiff phi1 only", stiffCSR(rng, 70, 3, 1, 1e4), 0.5, 1, false, false},
		{"grid network", networkCSR(scalenet.Grid, 120), 10, 1, true, true},
		{"chain network long", networkCSR(scalenet.Chain, 120), 300, 1, true, true},
	} {
		n := c.a.Pat.Rows
		for _, k := range []int{1, 20} {
			var b, g1 []float64
			if c.b {
				b = randBlock(rng, n*k)
			}
			g0 := randBlock(rng, n*k)
			for i := range g0 {
				g0[i] *= c.gsc
			}
			if c.g1 {
				g1 = randBlock(rng, n*k)
			}
			w := NewAction(n, k)
			got := make([]float64, n*k)
			w.PhiTo(got, c.a, c.t, b, g0, g1)
			want := denseAction(c.a, c.t, b, g0, g1, k)
			e := actErr(got, want)
			t.Logf("%s k=%d: ||tA~||_1 %.3g m %d s %d products %d: error %.2g", c.name, k, w.Last.Norm, w.Last.M, w.Last.S, w.Last.Products, e)
			if tol := math.Max(1e-12, 5e-16*w.Last.Norm); !(e <= tol) {
				t.Errorf("%s k=%d: relative error %g against the dense phi functions (tol %g)", c.name, k, e, tol)
			}
		}
	}
}

// TestPhiConservation: for a network Jacobian A and a forcing in its range,
// the conserved combinations w^T X stay at w^T B (w^T A = 0): a check that
// does not need the dense reference.
func TestPhiConservation(t *testing.T) {
	net := scalenet.New(scalenet.Grid, 300)
	a := networkCSR(scalenet.Grid, 300)
	n := a.Pat.Rows
	rng := rand.New(rand.NewPCG(3, 3))
	const k = 5
	b := randBlock(rng, n*k)
	g0 := make([]float64, n*k) // A times random: in the range of A
	tmp := randBlock(rng, n*k)
	for i := 0; i < n; i++ {
		for q := a.Pat.RowPtr[i]; q < a.Pat.RowPtr[i+1]; q++ {
			for c := 0; c < k; c++ {
				g0[i*k+c] += a.Val[q] * tmp[a.Pat.ColIdx[q]*k+c]
			}
		}
	}
	w := NewAction(n, k)
	got := make([]float64, n*k)
	w.PhiTo(got, a, 50, b, g0, nil)
	for li, law := range net.Conservation() {
		for c := 0; c < k; c++ {
			var before, after, scale float64
			for i, wi := range law {
				before += wi * b[i*k+c]
				after += wi * got[i*k+c]
				scale += math.Abs(wi * b[i*k+c])
			}
			if math.Abs(after-before) > 1e-12*scale {
				t.Fatalf("law %d column %d: %g before, %g after", li, c, before, after)
			}
		}
	}
}

func TestActionZeroAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	a := stiffCSR(rng, 200, 3, 1, 1e2)
	const k = 20
	w := NewAction(200, k)
	b, g0, g1 := randBlock(rng, 200*k), randBlock(rng, 200*k), randBlock(rng, 200*k)
	dst := make([]float64, 200*k)
	w.PhiTo(dst, a, 1, b, g0, g1)
	if allocs := testing.AllocsPerRun(5, func() {
		w.ExpTo(dst, a, 1, b)
		w.PhiTo(dst, a, 1, b, g0, g1)
	}); allocs != 0 {
		t.Errorf("%g allocations per call, want 0", allocs)
	}
	if !w.Last.Estimated {
		t.Error("expected the norm estimation path at ||A|| ~ 1e2")
	}
}

func TestActionEdgeCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	a := stiffCSR(rng, 30, 2, 1, 10)
	w := NewAction(30, 2)
	b := randBlock(rng, 60)
	got := make([]float64, 60)
	w.ExpTo(got, a, 0, b)
	if e := actErr(got, b); e != 0 {
		t.Errorf("t = 0: e^0 B differs from B by %g", e)
	}
	// Nilpotent A = [[0, 1], [0, 0]] at a large t: e^{tA} = I + tA.
	p := &model.Pattern{Rows: 2, Cols: 2, RowPtr: []int{0, 1, 1}, ColIdx: []int{1}}
	nil2 := &sparse.CSR{Pat: p, Val: []float64{1}}
	w = NewAction(2, 1)
	got = make([]float64, 2)
	w.ExpTo(got, nil2, 1e6, []float64{0, 1})
	if math.Abs(got[0]-1e6) > 1e-6 || math.Abs(got[1]-1) > 0 {
		t.Errorf("nilpotent: got %v, want [1e6 1]", got)
	}
	// NaN input: NaN output, no hang.
	a.Val[0] = math.NaN()
	w = NewAction(30, 2)
	got = make([]float64, 60)
	w.ExpTo(got, a, 1, b)
	if !math.IsNaN(got[0]) {
		t.Errorf("NaN in A: got %g", got[0])
	}
}

// TestThetaTaylor recomputes thetaTaylor: the coefficients of
// log(e^{-x} T_m(x)) in 512-bit arithmetic (f = e^{-x} T_m(x) as a power
// series, g = log f from f g' = f'), then theta_m as the root of
// sum_k |g_k| theta^(k-1) = 2^-53 by bisection.
func TestThetaTaylor(t *testing.T) {
	if testing.Short() {
		t.Skip("big-float series")
	}
	const prec, K = 512, 400
	nf := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
	fact := make([]*big.Float, K+1)
	fact[0] = nf(1)
	for i := 1; i <= K; i++ {
		fact[i] = nf(0).Mul(fact[i-1], nf(float64(i)))
	}
	for _, want := range thetaTaylor {
		if want.m != 5 && want.m != 18 && want.m != 40 && want.m != 55 {
			continue
		}
		m := want.m
		f := make([]*big.Float, K+1)
		for j := 0; j <= K; j++ {
			s := nf(0)
			for i := 0; i <= m && i <= j; i++ {
				term := nf(1)
				term.Quo(term, fact[i])
				term.Quo(term, fact[j-i])
				if (j-i)%2 == 1 {
					term.Neg(term)
				}
				s.Add(s, term)
			}
			f[j] = s
		}
		g := make([]*big.Float, K+1)
		logc := make([]float64, K+1) // log |g_k|
		for k := 1; k <= K; k++ {
			s := nf(0).Mul(nf(float64(k)), f[k])
			for i := 1; i < k; i++ {
				term := nf(0).Mul(nf(float64(i)), g[i])
				term.Mul(term, f[k-i])
				s.Sub(s, term)
			}
			g[k] = s.Quo(s, nf(float64(k)))
			logc[k] = math.Inf(-1)
			if g[k].Sign() != 0 {
				mant := new(big.Float)
				e := new(big.Float).Abs(g[k]).MantExp(mant)
				mf, _ := mant.Float64()
				logc[k] = math.Log(mf) + float64(e)*math.Ln2
			}
		}
		h := func(th float64) float64 {
			var s float64
			for k := m + 1; k <= K; k++ {
				s += math.Exp(logc[k] + float64(k-1)*math.Log(th))
			}
			return s
		}
		lo, hi := 0.0, 30.0
		for range 200 {
			mid := (lo + hi) / 2
			if h(mid) <= 0x1p-53 {
				lo = mid
			} else {
				hi = mid
			}
		}
		if math.Abs(lo-want.theta) > 1e-12*want.theta {
			t.Errorf("theta_%d: recomputed %.15e, table %.15e", m, lo, want.theta)
		}
	}
}

// TestNormPows checks the norms of the powers of the augmented operator
// against the dense (n+2k) x (n+2k) matrix t(Ã - mu I) raised to p: the
// last 2k columns are exact, the first n estimated from below.
func TestNormPows(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	const n, k = 12, 3
	a := stiffCSR(rng, n, 3, 1, 10)
	w := NewAction(n, k)
	w.aug = true
	for i := range w.g0 {
		w.g0[i], w.g1[i] = 30*rng.NormFloat64(), 30*rng.NormFloat64() // the augmented columns dominate
	}
	const tt, mu = 0.7, -2.5
	N := n + 2*k
	B := make([]float64, N*N)
	for i := 0; i < n; i++ {
		for q := a.Pat.RowPtr[i]; q < a.Pat.RowPtr[i+1]; q++ {
			B[i*N+a.Pat.ColIdx[q]] = a.Val[q]
		}
		for c := 0; c < k; c++ {
			B[i*N+n+c] = w.g1[i*k+c]
			B[i*N+n+k+c] = w.g0[i*k+c]
		}
	}
	for c := 0; c < k; c++ {
		B[(n+c)*N+n+k+c] = 1
	}
	for i := 0; i < N; i++ {
		B[i*N+i] -= mu
	}
	for i := range B {
		B[i] *= tt
	}
	var d [10]float64
	w.normPows(d[:], a, tt, mu)
	pw := slices.Clone(B)
	next := make([]float64, N*N)
	for p := 2; p < len(d); p++ {
		dense.MulAdd(next, pw, B, N, N, N, 1, 0)
		pw, next = next, pw
		var all, aug float64
		for j := 0; j < N; j++ {
			var s float64
			for i := 0; i < N; i++ {
				s += math.Abs(pw[i*N+j])
			}
			all = math.Max(all, s)
			if j >= n {
				aug = math.Max(aug, s)
			}
		}
		t.Logf("p=%d: estimate %.6g, exact %.6g, augmented columns %.6g", p, d[p], all, aug)
		if d[p] > all*(1+1e-12) || d[p] < aug*(1-1e-12) || d[p] < all/10 {
			t.Errorf("p=%d: estimate %g, exact %g (augmented columns %g)", p, d[p], all, aug)
		}
	}
}
