package mcmc

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// state is one point of a chain with everything its kernel needs there,
// so an accepted proposal becomes the current state by swapping pointers.
type state struct {
	theta  []float64
	lp     float64
	grad   []float64 // Langevin kernels only
	metric []float64 // SMMALA only: the target's metric
	// chol is the lower Cholesky factor of the proposal precision at this
	// point: the (regularised) metric for SMMALA, the inverse
	// preconditioner for MALA (shared by all states).
	chol   []float64
	logDet float64   // log det of the proposal precision
	nat    []float64 // precision⁻¹ × gradient: the Langevin drift direction
}

func newState(n int, kind Sampler) *state {
	s := &state{theta: make([]float64, n)}
	if kind != RWM {
		s.grad = make([]float64, n)
		s.nat = make([]float64, n)
	}
	if kind == SMMALA {
		s.metric = make([]float64, n*n)
		s.chol = make([]float64, n*n)
	}
	return s
}

// kernel is one chain's Markov kernel with its workspaces; all slices are
// allocated in newKernel so that step allocates nothing.
type kernel struct {
	t      Target
	kind   Sampler
	n      int
	lo, hi []float64
	rng    *rand.Rand

	cur, prop *state
	eps       float64 // step size (Langevin) or scale of the RWM proposal

	// MALA: precondition is the covariance M, precChol the lower factor of
	// M⁻¹ (shared by the states), precLogDet its log det.
	// RWM: precondition is the proposal covariance (2.38²/n)Σ, covChol its
	// lower factor.
	precondition []float64
	precChol     []float64
	prec         []float64 // workspace for M⁻¹
	precNew      []float64 // workspace for its factor
	precLogDet   float64
	covChol      []float64

	z, v, w, tmpMat []float64

	// boxCurv is added to the metric's diagonal: 12/(hi-lo)² for a
	// parameter with finite bounds, 0 otherwise. It is the curvature of a
	// Gaussian with the variance of the uniform distribution on the
	// interval, so in a direction the data do not determine (a singular
	// Fisher information, common for non-identifiable PEtab parameters with
	// uniform priors) SMMALA proposes steps of the size of the box instead
	// of near-infinite ones that are all rejected. Where the data do
	// determine a parameter its curvature dwarfs this term. The metric
	// only shapes the proposal, and the term depends on the position only
	// through the metric, so the sampler stays exact.
	boxCurv []float64

	evals, failed, outOfBounds int
	firstFailure               string
}

func newKernel(t Target, kind Sampler, lo, hi []float64, rng *rand.Rand) *kernel {
	n := t.Dim()
	k := &kernel{
		t: t, kind: kind, n: n, lo: lo, hi: hi, rng: rng,
		cur: newState(n, kind), prop: newState(n, kind),
		z: make([]float64, n), v: make([]float64, n), w: make([]float64, n),
		tmpMat:       make([]float64, n*n),
		precondition: make([]float64, n*n),
		boxCurv:      make([]float64, n),
	}
	for i := range k.boxCurv {
		if lo != nil && hi != nil {
			if w := hi[i] - lo[i]; w > 0 && !math.IsInf(w, 0) {
				k.boxCurv[i] = 12 / (w * w)
			}
		}
	}
	switch kind {
	case MALA:
		k.precChol = make([]float64, n*n)
		k.prec = make([]float64, n*n)
		k.precNew = make([]float64, n*n)
		k.cur.chol = k.precChol
		k.prop.chol = k.precChol
	case RWM:
		k.covChol = make([]float64, n*n)
	}
	return k
}

// inBounds reports whether x is finite and inside the bounds; a
// non-finite proposal (from an overflowing drift) lies outside any box.
func (k *kernel) inBounds(x []float64) bool {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
		if k.lo != nil && v < k.lo[i] {
			return false
		}
		if k.hi != nil && v > k.hi[i] {
			return false
		}
	}
	return true
}

// fail counts a failed evaluation at x. Only the first is formatted, so
// a target that keeps failing costs no allocation per iteration.
func (k *kernel) fail(x []float64, what string, err error) {
	k.failed++
	if k.firstFailure != "" {
		return
	}
	if err != nil {
		k.firstFailure = fmt.Sprintf("at %v: %v", x, err)
	} else {
		k.firstFailure = fmt.Sprintf("at %v: %s", x, what)
	}
}

// evalState evaluates the target at s.theta with what the kernel needs
// and completes s (factor, drift). It returns false, counting a failure,
// when the target errs or returns non-finite values or an unusable metric.
func (k *kernel) evalState(s *state) bool {
	k.evals++
	lp, err := k.t.Eval(s.theta, s.grad, s.metric)
	if err != nil {
		k.fail(s.theta, "", err)
		return false
	}
	if math.IsNaN(lp) || math.IsInf(lp, 1) {
		k.fail(s.theta, "log posterior not finite", nil)
		return false
	}
	if math.IsInf(lp, -1) {
		// Zero density is a legitimate answer (for example outside a
		// prior's support): a rejection, not a failure.
		s.lp = lp
		return false
	}
	s.lp = lp
	if k.kind == RWM {
		return true
	}
	if !allFinite(s.grad) {
		k.fail(s.theta, "gradient not finite", nil)
		return false
	}
	if k.kind == SMMALA {
		k.addBoxCurv(s.metric)
		ld, ok := factorSPD(s.chol, k.tmpMat, s.metric, k.n)
		if !ok {
			k.fail(s.theta, "metric not positive definite", nil)
			return false
		}
		s.logDet = ld
	} else {
		s.logDet = k.precLogDet
	}
	k.drift(s)
	return true
}

// addBoxCurv adds boxCurv to the diagonal of the n×n metric m.
func (k *kernel) addBoxCurv(m []float64) {
	for i, c := range k.boxCurv {
		m[i*k.n+i] += c
	}
}

// drift sets s.nat = precision⁻¹ ∇ from s.chol.
func (k *kernel) drift(s *state) {
	copy(s.nat, s.grad)
	solveLower(s.chol, s.nat, k.n)
	solveLowerT(s.chol, s.nat, k.n)
}

// setPrecondition installs the covariance m (n×n, copied) as MALA's
// preconditioner or, scaled by 2.38²/n, as RWM's proposal covariance. It
// returns false (and changes nothing) when m is not positive definite.
func (k *kernel) setPrecondition(m []float64) bool {
	n := k.n
	switch k.kind {
	case MALA:
		if !cholTo(k.tmpMat, m, n) {
			return false
		}
		// The kernel works with the precision M⁻¹ so that MALA and SMMALA
		// share one proposal: invert M and factor the inverse.
		invertSPDTo(k.prec, k.tmpMat, k.w, n)
		// Factor into a spare buffer first, so a failure leaves the
		// installed factor intact.
		ld, ok := factorSPD(k.precNew, k.tmpMat, k.prec, n)
		if !ok {
			return false
		}
		copy(k.precChol, k.precNew)
		copy(k.precondition, m)
		k.precLogDet = ld
		k.cur.logDet, k.prop.logDet = ld, ld
		k.drift(k.cur)
	case RWM:
		c := 2.38 * 2.38 / float64(n)
		for i := range k.tmpMat {
			k.tmpMat[i] = c * m[i]
		}
		if !cholTo(k.covChol, k.tmpMat, n) {
			return false
		}
		copy(k.precondition, k.tmpMat)
	}
	return true
}

// step makes one Metropolis-Hastings transition and returns the
// acceptance statistic min(1, MH ratio) (0 for a proposal out of bounds or
// failed) and whether the proposal was accepted.
func (k *kernel) step() (acceptStat float64, accepted bool) {
	n := k.n
	cur, prop := k.cur, k.prop
	for i := range k.z {
		k.z[i] = k.rng.NormFloat64()
	}
	var logFwd float64
	h := k.eps * k.eps
	if k.kind == RWM {
		mulLowerTo(k.v, k.covChol, k.z, n)
		for i := range prop.theta {
			prop.theta[i] = cur.theta[i] + k.eps*k.v[i]
		}
	} else {
		// θ* = θ + (ε²/2) G(θ)⁻¹∇ + ε L⁻ᵀ z with G = L Lᵀ: the proposal
		// N(θ + (ε²/2) G⁻¹∇, ε² G⁻¹).
		copy(k.v, k.z)
		solveLowerT(cur.chol, k.v, n)
		for i := range prop.theta {
			prop.theta[i] = cur.theta[i] + 0.5*h*cur.nat[i] + k.eps*k.v[i]
		}
		// log q(θ*|θ) up to the constant shared with the reverse density:
		// ½ log|G(θ)| - ½|z|², since (θ*-μ)ᵀG(θ*-μ)/ε² = |z|².
		logFwd = 0.5*cur.logDet - 0.5*dot(k.z, k.z)
	}
	if !k.inBounds(prop.theta) {
		k.outOfBounds++
		return 0, false
	}
	if !k.evalState(prop) {
		return 0, false
	}
	logA := prop.lp - cur.lp
	if k.kind != RWM {
		// Reverse proposal N(θ* + (ε²/2) G(θ*)⁻¹∇(θ*), ε² G(θ*)⁻¹)
		// evaluated at θ, with θ*'s own metric.
		for i := range k.w {
			k.w[i] = cur.theta[i] - prop.theta[i] - 0.5*h*prop.nat[i]
		}
		logRev := 0.5*prop.logDet - 0.5*normLowerT(prop.chol, k.w, n)/h
		logA += logRev - logFwd
	}
	if math.IsNaN(logA) {
		k.fail(prop.theta, "Metropolis-Hastings ratio is NaN", nil)
		return 0, false
	}
	acceptStat = 1
	if logA < 0 {
		acceptStat = math.Exp(logA)
	}
	// Compare in log space: 1-U is in (0, 1], so its log is finite.
	if logA >= 0 || math.Log(1-k.rng.Float64()) < logA {
		k.cur, k.prop = prop, cur
		return acceptStat, true
	}
	return acceptStat, false
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
