package sens

import (
	"math/rand/v2"
	"testing"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/generated/pka"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/testmodels"
	"gonum.org/v1/gonum/floats/scalar"
)

// TestGemmKernel checks the dense product of engine.gemm (the AVX2 kernel
// where available) against a naive triple loop for sizes around its
// column blocks (32, 16, masked 1..15), with guard entries after every
// operand that must stay untouched.
func TestGemmKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const guard = 7
	for _, n := range []int{1, 3, 21} {
		for _, k := range []int{1, 2, 21, 40} {
			for _, m := range []int{1, 3, 4, 5, 15, 16, 17, 31, 32, 33, 47, 48, 59, 64, 65} {
				for _, ab := range [][2]float64{{1, 0}, {1, 1}, {-1, 1}, {0.5, 2}} {
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
					en := &engine{nx: k}
					en.gemm(dst[:n*m], a[:n*k], b[:k*m], n, m, alpha, beta)
					for i := range dst {
						if !scalar.EqualWithinAbsOrRel(dst[i], want[i], 1e-13, 1e-13) {
							t.Fatalf("n %d k %d m %d alpha %v beta %v: dst[%d] = %v, want %v (AVX2 %v)",
								n, k, m, alpha, beta, i, dst[i], want[i], hasAVX2FMA)
						}
					}
				}
			}
		}
	}
}

// TestLUSolveKernel solves random systems (diagonally weighted, so well
// conditioned, but pivoting) with luFactor and luSolve for right-hand
// side counts around the kernel's column blocks and checks the residual.
func TestLUSolveKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 2, 5, 21} {
		for _, nrhs := range []int{1, 4, 11, 21, 59} {
			a := make([]float64, n*n)
			for i := range a {
				a[i] = rng.NormFloat64()
			}
			for i := 0; i < n; i++ {
				a[i*n+i] += 2 * float64(n)
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
			lu := append([]float64(nil), a...)
			piv := make([]int, n)
			luFactor(lu, piv, n)
			luSolve(lu, piv, n, b, nrhs)
			for i := range b {
				if !scalar.EqualWithinAbsOrRel(b[i], x[i], 1e-12, 1e-12) {
					t.Fatalf("n %d nrhs %d: x[%d] = %v, want %v", n, nrhs, i, b[i], x[i])
				}
			}
		}
	}
}

// TestForcingKernel compares addForcing (the column-wise forceAVX path
// where available) with the row-wise addForcingGo with random matrices
// and values on the Jp patterns of CaMKII (nx 21: a row pass of 16 plain
// and a masked rest), PKA (nx 11: masked only) and a random linear system
// of dimension 40 (a full pass of 32, then a masked one).
func TestForcingKernel(t *testing.T) {
	for _, m := range []model.Model{camkii.New(), pka.New(), testmodels.NewRandomLinear(40, 1)} {
		s := NewSolver(m, nil)
		en := s.en
		nx, ns := en.nx, en.ns
		rng := rand.New(rand.NewPCG(1, 1))
		sl := &en.end.slots[0]
		for i := range sl.wt {
			sl.wt[i], sl.ph[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		for i := 0; i < nx; i++ {
			for j := 0; j < nx; j++ {
				sl.wpT[j*nx+i] = sl.wt[i*nx+j]
				sl.wpT[(nx+j)*nx+i] = sl.ph[i*nx+j]
			}
		}
		va, vb := make([]float64, len(en.jpCol)), make([]float64, len(en.jpCol))
		for i := range va {
			va[i], vb[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		got, want := make([]float64, nx*ns), make([]float64, nx*ns)
		for i := range got {
			got[i] = rng.NormFloat64()
			want[i] = got[i]
		}
		t.Logf("nx %d, ns %d, %d Jp entries", nx, ns, len(va))
		en.addForcing(got, sl, va, vb)
		en.addForcingGo(want, sl.wt, va, sl.ph, vb)
		for i := range got {
			if !scalar.EqualWithinAbsOrRel(got[i], want[i], 1e-12, 1e-12) {
				t.Fatalf("nx %d entry %d: %v, want %v (AVX2 %v)", nx, i, got[i], want[i], hasAVX2FMA)
			}
		}
	}
}

// TestMulRows4 checks the 4-column product of the error estimate (the
// AVX2 kernel where available) against a naive loop, with guard entries.
func TestMulRows4(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const guard = 5
	for _, n := range []int{1, 3, 4, 5, 8, 21} {
		for _, k := range []int{1, 2, 21, 59} {
			mk := func(l int) []float64 {
				v := make([]float64, l+guard)
				for i := range v {
					v[i] = rng.NormFloat64()
				}
				return v
			}
			a, b, dst := mk(n*k), mk(k*nProbe), mk(n*nProbe)
			want := append([]float64(nil), dst...)
			for i := 0; i < n; i++ {
				for q := 0; q < nProbe; q++ {
					var s float64
					for l := 0; l < k; l++ {
						s += a[i*k+l] * b[l*nProbe+q]
					}
					want[i*nProbe+q] = s
				}
			}
			mulRows4(dst[:n*nProbe], a[:n*k], b[:k*nProbe], n, k)
			for i := range dst {
				if !scalar.EqualWithinAbsOrRel(dst[i], want[i], 1e-13, 1e-13) {
					t.Fatalf("n %d k %d: dst[%d] = %v, want %v", n, k, i, dst[i], want[i])
				}
			}
		}
	}
}

// TestSpMul4 checks the sparse times 4-column product (spRows4AVX where
// available) on the CaMKII Jx and Jp patterns against a naive loop, with
// and without accumulation.
func TestSpMul4(t *testing.T) {
	en := NewSolver(camkii.New(), nil).en
	rng := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct {
		ptr, idx []int
		ncol     int
	}{
		{en.jx.RowPtr, en.jx.ColIdx, en.nx},
		{en.jpRow, en.jpCol, en.ns},
	} {
		n := len(c.ptr) - 1
		vals := make([]float64, len(c.idx))
		x := make([]float64, c.ncol*nProbe)
		for i := range vals {
			vals[i] = rng.NormFloat64()
		}
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		for _, add := range []bool{false, true} {
			dst := make([]float64, n*nProbe)
			for i := range dst {
				dst[i] = rng.NormFloat64()
			}
			want := append([]float64(nil), dst...)
			for i := 0; i < n; i++ {
				for q := 0; q < nProbe; q++ {
					var s float64
					for p := c.ptr[i]; p < c.ptr[i+1]; p++ {
						s += vals[p] * x[c.idx[p]*nProbe+q]
					}
					if add {
						want[i*nProbe+q] += s
					} else {
						want[i*nProbe+q] = s
					}
				}
			}
			spMul4(dst, vals, c.ptr, c.idx, x, add)
			for i := range dst {
				if !scalar.EqualWithinAbsOrRel(dst[i], want[i], 1e-13, 1e-13) {
					t.Fatalf("add %v: dst[%d] = %v, want %v", add, i, dst[i], want[i])
				}
			}
		}
	}
}
