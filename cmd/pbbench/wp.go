package main

import (
	"fmt"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
)

// WPPoint is one point of the work-precision view: time against error.
type WPPoint struct {
	Name   string  `json:"name"`
	RTol   float64 `json:"rtol"`
	Median float64 `json:"median_s"`
	MaxErr num     `json:"max_rel_err"`
}

// workPrecision measures every sensitivity method at several tolerances
// (atol = rtol/10), since the honest comparison is time at equal accuracy.
func workPrecision(spec *modelSpec, p, ref []float64, c *config) []*WPPoint {
	nx, np := model.NumStates(spec.m), model.NumParams(spec.m)
	n := c.solves/4 + 1
	var pts []*WPPoint
	fmt.Printf("work-precision (%d solves each, atol = rtol/10):\n", n)
	fmt.Printf("  %-30s %8s %10s %11s\n", "method", "rtol", "median", "max rel err")
	for _, rtol := range []float64{1e-4, 1e-5, 1e-6, 1e-7, 1e-8} {
		atol := rtol / 10
		sp := *spec
		sp.rtol, sp.atol = rtol, atol
		opt := func(m sens.Method, errcon bool) sens.Options {
			return sens.Options{Method: m, ErrCon: errcon, RTol: rtol, ATol: atol, ODE: ode.Settings{Interpolate: true}}
		}
		list := []*solver{
			senseSolver(fmt.Sprintf("FS on rtol %.0e", rtol), &sp, p, opt(sens.FS, true)),
			senseSolver(fmt.Sprintf("FS off rtol %.0e", rtol), &sp, p, opt(sens.FS, false)),
			senseSolver(fmt.Sprintf("PBSR rtol %.0e", rtol), &sp, p, opt(sens.PBSR, false)),
			senseSolver(fmt.Sprintf("Exp rtol %.0e", rtol), &sp, p, opt(sens.Exp, false)),
		}
		list = append(list, cvodesWP(&sp, p, rtol, atol)...)
		for _, s := range list {
			r := timeSolver(s, n)
			if r.Err != "" {
				fmt.Printf("  %-30s %8.0e failed: %s\n", s.name, rtol, r.Err)
				continue
			}
			mx, _ := maxMedian(relErrors(s.s(), ref, nx*np))
			pts = append(pts, &WPPoint{Name: s.name, RTol: rtol, Median: r.Median, MaxErr: num(mx)})
			fmt.Printf("  %-30s %8.0e %10s %11.2e\n", s.name, rtol, dur(r.Median), mx)
		}
	}
	return pts
}
