package main

import (
	"fmt"
	"math"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sens"
	"github.com/pbgen/pbgen/runtime/testmodels"
)

// LinearResult is the random linear scaling experiment (the paper's
// Figure 4): median times per method and n, and the fitted exponents b of
// time = a n^b.
type LinearResult struct {
	N        []int                `json:"n"`
	Times    map[string][]float64 `json:"median_s"`
	Exponent map[string]float64   `json:"exponent"`
	Prefac   map[string]float64   `json:"prefactor"`
}

var linearMethods = []string{"FS", "PBSR", "Exp"}

// linearOptions: PBSR always refines with Peano-Baker steps (the
// exponential branch disabled, as in the paper's experiment).
func linearOptions(name string) sens.Options {
	o := sens.Options{RTol: 1e-5, ATol: 1e-6}
	switch name {
	case "FS":
		o.Method, o.ErrCon = sens.FS, true
	case "PBSR":
		o.Method, o.Paper, o.JacTol, o.NMax = sens.PBSR, true, -1, math.MaxInt32
	case "Exp":
		o.Method, o.Paper = sens.Exp, true
	}
	return o
}

func benchLinear(c *config) (*LinearResult, error) {
	lr := &LinearResult{Times: map[string][]float64{}, Exponent: map[string]float64{}, Prefac: map[string]float64{}}
	ts := grid(0, 10, 10)
	fmt.Printf("\n== random linear system, dx/dt = A x + p.^2 + 1, [0, 10], %d solves per point\n", c.linReps)
	fmt.Printf("%5s %12s %12s %12s %9s\n", "n", "FS", "PBSR", "Exp", "FS/PBSR")
	for n := 5; n <= c.linear; n += 5 {
		m := testmodels.NewRandomLinear(n, 1)
		p := make([]float64, model.NumParams(m))
		m.DefaultParams(p)
		lr.N = append(lr.N, n)
		row := map[string]float64{}
		for _, name := range linearMethods {
			opt := linearOptions(name)
			s := sens.NewSolver(m, &opt)
			var res sens.Result
			spec := &modelSpec{ts: ts}
			r := timeSolver(&solver{name: name, run: func() error { return s.Solve(&res, p, nil, spec.ts[0], spec.ts) }, info: func() string { return "" }}, c.linReps)
			if r.Err != "" {
				return nil, fmt.Errorf("n=%d %s: %s", n, name, r.Err)
			}
			row[name] = r.Median
			lr.Times[name] = append(lr.Times[name], r.Median)
		}
		fmt.Printf("%5d %12s %12s %12s %9.2f\n", n, dur(row["FS"]), dur(row["PBSR"]), dur(row["Exp"]), row["FS"]/row["PBSR"])
	}
	fmt.Println("fitted time = a n^b (least squares on log-log):")
	for _, name := range linearMethods {
		a, b := fitPower(lr.N, lr.Times[name])
		lr.Exponent[name], lr.Prefac[name] = b, a
		fmt.Printf("  %-5s b = %.2f\n", name, b)
	}
	fmt.Println("  paper (Julia): Exp 2.1, PBSR 3.7, FS 4.2")
	return lr, nil
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
