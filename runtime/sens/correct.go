package sens

import (
	"math"

	"github.com/pbgen/pbgen/runtime/internal/dense"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sparse"
)

// corrector is the state of PBSR's third-order variant (Tuning.Order =
// 3) on the dyadic grid. The end-point step integrates the forcing
// g = (Jx - An) S + Jp by its linear interpolant over [ta, tb], which
// leaves the local error -(h^3/6) R(hAn) g[ta, tb, s] (localError):
// second order. The corrector adds the quadratic term of the
// interpolant through the last accepted point tp as well,
//
//	S(tb) += -(h^3/6) R(hAn) g[tp, ta, tb],
//
// with R(z) = 6 (phi2(z) - 2 phi3(z)) replaced by the filter
// (I - z/4)^{-2} of localError, equal to first order at z = 0 (the step
// stays third order) and damping stiff components as R does. The
// second divided difference of g comes from q = Jx S + Jp at the three
// points, g = q - An S, on the full nx x ns blocks. The local error is
// then that of the quadratic interpolant, estimated from the third
// divided difference over four points (localError3), and the step
// length follows it with the exponent 1/4: the number of steps grows as
// tol^(-1/4) instead of tol^(-1/3), and the global error, the sum of the
// local ones, falls as tol^(3/4) instead of tol^(2/3) (on A <-> B from
// rtol 1e-8 to 1e-10: 34 times against 22, at 411 and 1288 steps
// against 873 and 4034; TestOrder3). The cost is three nx x ns products
// a step: q at the new point, An times the divided difference of S, and
// the filter; measured in docs/algorithms.md ("Order 3 steps at tight
// tolerances").
type corrector struct {
	on bool
	// sparse applies the filter by sparse solves (nil: the dense filter).
	sparse *corrFilter
	// q holds Jx S + Jp at tp, ta, tb (slots rotated on acceptance:
	// qp, qa, qb); sp is S at tp.
	qbuf       [3][]float64 // nx*ns each
	qp, qa, qb []float64
	sp         []float64 // nx*ns
}

func newCorrector(on bool, nx, ns int) corrector {
	c := corrector{on: on}
	if !on {
		return c
	}
	for i := range c.qbuf {
		c.qbuf[i] = make([]float64, nx*ns)
	}
	c.sp = make([]float64, nx*ns)
	c.qp, c.qa, c.qb = c.qbuf[0], c.qbuf[1], c.qbuf[2]
	return c
}

// qAt writes q = Jx S + Jp at pt into dst.
func (en *engine) qAt(dst, s []float64, pt *point) {
	en.spmm(dst, pt.jx, s)
	en.addP(dst, 1, pt.jp)
}

// correct adds the quadratic term of the forcing's interpolant through
// (tp, ta, tb) to the second-order end-point result sb = S(tb), given
// sa = S(ta), the corrector's S(tp) and q at tp and ta, and computes q
// at tb (from the second-order sb: the difference, O(h^3), changes the
// next steps' divided differences by O(h), their corrections by O(h^4)).
// withP: the history holds tp (otherwise only q(tb) is computed).
func (en *engine) correct(sb, sa []float64, b *point, ta, tp float64, withP bool) {
	c := &en.corrector
	en.qAt(c.qb, sb, b)
	if !withP {
		return
	}
	h, hp := b.t-ta, ta-tp
	cb := 1 / (h * (h + hp))
	cp := 1 / (hp * (h + hp))
	ca := -(cb + cp)
	ds, w := en.t2, en.t3
	for i := range ds {
		ds[i] = cb*sb[i] + ca*sa[i] + cp*c.sp[i]
	}
	// g[tp, ta, tb] = D2 q - An D2 S, into ds.
	sl := en.endpoint.last
	en.spmm(w, sl.an, ds)
	for i := range ds {
		ds[i] = cb*c.qb[i] + ca*c.qa[i] + cp*c.qp[i] - w[i]
	}
	if f := c.sparse; f != nil {
		en.sparseCorrFilter(f, sl, ds)
		dense.Axpy(sb, ds, -h*h*h/6)
	} else {
		en.ensureFilter(sl)
		en.gemm(sb, sl.f2, ds, en.nx, en.ns, -h*h*h/6, 1)
	}
	en.stats.Corrections++
}

// corrFilter applies the filter (I - h An/4)^{-2} of a slot to the
// corrector's nx x ns block with two solves of the sparse LU of
// I - h An/4 (factorised once per filling of the slot), on models with a
// large sparse Jx (engine.sparseJProd): there the dense (I - h An/4)^{-2}
// times the block, an nx x nx by nx x ns product (0.3 ms on
// Lang_PLOSComputBiol2024, 124 states, 317 columns), costs more than the
// two solves.
type corrFilter struct {
	sh   *sparse.Shifted
	m    *sparse.CSR
	lu   *sparse.LU
	out  []float64 // nx*ns
	slot *refSlot  // the slot and filling the LU is of (ok)
	gen  int
	ok   bool
}

func newCorrFilter(jx *model.Pattern, nx, ns int) *corrFilter {
	f := &corrFilter{sh: sparse.NewShifted(jx), out: make([]float64, nx*ns)}
	f.m = sparse.New(f.sh.Pat)
	f.lu = sparse.NewLU(sparse.Analyze(f.sh.Pat, sparse.OrderAMD))
	f.lu.Reserve(ns)
	return f
}

// sparseCorrFilter overwrites the nx x ns g with (I - h An/4)^{-2} g for
// the slot's An and h; where I - h An/4 cannot be factorised it falls
// back on the dense filter (which leaves its zero pivot in place, as the
// dense path always did).
func (en *engine) sparseCorrFilter(f *corrFilter, sl *refSlot, g []float64) {
	if !f.ok || f.slot != sl || f.gen != sl.filled {
		f.sh.Fill(f.m, 1, -sl.h/4, sl.an)
		f.slot, f.gen = sl, sl.filled
		f.ok = f.lu.Refactor(f.m) == nil
	}
	if !f.ok {
		en.ensureFilter(sl)
		copy(f.out, g)
		en.gemm(g, sl.f2, f.out, en.nx, en.ns, 1, 0)
		return
	}
	f.lu.SolveTo(f.out, g, en.ns)
	f.lu.SolveTo(g, f.out, en.ns)
}

// shift moves the corrector's history on by an accepted step from sa
// (S(ta)).
func (c *corrector) shift(sa []float64) {
	copy(c.sp, sa)
	c.qp, c.qa, c.qb = c.qa, c.qb, c.qp
}

// localError3 is localError for the corrected step: the error of the
// quadratic interpolant of g through (tp, ta, tb), integrated over the
// step and filtered as in localError: (h^4/12 + hp h^3/6) times
// ||(I - h An/4)^{-2} g[tpp, tp, ta, tb]||, the third divided difference
// over the four probe nodes.
func (en *engine) localError3(pb, pa, pp, ppp *probeNode, tb, ta, tp, tpp float64) float64 {
	h, hp := tb-ta, ta-tp
	d := en.control.pd
	g := en.control.pg
	// Divided differences of the nodes (tpp, tp, ta, tb).
	x0, x1, x2, x3 := tpp, tp, ta, tb
	w0 := 1 / ((x0 - x1) * (x0 - x2) * (x0 - x3))
	w1 := 1 / ((x1 - x0) * (x1 - x2) * (x1 - x3))
	w2 := 1 / ((x2 - x0) * (x2 - x1) * (x2 - x3))
	w3 := 1 / ((x3 - x0) * (x3 - x1) * (x3 - x2))
	for i := range d {
		d[i] = w0*ppp.sv[i] + w1*pp.sv[i] + w2*pa.sv[i] + w3*pb.sv[i]
		g[i] = w0*ppp.qv[i] + w1*pp.qv[i] + w2*pa.qv[i] + w3*pb.qv[i]
	}
	en.spmmK(en.control.pt, en.endpoint.last.an, d)
	for i := range g {
		g[i] -= en.control.pt[i]
	}
	en.filter(en.endpoint.last, g)
	var e2 float64
	for _, x := range g {
		e2 += x * x
	}
	scale := h*h*h*h/12 + hp*h*h*h/6
	return scale * math.Sqrt(e2/nProbe)
}

// order3Below is the SensRTol at and below which PBSR takes order 3
// steps by default (Tuning.Order 0). Measured (CPU time, errors against
// FS at rtol 1e-11): at 1e-8 order 3 was faster than order 2 on PKA,
// CaMKII and Chua (9.2 against 9.4 ms, 66 against 80, 2.2 against 3.9)
// and 2 to 25 times more accurate; at 1e-7 it cost 20% more on PKA and
// CaMKII, at 1e-6 34% to 55% more.
const order3Below = 1e-8

// order3States is the number of states from which PBSR takes order 3
// steps by default on the dense exponential path whatever SensRTol (see
// orderFor). On small networks an order 3 step costs about 1.5 times an
// order 2 one (the corrector's products are as costly as the step's), so
// at 1e-6 the fewer steps did not pay (order3Below). On a large network
// the cached exponentials and the W-method solves with the full S, which
// the corrector does not add to, cost more than its products, and the
// steps fall as tol^(-1/4) instead of tol^(-1/3): on
// Lang_PLOSComputBiol2024 (124 states, 317 parameters, rtol 1e-6,
// TestLangAccuracy) order 3 took 6696 steps against 11991 and 16.5 s of
// CPU against 20.6 s, with the same error against FS at rtol 1e-10
// (1.1e-4 against 1.2e-4: rounding, not the steps, sets it there; see
// roundFloor). It is SparseExpMinStates: the models between the paper's
// networks (21 states at most) and the sparse exponential path.
const order3States = SparseExpMinStates

// orderFor is the order of PBSR's steps on a model of nx states with nnz
// non-zeros in Jx: c.order, raised to 3 by default (Tuning.Order 0) on
// models of at least order3States states that take the dense
// exponentials (the sparse path has order 2 steps only).
func (c *config) orderFor(nx, nnz int) int {
	if c.orderAuto && c.order == 2 && c.method == PBSR && c.grid == GridDyadic &&
		nx >= order3States && !useSparseExp(c.expAction, nx, nnz) {
		return 3
	}
	return c.order
}

// order3Safety is the share of the tolerance SensRTol ||S|| + SensATol
// that the local error of an order 3 step may take. The global error is
// the sum of the local ones over the steps: at rtol 1e-10 with the full
// share PBSR was 8.4e-9 off on PKA and 7.5e-8 off the central
// differences of the bolus model; a tenth takes about 1.6 times the
// steps (10^(1/4) at most) for 3.0e-9 and 9.7e-9. A hundredth (5.7e-11
// on A <-> B, 6.5e-10 on PKA) was slower than order 2 at rtol 1e-8.
const order3Safety = 0.1
