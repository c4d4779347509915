package main

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/pbgen/pbgen/internal/testmodels"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sens"
)

// LinearResult is the random linear scaling experiment (the paper's
// Figure 4): median times per method and n, and the fitted exponents b of
// time = a n^b.
type LinearResult struct {
	N     []int                `json:"n"`
	Times map[string][]float64 `json:"median_s"`
	// Solves is the number of timed solves behind each median (0: the
	// warm-up alone, past the time budget).
	Solves   map[string][]int   `json:"timed_solves"`
	Exponent map[string]float64 `json:"exponent"`
	Prefac   map[string]float64 `json:"prefactor"`
}

// linearMethods are the paper's three (PBSR and Exp as published) and our
// default PBSR and Exp, which the paper's experiment does not have.
var linearMethods = []string{"FS", "PBSR", "Exp", "PBSR-ours", "Exp-ours"}

// linearOptions: PBSR always refines with Peano-Baker steps (the
// exponential branch disabled, as in the paper's experiment).
func linearOptions(name string) sens.Options {
	o := sens.Options{RTol: 1e-5, ATol: 1e-6}
	switch name {
	case "FS":
		o.Method, o.ErrCon = sens.FS, true
	case "PBSR":
		o.Method, o.Paper, o.Tuning.JacTol, o.Tuning.NMax = sens.PBSR, true, -1, math.MaxInt32
	case "Exp":
		o.Method, o.Paper = sens.Exp, true
	case "PBSR-ours":
		o.Method = sens.PBSR
	case "Exp-ours":
		o.Method = sens.Exp
	default:
		panic("pbbench: unknown linear method " + name)
	}
	return o
}

func benchLinear(c *config) (*LinearResult, error) {
	lr := &LinearResult{Times: map[string][]float64{}, Solves: map[string][]int{},
		Exponent: map[string]float64{}, Prefac: map[string]float64{}}
	ts := grid(0, 10, 10)
	fmt.Printf("\n== random linear system, dx/dt = A x + p.^2 + 1, [0, 10], up to %d solves per point after a warm-up, fewer past %v per point\n",
		c.linReps, c.linBudget)
	fmt.Printf("%5s %12s %12s %12s %9s %12s %12s %14s  %s\n", "n", "FS", "PBSR", "Exp", "FS/PBSR", "PBSR-ours", "Exp-ours", "FS/PBSR-ours", "timed solves per method")
	for n := 5; n <= c.linear; n += 5 {
		m := testmodels.NewRandomLinear(n, 1)
		p := make([]float64, model.NumParams(m))
		m.DefaultParams(p)
		lr.N = append(lr.N, n)
		row := map[string]float64{}
		var reps []string
		for _, name := range linearMethods {
			opt := linearOptions(name)
			s := sens.NewSolver(m, &opt)
			var res sens.Result
			med, k, err := timeBudget(func() error { return s.Solve(&res, p, nil, ts[0], ts) }, c.linReps, c.linBudget)
			if err != nil {
				return nil, fmt.Errorf("n=%d %s: %v", n, name, err)
			}
			row[name] = med
			lr.Times[name] = append(lr.Times[name], med)
			lr.Solves[name] = append(lr.Solves[name], k)
			reps = append(reps, fmt.Sprint(k))
		}
		fmt.Printf("%5d %12s %12s %12s %9.2f %12s %12s %14.2f  %s\n", n, dur(row["FS"]), dur(row["PBSR"]), dur(row["Exp"]),
			row["FS"]/row["PBSR"], dur(row["PBSR-ours"]), dur(row["Exp-ours"]), row["FS"]/row["PBSR-ours"], strings.Join(reps, "/"))
	}
	fmt.Println("fitted time = a n^b (least squares on log-log):")
	for _, name := range linearMethods {
		a, b := fitPower(lr.N, lr.Times[name])
		lr.Exponent[name], lr.Prefac[name] = b, a
		fmt.Printf("  %-9s b = %.2f\n", name, b)
	}
	fmt.Println("  paper (Julia): Exp 2.1, PBSR 3.7, FS 4.2 (PBSR, Exp: the published algorithms, as run here)")
	return lr, nil
}

// timeBudget returns the median wall time of up to reps solves after a
// warm-up, and how many were timed. Solves of the largest systems take
// tens of seconds (PBSR without its exponential branch), where a warm-up
// changes nothing measurable: the count is cut so that the timed solves
// fit in the budget, and a warm-up that alone exceeds it is the one
// measurement (count 0).
func timeBudget(run func() error, reps int, budget time.Duration) (med float64, timed int, err error) {
	w, err := warmUp(run)
	if err != nil {
		return 0, 0, err
	}
	warm := w[0]
	if warm > budget.Seconds() {
		return warm, 0, nil
	}
	if warm > 0 && budget.Seconds()/warm < float64(reps) {
		reps = max(int(budget.Seconds()/warm), 1)
	}
	d, err := timeRuns(run, reps)
	if err != nil {
		return 0, 0, err
	}
	return median(d), reps, nil
}

// fitPower fits y = a x^b by least squares on (log x, log y).
func fitPower(xs []int, ys []float64) (a, b float64) {
	var sx, sy, sxx, sxy float64
	n := float64(len(xs))
	for i, x := range xs {
		lx, ly := math.Log(float64(x)), math.Log(ys[i])
		sx, sy, sxx, sxy = sx+lx, sy+ly, sxx+lx*lx, sxy+lx*ly
	}
	b = (n*sxy - sx*sy) / (n*sxx - sx*sx)
	a = math.Exp((sy - b*sx) / n)
	return a, b
}
