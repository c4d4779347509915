package sens

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// refSlot caches the matrix functions of one reference matrix An at one
// step h: E = e^{hAn}, Ph = Psi/h = h phi2(hAn), Wt = W - Ph.
type refSlot struct {
	h      float64
	an     []float64 // nnz(Jx)
	e      []float64 // nx*nx
	wt, ph []float64 // nx*nx
	valid  bool
	used   int // stamp of last use (LRU)
}

// endState is the scratch of the end-point exponential step.
type endState struct {
	slots []refSlot
	stamp int
	dA    []float64 // nnz(Jx): Ja - An
	dB    []float64 // nnz(Jx): Jb - An
	nmat  []float64 // nx*nx: I - Ph (Jb - An), then its LU
	piv   []int
}

func newEndState(nx, nnz, nslots int) endState {
	st := endState{dA: make([]float64, nnz), dB: make([]float64, nnz),
		nmat: make([]float64, nx*nx), piv: make([]int, nx)}
	st.slots = make([]refSlot, nslots)
	for i := range st.slots {
		st.slots[i] = refSlot{an: make([]float64, nnz), e: make([]float64, nx*nx),
			wt: make([]float64, nx*nx), ph: make([]float64, nx*nx)}
	}
	return st
}

// slotFor returns the matrix functions for step h whose reference matrix
// is within the reuse tolerance of Jb (then dB = Jb - An is set), or
// computes fresh ones with An = Jb in the least recently used slot.
func (en *engine) slotFor(ja, jb []float64, h float64) (sl *refSlot, fresh bool) {
	st := &en.end
	st.stamp++
	var lru *refSlot
	// A jump of Jx within the step (a kink of a piecewise-linear rate law)
	// is handled better by a fresh end-point exponential.
	smooth := en.relChangeInf(ja, jb) <= jumpTol
	for i := range st.slots {
		c := &st.slots[i]
		if smooth && c.valid && math.Abs(c.h-h) <= 1e-12*h {
			// ||h (Jb - An)||_inf
			var d float64
			rp := en.jx.RowPtr
			for r := 0; r+1 < len(rp); r++ {
				var rs float64
				for k := rp[r]; k < rp[r+1]; k++ {
					x := jb[k] - c.an[k]
					st.dB[k] = x
					rs += math.Abs(x)
				}
				d = math.Max(d, rs)
			}
			if h*d <= en.cfg.refTheta {
				c.used = st.stamp
				en.stats.ExpReuses++
				return c, false
			}
		}
		if lru == nil || !c.valid || (lru.valid && c.used < lru.used) {
			if lru == nil || lru.valid {
				lru = c
			}
		}
	}
	c := lru
	nx := en.nx
	en.jx.ScatterTo(en.ad, jb)
	en.ex.ExpInt2To(c.e, en.w, en.psi, en.ad, h)
	en.stats.Exponentials++
	en.stats.Squarings += en.ex.Last.Squarings
	ih := 1 / h
	for i := 0; i < nx*nx; i++ {
		c.ph[i] = en.psi[i] * ih
		c.wt[i] = en.w[i] - c.ph[i]
	}
	copy(c.an, jb)
	clear(st.dB)
	c.h, c.valid, c.used = h, true, st.stamp
	return c, true
}

// endStep is the ExpEndpoint step on [a.t, b.t] with reference matrix An
// (= Jb when fresh): S' = An S + g, g = (Jx - An) S + Jp, g linear in t:
//
//	(I - Ph (Jb - An)) S(tb) = (E + Wt (Ja - An)) S(ta) + Wt Pa + Ph Pb.
//
// With An = Jb the left side is S(tb). With An != Jb (a reused
// exponential) the implicit treatment of g(tb) keeps the stiff limit
// Jb S(tb) = -Pb exact.
func (en *engine) endStep(s []float64, a, b *point, h float64) {
	nx, ns := en.nx, en.ns
	sl, fresh := en.slotFor(a.jx, b.jx, h)
	en.lastAn = sl.an
	st := &en.end
	for k := range st.dA {
		st.dA[k] = a.jx[k] - sl.an[k]
	}
	// M = E + Wt dA (Jx of reaction networks is far from sparse at these
	// sizes: a dense product is faster than a sparse one).
	copy(en.mm, sl.e)
	en.jx.ScatterTo(en.ad, st.dA)
	en.gemm(en.mm, sl.wt, en.ad, nx, nx, 1, 1)
	if ns > 0 && nx > 0 {
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1,
			blas64.General{Rows: nx, Cols: nx, Stride: nx, Data: en.mm},
			blas64.General{Rows: nx, Cols: ns, Stride: ns, Data: s},
			0, blas64.General{Rows: nx, Cols: ns, Stride: ns, Data: en.t1})
	}
	en.addDenseP(en.t1, sl.wt, a.jp)
	en.addDenseP(en.t1, sl.ph, b.jp)
	if !fresh {
		// N = I - Ph dB, solve N S(tb) = t1.
		nm := st.nmat
		clear(nm)
		for i := 0; i < nx; i++ {
			nm[i*nx+i] = 1
		}
		en.jx.ScatterTo(en.ad, st.dB)
		en.gemm(nm, sl.ph, en.ad, nx, nx, -1, 1)
		luFactor(nm, st.piv, nx)
		luSolve(nm, st.piv, nx, en.t1, ns)
	}
	copy(s, en.t1)
	en.stats.ExpSteps++
}

// jumpTol is the relative change of Jx over one step (infinity norm) above
// which a cached exponential is not reused (measured on Chua's circuit,
// whose Jacobian jumps at the kinks of its diode).
const jumpTol = 0.1

// relChangeInf is ||vb - va||_inf / ||va||_inf for sparse Jx values.
func (en *engine) relChangeInf(va, vb []float64) float64 {
	rp := en.jx.RowPtr
	var d, n float64
	for r := 0; r+1 < len(rp); r++ {
		var rd, rn float64
		for k := rp[r]; k < rp[r+1]; k++ {
			rd += math.Abs(vb[k] - va[k])
			rn += math.Abs(va[k])
		}
		d, n = math.Max(d, rd), math.Max(n, rn)
	}
	if d == 0 {
		return 0
	}
	return d / n
}

// addDenseSparse adds alpha D J to dst (nx x nx) for dense D and the sparse
// J (Jx pattern, values v).
func (en *engine) addDenseSparse(dst, d, v []float64, alpha float64) {
	nx := en.nx
	rp, ci := en.jx.RowPtr, en.jx.ColIdx
	for r := 0; r < nx; r++ {
		mr := dst[r*nx : (r+1)*nx]
		for i, wv := range d[r*nx : (r+1)*nx] {
			if wv == 0 {
				continue
			}
			wv *= alpha
			for k := rp[i]; k < rp[i+1]; k++ {
				mr[ci[k]] += wv * v[k]
			}
		}
	}
}

// luFactor factorizes the n x n row-major a in place with partial pivoting.
func luFactor(a []float64, piv []int, n int) {
	for k := 0; k < n; k++ {
		p := k
		mx := math.Abs(a[k*n+k])
		for i := k + 1; i < n; i++ {
			if v := math.Abs(a[i*n+k]); v > mx {
				mx, p = v, i
			}
		}
		piv[k] = p
		if p != k {
			rk, rp := a[k*n:k*n+n], a[p*n:p*n+n]
			for j := range rk {
				rk[j], rp[j] = rp[j], rk[j]
			}
		}
		d := a[k*n+k]
		if d == 0 {
			continue
		}
		rk := a[k*n+k+1 : k*n+n]
		for i := k + 1; i < n; i++ {
			l := a[i*n+k] / d
			a[i*n+k] = l
			if l == 0 {
				continue
			}
			ri := a[i*n+k+1 : i*n+n]
			for j, x := range rk {
				ri[j] -= l * x
			}
		}
	}
}

// gemm computes dst = alpha a b + beta dst for row-major a (n x k) and
// b (k x m), with k = nx.
func (en *engine) gemm(dst, a, b []float64, n, m int, alpha, beta float64) {
	if n == 0 || m == 0 {
		return
	}
	k := en.nx
	blas64.Gemm(blas.NoTrans, blas.NoTrans, alpha,
		blas64.General{Rows: n, Cols: k, Stride: k, Data: a},
		blas64.General{Rows: k, Cols: m, Stride: m, Data: b},
		beta, blas64.General{Rows: n, Cols: m, Stride: m, Data: dst})
}

// luSolve overwrites the n x nrhs row-major b with a^{-1} b using the
// factorization of luFactor (row swaps, then two triangular solves).
func luSolve(lu []float64, piv []int, n int, b []float64, nrhs int) {
	if n == 0 || nrhs == 0 {
		return
	}
	for k := 0; k < n; k++ {
		if p := piv[k]; p != k {
			rk, rp := b[k*nrhs:(k+1)*nrhs], b[p*nrhs:(p+1)*nrhs]
			for j := range rk {
				rk[j], rp[j] = rp[j], rk[j]
			}
		}
	}
	l := blas64.Triangular{N: n, Stride: n, Data: lu, Uplo: blas.Lower, Diag: blas.Unit}
	u := blas64.Triangular{N: n, Stride: n, Data: lu, Uplo: blas.Upper, Diag: blas.NonUnit}
	bg := blas64.General{Rows: n, Cols: nrhs, Stride: nrhs, Data: b}
	blas64.Trsm(blas.Left, blas.NoTrans, 1, l, bg)
	blas64.Trsm(blas.Left, blas.NoTrans, 1, u, bg)
}
