package fit_test

import (
	"context"
	"fmt"
	"math"

	"github.com/pbgen/pbgen/fit"
)

// A least-squares fit of y = a exp(-b t) with a bound that is active at
// the optimum: the data come from a = 2, b = 0.5, but a <= 1.5. (With a
// at 1.5, a brute-force search over b gives b = 0.35529, and df/da < 0
// there: the bound is active.)
func ExampleMinimize() {
	ts := []float64{0, 1, 2, 4, 8}
	obj := &fit.Func{N: 2, Lo: []float64{0, 0}, Hi: []float64{1.5, 5}, F: func(x, g, h []float64) (float64, error) {
		clear(g)
		clear(h)
		f := 0.0
		for _, t := range ts {
			e := math.Exp(-x[1] * t)
			r := x[0]*e - 2*math.Exp(-0.5*t)
			j := []float64{e, -x[0] * t * e} // dr/da, dr/db
			f += 0.5 * r * r
			for i := range g {
				g[i] += r * j[i]
			}
			if h != nil { // Gauss-Newton: J'J
				for i := range 2 {
					for k := range 2 {
						h[i*2+k] += j[i] * j[k]
					}
				}
			}
		}
		return f, nil
	}}
	res, err := fit.Minimize(context.Background(), obj, []float64{0.5, 2}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v: a = %.4f (at its bound), b = %.4f\n", res.Status, res.X[0], res.X[1])
	// Output:
	// ftol: a = 1.5000 (at its bound), b = 0.3553
}

// Twenty seeded starts on the six-hump camel function, whose global
// minimum f = -1.0316 is one of six local minima.
func ExampleMultiStart() {
	camel := func() (fit.Objective, error) {
		return &fit.Func{N: 2, Lo: []float64{-3, -2}, Hi: []float64{3, 2}, F: func(x, g, h []float64) (float64, error) {
			a, b := x[0], x[1]
			if g != nil {
				g[0] = 8*a - 8.4*a*a*a + 2*a*a*a*a*a + b
				g[1] = a - 8*b + 16*b*b*b
			}
			if h != nil {
				h[0], h[1], h[2], h[3] = 8-25.2*a*a+10*a*a*a*a, 1, 1, -8+48*b*b
			}
			return (4-2.1*a*a+a*a*a*a/3)*a*a + a*b + (-4+4*b*b)*b*b, nil
		}}, nil
	}
	res, err := fit.MultiStart(context.Background(), camel, &fit.MultiOptions{Starts: 20, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	best, _ := res.BestStart()
	fmt.Printf("best f %.4f at (%.4f, %.4f)\n", best.F, math.Abs(best.X[0]), math.Abs(best.X[1]))
	// Output:
	// best f -1.0316 at (0.0898, 0.7127)
}
