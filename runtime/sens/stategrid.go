package sens

import (
	"math"

	"github.com/pbgen/pbgen/runtime/ode"
)

// level holds the scratch of one bisection depth of RefineLocalError.
type level struct {
	mid         point
	left, right []float64 // nx*ns
	coarse      []float64 // nx*ns
}

// stateGrid is the scratch of the drivers on the integrator's grid: the
// inner points of RefineNInt and the bisection levels of RefineLocalError.
type stateGrid struct {
	sub, sub2 point
	levels    []level
}

func newStateGrid(nx, ns, nnzx, nnzp, depth int) stateGrid {
	g := stateGrid{sub: newPoint(nx, nnzx, nnzp), sub2: newPoint(nx, nnzx, nnzp), levels: make([]level, depth)}
	blk := nx * ns
	for i := range g.levels {
		g.levels[i] = level{mid: newPoint(nx, nnzx, nnzp), left: make([]float64, blk),
			right: make([]float64, blk), coarse: make([]float64, blk)}
	}
	return g
}

// interval advances s over [a.t, b.t], a sub-interval of grid interval k,
// with the configured method.
func (en *engine) interval(s []float64, a, b *point, k int) {
	en.stats.Intervals++
	en.stepT = a.t
	en.accRound(b.t-a.t, math.Max(en.normInf(a.jx), en.normInf(b.jx)))
	switch en.cfg.method {
	case Exp:
		en.recordExp(a.t)
		en.expStep(s, a, b)
	case PBS:
		if en.nearlyConstant(a, b) {
			en.recordExp(a.t)
			en.expStep(s, a, b)
		} else {
			en.pbsStep(s, a, b)
		}
	case PBSR:
		if en.cfg.refine == RefineLocalError {
			en.localErr(s, a, b, k)
		} else {
			en.nint(s, a, b, k)
		}
	}
}

func (en *engine) nearlyConstant(a, b *point) bool {
	if en.cfg.jacTol < 0 {
		return false
	}
	if en.relChange(a.jx, b.jx) > en.cfg.jacTol {
		return false
	}
	return !en.cfg.jpCheck || relChangeP(a.jp, b.jp) <= en.cfg.jacTol
}

// nint is the paper's Algorithm 2 on one interval.
func (en *engine) nint(s []float64, a, b *point, k int) {
	dt := b.t - a.t
	nf := math.Ceil(en.cfg.nintFactor * dt * en.norm(a.jx))
	if en.nearlyConstant(a, b) || !(nf <= float64(en.cfg.nmax)) {
		en.recordExp(a.t)
		en.expStep(s, a, b)
		return
	}
	n := int(nf)
	if n <= 1 {
		en.pbsStep(s, a, b)
		return
	}
	en.stats.Refinements += n - 1
	prev, cur := a, &en.stateGrid.sub
	for i := 1; i <= n; i++ {
		if i == n {
			cur = b
		} else {
			cur.t = a.t + dt*float64(i)/float64(n)
			en.interpX(cur.x, cur.t, k)
			en.eval(cur)
		}
		en.pbsStep(s, prev, cur)
		if i < n {
			// Alternate the two inner buffers so prev stays valid.
			if cur == &en.stateGrid.sub {
				prev, cur = &en.stateGrid.sub, &en.stateGrid.sub2
			} else {
				prev, cur = &en.stateGrid.sub2, &en.stateGrid.sub
			}
		}
	}
}

// localErr is the improved PBSR on one interval: exponential steps with
// bisection driven by a step-doubling local error estimate.
func (en *engine) localErr(s []float64, a, b *point, k int) {
	// Where Jx and Jp are constant to within SensRTol (near equilibrium,
	// linear systems) the exponential step is exact to that level: skip
	// the two-half-step estimate, which would triple the cost.
	if en.relChange(a.jx, b.jx) <= en.cfg.srtol && relChangeP(a.jp, b.jp) <= en.cfg.srtol {
		en.recordExp(a.t)
		en.expStep(s, a, b)
		return
	}
	lv := &en.stateGrid.levels[0]
	copy(lv.coarse, s)
	en.expStep(lv.coarse, a, b)
	en.recordExp(a.t)
	en.bisect(s, a, b, k, 0)
}

// bisect advances s over [a.t, b.t] given coarse = the one-step result.
func (en *engine) bisect(s []float64, a, b *point, k, depth int) {
	lv := &en.stateGrid.levels[depth]
	m := &lv.mid
	m.t = 0.5 * (a.t + b.t)
	en.interpX(m.x, m.t, k)
	en.eval(m)
	copy(lv.left, s)
	en.expStep(lv.left, a, m)
	copy(lv.right, lv.left)
	en.expStep(lv.right, m, b)
	// Local error of the two-half result: (coarse - fine)/3 for a
	// second-order method.
	var d2, s2 float64
	for i, x := range lv.right {
		e := x - lv.coarse[i]
		d2 += e * e
		s2 += x * x
	}
	errEst := math.Sqrt(d2) / 3
	if errEst <= en.cfg.srtol*math.Sqrt(s2)+en.cfg.satol || depth+1 >= len(en.stateGrid.levels) {
		copy(s, lv.right)
		return
	}
	en.stats.Refinements++
	nx := &en.stateGrid.levels[depth+1]
	// Left half: its coarse result is lv.left.
	copy(nx.coarse, lv.left)
	en.bisect(s, a, m, k, depth+1)
	// Right half from the refined S(mid).
	copy(nx.coarse, s)
	en.expStep(nx.coarse, m, b)
	en.bisect(s, m, b, k, depth+1)
}

// run computes S at the outputs ts on the trajectory tr (from S(T[0]) = s0)
// into dst (len(ts) blocks of nx*ns), using sw as the running S.
func (en *engine) run(tr *ode.Trajectory, dst, p, s0, ts []float64, sw []float64) {
	en.tr, en.p = tr, p
	en.err = nil
	en.roundAcc = 0
	en.paper.cacheValid = false
	for i := range en.endpoint.slots {
		en.endpoint.slots[i].valid = false
	}
	if en.cfg.grid == GridDyadic {
		// It sets up its start point and the outputs at t0 itself.
		en.runDyadic(dst, s0, ts, sw)
		return
	}
	blk := en.nx * en.ns
	copy(sw, s0)
	a, b := &en.a, &en.b
	a.t = tr.T[0]
	copy(a.x, tr.XAt(0))
	en.eval(a)
	iout := 0
	emit := func(i int, src []float64) { copy(dst[i*blk:(i+1)*blk], src) }
	for iout < len(ts) && ts[iout] <= a.t {
		emit(iout, sw)
		iout++
	}
	onGrid := !en.cfg.interpolate && len(tr.Out) == len(ts)
	cut := en.cfg.interpolate
	n := tr.Len()
	for k := 0; k+1 < n && en.err == nil; k++ {
		tb := tr.T[k+1]
		// Output cuts inside (T[k], T[k+1]).
		for cut && iout < len(ts) && ts[iout] < tb {
			if ts[iout] > a.t {
				b.t = ts[iout]
				en.interpX(b.x, b.t, k)
				en.eval(b)
				en.interval(sw, a, b, k)
				a, b = b, a
			}
			emit(iout, sw)
			iout++
		}
		b.t = tb
		copy(b.x, tr.XAt(k+1))
		en.eval(b)
		en.interval(sw, a, b, k)
		if onGrid {
			for iout < len(ts) && tr.Out[iout] == k+1 {
				emit(iout, sw)
				iout++
			}
		} else {
			for iout < len(ts) && ts[iout] <= tb {
				emit(iout, sw)
				iout++
			}
		}
		a, b = b, a
	}
	for ; iout < len(ts); iout++ { // outputs beyond the grid (not expected)
		emit(iout, sw)
	}
}
