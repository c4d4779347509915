package expm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

func randMat(rng *rand.Rand, n int, scale float64) []float64 {
	a := make([]float64, n*n)
	for i := range a {
		a[i] = scale * rng.NormFloat64()
	}
	return a
}

// relErr is the max-abs entry difference relative to the max-abs entry of want.
func relErr(got, want []float64) float64 {
	var d, m float64
	for i := range got {
		d = math.Max(d, math.Abs(got[i]-want[i]))
		m = math.Max(m, math.Abs(want[i]))
	}
	if m == 0 {
		return d
	}
	return d / m
}

func gonumExp(a []float64, n int) []float64 {
	var e mat.Dense
	e.Exp(mat.NewDense(n, n, append([]float64(nil), a...)))
	return append([]float64(nil), e.RawMatrix().Data...)
}

func TestExpAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 2, 5, 11, 21} {
		// Scales cover every Padé degree and many squarings.
		for _, sc := range []float64{1e-4, 1e-2, 0.1, 0.3, 1, 3, 20} {
			a := randMat(rng, n, sc/math.Sqrt(float64(n)))
			w := NewWorkspace(n)
			got := make([]float64, n*n)
			for i := range got {
				got[i] = math.NaN()
			}
			w.ExpTo(got, a)
			want := gonumExp(a, n)
			if e := relErr(got, want); e > 1e-11 {
				t.Errorf("n=%d scale=%g (m=%d s=%d): rel err %.3g vs gonum", n, sc, w.Last.Degree, w.Last.Squarings, e)
			}
		}
	}
}

func TestExpClosedForms(t *testing.T) {
	w := NewWorkspace(2)
	e := make([]float64, 4)
	for _, th := range []float64{1e-3, 0.5, 2, 10, 100} {
		// Rotation generator.
		w.ExpTo(e, []float64{0, th, -th, 0})
		want := []float64{math.Cos(th), math.Sin(th), -math.Sin(th), math.Cos(th)}
		if err := relErr(e, want); err > 1e-12*math.Max(1, th) {
			t.Errorf("rotation %g: got %v want %v", th, e, want)
		}
		// Jordan block: exp([[l, 1],[0, l]]) = e^l [[1, 1],[0, 1]].
		l := -th
		w.ExpTo(e, []float64{l, 1, 0, l})
		want = []float64{math.Exp(l), math.Exp(l), 0, math.Exp(l)}
		if err := relErr(e, want); err > 1e-12*math.Max(1, th) {
			t.Errorf("jordan %g: got %v want %v", l, e, want)
		}
	}
	// Stiff: eigenvalues -1e7 and -1 need 21 squarings, which amplify the
	// rounding error of the slow mode by 2^21 (the known overscaling
	// limitation of Higham 2005): a few 1e-10 relative.
	w.ExpTo(e, []float64{-1e7, 0, 0, -1})
	if !scalar.EqualWithinAbsOrRel(e[3], math.Exp(-1), 0, 1e-9) || math.Abs(e[0]) > 1e-300 {
		t.Errorf("stiff diagonal: got %v (s=%d)", e, w.Last.Squarings)
	}
}

// TestExpIntAgainstAugmented checks E and W against the exponential of the
// augmented 2n x 2n matrix h[[A, I],[0, 0]] computed by gonum.
// TestExpIntSlowMode makes sure the steady-state shortcut does not freeze a
// slow but genuine mode: A = diag(-1e3, -1e-6), h = 1e4.
func TestExpIntSlowMode(t *testing.T) {
	w := NewWorkspace(2)
	e, wi := make([]float64, 4), make([]float64, 4)
	h := 1e4
	w.ExpIntTo(e, wi, []float64{-1e3, 0, 0, -1e-6}, h)
	we := math.Exp(-1e-6 * h)
	ww := -math.Expm1(-1e-6*h) / 1e-6
	if !scalar.EqualWithinAbsOrRel(e[3], we, 0, 1e-9) || !scalar.EqualWithinAbsOrRel(wi[3], ww, 0, 1e-9) ||
		!scalar.EqualWithinAbsOrRel(wi[0], 1e-3, 0, 1e-9) || e[0] != 0 {
		t.Errorf("got E %v W %v, want E[3]=%v W[0]=1e-3 W[3]=%v (converged at %d)", e, wi, we, ww, w.Last.Converged)
	}
}

func TestExpIntAgainstAugmented(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 3, 8, 21} {
		for _, h := range []float64{1e-3, 0.1, 1, 7, 40} {
			a := randMat(rng, n, 1/math.Sqrt(float64(n)))
			for i := 0; i < n; i++ {
				a[i*n+i] -= 1 // mostly stable, as Jacobians near attractors
			}
			m := 2 * n
			aug := make([]float64, m*m)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					aug[i*m+j] = h * a[i*n+j]
				}
				aug[i*m+n+i] = h
			}
			ref := gonumExp(aug, m)
			wantE := make([]float64, n*n)
			wantW := make([]float64, n*n)
			for i := 0; i < n; i++ {
				copy(wantE[i*n:(i+1)*n], ref[i*m:i*m+n])
				copy(wantW[i*n:(i+1)*n], ref[i*m+n:i*m+m])
			}
			ws := NewWorkspace(n)
			e, wi := make([]float64, n*n), make([]float64, n*n)
			ws.ExpIntTo(e, wi, a, h)
			if err := relErr(e, wantE); err > 1e-10 {
				t.Errorf("n=%d h=%g: E rel err %.3g", n, h, err)
			}
			if err := relErr(wi, wantW); err > 1e-10 {
				t.Errorf("n=%d h=%g: W rel err %.3g", n, h, err)
			}
		}
	}
}

// TestExpIntSingular uses the closed network A <-> B: A = [[-k1, k2],
// [k1, -k2]] has eigenvalues 0 and -(k1+k2), so A^{-1} does not exist, and
// with r = k1+k2: e^{hA} = P0 + e^{-rh}(I - P0), W = h P0 + (1-e^{-rh})/r (I - P0),
// P0 = [[k2, k2],[k1, k1]]/r.
func TestExpIntSingular(t *testing.T) {
	k1, k2 := 3.0, 0.5
	r := k1 + k2
	a := []float64{-k1, k2, k1, -k2}
	p0 := []float64{k2 / r, k2 / r, k1 / r, k1 / r}
	id := []float64{1, 0, 0, 1}
	w := NewWorkspace(2)
	e, wi := make([]float64, 4), make([]float64, 4)
	for _, h := range []float64{0, 1e-8, 1e-3, 0.7, 30, 1e4, 1e7} {
		w.ExpIntTo(e, wi, a, h)
		ex := math.Exp(-r * h)
		phi := -math.Expm1(-r*h) / r
		for i := range e {
			we := p0[i] + ex*(id[i]-p0[i])
			ww := h*p0[i] + phi*(id[i]-p0[i])
			if !scalar.EqualWithinAbsOrRel(e[i], we, 1e-14, 1e-12) || !scalar.EqualWithinAbsOrRel(wi[i], ww, 1e-14, 1e-12) {
				t.Errorf("h=%g entry %d: E %v want %v, W %v want %v (s=%d)", h, i, e[i], we, wi[i], ww, w.Last.Squarings)
			}
		}
	}
}

func TestNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	n := 21
	a := randMat(rng, n, 30)
	w := NewWorkspace(n)
	e, wi, ps := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	if allocs := testing.AllocsPerRun(10, func() { w.ExpIntTo(e, wi, a, 3); w.ExpTo(e, a); w.ExpInt2To(e, wi, ps, a, 3) }); allocs != 0 {
		t.Errorf("allocs per run = %v, want 0", allocs)
	}
}

func TestPanics(t *testing.T) {
	w := NewWorkspace(2)
	a := make([]float64, 4)
	for name, f := range map[string]func(){
		"length": func() { w.ExpTo(make([]float64, 3), a) },
		"alias":  func() { w.ExpTo(a, a) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || fmt.Sprint(r)[:6] != "expm: " {
					t.Errorf("%s: recovered %v, want an expm: panic", name, r)
				}
			}()
			f()
		}()
	}
}

var sink float64

func benchExp(b *testing.B, n int, norm float64, gonum bool) {
	rng := rand.New(rand.NewPCG(1, 1))
	a := randMat(rng, n, 1)
	s := norm / Norm1(a, n)
	for i := range a {
		a[i] *= s
	}
	w := NewWorkspace(n)
	e := make([]float64, n*n)
	am := mat.NewDense(n, n, a)
	var ed mat.Dense
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if gonum {
			ed.Exp(am)
		} else {
			w.ExpTo(e, a)
		}
	}
	sink = e[0]
}

func BenchmarkExp21Norm1(b *testing.B)        { benchExp(b, 21, 1, false) }
func BenchmarkExp21Norm1Gonum(b *testing.B)   { benchExp(b, 21, 1, true) }
func BenchmarkExp21Norm1e7(b *testing.B)      { benchExp(b, 21, 1e7, false) }
func BenchmarkExp21Norm1e7Gonum(b *testing.B) { benchExp(b, 21, 1e7, true) }
func BenchmarkExp80Norm1e3(b *testing.B)      { benchExp(b, 80, 1e3, false) }
func BenchmarkExp80Norm1e3Gonum(b *testing.B) { benchExp(b, 80, 1e3, true) }

// The three ways to get E = e^{hA} and G = W B for nx = 21, np = 59
// (CaMKII sizes): structured ExpIntTo then G = W B; the exponential of the
// (nx+np) augmented [[A, B],[0, 0]]; the exponential of the 2nx augmented
// [[A, I],[0, 0]] then G = W B.
func benchEG(b *testing.B, mode int) {
	const nx, np = 21, 59
	rng := rand.New(rand.NewPCG(1, 1))
	a := randMat(rng, nx, 1)
	s := 1e3 / Norm1(a, nx)
	for i := range a {
		a[i] *= s
	}
	bm := make([]float64, nx*np)
	for i := range bm {
		bm[i] = rng.Float64()
	}
	g := mat.NewDense(nx, np, nil)
	wsx := NewWorkspace(nx)
	e, wi := make([]float64, nx*nx), make([]float64, nx*nx)
	na := nx + np
	aug := make([]float64, na*na)
	for i := 0; i < nx; i++ {
		copy(aug[i*na:], a[i*nx:(i+1)*nx])
		copy(aug[i*na+nx:], bm[i*np:(i+1)*np])
	}
	wsa := NewWorkspace(na)
	ea := make([]float64, na*na)
	m2 := 2 * nx
	aug2 := make([]float64, m2*m2)
	for i := 0; i < nx; i++ {
		copy(aug2[i*m2:], a[i*nx:(i+1)*nx])
		aug2[i*m2+nx+i] = 1
	}
	ws2 := NewWorkspace(m2)
	e2 := make([]float64, m2*m2)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		switch mode {
		case 0:
			wsx.ExpIntTo(e, wi, a, 1)
			g.Mul(mat.NewDense(nx, nx, wi), mat.NewDense(nx, np, bm))
		case 1:
			wsa.ExpTo(ea, aug)
		case 2:
			ws2.ExpTo(e2, aug2)
			for r := 0; r < nx; r++ {
				copy(wi[r*nx:(r+1)*nx], e2[r*m2+nx:r*m2+m2])
			}
			g.Mul(mat.NewDense(nx, nx, wi), mat.NewDense(nx, np, bm))
		}
	}
	sink = e[0] + ea[0] + e2[0]
}

func BenchmarkEGStructured(b *testing.B)  { benchEG(b, 0) }
func BenchmarkEGAugmentedAB(b *testing.B) { benchEG(b, 1) }
func BenchmarkEGAugmentedAI(b *testing.B) { benchEG(b, 2) }

// TestExpInt2AgainstBlock checks E, W and Psi against the exponential of
// the 3n x 3n block matrix h[[A, I, 0],[0, 0, I],[0, 0, 0]] computed by
// gonum, over norms that select every Padé degree and many squarings.
func TestExpInt2AgainstBlock(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 3, 8, 21} {
		for _, h := range []float64{1e-4, 1e-2, 0.1, 0.5, 1, 7, 40} {
			a := randMat(rng, n, 1/math.Sqrt(float64(n)))
			for i := 0; i < n; i++ {
				a[i*n+i] -= 1
			}
			m := 3 * n
			blk := make([]float64, m*m)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					blk[i*m+j] = h * a[i*n+j]
				}
				blk[i*m+n+i] = h
				blk[(n+i)*m+2*n+i] = h
			}
			ref := gonumExp(blk, m)
			want := [3][]float64{make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)}
			for b := range want {
				for i := 0; i < n; i++ {
					copy(want[b][i*n:(i+1)*n], ref[i*m+b*n:i*m+(b+1)*n])
				}
			}
			ws := NewWorkspace(n)
			got := [3][]float64{make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)}
			for b := range got {
				for i := range got[b] {
					got[b][i] = math.NaN()
				}
			}
			ws.ExpInt2To(got[0], got[1], got[2], a, h)
			for b, name := range []string{"E", "W", "Psi"} {
				if err := relErr(got[b], want[b]); !(err <= 1e-10) {
					t.Errorf("n=%d h=%g (m=%d s=%d): %s rel err %.3g", n, h, ws.Last.Degree, ws.Last.Squarings, name, err)
				}
			}
		}
	}
}

// TestExpInt2Singular: for the closed network A <-> B (see
// TestExpIntSingular), Psi = h^2/2 P0 + (h - phi)/r (I - P0) with
// phi = (1 - e^{-rh})/r, exercising the steady-state shortcut for large h.
func TestExpInt2Singular(t *testing.T) {
	k1, k2 := 3.0, 0.5
	r := k1 + k2
	a := []float64{-k1, k2, k1, -k2}
	p0 := []float64{k2 / r, k2 / r, k1 / r, k1 / r}
	id := []float64{1, 0, 0, 1}
	w := NewWorkspace(2)
	e, wi, ps := make([]float64, 4), make([]float64, 4), make([]float64, 4)
	for _, h := range []float64{0, 1e-8, 1e-3, 0.7, 30, 1e4, 1e7} {
		w.ExpInt2To(e, wi, ps, a, h)
		phi := -math.Expm1(-r*h) / r
		for i := range e {
			wp := h*h/2*p0[i] + (h-phi)/r*(id[i]-p0[i])
			if !scalar.EqualWithinAbsOrRel(ps[i], wp, 1e-14, 1e-11) {
				t.Errorf("h=%g entry %d: Psi %v want %v (s=%d, converged %d)", h, i, ps[i], wp, w.Last.Squarings, w.Last.Converged)
			}
		}
	}
}

// TestExpInt2StiffDiagonal: for diagonal A, Psi_ii = (e^{l h} - 1 - l h)/l^2
// and W_ii = (e^{l h} - 1)/l, with a stiff entry that needs ~20 squarings.
func TestExpInt2StiffDiagonal(t *testing.T) {
	ls := []float64{-1e6, -0.5, -3e-3}
	n := len(ls)
	a := make([]float64, n*n)
	for i, l := range ls {
		a[i*n+i] = l
	}
	w := NewWorkspace(n)
	e, wi, ps := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	for _, h := range []float64{1e-7, 0.3, 2, 50} {
		w.ExpInt2To(e, wi, ps, a, h)
		for i, l := range ls {
			em1 := math.Expm1(l * h)
			we := em1 / l
			wp := (em1 - l*h) / (l * l)
			if z := l * h; math.Abs(z) < 0.1 { // series: no cancellation
				wp = 0
				term := h * h / 2
				for j := 0; j < 20; j++ {
					wp += term
					term *= z / float64(j+3)
				}
			}
			if !scalar.EqualWithinAbsOrRel(wi[i*n+i], we, 1e-300, 1e-9) || !scalar.EqualWithinAbsOrRel(ps[i*n+i], wp, 1e-300, 1e-9) {
				t.Errorf("h=%g l=%g: W %v want %v, Psi %v want %v (s=%d)", h, l, wi[i*n+i], we, ps[i*n+i], wp, w.Last.Squarings)
			}
		}
	}
}
