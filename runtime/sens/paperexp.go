package sens

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// paperExp is the state of the paper's exponential steps (ExpFrozen,
// ExpMagnus): the exponential of the last step and what it was computed
// from, reused while the matrix and the step stay the same.
type paperExp struct {
	e, w       []float64 // nx*nx: e^{hA} and int_0^h e^{uA} du
	cacheA     []float64 // nnz(Jx): the A of e and w
	cacheH     float64   // the h of e and w
	cacheValid bool
	// cacheConv: e had converged to the steady-state projector, so a
	// longer step has the same e (see expOf).
	cacheConv  bool
	avgJ, avgP []float64 // the Magnus averages of Jx (nnz(Jx)) and Jp
}

// newPaperExp allocates the paper steps' scratch; e and w only for the
// dense exponentials (dense).
func newPaperExp(nx, nnzx, nnzp int, dense bool) paperExp {
	pe := paperExp{cacheA: make([]float64, nnzx), avgJ: make([]float64, nnzx), avgP: make([]float64, nnzp)}
	if dense {
		pe.e, pe.w = make([]float64, nx*nx), make([]float64, nx*nx)
	}
	return pe
}

// expStep advances s in place over [a.t, b.t] with the exponential step
// S(tb) = e^{hA} S(ta) + (int_0^h e^{uA} du) B, where (A, B) are frozen at
// a (ExpFrozen), averaged over the end points (ExpMagnus) or linearised at
// the end point (ExpEndpoint).
func (en *engine) expStep(s []float64, a, b *point) {
	en.expStepH(s, a, b, b.t-a.t)
}

// expStepH is expStep with the nominal step length h (b.t - a.t up to
// rounding; equal nominal lengths let the exponentials be reused).
func (en *engine) expStepH(s []float64, a, b *point, h float64) {
	en.stepT = a.t
	if en.cfg.expStep == ExpEndpoint {
		nS := frob(s)
		en.endpointStep(en.t2, s, a, b, h, nS, en.cfg.srtol*nS+en.cfg.satol)
		copy(s, en.t2)
		return
	}
	av, bv := a.jx, a.jp
	if en.cfg.expStep == ExpMagnus {
		for k := range en.paper.avgJ {
			en.paper.avgJ[k] = 0.5 * (a.jx[k] + b.jx[k])
		}
		for k := range en.paper.avgP {
			en.paper.avgP[k] = 0.5 * (a.jp[k] + b.jp[k])
		}
		av, bv = en.paper.avgJ, en.paper.avgP
	}
	if en.sparse != nil {
		en.sparsePaperStep(s, av, bv, h)
		return
	}
	en.expOf(av, h)
	// t1 = E S + W B.
	nx, ns := en.nx, en.ns
	if ns > 0 && nx > 0 {
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1,
			blas64.General{Rows: nx, Cols: nx, Stride: nx, Data: en.paper.e},
			blas64.General{Rows: nx, Cols: ns, Stride: ns, Data: s},
			0, blas64.General{Rows: nx, Cols: ns, Stride: ns, Data: en.t1})
	}
	en.jpm(bv).LeftMulAddTo(en.t1, en.paper.w, nx)
	copy(s, en.t1)
	en.stats.ExpSteps++
}

// expOf makes en.paper.e = e^{hA}, en.paper.w = int_0^h e^{uA} du for the sparse A
// values av, reusing the previous exponential when A is unchanged (within
// ReuseTol) and h is equal, or when the previous E had converged to the
// steady-state projector P and h is longer: then E(h) = P and
// W(h) = W(h_prev) + (h - h_prev) P.
func (en *engine) expOf(av []float64, h float64) {
	if en.paper.cacheValid && en.cfg.reuseTol >= 0 && (h == en.paper.cacheH || (en.paper.cacheConv && h > en.paper.cacheH)) {
		var d, mx float64
		for k, v := range av {
			d = math.Max(d, math.Abs(v-en.paper.cacheA[k]))
			mx = math.Max(mx, math.Abs(en.paper.cacheA[k]))
		}
		if d <= en.cfg.reuseTol*mx {
			if h != en.paper.cacheH {
				c := h - en.paper.cacheH
				for i, x := range en.paper.e {
					en.paper.w[i] += c * x
				}
				en.paper.cacheH = h
			}
			en.stats.ExpReuses++
			return
		}
	}
	en.scatterAd(av)
	en.ex.ExpIntTo(en.paper.e, en.paper.w, en.ad, h)
	en.stats.Exponentials++
	en.stats.Squarings += en.ex.Last.Squarings
	copy(en.paper.cacheA, av)
	en.paper.cacheH, en.paper.cacheValid, en.paper.cacheConv = h, true, en.ex.Last.Converged >= 0
}
