package fit

import "math"

// This file computes a step of the interior trust-region reflective
// method (Coleman and Li 1994, 1996) as Fides does: the subproblem in
// the affinely scaled coordinates, then, when the step would leave the
// box, the best (by the model) of the step truncated at the bound, the
// step reflected at the bounds it meets (recursively), and the
// constrained Cauchy step.
//
// Scaled coordinates: s = sv .* sh with sv = sqrt|v|, v the Coleman-Li
// vector (x - lo where g >= 0 and lo is finite, x - hi where g < 0 and hi
// is finite, ±1 where that bound is infinite). The scaled model is
// psi(sh) = gh'sh + sh'Mh sh/2 with gh = sv .* g and
// Mh = diag(sv) B diag(sv) + diag(|g| dv), dv = 1 where the bound is
// finite: the diag(|g| dv) term is Coleman and Li's C, which makes the
// scaled Newton step the Newton step of their affine-scaling system.

// stepper holds the scaled model and work vectors of one dimension.
type stepper struct {
	m         int
	gh, mh    []float64 // scaled gradient and model Hessian (m x m)
	sv        []float64
	lo, hi, x []float64 // free bounds and point (owned by the minimiser)
	theta     float64
	sub       Subspace
	delta     float64

	tr     trSolver
	eig    symEig
	chol   []float64 // m x m Cholesky factor
	q      []float64 // m x 2 orthonormal basis, column-major (q[0:m], q[m:2m])
	h2     []float64 // 2x2 projected model
	g2     []float64
	s2     []float64
	sh     []float64 // candidate steps (scaled)
	best   []float64
	dir    []float64
	tmp    []float64
	tmp2   []float64
	count  int // reflections tried for the last step
	chosen int // reflections of the chosen step (0: not reflected)
}

func newStepper(m int, sub Subspace) *stepper {
	st := &stepper{m: m, sub: sub}
	for _, p := range []*[]float64{&st.gh, &st.sv, &st.sh, &st.best, &st.dir, &st.tmp, &st.tmp2} {
		*p = make([]float64, m)
	}
	st.mh = make([]float64, m*m)
	st.chol = make([]float64, m*m)
	st.q = make([]float64, 2*m)
	st.h2, st.g2, st.s2 = make([]float64, 4), make([]float64, 2), make([]float64, 2)
	return st
}

// model returns psi(sh).
func (st *stepper) model(sh []float64) float64 {
	m := st.m
	psi := dot(st.gh, sh)
	for i := range m {
		row := st.mh[i*m : (i+1)*m]
		psi += 0.5 * sh[i] * dot(row, sh)
	}
	return psi
}

// subproblem writes the trust-region step (scaled) into st.sh and
// reports false if the model is not finite.
func (st *stepper) subproblem() bool {
	m := st.m
	if st.sub == Full || m <= 2 {
		_, ok := st.tr.solve(st.sh, st.mh, st.gh, st.delta)
		return ok
	}
	// Second direction: the Newton step if Mh is positive definite, else
	// the eigenvector of the smallest eigenvalue.
	d := st.dir
	if cholSolve(st.chol, d, st.mh, st.gh, m) {
		for i := range d {
			d[i] = -d[i]
		}
	} else {
		if !st.eig.factor(st.mh, m) {
			return false
		}
		for i := range m {
			d[i] = st.eig.vec(i, 0)
		}
	}
	q1, q2 := st.q[:m], st.q[m:]
	gn := math.Sqrt(dot(st.gh, st.gh))
	k := 0
	if gn > 0 {
		for i := range m {
			q1[i] = st.gh[i] / gn
		}
		k = 1
	}
	copy(q2, d)
	if k == 1 {
		a := dot(q1, q2)
		for i := range m {
			q2[i] -= a * q1[i]
		}
	}
	dn := math.Sqrt(dot(d, d))
	if n2 := math.Sqrt(dot(q2, q2)); n2 > 1e-10*dn && n2 > 0 {
		for i := range m {
			q2[i] /= n2
		}
		if k == 0 {
			copy(q1, q2)
		}
		k++
	}
	if k == 0 {
		for i := range st.sh {
			st.sh[i] = 0
		}
		return true
	}
	// Project: H2 = Q'Mh Q, g2 = Q'gh.
	for a := range k {
		qa := st.q[a*m : (a+1)*m]
		for i := range m {
			st.tmp[i] = dot(st.mh[i*m:(i+1)*m], qa)
		}
		for b := range k {
			st.h2[b*k+a] = dot(st.q[b*m:(b+1)*m], st.tmp)
		}
		st.g2[a] = dot(qa, st.gh)
	}
	if k == 2 {
		st.h2[1], st.h2[2] = 0.5*(st.h2[1]+st.h2[2]), 0.5*(st.h2[1]+st.h2[2])
	}
	if _, ok := st.tr.solve(st.s2[:k], st.h2[:k*k], st.g2[:k], st.delta); !ok {
		return false
	}
	for i := range m {
		v := 0.0
		for a := range k {
			v += st.q[a*m+i] * st.s2[a]
		}
		st.sh[i] = v
	}
	return true
}

// toBound returns the largest t with lo <= x + t*(sv .* dh) <= hi
// (+Inf when nothing bounds it) and the index of the bound reached.
func (st *stepper) toBound(x, dh []float64) (float64, int) {
	t, at := math.Inf(1), -1
	for i, di := range dh {
		s := st.sv[i] * di
		var ti float64
		switch {
		case s > 0 && !math.IsInf(st.hi[i], 1):
			ti = (st.hi[i] - x[i]) / s
		case s < 0 && !math.IsInf(st.lo[i], -1):
			ti = (st.lo[i] - x[i]) / s
		default:
			continue
		}
		if ti < t {
			t, at = max(ti, 0), i
		}
	}
	return t, at
}

// propose writes the chosen scaled step into st.best and returns its
// model value psi. st.sh holds the trust-region step.
func (st *stepper) propose() float64 {
	m := st.m
	t, at := st.toBound(st.x, st.sh)
	st.count, st.chosen = 0, 0
	if t > 1 || at < 0 {
		copy(st.best, st.sh)
		return st.model(st.best)
	}
	// Truncated trust-region step.
	for i := range m {
		st.best[i] = st.theta * t * st.sh[i]
	}
	bestPsi := st.model(st.best)
	// Reflected steps: from the bound point, reflect the direction in the
	// bound's coordinate and minimise the model along it, within the
	// trust region and the box; repeat at each new bound (at most m
	// reflections).
	acc, dir := st.tmp, st.dir
	for i := range m {
		acc[i] = t * st.sh[i]
		dir[i] = st.sh[i]
	}
	for range m {
		dir[at] = -dir[at]
		st.count++
		pt := st.tmp2 // the bound point in x
		for i := range m {
			pt[i] = st.x[i] + st.sv[i]*acc[i]
		}
		tb, next := st.toBound(pt, dir)
		tt := st.toRadius(acc, dir)
		tmax := min(tb, tt)
		a, b := st.curvature(acc, dir)
		tstar := tmax
		if a > 0 {
			tstar = min(max(-b/a, 0), tmax)
		} else if b >= 0 {
			break // the model rises along dir
		}
		if !(tstar > 0) {
			break // the model rises along dir from the bound point
		}
		hitBound := tstar >= tb && tb <= tt
		f := 1.0
		if hitBound {
			f = st.theta
		}
		for i := range m {
			st.sh[i] = acc[i] + f*tstar*dir[i]
		}
		if p := st.model(st.sh); p < bestPsi {
			bestPsi = p
			copy(st.best, st.sh)
			st.chosen = st.count
		}
		if !hitBound || next < 0 {
			break
		}
		for i := range m {
			acc[i] += tb * dir[i]
		}
		at = next
	}
	// Constrained Cauchy step along -gh.
	for i := range m {
		dir[i] = -st.gh[i]
		acc[i] = 0
	}
	tb, _ := st.toBound(st.x, dir)
	tt := st.toRadius(acc, dir)
	a, b := st.curvature(acc, dir)
	tmax := min(tb, tt)
	tstar := tmax
	if a > 0 {
		tstar = min(-b/a, tmax)
	}
	if tstar >= tb {
		tstar *= st.theta
	}
	if tstar > 0 && !math.IsInf(tstar, 0) {
		for i := range m {
			st.sh[i] = tstar * dir[i]
		}
		if p := st.model(st.sh); p < bestPsi {
			bestPsi = p
			copy(st.best, st.sh)
			st.chosen = 0
		}
	}
	return bestPsi
}

// toRadius returns the t >= 0 with |acc + t dir| = delta.
func (st *stepper) toRadius(acc, dir []float64) float64 {
	a, b, c := dot(dir, dir), dot(acc, dir), dot(acc, acc)-st.delta*st.delta
	if a == 0 {
		return math.Inf(1)
	}
	disc := max(b*b-a*c, 0)
	return max((-b+math.Sqrt(disc))/a, 0)
}

// curvature returns a = dir'Mh dir and b = (gh + Mh acc)'dir: the model
// along acc + t dir is psi(acc) + b t + a t^2/2.
func (st *stepper) curvature(acc, dir []float64) (a, b float64) {
	m := st.m
	b = dot(st.gh, dir)
	for i := range m {
		row := st.mh[i*m : (i+1)*m]
		a += dir[i] * dot(row, dir)
		b += dir[i] * dot(row, acc)
	}
	return a, b
}
