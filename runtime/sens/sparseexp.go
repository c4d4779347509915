package sens

import (
	"github.com/pbgen/pbgen/runtime/expm"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sparse"
)

// The exponential steps without dense exponentials (ExpActionSparse).
//
// The end-point step of the default PBSR and Exp (endpointStep) is, with
// An = Jb, the exact solution at tb of S' = Jb S + g(s) for the forcing g
// linear in s from g(0) = (Ja - Jb) S(ta) + Pa to g(h) = Pb:
//
//	S(tb) = e^{hJb} S(ta) + h phi1(hJb) G0 + h^2 phi2(hJb) G1,
//	G0 = (Ja - Jb) S(ta) + Pa,   G1 = (Pb - G0)/h,
//
// which is what expm.Action.PhiTo computes from sparse products with Jb
// alone: an nx x ns block per product, never an nx x nx matrix. The dense
// path gets its speed from reusing a cached exponential across steps of
// the same length (with the W-method correction for the difference); the
// action has nothing to cache, so every step is the fresh end-point step,
// the most accurate form of the dense one (no correction needed).
//
// The Taylor action costs about ||hJb||_1 products (plus a few): on a stiff
// step it is replaced by shift-and-invert Krylov (expm.StiffAction),
// whose number of sparse LU solves does not grow with ||hJb||. On the
// scalenet chains at n = 198 and 999 (20 columns, phi1 and phi2 forcing),
// the Taylor action was faster than the Krylov one at ||hJ||_1 = 3 to 300
// (0.77 ms against 1.36 ms at 3, 20 ms against 30 ms at 300, n = 198) and
// the two were even at 1000: stiffActionNorm. The default PBSR and Exp on
// the chains take steps with ||hJ||_1 of about 3, so the Taylor action
// runs there.
//
// The frozen steps near equilibrium (freeze.go) apply the same action with
// Jx, Jp of the frozen point and a constant forcing, and the paper's
// frozen and Magnus steps (paperexp.go) are the action with G0 = B,
// G1 = 0. PBSR's local error filter (I - h An/4)^{-2} (control.go) is
// applied with two solves of the sparse LU of I - h An/4.

// reuseEstimates is how many steps share one estimate of the norms of the
// powers of hJ that choose the Taylor action's degree and number of steps
// (expm.Action.ReuseEstimates): J and h change little from one step to
// the next. On the chains (PBSR, n = 99 to 498) it cut the CPU time of a
// solve by 11% against an estimate per step (or none up to ||hJ||_1 =
// 30); 64 saved nothing more.
const reuseEstimates = 16

// stiffActionNorm is the ||hJ||_1 above which the step's action uses
// shift-and-invert Krylov instead of the Taylor series (see above).
const stiffActionNorm = 600

// sparseExp is the state of the sparse exponential steps: the two
// actions, the forcing blocks, An and h of the last step (for PBSR's error
// estimate) and the LU of the error filter.
type sparseExp struct {
	act *expm.Action
	// stiff is made at the first stiff step (its Krylov basis holds 80
	// nx x ns blocks, more than all the rest: not paid where no step is
	// stiff).
	stiff  *expm.StiffAction
	g0, g1 []float64 // nx*ns: the forcing blocks G0, G1
	dA     []float64 // nnz(Jx): Ja - Jb
	an     []float64 // nnz(Jx): An = Jb of the last end-point step
	h      float64   // the last end-point step's length
	cs     []float64 // nx: scratch of Norm1

	// The filter of localError: the LU of I - h An/4 (fGood: for the
	// current an, h), and its solve's output.
	fsh   *sparse.Shifted
	fm    *sparse.CSR
	flu   *sparse.LU
	fGood bool
	fout  []float64 // nx*nProbe

	// frozen counts the frozen steps taken (sparseFrozenStep), for the
	// tests.
	frozen int
}

func newSparseExp(jx *model.Pattern, nx, ns int) *sparseExp {
	sp := &sparseExp{act: expm.NewAction(nx, ns),
		g0: make([]float64, nx*ns), g1: make([]float64, nx*ns),
		dA: make([]float64, jx.NNZ()), an: make([]float64, jx.NNZ()),
		cs: make([]float64, nx), fout: make([]float64, nx*nProbe)}
	sp.act.ReuseEstimates = reuseEstimates
	sp.fsh = sparse.NewShifted(jx)
	sp.fm = sparse.New(sp.fsh.Pat)
	sp.flu = sparse.NewLU(sparse.Analyze(sp.fsh.Pat, sparse.OrderAMD))
	sp.flu.Reserve(nProbe)
	return sp
}

// phiAction writes e^{hA} b + h phi1(hA) g0 + h^2 phi2(hA) g1 into dst
// for the Jx values av (g1 may be nil; dst may alias b): the Taylor action,
// or shift-and-invert Krylov where ||hA||_1 > stiffActionNorm (the Taylor
// action if that fails: it always converges, only more slowly).
func (en *engine) phiAction(dst []float64, av []float64, h float64, b, g0, g1 []float64) {
	sp := en.sparse
	a := en.jxm(av)
	if h*a.Norm1(sp.cs) > stiffActionNorm {
		if sp.stiff == nil {
			sp.stiff = expm.NewStiffAction(en.jac.jx, en.ns)
		}
		if sp.stiff.PhiTo(dst, &a, h, b, g0, g1) == nil {
			en.stats.Exponentials++
			return
		}
	}
	sp.act.PhiTo(dst, &a, h, b, g0, g1)
	en.stats.Exponentials++
}

// sparseEndpointStep is endpointStep without dense matrices: the fresh
// end-point step S(tb) = e^{hJb} S(ta) + h phi1 G0 + h^2 phi2 G1 (see the
// file comment) into dst from src.
func (en *engine) sparseEndpointStep(dst, src []float64, a, b *point, h float64) {
	sp := en.sparse
	// G0 = (Ja - Jb) S(ta) + Pa.
	for k, v := range a.jx {
		sp.dA[k] = v - b.jx[k]
	}
	en.jxm(sp.dA).MulBlockTo(sp.g0, src, en.ns)
	en.addP(sp.g0, 1, a.jp)
	// G1 = (Pb - G0)/h.
	ih := 1 / h
	for i, v := range sp.g0 {
		sp.g1[i] = -ih * v
	}
	en.addP(sp.g1, ih, b.jp)
	en.phiAction(dst, b.jx, h, src, sp.g0, sp.g1)
	copy(sp.an, b.jx)
	sp.h, sp.fGood = h, false
	en.stats.ExpSteps++
}

// sparseFrozenStep is frozenStep without dense matrices: the exact step
// S(tb) = e^{hJf} S(ta) + h phi1(hJf) Pf of the frozen point f, with the
// dense Pf kept in the frozen map's c (built once per frozen stretch).
func (en *engine) sparseFrozenStep(dst, src []float64, f *point, h float64) {
	fm := &en.freeze.m
	if !fm.valid {
		clear(fm.c)
		en.addP(fm.c, 1, f.jp)
		fm.valid = true
	}
	fm.h = h
	en.phiAction(dst, f.jx, h, src, fm.c, nil)
	en.stats.ExpSteps++
	en.sparse.frozen++
}

// sparsePaperStep is expStepH's frozen or Magnus step without dense
// matrices: s = e^{hA} s + h phi1(hA) B for the Jx values av and the
// reduced Jp values bv, in place.
func (en *engine) sparsePaperStep(s, av, bv []float64, h float64) {
	sp := en.sparse
	clear(sp.g0)
	en.addP(sp.g0, 1, bv)
	en.phiAction(s, av, h, s, sp.g0, nil)
	en.stats.ExpSteps++
}

// sparseFilter overwrites the nx x nProbe g with (I - h An/4)^{-2} g for
// An and h of the last end-point step (see filter): two solves with the
// sparse LU of I - h An/4, factorised once per step.
func (en *engine) sparseFilter(g []float64) {
	sp := en.sparse
	if !sp.fGood {
		sp.fsh.Fill(sp.fm, 1, -sp.h/4, sp.an)
		if err := sp.flu.Refactor(sp.fm); err != nil {
			// I - h An/4 is singular (An with an eigenvalue at 4/h,
			// growth the step cannot represent anyway): no filter, the
			// estimate is then that of the unfiltered g.
			return
		}
		sp.fGood = true
	}
	sp.flu.SolveTo(sp.fout, g, nProbe)
	sp.flu.SolveTo(g, sp.fout, nProbe)
}

// sparseExpBytes estimates the bytes of the sparse exponential steps for
// nx states, ns columns and nnz non-zeros of Jx: the Taylor action (5
// nx x ns blocks and its norm vectors), the forcing blocks, the filter's
// LU (its fill taken as 8 times nnz, in values and indices) and, where a
// step is stiff, the Krylov basis of StiffAction (81 nx x ns blocks).
func sparseExpBytes(nx, ns, nnz int) float64 {
	n, k, z := float64(nx), float64(ns), float64(nnz)
	return 8 * ((5+2+81+nProbe)*n*k + 4*n*k + 20*n + 4*z + 2*8*z)
}
