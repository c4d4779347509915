package sens

import (
	"errors"
	"fmt"
	"math"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// The accuracy check (Options.Check) estimates the global error of a
// solve by solving again with a method whose error is known to follow its
// tolerance, at tolerances CheckFactor times tighter: FS with S in its
// error test (ErrCon), the package's accuracy reference. Its own error is
// then a fraction of what the tolerance allows (0.1 to 7.6 tolerance
// units measured, check_test.go), so the difference between the two
// solves is the error of the first to within that. The classic
// alternative, the same method at tighter tolerances, underestimates the
// error of exactly the configurations the check is for: a method whose
// error does not follow its tolerance (the paper's algorithms, Exp without
// an error test of S, FS without ErrCon) changes little when the
// tolerance is tightened. Measured against the truth at rtol 1e-6, the
// same-method estimate was 0.13 to 0.39 times the error for the paper's
// algorithms, 0.29 to 0.69 for Exp and PBS; the FS estimate is 0.96 to
// 1.24 times it for every configuration (check_test.go).

// CheckFactor is how much tighter the check's reference solve is than the
// solve it checks, and each retry than the last.
const CheckFactor = 10

// DefaultCheckBound is the largest estimated error, in tolerance units
// (see Check), that Options.Check accepts by default. At pbgen sim's
// defaults (rtol 1e-6, atol 1e-8, t in [0, 10]) FS with ErrCon is
// measured at 1.3 to 31 of these units on PKA, CaMKII, Chua, CaMKII with
// kf__CaM__Ca = 1e9 and a linear network; the default PBSR at 20 to 22
// where it passes at once, 118 and 513 on CaMKII and Chua (21 and 20 after
// the retries), 173 on the stiff CaMKII (its S inherits the state's error
// in the transient, and the retries give up to rounding); the paper's PBSR and Exp at 1e4 to 1.6e5; FS without ErrCon
// at 2.4 to 2e4; default Exp at 60 (PKA) to 4.7e3 (Chua). Global errors
// exceed the local tolerance by such factors (each step is held to it, and
// the errors of the steps add up), so 100 is two digits beyond the
// tolerance: what FS, the reference, keeps on these networks with room to
// spare, and 1e2 to 1e3 times less than the uncontrolled configurations.
const DefaultCheckBound = 100

// maxTighten is how often the check solves again with the method at
// tolerances CheckFactor times tighter after a failed estimate, before it
// gives up: twice. Methods that control S converge (true errors in
// tolerance units at rtol 1e-6, / 10, / 100: PBSR with order 2 steps on
// CaMKII 116, 21, 3.5, on Chua 514, 110, 20; the retries take order 3
// steps, after which CaMKII is 8.2 and Chua 8.0 off after one; FS without ErrCon on CaMKII 3e3, then 25), so a
// retry returns S within the bound where the first solve was not; Exp,
// without an error test of S, barely does (CaMKII 1.5e3, 1.2e3, 730) and
// fails after both, and a third retry would cost 10 times the first solve
// for nothing the reference does not already show.
const maxTighten = 2

// Check is the a-posteriori estimate of a checked Solve (Options.Check).
//
// The error at output k is measured per column of S, relative to the
// column's size there (but not below 1/16 of the RMS column, as PBSR's
// column weights do): e_k = max_j ||(S_kj - R_kj) w_j||_2 /
// (RTol max(||R_kj w_j||_2, rms_k/16) + ATol), where R is the
// reference solve (FS with ErrCon at the tolerances / CheckFactor), w_j =
// |p_j| the scale of column j with ScaleParams (the default: p_j S_ij, in
// the units of x; 1 where p_j = 0) or 1 with ScaleNone, and RTol, ATol
// are those of the Options (as resolved: 1e-6, 1e-8 by default), not
// tightened (see relDiffCols for why per column). Err is the largest e_k:
// 1 means a column of S is off by RTol relative to its norm at the worst
// output (plus ATol), 100 by 100 RTol. XErr is the same for x (Euclidean
// norm of the state vector). The check accepts a solve when both are at
// most Options.CheckBound. The estimate includes the reference's own
// error (up to 9 units measured, FS with ErrCon on Chua: 38.2 against the
// true 47.2): the true error is within Err plus that.
type Check struct {
	// Err is the estimated error of S in tolerance units (above).
	Err float64
	// T is the output time of Err; State and Param the entry (state
	// index, model parameter index) of S_k - R_k largest in magnitude
	// in the worst column there.
	T            float64
	State, Param int
	// XErr is the estimated error of x in tolerance units, at time XT;
	// XState the state whose error is largest there.
	XErr   float64
	XT     float64
	XState int
	// Tightened is the number of times the method solved again at
	// tolerances CheckFactor times tighter before the estimate met the
	// bound: the numbers returned are those of a solve at RTol /
	// CheckFactor^Tightened (the estimate is theirs).
	Tightened int
	// Solves is the number of solves made: the method's, the
	// reference's and the retries.
	Solves int
}

// AccuracyError reports that a checked Solve (Options.Check) could not
// deliver x and S within the bound: the estimated error exceeded Bound
// tolerances, first at output time T, and the retries at tighter
// tolerances did not bring it under. Its message names the method, the
// time and a method that would work; the result holds the numbers of the
// solve at the tolerances asked for, which Check describes.
type AccuracyError struct {
	Method Method
	Paper  bool // the method ran with Options.Paper
	ErrCon bool // FS ran with ErrCon
	// T is the first output time where the estimate exceeded Bound.
	T     float64
	Bound float64
	RTol  float64 // the relative tolerance asked for
	Check Check   // the estimate of the solve at the tolerances asked for
}

func (e *AccuracyError) Error() string {
	m := e.Method.String()
	switch {
	case e.Paper:
		m += " (paper mode)"
	case e.Method == FS && !e.ErrCon:
		m += " without ErrCon"
	}
	use := "Use FS with ErrCon (forward sensitivities with S in the error test) instead."
	if e.Method == FS && e.ErrCon {
		use = fmt.Sprintf("Use a tighter RTol than %g.", e.RTol)
	}
	c := &e.Check
	what := fmt.Sprintf("S is %.3g tolerances off (rtol %g; the bound is %g; largest at t = %.6g in dx_%d/dp_%d)",
		c.Err, e.RTol, e.Bound, c.T, c.State, c.Param)
	if !(c.Err > e.Bound) {
		what = fmt.Sprintf("x is %.3g tolerances off (rtol %g; the bound is %g; largest at t = %.6g in x_%d)",
			c.XErr, e.RTol, e.Bound, c.XT, c.XState)
	}
	return fmt.Sprintf("sens: %s gave up at t = %.6g: by the accuracy check, %s. %s", m, e.T, what, use)
}

// CheckError reports that the accuracy check's reference solve (FS with
// ErrCon at the tolerances / CheckFactor) failed where the solve it was
// to check did not, so that the solve could not be checked. Err is the
// reference's error (an *ode.StepError, for instance too many steps).
// A reference with ScaleNone that fails is tried again with ScaleParams
// before the check gives up (Retried): S's columns of small parameters,
// held to atol in dx/dp units, are what makes it fail (on
// Lang_PLOSComputBiol2024: too many steps at t = 9.3 of 10).
type CheckError struct {
	Method  Method    // the method whose solve was to be checked
	RTol    float64   // the reference's relative tolerance
	Scale   SensScale // the reference's SensScale (after any retry)
	Retried bool      // the reference failed with ScaleNone and again with ScaleParams
	Err     error
}

func (e *CheckError) Error() string {
	sc := "S's columns scaled by |p_j|"
	if e.Scale == ScaleNone {
		sc = "S unscaled"
	}
	if e.Retried {
		sc = "S unscaled, then scaled by |p_j|"
	}
	return fmt.Sprintf("sens: the accuracy check's reference solve (FS with ErrCon at rtol %g, %s) failed, so the %v solve, which succeeded, could not be checked: %v. "+
		"Use a larger RTol (the reference runs at RTol / %d), or leave Check off to take the numbers unchecked", e.RTol, sc, e.Method, e.Err, CheckFactor)
}

func (e *CheckError) Unwrap() error { return e.Err }

// checker holds the check's solvers and their results, so that a
// checked Solve allocates nothing after the first.
type checker struct {
	m      model.Model
	opt    Options // the user's options, Check off
	cfg    *config // the user's, resolved
	bound  float64
	ref    checkLevel   // FS with ErrCon at the tolerances / CheckFactor
	refAlt *Solver      // the reference with ScaleParams, where ref has ScaleNone (built on its first use)
	scale  []float64    // the scales of S's columns at the current p (ScaleParams: |p_j|, ScaleNone: 1)
	d2, r2 []float64    // per-column sums of relDiffCols
	levels []checkLevel // levels[l-1]: the method at tolerances / CheckFactor^l
}

type checkLevel struct {
	s   *Solver
	res Result
}

// newChecker builds the reference solver; the tighter solvers of the
// method are built on the first solve that needs them.
func newChecker(m model.Model, opt *Options, cfg *config) (*checker, error) {
	c := &checker{m: m, opt: *opt, cfg: cfg, bound: orDefault(opt.CheckBound, DefaultCheckBound)}
	c.opt.Check = false
	if cfg.params != nil {
		c.opt.Params = cfg.params
	}
	n := model.NumParams(m)
	if cfg.params != nil {
		n = len(cfg.params)
	}
	c.scale, c.d2, c.r2 = make([]float64, n), make([]float64, n), make([]float64, n)
	for j := range c.scale {
		c.scale[j] = 1
	}
	o := c.refOptions()
	c.ref.s = NewSolver(m, &o)
	if err := c.ref.s.Err(); err != nil {
		return nil, fmt.Errorf("sens: the accuracy check's reference solver (FS at rtol %g): %w", o.RTol, err)
	}
	return c, nil
}

// refOptions are the reference's options: FS with ErrCon on the
// integrator's own grid at the tolerances / CheckFactor, whose global
// error follows its tolerance for every model measured (check_test.go),
// with the user's SensScale.
func (c *checker) refOptions() Options {
	o := tightened(c.opt, c.cfg, CheckFactor)
	o.Method, o.ErrCon, o.Paper, o.Tuning = FS, true, false, Tuning{}
	o.ODE.Interpolate = false
	return o
}

// maxTighten is how often the check may solve again at tolerances
// CheckFactor times tighter before it gives up; FS with ErrCon is not
// retried this way (its tighter solve is the reference itself: see
// promoteRef).
func (c *checker) maxTighten() int {
	if c.cfg.method == FS && c.cfg.errCon {
		return 0
	}
	return maxTighten
}

// tightened returns o with every tolerance it sets, and RTol and ATol as
// resolved in cfg, divided by f (relative ones not below minCheckRTol,
// what the integrators accept), and PBSR with order 3 steps unless its
// Tuning.Order says otherwise.
func tightened(o Options, cfg *config, f float64) Options {
	o.RTol, o.ATol = math.Max(cfg.rtol/f, minCheckRTol), cfg.atol/f
	t := &o.Tuning
	if o.Method == PBSR && t.Order == 0 && !o.Paper {
		// A retry is for accuracy: PBSR's order 3 steps (measured at
		// rtol 1e-6 on [0, 10]: Chua within the bound after one retry
		// instead of two, 8.0 tolerances off, at half the CPU time;
		// CaMKII 8.2 instead of 21 after its one retry, at the same
		// time). The first solve keeps the default order.
		t.Order = 3
	}
	if t.SensRTol != 0 {
		t.SensRTol = math.Max(t.SensRTol/f, minCheckRTol)
	}
	t.SensATol /= f
	if o.ODE.RTol != 0 {
		o.ODE.RTol = math.Max(o.ODE.RTol/f, minCheckRTol)
	}
	o.ODE.ATol /= f
	if o.ODE.ATolVec != nil {
		v := make([]float64, len(o.ODE.ATolVec))
		for i, a := range o.ODE.ATolVec {
			v[i] = a / f
		}
		o.ODE.ATolVec = v
	}
	return o
}

// minCheckRTol is the smallest relative tolerance the check asks of its
// tighter solves (ode.MinRTol, what the integrators accept).
const minCheckRTol = 1e-15

// level returns the method's solver at tolerances / CheckFactor^l.
func (c *checker) level(l int) (*checkLevel, error) {
	for len(c.levels) < l {
		o := tightened(c.opt, c.cfg, math.Pow(CheckFactor, float64(len(c.levels)+1)))
		s := NewSolver(c.m, &o)
		if err := s.Err(); err != nil {
			return nil, fmt.Errorf("sens: the accuracy check's solver at rtol %g: %w", o.RTol, err)
		}
		c.levels = append(c.levels, checkLevel{s: s})
	}
	return &c.levels[l-1], nil
}

// solveChecked is SolveFrom with Options.Check: the solve, the reference
// solve, the estimate; if it exceeds the bound, the method again at
// tighter tolerances (see Options.Check).
func (s *Solver) solveChecked(res *Result, p []float64, st0 *Start, ts []float64) error {
	c := s.chk
	if err := s.solveFrom(res, p, st0, ts); err != nil {
		return err
	}
	if c.cfg.sensScale == ScaleParams {
		columnScales(c.scale, p, s.params)
	}
	ref := &c.ref.res
	if err := c.solveRef(ref, p, st0, ts); err != nil {
		return err
	}
	first, firstT := c.estimate(res, ref, s.params)
	first.Solves = 2
	if c.pass(&first) {
		res.Stats.Check = first
		return nil
	}
	for l := 1; l <= c.maxTighten() && !hopeless(first.Err, c.bound); l++ {
		lv, err := c.level(l)
		if err != nil {
			return err
		}
		if err := lv.s.solveFrom(&lv.res, p, st0, ts); err != nil {
			break // the estimate of the first solve stands
		}
		ck, _ := c.estimate(&lv.res, ref, s.params)
		ck.Tightened, ck.Solves = l, l+2
		if c.pass(&ck) {
			adopt(res, &lv.res, ck)
			return nil
		}
	}
	if c.cfg.method == FS && c.cfg.errCon && !hopeless(first.Err, c.bound) {
		if ok, err := c.promoteRef(res, ref, p, st0, ts, s.params); err != nil || ok {
			return err
		}
	}
	res.Stats.Check = first
	return &AccuracyError{Method: s.cfg.method, Paper: s.cfg.paper, ErrCon: s.cfg.errCon,
		T: firstT, Bound: c.bound, RTol: c.cfg.rtol, Check: first}
}

// promoteRef is FS's retry. FS with ErrCon at tolerances / CheckFactor
// is the reference itself, so a retry of FS checked against it would
// measure nothing; instead the reference is checked against FS at
// tolerances / CheckFactor^2 and, within the bound, written as the
// result (Tightened 1). On Chua at rtol 1e-8 (atol 1e-10), FS with ErrCon
// is 109 tolerances off by the per-column estimate and was refused; its
// reference is within the bound. It reports whether res now holds the
// reference.
func (c *checker) promoteRef(res, ref *Result, p []float64, st0 *Start, ts []float64, params []int) (bool, error) {
	lv, err := c.level(2)
	if err != nil {
		return false, err
	}
	if err := lv.s.solveFrom(&lv.res, p, st0, ts); err != nil {
		return false, nil // the estimate of the first solve stands
	}
	ck, _ := c.estimate(ref, &lv.res, params)
	ck.Tightened, ck.Solves = 1, 3
	if !c.pass(&ck) {
		return false, nil
	}
	adopt(res, ref, ck)
	return true, nil
}

// adopt writes the tighter solve cur, which passed the check with ck,
// into res (res's own slices reused).
func adopt(res, cur *Result, ck Check) {
	res.X = append(res.X[:0], cur.X...)
	res.S = append(res.S[:0], cur.S...)
	times := append(res.Stats.ExpTimes[:0], cur.Stats.ExpTimes...)
	res.Stats = cur.Stats
	res.Stats.ExpTimes = times
	res.Stats.Check = ck
}

// solveRef solves the reference into ref; where it fails with
// ScaleNone it tries ScaleParams once (see CheckError), and otherwise
// returns the *CheckError.
func (c *checker) solveRef(ref *Result, p []float64, st0 *Start, ts []float64) error {
	rs := c.ref.s
	err := rs.solveFrom(ref, p, st0, ts)
	if err == nil {
		return nil
	}
	ce := &CheckError{Method: c.cfg.method, RTol: rs.cfg.rtol, Scale: rs.cfg.sensScale, Err: err}
	if rs.cfg.sensScale != ScaleNone || errors.Is(err, ode.ErrInvalid) {
		return ce
	}
	if c.refAlt == nil {
		o := c.refOptions()
		o.SensScale = ScaleParams
		c.refAlt = NewSolver(c.m, &o)
	}
	if err := c.refAlt.solveFrom(ref, p, st0, ts); err != nil {
		ce.Scale, ce.Retried, ce.Err = ScaleParams, true, err
		return ce
	}
	return nil
}

// retryGain is the most a retry at tolerances / CheckFactor has been
// measured to cut the estimate, per retry: about 120 times (FS without
// ErrCon on CaMKII, 3e3 -> 25 tolerances; PBSR 14 to 64 times, Exp less
// than 2), taken as CheckFactor^2.
const retryGain = CheckFactor * CheckFactor

// hopeless reports whether an estimate err is beyond what maxTighten
// retries could bring under the bound, each cutting it by retryGain at
// most (bound 100: 1e6 tolerances), so that they are not made: measured
// per column without relDiffCols's floor, PBSR and Exp on
// Lang_PLOSComputBiol2024 at pbgen sim's defaults were 1.7e9 and 8.8e8
// off, and their two retries took the failure from 1.2 to 3.6 times FS's
// CPU time for the same verdict.
func hopeless(err, bound float64) bool {
	return err > bound*math.Pow(retryGain, maxTighten)
}

// pass reports whether the estimate meets the bound, for S and x.
func (c *checker) pass(ck *Check) bool { return ck.Err <= c.bound && ck.XErr <= c.bound }

// estimate compares got with the tighter ref (same outputs) in units of
// the user's tolerances (see Check) and returns the estimate and the
// first output time whose error of S exceeds the bound (NaN if none).
func (c *checker) estimate(got, ref *Result, params []int) (Check, float64) {
	ck := Check{State: -1, Param: -1, XState: -1}
	first := math.NaN()
	ns := got.NS
	for k, t := range got.T {
		x, xr := got.XAt(k), ref.XAt(k)
		ex, i := relDiff(x, xr, c.cfg.rtol, c.cfg.atol)
		if math.IsNaN(ex) {
			ex = math.Inf(1)
		}
		if ex > ck.XErr {
			ck.XErr, ck.XT, ck.XState = ex, t, i
		}
		if ex > c.bound && math.IsNaN(first) {
			first = t
		}
		if ns == 0 {
			continue
		}
		e, at := c.relDiffCols(got.SAt(k), ref.SAt(k), c.cfg.rtol, c.cfg.atol)
		if math.IsNaN(e) {
			e = math.Inf(1)
		}
		if e > c.bound && math.IsNaN(first) {
			first = t
		}
		if e > ck.Err {
			ck.Err, ck.T, ck.State, ck.Param = e, t, at/ns, params[at%ns]
		}
	}
	return ck, first
}

// relDiffCols is the error of S per column, the largest over the columns
// j of ||(y_j - r_j) w_j||_2 / (rtol max(||r_j w_j||_2, rms/16) + atol),
// w the scales of S's columns (c.scale), rms the RMS of the columns'
// norms, and the index of the entry of (y - r) W largest in magnitude in
// that column. Per column, because a norm of the whole of S is the
// largest columns' (with ScaleParams, of p_j S_ij):
// Exp on CaMKII at pbgen sim's defaults was 35 tolerances off in the
// whole of S diag(|p_j|) and 1.1e3 in its worst column, PBSR on
// Lang_PLOSComputBiol2024 within the bound and 1.7e9 off in a column (in
// dx/dp units, FS with ErrCon on CaMKII was 244 off: its columns of
// parameters below 1 are held to atol/|p_j|). The floor at 1/16 of the
// RMS column (colWeightMax, PBSR's bound on its column weights) measures
// a column still near 0 after the start against the others: without it
// PBSR failed at t = 0.1 on Zhao_QuantBiol2020, Oliveira_NatCommun2021 and
// SalazarCavazos_MBoC2020 (2.8e3 to 8.6e4 tolerances in such columns), FS
// on CaMKII at rtol 1e-10 over [0, 100] (177), and the estimate of FS
// with ErrCon on CaMKII at the defaults was 82 instead of 3.1.
func (c *checker) relDiffCols(y, r []float64, rtol, atol float64) (float64, int) {
	w := c.scale
	ns := len(w)
	d2, r2 := c.d2[:ns], c.r2[:ns]
	clear(d2)
	clear(r2)
	for i := 0; i+ns <= len(y); i += ns {
		yi, ri := y[i:i+ns], r[i:i+ns]
		for j, v := range yi {
			d, rr := v-ri[j], ri[j]
			d2[j] += d * d
			r2[j] += rr * rr
		}
	}
	// A column is measured against its own size, but not below
	// 1/colWeightMax of the RMS column: PBSR's error test weighs columns
	// so (stepControl.setWeights), and a column far below the others (S
	// still near 0 after the start) is measured in absolute terms rather
	// than to rtol of itself.
	var rms float64
	for j := range r2 {
		rms += r2[j] * w[j] * w[j]
	}
	floor := math.Sqrt(rms/float64(max(ns, 1))) / colWeightMax
	worst, wj := 0.0, 0
	for j := range d2 {
		e := math.Sqrt(d2[j]) * w[j] / (rtol*math.Max(math.Sqrt(r2[j])*w[j], floor) + atol)
		if e != e {
			e = math.Inf(1)
		}
		if e > worst || j == 0 {
			worst, wj = e, j
		}
	}
	at, big := wj, -1.0
	for i := wj; i < len(y); i += ns {
		if d := math.Abs(y[i] - r[i]); d > big {
			big, at = d, i
		}
	}
	return worst, at
}

// columnScales writes the scales of S's columns params at p into dst
// (ScaleParams): |p_j|, 1 where p_j = 0, is not finite or 1/|p_j|
// overflows.
func columnScales(dst, p []float64, params []int) {
	for c, j := range params {
		v := math.Abs(p[j])
		if !(v > 0) || math.IsInf(v, 0) || math.IsInf(1/v, 0) {
			v = 1
		}
		dst[c] = v
	}
}

// relDiff is ||y - r||_2 / (rtol ||r||_2 + atol) and the index of the
// entry of y - r largest in magnitude.
func relDiff(y, r []float64, rtol, atol float64) (float64, int) {
	var d2, r2, big float64
	at := 0
	for i, v := range y {
		d := v - r[i]
		d2 += d * d
		r2 += r[i] * r[i]
		if math.Abs(d) > big {
			big, at = math.Abs(d), i
		}
	}
	return math.Sqrt(d2) / (rtol*math.Sqrt(r2) + atol), at
}
