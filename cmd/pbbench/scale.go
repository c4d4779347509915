package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pbgen/pbgen/internal/scalenet"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
)

// The scaling section (-scale, issue #13): how the cost of a solve grows
// with the number of states on the scalenet chains, whose Jacobians have
// about 4 non-zeros per row as real signalling networks do. The paper's
// networks stop at 21 states, so Table 1 says nothing about this.

// Scaling methods, in the order of the table. FS and the Peano-Baker
// methods compute scaleParams columns of S, so that their growth in n is
// that of the solver and not of a growing S; "FS np=n/2" computes the
// columns of about every parameter, the cost a user pays for a full
// gradient.
const (
	scaleStates = "states"
	scaleFS     = "FS"
	scalePBSR   = "PBSR"
	scaleExp    = "Exp"
	scaleFSHalf = "FS np=n/2"
)

// The CVODES columns (built with -tags cvodes): states and FS with the
// KLU sparse solver (the same scaleParams columns as our FS), and FS with
// the dense solver up to -scale-max-cvodes-dense states.
const (
	scaleCVStates  = "CV KLU"
	scaleCVFS      = "CV KLU FS"
	scaleCVFSDense = "CV dense FS"
)

var scaleMethods = []string{scaleStates, scaleFS, scalePBSR, scaleExp, scaleFSHalf}

// scaleMethodsRun are the methods of this build: ours, then CVODES's.
func scaleMethodsRun() []string {
	if !haveCVODES {
		return scaleMethods
	}
	return append(append([]string(nil), scaleMethods...), scaleCVStates, scaleCVFS, scaleCVFSDense)
}

// scaleRatios are the ratios of the table, CVODES's time over ours
// (numerator, denominator), from the medians of the same rounds.
var scaleRatios = [][2]string{{scaleCVFS, scaleFS}, {scaleCVStates, scaleStates}, {scaleCVFSDense, scaleFS}}

// scaleFSTarget is issue #13's bound on CVODES FS with KLU over our FS, at
// every size.
const scaleFSTarget = 3

const (
	// scaleParams is the number of sensitivity parameters of FS, PBSR and
	// Exp (fewer on networks with fewer parameters).
	scaleParams = 20
	// scaleHalfMax is the largest n of FS with np = n/2: its sensitivity
	// block costs n/2 sparse solves per Newton iteration, so its time grows
	// as n^2 and beyond n = 500 it would take most of the section's time.
	scaleHalfMax = 500
	// scaleBound is issue #13's bound on the fitted exponent of every
	// method with a fixed number of parameters.
	scaleBound = 1.5
	// scaleRTol and scaleATol are the tolerances of every method (of S
	// and, for states only, of x), those of the random linear system.
	scaleRTol, scaleATol = 1e-5, 1e-6
)

// ScaleSeries is one method's times against n, and the fitted power law
// time = a n^b (NaN with fewer than two points).
type ScaleSeries struct {
	Method string `json:"method"`
	// N are the numbers of states (scalenet rounds the requested n down to
	// a multiple of 3), NS the columns of S at each.
	N  []int `json:"n"`
	NS []int `json:"ns"`
	// Median are the median wall times of a solve in seconds; Solves the
	// timed rounds behind each.
	Median   []num `json:"median_s"`
	Solves   []int `json:"timed_solves"`
	Exponent num   `json:"exponent"`
	Prefac   num   `json:"prefactor"`
}

// ScaleRatio is one ratio of two series' medians (Num over Den) at the
// sizes both ran.
type ScaleRatio struct {
	Num   string `json:"num"`
	Den   string `json:"den"`
	N     []int  `json:"n"`
	Ratio []num  `json:"ratio"`
}

// ScaleResult is the scaling section as written to results.json.
type ScaleResult struct {
	Shape  string         `json:"shape"`
	T1     float64        `json:"t1"`
	RTol   float64        `json:"rtol"`
	ATol   float64        `json:"atol"`
	Series []*ScaleSeries `json:"series"`
	// Ratios are CVODES's medians over ours (built with -tags cvodes).
	Ratios []*ScaleRatio `json:"ratios,omitempty"`
}

func (sr *ScaleResult) series(method string) *ScaleSeries {
	for _, s := range sr.Series {
		if s.Method == method {
			return s
		}
	}
	return nil
}

// parseSizes reads the comma-separated -scale-n.
func parseSizes(s string) ([]int, error) {
	var ns []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 6 {
			return nil, fmt.Errorf("-scale-n: %q is not a number of states >= 6", f)
		}
		ns = append(ns, n)
	}
	return ns, nil
}

// scaleRunner builds one method's solve on net, or returns nil where the
// method is not run at that size: PBSR and Exp above maxDense (-scale-max-
// dense, by default no limit: runtime/sens chooses the sparse exponential
// actions for the large chains by itself), FS np=n/2 above scaleHalfMax,
// CVODES's dense FS above maxCVDense. A CVODES solver is freed after the
// section (cleanup).
func scaleRunner(method string, net *scalenet.Network, p, ts []float64, maxDense, maxCVDense int, cleanup *[]func()) (run func() error, ns int) {
	nx, np := model.NumStates(net), model.NumParams(net)
	params := func(k int) []int {
		ps := make([]int, min(k, np))
		for j := range ps {
			ps[j] = j
		}
		return ps
	}
	solve := func(o sens.Options) (func() error, int) {
		o.RTol, o.ATol = scaleRTol, scaleATol
		s := sens.NewSolver(net, &o)
		var res sens.Result
		return func() error { return s.Solve(&res, p, nil, ts[0], ts) }, len(o.Params)
	}
	switch method {
	case scaleCVStates, scaleCVFS, scaleCVFSDense:
		if method == scaleCVFSDense && nx > maxCVDense {
			return nil, 0
		}
		var ps []int
		if method != scaleCVStates {
			ps = params(scaleParams)
		}
		run, free := cvodesScaleRunner(net, p, ts, scaleRTol, scaleATol, ps, method != scaleCVFSDense)
		*cleanup = append(*cleanup, free)
		return run, len(ps)
	case scaleStates:
		s := ode.NewSolver(net, &ode.Settings{RTol: scaleRTol, ATol: scaleATol, Interpolate: true})
		x0 := make([]float64, nx)
		net.InitialState(x0, p)
		var tr ode.Trajectory
		return func() error { return s.Integrate(&tr, p, x0, ts[0], ts) }, 0
	case scaleFS:
		return solve(sens.Options{Method: sens.FS, ErrCon: true, Params: params(scaleParams)})
	case scaleFSHalf:
		if nx > scaleHalfMax {
			return nil, 0
		}
		return solve(sens.Options{Method: sens.FS, ErrCon: true, Params: params(nx / 2)})
	case scalePBSR, scaleExp:
		if nx > maxDense {
			return nil, 0
		}
		m := sens.PBSR
		if method == scaleExp {
			m = sens.Exp
		}
		return solve(sens.Options{Method: m, Params: params(scaleParams)})
	}
	panic("pbbench: unknown scaling method " + method)
}

// benchScale times every method on scalenet chains of the sizes of
// -scale-n over [0, 10] (the chains' transient: the enzymes saturate and
// the substrate spreads around the cycle) with 10 output times, prints the
// table, CVODES's times over ours and the fitted exponents to w. At each
// size the methods are timed in rounds (timeRounds: one solve of each per
// round, at most -scale-reps rounds, fewer past -scale-budget per method,
// but at least 3 unless -scale-reps is smaller), so that the ratios are of
// solves run side by side.
func benchScale(c *config, w io.Writer) (*ScaleResult, error) {
	sizes, err := parseSizes(c.scaleN)
	if err != nil {
		return nil, err
	}
	ts := grid(0, 10, 10)
	sr := &ScaleResult{Shape: scalenet.Chain.String(), T1: ts[len(ts)-1], RTol: scaleRTol, ATol: scaleATol}
	methods := scaleMethodsRun()
	for _, m := range methods {
		sr.Series = append(sr.Series, &ScaleSeries{Method: m})
	}
	var ratios []*ScaleRatio
	if haveCVODES {
		for _, r := range scaleRatios {
			ratios = append(ratios, &ScaleRatio{Num: r[0], Den: r[1]})
		}
		sr.Ratios = ratios
	}
	limit := "at every n"
	if slices.Max(sizes) > c.scaleMaxDense {
		limit = fmt.Sprintf("up to n = %d", c.scaleMaxDense)
	}
	fmt.Fprintf(w, "\n== scaling on scalenet chains, [0, %g], rtol %g, atol %g, %d sensitivity parameters (FS np=n/2: n/2, up to n = %d; PBSR, Exp %s, dense exponentials below n = %d, sparse actions from it), up to %d rounds of one solve per method after a warm-up, fewer past %v per method\n",
		sr.T1, scaleRTol, scaleATol, scaleParams, scaleHalfMax, limit, sens.SparseExpMinStates, c.scaleReps, c.scaleBudget)
	if haveCVODES {
		fmt.Fprintf(w, "CV = SUNDIALS CVODES (BDF, analytic Jx; FS staggered, errconS on as ours) with KLU, or dense up to n = %d; ratios are CVODES / ours\n", c.scaleMaxCVDense)
	}
	fmt.Fprintf(w, "%6s %6s", "n", "params")
	for _, m := range methods {
		fmt.Fprintf(w, " %12s", m)
	}
	for _, r := range ratios {
		fmt.Fprintf(w, " %8s", ratioLabel(r))
	}
	fmt.Fprintf(w, "  %s\n", "rounds")
	for _, n := range sizes {
		net := scalenet.New(scalenet.Chain, n)
		nx := model.NumStates(net)
		p := make([]float64, model.NumParams(net))
		net.DefaultParams(p)
		var cleanup []func()
		runs := make([]func() error, len(sr.Series))
		nss := make([]int, len(sr.Series))
		active := 0
		for i, s := range sr.Series {
			runs[i], nss[i] = scaleRunner(s.Method, net, p, ts, c.scaleMaxDense, c.scaleMaxCVDense, &cleanup)
			if runs[i] != nil {
				active++
			}
		}
		times := timeRounds(runs, c.scaleReps, time.Duration(active)*c.scaleBudget)
		for _, f := range cleanup {
			f()
		}
		fmt.Fprintf(w, "%6d %6d", nx, len(p))
		med := map[string]float64{}
		rounds := 0
		for i, s := range sr.Series {
			if runs[i] == nil {
				fmt.Fprintf(w, " %12s", "-")
				continue
			}
			if err := times[i].err; err != nil {
				return nil, fmt.Errorf("n=%d %s: %v", nx, s.Method, err)
			}
			m := times[i].median
			med[s.Method] = m
			rounds = times[i].n
			s.N, s.NS = append(s.N, nx), append(s.NS, nss[i])
			s.Median, s.Solves = append(s.Median, num(m)), append(s.Solves, times[i].n)
			fmt.Fprintf(w, " %12s", dur(m))
		}
		for _, r := range ratios {
			a, okA := med[r.Num]
			b, okB := med[r.Den]
			if !okA || !okB {
				fmt.Fprintf(w, " %8s", "-")
				continue
			}
			r.N, r.Ratio = append(r.N, nx), append(r.Ratio, num(a/b))
			fmt.Fprintf(w, " %7.2fx", a/b)
		}
		fmt.Fprintf(w, "  %d\n", rounds)
	}
	fitScale(sr)
	printScaleFit(w, sr)
	return sr, nil
}

// ratioLabel is a ratio's short column heading.
func ratioLabel(r *ScaleRatio) string {
	switch r.Num {
	case scaleCVFS:
		return "KLU/FS"
	case scaleCVStates:
		return "KLU/st"
	}
	return "dns/FS"
}

// fitScale fits time = a n^b to each series with at least two sizes.
func fitScale(sr *ScaleResult) {
	for _, s := range sr.Series {
		s.Exponent, s.Prefac = num(math.NaN()), num(math.NaN())
		if len(s.N) < 2 {
			continue
		}
		ys := make([]float64, len(s.Median))
		for i, y := range s.Median {
			ys[i] = float64(y)
		}
		a, b := fitPower(s.N, ys)
		s.Exponent, s.Prefac = num(b), num(a)
	}
}

func printScaleFit(w io.Writer, sr *ScaleResult) {
	fmt.Fprintln(w, "fitted time = a n^b (least squares on log-log):")
	for _, s := range sr.Series {
		if len(s.N) < 2 {
			fmt.Fprintf(w, "  %-10s b not fitted (%d sizes)\n", s.Method, len(s.N))
			continue
		}
		fmt.Fprintf(w, "  %-10s b = %.2f  (n = %d..%d)\n", s.Method, float64(s.Exponent), s.N[0], s.N[len(s.N)-1])
	}
}

// scaleTargets are issue #13's bounds on the exponents: states only, FS,
// PBSR and Exp with a fixed number of parameters grow at most as n^1.5.
// PBSR and Exp take dense exponentials (O(n^3)) below 64 states and
// the sparse actions of runtime/expm beyond (sens.ExpActionAuto), so their
// fit over n = 50..2000 spans the switch. FS with np = n/2 has no target:
// S alone has n^2/2 entries.
func scaleTargets(sr *ScaleResult) []*Target {
	var ts []*Target
	for _, m := range []string{scaleStates, scaleFS, scalePBSR, scaleExp} {
		s := sr.series(m)
		what := m
		if m != scaleStates {
			what = fmt.Sprintf("%s (%d params)", m, scaleParams)
		}
		t := &Target{What: fmt.Sprintf("scaling: %s exponent <= %.1f", what, scaleBound),
			Measured: float64(s.Exponent), Bound: scaleBound}
		t.check()
		ts = append(ts, t)
	}
	for _, r := range sr.Ratios {
		if r.Num != scaleCVFS || r.Den != scaleFS {
			continue
		}
		worst := math.NaN()
		for _, v := range r.Ratio {
			if !(float64(v) >= worst) {
				worst = float64(v)
			}
		}
		t := &Target{What: fmt.Sprintf("scaling: CVODES FS (KLU) / FS >= %d at every n", scaleFSTarget),
			Measured: worst, Bound: scaleFSTarget, AtLeast: true}
		t.check()
		ts = append(ts, t)
	}
	return ts
}
