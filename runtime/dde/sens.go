package dde

import (
	"fmt"
	"math"
	"slices"

	"github.com/pbgen/pbgen/runtime/model"
)

// sensRHS is the model handed to runtime/ode by SolveSens: the integrated
// vector z = (x, S column by column) with
//
//	x' = f(t, x, p, d),  S' = Jx S + Jp + Fd D,
//
// where d and D = dd/dp are looked up in the history of z (see sensAt).
// Its Jacobian, for the BDF's Newton iteration, is block diagonal with a
// copy of Jx per block: the derivatives of S' in x (second derivatives of
// f) and the dependence of D on the current z through delays of length
// zero are left out, as CVODES's simultaneous corrector leaves out the
// former; Newton converges to the same solution, a little slower.
//
// It is one solve's and not safe for concurrent use; it does not
// implement model.Delays, so runtime/ode integrates it.
type sensRHS struct {
	model.Model
	ds         model.DelaySens
	h          *history
	p          []float64
	nx, np, nd int
	names      []string
	jxPat      *model.Pattern // of the model
	zPat       *model.Pattern // block diagonal, nz x nz
	jpPat      *model.Pattern // of the model
	fdPat      *model.Pattern
	emptyJp    *model.Pattern
	jx, jp, fd []float64
	tau        []float64 // the (constant) delays
	tauP       []float64 // nd x np, dtau_k/dp
	tauDep     []bool    // tau_k depends on some parameter
	zeroDep    bool      // some tau_k is 0 and depends on a parameter
	lv         []sensLevel
	d0         []float64 // the delayed values at the start
	srcs       []jumpSrc // the times the state jumped (jump)
	jt         []float64 // jumpTime's result (np)
	// brk is the solve's list of breaking points (Result.Breaks), into
	// which addSource puts the times where S jumps, before tend.
	brk  *[]float64
	tend float64
}

// sensLevel is the scratch of one depth of the lookups of sensAt: a
// point of the history and the delayed values there with their
// derivatives.
type sensLevel struct {
	z          []float64 // nz: x and S at the point (looked-up levels)
	d, dt      []float64 // nd: d_k and d_k' at the point
	D          []float64 // nd x np: dd_k/dp at the point
	f          []float64 // nx: x' at the point
	gx, gp, gd []float64 // a gradient of e_k
}

// newSensRHS builds the sensitivity right-hand side of m; ds.FdPattern
// must be a valid nx x nd pattern (SolveSens checks it).
func newSensRHS(m model.Model, ds model.DelaySens, h *history, p, tau []float64) *sensRHS {
	nx, np, nd := h.nx, len(p), h.nd
	nz := nx * (1 + np)
	r := &sensRHS{Model: m, ds: ds, h: h, p: p, nx: nx, np: np, nd: nd,
		jxPat: m.JxPattern(), jpPat: m.JpPattern(), fdPat: ds.FdPattern(),
		tau: slices.Clone(tau), tauP: make([]float64, nd*np), tauDep: make([]bool, nd), jt: make([]float64, np)}
	r.names = make([]string, nz)
	sn := m.StateNames()
	pn := m.ParamNames()
	copy(r.names, sn)
	for j := 0; j < np; j++ {
		for i := 0; i < nx; i++ {
			r.names[nx+j*nx+i] = "S:" + sn[i] + ":" + pn[j]
		}
	}
	// The block-diagonal pattern: block b holds Jx's pattern shifted by
	// b nx in rows and columns; its values are Jx's repeated.
	zp := &model.Pattern{Rows: nz, Cols: nz, RowPtr: make([]int, nz+1)}
	for b := 0; b <= np; b++ {
		for i := 0; i < nx; i++ {
			for q := r.jxPat.RowPtr[i]; q < r.jxPat.RowPtr[i+1]; q++ {
				zp.ColIdx = append(zp.ColIdx, b*nx+r.jxPat.ColIdx[q])
			}
			zp.RowPtr[b*nx+i+1] = len(zp.ColIdx)
		}
	}
	r.zPat = zp
	r.emptyJp = &model.Pattern{Rows: nz, Cols: 0, RowPtr: make([]int, nz+1)}
	r.jx = make([]float64, r.jxPat.NNZ())
	r.jp = make([]float64, r.jpPat.NNZ())
	r.fd = make([]float64, r.fdPat.NNZ())
	// The delays depend on p only: their derivatives are computed once.
	x0 := h.x0[:nx]
	dk := make([]float64, nd)
	for k := 0; k < nd; k++ {
		ds.DelayTimeGrad(k, h.t0, x0, p, dk, r.tauP[k*np:(k+1)*np])
		for _, v := range r.tauP[k*np : (k+1)*np] {
			if v != 0 {
				r.tauDep[k] = true
				r.zeroDep = r.zeroDep || tau[k] == 0
			}
		}
	}
	r.lv = make([]sensLevel, nd+2)
	for l := range r.lv {
		r.lv[l] = sensLevel{z: make([]float64, nz), d: make([]float64, nd), dt: make([]float64, nd),
			D: make([]float64, nd*np), f: make([]float64, nx),
			gx: make([]float64, nx), gp: make([]float64, np), gd: make([]float64, nd)}
	}
	return r
}

// The integrator sees a model of nz states and no parameters (its
// vectors would otherwise be sized for sensitivities of z, np+1 times
// larger): the parameters are r.p, and p is nil in F and Jx.
func (r *sensRHS) StateNames() []string                        { return r.names }
func (r *sensRHS) ParamNames() []string                        { return nil }
func (r *sensRHS) DefaultParams(dst []float64)                 {}
func (r *sensRHS) JxPattern() *model.Pattern                   { return r.zPat }
func (r *sensRHS) JpPattern() *model.Pattern                   { return r.emptyJp }
func (r *sensRHS) Jp(dst []float64, t float64, z, p []float64) {}

// F writes x' and S' at (t, z).
func (r *sensRHS) F(dst []float64, t float64, z, _ []float64) {
	nx, np, p := r.nx, r.np, r.p
	lv := &r.lv[0]
	r.sensAt(t, z, r.nd, false, 0)
	x := z[:nx]
	r.ds.FDelayed(dst[:nx], t, x, p, lv.d)
	r.ds.JxDelayed(r.jx, t, x, p, lv.d)
	r.ds.JpDelayed(r.jp, t, x, p, lv.d)
	r.ds.FdDelayed(r.fd, t, x, p, lv.d)
	dS := dst[nx:]
	clear(dS)
	S := z[nx:]
	for i := 0; i < nx; i++ {
		for q := r.jxPat.RowPtr[i]; q < r.jxPat.RowPtr[i+1]; q++ {
			c, v := r.jxPat.ColIdx[q], r.jx[q]
			for j := 0; j < np; j++ {
				dS[j*nx+i] += v * S[j*nx+c]
			}
		}
		for q := r.jpPat.RowPtr[i]; q < r.jpPat.RowPtr[i+1]; q++ {
			dS[r.jpPat.ColIdx[q]*nx+i] += r.jp[q]
		}
		for q := r.fdPat.RowPtr[i]; q < r.fdPat.RowPtr[i+1]; q++ {
			k, v := r.fdPat.ColIdx[q], r.fd[q]
			Dk := lv.D[k*np : (k+1)*np]
			for j := 0; j < np; j++ {
				dS[j*nx+i] += v * Dk[j]
			}
		}
	}
}

// Jx writes the block-diagonal approximation of the Jacobian in z.
func (r *sensRHS) Jx(dst []float64, t float64, z, _ []float64) {
	lv := &r.lv[0]
	r.h.setLeft(t)
	r.h.delayed(lv.d, r.nd, t, z, nil, 0)
	r.ds.JxDelayed(r.jx, t, z[:r.nx], r.p, lv.d)
	for b := 0; b <= r.np; b++ {
		copy(dst[b*len(r.jx):], r.jx)
	}
}

// sensAt computes, at the point (t, z) of the solution, the first n
// delayed values into r.lv[level].d, their derivatives in p into .D
// and, when needDt, their derivatives in t along the solution into .dt
// (and x'(t) into .f). For delay k with s = t - tau_k,
//
//	D_k(t) = de_k/dx S(s) + de_k/dp + sum_{j<k} de_k/dd_j D_j(s) - e_k'(s) dtau_k/dp,
//	e_k'(s) = de_k/dt + de_k/dx x'(s) + sum_{j<k} de_k/dd_j d_j'(s),
//
// with the history's dH_k/dp and dH_k/dt before the start; the values at
// s come from the next level. e_k'(s) is formed only where it is used: a
// delay that depends on p, or a caller that needs d'. Every delay has a
// constant length (SolveSens checked), so the nesting is at most nd deep
// and each level reads values of lower index only.
func (r *sensRHS) sensAt(t float64, z []float64, n int, needDt bool, level int) {
	h, nx, np := r.h, r.nx, r.np
	lv := &r.lv[level]
	if r.zeroDep {
		// A delay of length zero that depends on p needs x' at the
		// point, and the derivatives in t of the values before it.
		needDt = true
	}
	nv := n
	if needDt {
		nv = r.nd // x' = f needs them all
	}
	if level == 0 {
		// At a segment's end the point's lookups are left limits, the
		// nested ones too (history.setLeft): x and S alike.
		h.setLeft(t)
	}
	left := h.left
	h.delayed(lv.d, nv, t, z, nil, 0)
	x := z[:nx]
	if needDt {
		r.ds.FDelayed(lv.f, t, x, r.p, lv.d)
	}
	for k := 0; k < n; k++ {
		Dk := lv.D[k*np : (k+1)*np]
		tau := r.tau[k]
		needE := needDt || r.tauDep[k]
		var de float64 // e_k'(s)
		switch {
		case tau == 0:
			// e_k at the point itself.
			et := r.ds.DelayArgGrad(k, t, x, r.p, lv.d, lv.gx, lv.gp, lv.gd)
			r.chain(Dk, z[nx:], lv, lv, k)
			if needE {
				de = et + dot(lv.gx, lv.f) + dot(lv.gd[:k], lv.dt[:k])
			}
		case h.beforeStart(t-tau, left):
			de = r.ds.DelayHistoryGrad(k, t-tau, r.p, Dk)
		default:
			s := t - tau
			nxt := &r.lv[level+1]
			h.stateAt(nxt.z, s, t, z, left)
			reads := min(h.info[k].Reads, k)
			r.sensAt(s, nxt.z, reads, needE, level+1)
			et := r.ds.DelayArgGrad(k, s, nxt.z[:nx], r.p, nxt.d, lv.gx, lv.gp, lv.gd)
			r.chain(Dk, nxt.z[nx:], lv, nxt, reads)
			if needE {
				de = et + dot(lv.gx, nxt.f) + dot(lv.gd[:reads], nxt.dt[:reads])
			}
		}
		if r.tauDep[k] {
			tp := r.tauP[k*np : (k+1)*np]
			for j := range Dk {
				Dk[j] -= de * tp[j]
			}
		}
		if needDt {
			lv.dt[k] = de
		}
	}
}

// chain writes into Dk the derivative in p of e_k through its arguments:
// gx S + gp + sum_{j<n} gd_j D_j, with the gradient in g and S (column
// by column) and D_j from the point at.
func (r *sensRHS) chain(Dk, S []float64, g, at *sensLevel, n int) {
	nx, np := r.nx, r.np
	copy(Dk, g.gp)
	for j := 0; j < np; j++ {
		Dk[j] += dot(g.gx, S[j*nx:(j+1)*nx])
	}
	for i := 0; i < n; i++ {
		if w := g.gd[i]; w != 0 {
			Di := at.D[i*np : (i+1)*np]
			for j := range Dk {
				Dk[j] += w * Di[j]
			}
		}
	}
}

func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// jumpSrc is a time at which the state jumps, so that every delayed
// value of it jumps tau_k later: the start, where the history H_k(t0)
// may not meet e_k(t0, x0), and each event instant that executed. Its
// time moves with p by dt (zero at the start; dtau/dp of the event
// instant), em and ep are e_k on its left and right (NumDelays each).
type jumpSrc struct {
	t      float64
	dt     []float64
	em, ep []float64
	zero   bool // dt is zero
}

// startSource records the start as a jump source: e_k on its left is the
// history H_k(t0), on its right e_k(t0, x0) (h.x0, after any events at
// the start), with the delayed values at the start r.d0.
func (r *sensRHS) startSource() {
	h := r.h
	src := jumpSrc{t: h.t0, dt: make([]float64, r.np), em: make([]float64, r.nd), ep: make([]float64, r.nd), zero: true}
	for k := 0; k < r.nd; k++ {
		src.em[k] = r.ds.DelayHistory(k, h.t0, r.p)
		src.ep[k] = r.ds.DelayArg(k, h.t0, h.x0[:r.nx], r.p, r.d0[:k])
	}
	r.srcs = r.srcs[:0]
	r.addSource(src)
}

// addSource records a jump source and makes the times its jumps reach
// f, t_s + tau_k for each e_k that jumped, breaking points: jump applies
// them at the segments' ends only, so they must be there whatever
// Settings.MaxOrder and MaxBreaks left out.
func (r *sensRHS) addSource(src jumpSrc) {
	r.srcs = append(r.srcs, src)
	if r.brk == nil {
		return
	}
	for k := 0; k < r.nd; k++ {
		b := src.t + r.tau[k]
		if r.tau[k] == 0 || src.em[k] == src.ep[k] || b >= r.tend {
			continue
		}
		bs := *r.brk
		i, _ := slices.BinarySearch(bs, b)
		if i < len(bs) && bs[i]-b <= near(b) || i > 0 && b-bs[i-1] <= near(b) {
			continue
		}
		*r.brk = slices.Insert(bs, i, b)
	}
}

// eventSource records an event instant at t that moved the state from
// xm to xp, with dtau/dp dt: e_k before and after, the delayed values
// at t as they are (they do not jump at t: every delay is longer than
// zero where there are events).
func (r *sensRHS) eventSource(t float64, xm, xp, dt []float64) {
	lv := &r.lv[0]
	src := jumpSrc{t: t, dt: slices.Clone(dt), em: make([]float64, r.nd), ep: make([]float64, r.nd), zero: true}
	for _, v := range dt {
		if v != 0 {
			src.zero = false
		}
	}
	r.h.setLeft(t)
	r.h.delayed(lv.d, r.nd, t, xm, nil, 0)
	for k := 0; k < r.nd; k++ {
		src.em[k] = r.ds.DelayArg(k, t, xm, r.p, lv.d[:k])
		src.ep[k] = r.ds.DelayArg(k, t, xp, r.p, lv.d[:k])
	}
	r.addSource(src)
}

// jumpTime returns, when t is within tol of a time t_s + tau_k at which
// a delayed value jumps (e_k jumped at the source t_s), that time's
// derivative in p, dt_s/dp + dtau_k/dp (in r.jt, a view), else nil.
func (r *sensRHS) jumpTime(t, tol float64) []float64 {
	for si := range r.srcs {
		src := &r.srcs[si]
		for k := 0; k < r.nd; k++ {
			if r.tau[k] == 0 || src.em[k] == src.ep[k] || math.Abs(t-(src.t+r.tau[k])) > tol+near(t) {
				continue
			}
			tp := r.tauP[k*r.np : (k+1)*r.np]
			for j := range r.jt {
				r.jt[j] = src.dt[j] + tp[j]
			}
			return r.jt
		}
	}
	return nil
}

// jump adds to S in z, at a breaking point t, the jumps of S where a
// delayed value jumps at a time that moves with p: where t = t_s + tau_k
// for a jump source t_s (the start, or an event instant) at which e_k
// jumped from e- to e+, d_k and so x' jump at t, a time that moves by
// dt_s/dp + dtau_k/dp, and S jumps by (f- - f+) (dt_s/dp + dtau_k/dp),
// f- and f+ being f with d_k = e- and with d_k = e+ (the other delayed
// values as they are at t). A history that meets the solution at the
// start, as SBML's does unless the initial state is set apart from it,
// gives no jump there; an event instant whose time does not depend on p
// gives none at t_s + tau_k unless tau_k does.
//
// A nested delay passes the jump on: where d_k jumps at t, a delayed
// value e_j that reads it (a nested delay) jumps at t as well, so d_j
// jumps tau_j later; t is recorded as a jump source of those e_j
// (nestedSource), which a later call meets at t + tau_j.
//
// The jumps taken are those of the times in (after, t], after being the
// time of the caller's last call: every such time is a breaking point
// (addSource), so a segment ends there, except where a switch of f is
// carried across a bracket (events.Instants.Across) that holds one; S
// then takes the jump at the bracket's end.
func (r *sensRHS) jump(t float64, z []float64, after float64) {
	h, nx, np := r.h, r.nx, r.np
	lv := &r.lv[0]
	n := len(r.srcs) // sources recorded here act tau later, not now
	for si := 0; si < n; si++ {
		for k := 0; k < r.nd; k++ {
			src := &r.srcs[si]
			b := src.t + r.tau[k]
			if r.tau[k] == 0 || b <= after+near(after) || b > t+near(t) {
				continue
			}
			eMinus, ePlus := src.em[k], src.ep[k]
			if eMinus == ePlus {
				continue
			}
			x := z[:nx]
			h.setLeft(t)
			h.delayed(lv.d, r.nd, t, z, nil, 0)
			r.nestedSource(b, x, si, k)
			src = &r.srcs[si]
			if src.zero && !r.tauDep[k] {
				continue
			}
			lv.d[k] = eMinus
			r.ds.FDelayed(lv.f, t, x, r.p, lv.d)
			lv.d[k] = ePlus
			r.ds.FDelayed(lv.gx, t, x, r.p, lv.d)
			tp := r.tauP[k*np : (k+1)*np]
			for i := 0; i < nx; i++ {
				df := lv.f[i] - lv.gx[i]
				for j := 0; j < np; j++ {
					z[nx+j*nx+i] += df * (src.dt[j] + tp[j])
				}
			}
		}
	}
}

// jumpIn returns a time in (a, b] (b up to rounding) at which a delayed
// value d_k jumps (a jump source's t_s + tau_k), and k, if there is one.
func (r *sensRHS) jumpIn(a, b float64) (float64, int, bool) {
	for si := range r.srcs {
		src := &r.srcs[si]
		for k := 0; k < r.nd; k++ {
			if t := src.t + r.tau[k]; r.tau[k] > 0 && src.em[k] != src.ep[k] && t > a && t <= b+near(b) {
				return t, k, true
			}
		}
	}
	return 0, 0, false
}

// nestedSource records t as a jump source of the delayed values whose
// expressions read d_k (a nested delay, DelayInfo.Reads > k), where d_k
// jumps from source si's e- to e+ (r.lv[0].d holds the delayed values
// there, with the state x): each such e_j is evaluated with d_k = e- and
// with e+, and the source moves with p as d_k's jump does, dt_s/dp +
// dtau_k/dp.
func (r *sensRHS) nestedSource(t float64, x []float64, si, k int) {
	lv := &r.lv[0]
	var nsrc *jumpSrc
	for j := k + 1; j < r.nd; j++ {
		if min(r.h.info[j].Reads, j) <= k {
			continue
		}
		src := &r.srcs[si]
		lv.d[k] = src.em[k]
		em := r.ds.DelayArg(j, t, x, r.p, lv.d[:j])
		lv.d[k] = src.ep[k]
		ep := r.ds.DelayArg(j, t, x, r.p, lv.d[:j])
		if em == ep {
			continue
		}
		if nsrc == nil {
			nsrc = &jumpSrc{t: t, dt: make([]float64, r.np), em: make([]float64, r.nd), ep: make([]float64, r.nd), zero: true}
			tp := r.tauP[k*r.np : (k+1)*r.np]
			for c := range nsrc.dt {
				nsrc.dt[c] = src.dt[c] + tp[c]
				if nsrc.dt[c] != 0 {
					nsrc.zero = false
				}
			}
		}
		nsrc.em[j], nsrc.ep[j] = em, ep
	}
	if nsrc != nil {
		r.addSource(*nsrc)
	}
}

// unlocatedJumps returns the refusal (ErrSens) of a delayed value that
// jumps at times SolveSens neither locates nor takes as jump sources
// (model.DelayInfo.HistoryJumps and ArgJumps), where such a time moves
// with p and its jump reaches f before tend: S would miss (f- - f+)
// dt/dp there. The history's jumps, at times in [t0 - tau_k, t0], reach
// f in [t0, t0 + tau_k]; those of e_k during the solve after t0 + tau_k.
// A jump at a time that moves neither itself nor through tau_k moves no
// S.
func (r *sensRHS) unlocatedJumps(name string, t0, tend float64) error {
	for k := 0; k < r.nd; k++ {
		i := r.h.info[k]
		tau := r.tau[k]
		why := "whose times depend on the parameters"
		if r.tauDep[k] {
			why = "reaching f a delay later, a delay that depends on the parameters"
		}
		if i.HistoryJumps && (i.HistoryJumpsMove || r.tauDep[k]) && tau > 0 && tend > t0 {
			return fmt.Errorf("%w: model %q: the history of %s before the start is discontinuous in time (floor, ceiling or a relation of time), with jumps %s: S's jumps where they reach f, in [t0, t0 + %g], are not computed", ErrSens, name, i.Name, why, tau)
		}
		if i.ArgJumps && (i.ArgJumpsMove || r.tauDep[k]) && tend > t0+tau {
			if !r.tauDep[k] {
				why = "whose times depend on the parameters or the state"
			}
			return fmt.Errorf("%w: model %q: the delayed expression of %s holds a relation (or floor, ceiling) of time, the state or a delayed value, not a switch of f, with jumps %s: S's jumps where they reach f are not computed", ErrSens, name, i.Name, why)
		}
	}
	return nil
}
