package dense

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// The tests of every kernel of this package, each against a naive loop:
// with the default build they check the AVX2/FMA assembly where the CPU
// has it, with -tags purego (or on other architectures) the Go loops.

// TestMulAdd checks MulAdd (the AVX2 kernel where available) against a
// naive triple loop for sizes around its column blocks (32, 16, masked
// 1..15), k = 0, and alpha, beta in {0, 1, other}, with guard entries
// after every operand that must stay untouched.
func TestMulAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const guard = 7
	for _, n := range []int{1, 2, 3, 4, 21} {
		for _, k := range []int{0, 1, 2, 21, 40} {
			for _, m := range []int{1, 3, 4, 5, 15, 16, 17, 31, 32, 33, 47, 48, 59, 64, 65} {
				for _, ab := range [][2]float64{{1, 0}, {1, 1}, {-1, 1}, {0.5, 2}, {0, 3}} {
					alpha, beta := ab[0], ab[1]
					mk := func(l int) []float64 {
						v := make([]float64, l+guard)
						for i := range v {
							v[i] = rng.NormFloat64()
						}
						return v
					}
					a, b, dst := mk(n*k), mk(k*m), mk(n*m)
					want := append([]float64(nil), dst...)
					for i := 0; i < n; i++ {
						for j := 0; j < m; j++ {
							var s float64
							for l := 0; l < k; l++ {
								s += a[i*k+l] * b[l*m+j]
							}
							want[i*m+j] = alpha*s + beta*want[i*m+j]
						}
					}
					MulAdd(dst[:n*m], a[:n*k], b[:k*m], n, k, m, alpha, beta)
					for i := range dst {
						if !scalar.EqualWithinAbsOrRel(dst[i], want[i], 1e-13, 1e-13) {
							t.Fatalf("n %d k %d m %d alpha %v beta %v: dst[%d] = %v, want %v (FMA %v)",
								n, k, m, alpha, beta, i, dst[i], want[i], HasFMA)
						}
					}
				}
			}
		}
	}
}

func TestMulAddPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Error("short operand: no panic")
		}
	}()
	MulAdd(make([]float64, 4), make([]float64, 3), make([]float64, 4), 2, 2, 2, 1, 0)
}

// TestFactorFullSolveFull solves random systems (diagonally weighted, so
// well conditioned, but pivoting) with FactorFull and SolveFull for sizes and
// right-hand side counts around the kernel's column blocks and checks the
// solution.
func TestFactorFullSolveFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 2, 5, 17, 21, 40} {
		for _, nrhs := range []int{1, 4, 11, 16, 17, 21, 31, 32, 33, 48, 59} {
			a := make([]float64, n*n)
			for i := range a {
				a[i] = rng.NormFloat64()
			}
			for i := 0; i < n; i++ {
				a[i*n+i] += float64(n)
			}
			x := make([]float64, n*nrhs)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			b := make([]float64, n*nrhs)
			for i := 0; i < n; i++ {
				for j := 0; j < nrhs; j++ {
					for l := 0; l < n; l++ {
						b[i*nrhs+j] += a[i*n+l] * x[l*nrhs+j]
					}
				}
			}
			piv := make([]int, n)
			FactorFull(a, piv, n)
			SolveFull(a, piv, n, b, nrhs)
			for i := range b {
				if !scalar.EqualWithinAbsOrRel(b[i], x[i], 1e-11, 1e-11) {
					t.Fatalf("n %d nrhs %d: x[%d] = %v, want %v", n, nrhs, i, b[i], x[i])
				}
			}
		}
	}
}

// TestFullPanics checks the short-operand panics of FactorFull and
// SolveFull.
func TestFullPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"FactorFull": func() { FactorFull(make([]float64, 3), make([]int, 2), 2) },
		"SolveFull":  func() { SolveFull(make([]float64, 4), make([]int, 2), 2, make([]float64, 3), 2) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: short operand: no panic", name)
				}
			}()
			f()
		}()
	}
}

// randVec returns l normal entries followed by guard more.
func randVec(rng *rand.Rand, l, guard int) []float64 {
	v := make([]float64, l+guard)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// TestMulRows4 checks the 4-column product of the error estimate (the
// AVX2 kernel where available: four rows at a time, then the rest) against
// a naive loop, with guard entries that must stay untouched.
func TestMulRows4(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const guard, q = 5, ProbeCols
	for _, n := range []int{0, 1, 3, 4, 5, 8, 21} {
		for _, k := range []int{1, 2, 21, 59} {
			a, b, dst := randVec(rng, n*k, guard), randVec(rng, k*q, guard), randVec(rng, n*q, guard)
			want := append([]float64(nil), dst...)
			for i := 0; i < n; i++ {
				for c := 0; c < q; c++ {
					var s float64
					for l := 0; l < k; l++ {
						s += a[i*k+l] * b[l*q+c]
					}
					want[i*q+c] = s
				}
			}
			MulRows4(dst[:n*q], a[:n*k], b[:k*q], n, k)
			for i := range dst {
				if !scalar.EqualWithinAbsOrRel(dst[i], want[i], 1e-13, 1e-13) {
					t.Fatalf("n %d k %d: dst[%d] = %v, want %v (FMA %v)", n, k, i, dst[i], want[i], HasFMA)
				}
			}
		}
	}
}

// randCSR returns a random n x ncol CSR pattern with about fill of the
// entries present (some rows empty) and random values.
func randCSR(rng *rand.Rand, n, ncol int, fill float64) (ptr, idx []int, vals []float64) {
	ptr = make([]int, n+1)
	for i := 0; i < n; i++ {
		for j := 0; j < ncol; j++ {
			if rng.Float64() < fill {
				idx = append(idx, j)
				vals = append(vals, rng.NormFloat64())
			}
		}
		ptr[i+1] = len(idx)
	}
	return ptr, idx, vals
}

// TestSpMul4 checks the sparse times 4-column product (spRows4AVX where
// available: two accumulators alternating over a row's entries) against a
// naive loop on random patterns with empty, short and long rows, with and
// without accumulation.
func TestSpMul4(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const q, guard = ProbeCols, 3
	for _, c := range []struct {
		n, ncol int
		fill    float64
	}{{1, 1, 1}, {5, 3, 0.5}, {21, 21, 0.2}, {21, 59, 0.1}, {40, 40, 0.9}} {
		ptr, idx, vals := randCSR(rng, c.n, c.ncol, c.fill)
		x := randVec(rng, c.ncol*q, 0)
		for _, add := range []bool{false, true} {
			dst := randVec(rng, c.n*q, guard)
			want := append([]float64(nil), dst...)
			for i := 0; i < c.n; i++ {
				for col := 0; col < q; col++ {
					var s float64
					for p := ptr[i]; p < ptr[i+1]; p++ {
						s += vals[p] * x[idx[p]*q+col]
					}
					if add {
						want[i*q+col] += s
					} else {
						want[i*q+col] = s
					}
				}
			}
			SpMul4(dst, vals, ptr, idx, x, add)
			for i := range dst {
				if !scalar.EqualWithinAbsOrRel(dst[i], want[i], 1e-13, 1e-13) {
					t.Fatalf("%d x %d add %v: dst[%d] = %v, want %v (FMA %v)", c.n, c.ncol, add, i, dst[i], want[i], HasFMA)
				}
			}
		}
	}
}

// TestForceCols checks the column-wise forcing against a naive loop on
// random CSC patterns for row lengths m around the kernel's passes (32
// plain, 16 plain and a masked rest, masked only), with the second block
// of rows at phOff and the values read through a random permutation.
func TestForceCols(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, m := range []int{1, 4, 11, 16, 17, 21, 32, 33, 40, 59} {
		for _, nc := range []int{1, 5, 23} {
			ptr, rows, _ := randCSR(rng, nc, m, 0.3)
			nnz := len(rows)
			perm := rng.Perm(nnz)
			off := make([]int, nnz)
			for q, r := range rows {
				off[q] = r * m * 8
			}
			wpT := randVec(rng, 2*m*m, 0)
			va, vb := randVec(rng, nnz, 0), randVec(rng, nnz, 0)
			ft := randVec(rng, nc*m, 4)
			want := append([]float64(nil), ft...)
			for c := 0; c < nc; c++ {
				for i := 0; i < m; i++ {
					var s float64
					for q := ptr[c]; q < ptr[c+1]; q++ {
						s += va[perm[q]]*wpT[rows[q]*m+i] + vb[perm[q]]*wpT[m*m+rows[q]*m+i]
					}
					want[c*m+i] = s
				}
			}
			ForceCols(ft[:nc*m], wpT, va, vb, perm, off, ptr, m, m*m*8)
			for i := range ft {
				if !scalar.EqualWithinAbsOrRel(ft[i], want[i], 1e-12, 1e-12) {
					t.Fatalf("m %d, %d columns: ft[%d] = %v, want %v (FMA %v)", m, nc, i, ft[i], want[i], HasFMA)
				}
			}
		}
	}
}

// TestAddTrans4 checks the blocked transposed add: dst += ft^T on the
// rows and columns below the multiples of 4, the edges untouched.
func TestAddTrans4(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, nx := range []int{1, 3, 4, 5, 8, 21} {
		for _, ns := range []int{1, 4, 7, 12, 59} {
			dst, ft := randVec(rng, nx*ns, 3), randVec(rng, nx*ns, 0)
			want := append([]float64(nil), dst...)
			for r := 0; r < nx&^3; r++ {
				for c := 0; c < ns&^3; c++ {
					want[r*ns+c] += ft[c*nx+r]
				}
			}
			AddTrans4(dst, ft, nx, ns)
			for i := range dst {
				if dst[i] != want[i] {
					t.Fatalf("nx %d ns %d: dst[%d] = %v, want %v (FMA %v)", nx, ns, i, dst[i], want[i], HasFMA)
				}
			}
		}
	}
}

// TestKernelsAllocateNothing: the kernels run in the integrators' step
// loops, which must not allocate.
func TestKernelsAllocateNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n, m = 21, 59
	a, x, dst := randVec(rng, n*n, 0), randVec(rng, n*m, 0), randVec(rng, n*m, 0)
	for i := 0; i < n; i++ {
		a[i*n+i] += n
	}
	lu, piv := make([]float64, n*n), make([]int, n)
	ptr, idx, vals := randCSR(rng, n, n, 0.2)
	p4, q4 := randVec(rng, n*ProbeCols, 0), randVec(rng, n*ProbeCols, 0)
	allocs := testing.AllocsPerRun(20, func() {
		MulAdd(dst, a, x, n, n, m, 1, 0.5)
		copy(lu, a)
		FactorFull(lu, piv, n)
		SolveFull(lu, piv, n, dst, m)
		MulRows4(q4, a, p4, n, n)
		SpMul4(q4, vals, ptr, idx, p4, true)
		AddTrans4(dst, x, n, m)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per run", allocs)
	}
}

// TestFinite puts a NaN, +Inf or -Inf at every position of vectors of
// every length up to 40 (all paths of the kernel: blocks of 16, of 4, the
// last 0..3) among finite entries that include the extremes, and checks
// both implementations.
func TestFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	bad := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
	impls := map[string]func([]float64) bool{"go": finiteGo}
	if HasFMA {
		impls["avx"] = finiteAVX
	}
	for name, f := range impls {
		for n := 0; n <= 40; n++ {
			v := make([]float64, n)
			for i := range v {
				switch i % 4 {
				case 0:
					v[i] = math.MaxFloat64
				case 1:
					v[i] = -math.SmallestNonzeroFloat64
				default:
					v[i] = rng.NormFloat64() * 1e300
				}
			}
			if !f(v) {
				t.Fatalf("%s: n=%d all finite, reported not finite", name, n)
			}
			for i := range v {
				for _, b := range bad {
					keep := v[i]
					v[i] = b
					if f(v) {
						t.Fatalf("%s: n=%d %g at %d reported finite", name, n, b, i)
					}
					v[i] = keep
				}
			}
		}
	}
}

// TestL1Dist checks both implementations against a plain sum for every
// length up to 40 (all paths of the kernel), with b longer than a, and
// that a NaN at any position of either makes the result NaN.
func TestL1Dist(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	impls := map[string]func(a, b []float64) float64{"go": l1distGo}
	if HasFMA {
		impls["avx"] = l1distAVX
	}
	for name, f := range impls {
		for n := 0; n <= 40; n++ {
			a := make([]float64, n)
			b := make([]float64, n+3)
			var want float64
			for i := range a {
				a[i], b[i] = rng.NormFloat64(), rng.NormFloat64()
				want += math.Abs(a[i] - b[i])
			}
			b[n] = math.NaN() // beyond len(a): not read
			if got := f(a, b); !scalar.EqualWithinAbsOrRel(got, want, 1e-14, 1e-14) {
				t.Fatalf("%s: n=%d got %g, want %g", name, n, got, want)
			}
			for i := 0; i < n; i++ {
				for _, v := range [][]float64{a, b} {
					keep := v[i]
					v[i] = math.NaN()
					if got := f(a, b); !math.IsNaN(got) {
						t.Fatalf("%s: n=%d NaN at %d gave %g", name, n, i, got)
					}
					v[i] = keep
				}
			}
		}
	}
}

// TestFactorFullBlocked checks the panel factorisation of FactorFull
// (n >= luBlockedMin, AVX2) against the rank-1 one (luFactor) on random
// matrices that need pivoting, at sizes around the panel width: the
// same pivots, factors within 1e-12 of the largest entry; and SolveFull
// (by panels from trsmPanel right-hand sides) against trsmAVX to 1e-12
// of the largest entry, with a residual of rounding size.
func TestFactorFullBlocked(t *testing.T) {
	if !HasFMA {
		t.Skip("no AVX2/FMA: FactorFull is luFactor")
	}
	rng := rand.New(rand.NewPCG(2, 3))
	for _, n := range []int{luBlockedMin, luBlockedMin + 1, 79, 96, 124, 130} {
		a := make([]float64, n*n)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		ref, got := append([]float64(nil), a...), append([]float64(nil), a...)
		pr, pg := make([]int, n), make([]int, n)
		luFactor(ref, pr, n)
		FactorFull(got, pg, n)
		var mx float64
		for _, v := range ref {
			mx = math.Max(mx, math.Abs(v))
		}
		for k := range pr {
			if pr[k] != pg[k] {
				t.Fatalf("n %d: pivot %d is row %d, rank-1 factorisation %d", n, k, pg[k], pr[k])
			}
		}
		for i, v := range ref {
			if math.Abs(got[i]-v) > 1e-12*mx {
				t.Fatalf("n %d: factor entry %d = %v, rank-1 factorisation %v", n, i, got[i], v)
			}
		}
		for _, nrhs := range []int{7, trsmPanel, 33, 317} {
			b := make([]float64, n*nrhs)
			for i := range b {
				b[i] = rng.NormFloat64()
			}
			x := append([]float64(nil), b...)
			SolveFull(got, pg, n, x, nrhs)
			// The one-row-at-a-time kernel on the same factors.
			y := append([]float64(nil), b...)
			permuteRows(y, pg, n, nrhs)
			trsmAVX(got, y, n, nrhs)
			var rmax, bmax, dmax, ymax float64
			for i := 0; i < n; i++ {
				for j := 0; j < nrhs; j++ {
					r := -b[i*nrhs+j]
					for l := 0; l < n; l++ {
						r += a[i*n+l] * x[l*nrhs+j]
					}
					rmax = math.Max(rmax, math.Abs(r))
					bmax = math.Max(bmax, math.Abs(b[i*nrhs+j]))
					dmax = math.Max(dmax, math.Abs(x[i*nrhs+j]-y[i*nrhs+j]))
					ymax = math.Max(ymax, math.Abs(y[i*nrhs+j]))
				}
			}
			if rmax > 1e-10*bmax {
				t.Errorf("n %d nrhs %d: residual %.3g of right-hand sides up to %.3g", n, nrhs, rmax, bmax)
			}
			if dmax > 1e-12*ymax {
				t.Errorf("n %d nrhs %d: solve %.3g from trsmAVX's (entries up to %.3g)", n, nrhs, dmax, ymax)
			}
		}
	}
}
