// Command ablation prints the accuracy and the work counts of the
// sensitivity methods with one default at a time switched back to the
// paper's choice (or to another setting), on PKA, CaMKII and Chua's circuit
// at the paper's tolerances (rtol 1e-5, atol 1e-6). docs/algorithms.md
// quotes its output. It measures no time, so its output is the same on
// every machine up to floating-point rounding:
//
//	go run ./docs/ablation
//
// The error is max over the output times t > 0 of ||S - S_ref||_F /
// ||S_ref||_F, with S_ref from FS at rtol 1e-10, atol 1e-12 (errconS on).
package main

import (
	"fmt"
	"math"
	"os"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/generated/chua"
	"github.com/pbgen/pbgen/generated/pka"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sens"
)

func grid(t1, dt float64) []float64 {
	n := int(t1/dt + 0.5)
	ts := make([]float64, n+1)
	for i := range ts {
		ts[i] = float64(i) * dt
	}
	return ts
}

func maxErr(a, ref *sens.Result) float64 {
	b := ref.NX * ref.NS
	worst := 0.0
	for k := 1; k < len(ref.T); k++ {
		var d, n float64
		for i := 0; i < b; i++ {
			e := a.S[k*b+i] - ref.S[k*b+i]
			d += e * e
			n += ref.S[k*b+i] * ref.S[k*b+i]
		}
		if n > 0 {
			worst = math.Max(worst, math.Sqrt(d/n))
		}
	}
	return worst
}

func main() {
	type c struct {
		name string
		m    model.Model
		ts   []float64
	}
	for _, cs := range []c{{"PKA", pka.New(), grid(600, 1)}, {"CaMKII", camkii.New(), grid(600, 1)}, {"Chua", chua.New(), grid(10, 0.1)}} {
		p := make([]float64, model.NumParams(cs.m))
		cs.m.DefaultParams(p)
		solve := func(o *sens.Options) (*sens.Result, error) {
			s := sens.NewSolver(cs.m, o)
			var r sens.Result
			err := s.Solve(&r, p, nil, cs.ts[0], cs.ts)
			return &r, err
		}
		ref, err := solve(&sens.Options{Method: sens.FS, RTol: 1e-10, ATol: 1e-12, ErrCon: true})
		if err != nil {
			fmt.Fprintf(os.Stderr, "ablation: %s: reference FS solve: %v\n", cs.name, err)
			os.Exit(1)
		}
		rt, at := 1e-5, 1e-6
		vs := []struct {
			name string
			o    sens.Options
		}{
			{"PBS paper", sens.Options{Method: sens.PBS, Paper: true}},
			{"PBSR paper", sens.Options{Paper: true}},
			{"PBSR paper, dense x", sens.Options{Paper: true, Tuning: sens.Tuning{Interp: sens.InterpDense}}},
			{"PBSR paper, code variant (NMax 100, JpCheck, 2-norm)", sens.Options{Paper: true, Tuning: sens.Tuning{NMax: 100, JpCheck: true, Norm: sens.Norm2}}},
			{"Exp paper", sens.Options{Method: sens.Exp, Paper: true}},
			{"PBSR state grid, local error, Magnus", sens.Options{Tuning: sens.Tuning{Grid: sens.GridState}}},
			{"PBSR state grid, local error, end-point", sens.Options{Tuning: sens.Tuning{Grid: sens.GridState, ExpStep: sens.ExpEndpoint}}},
			{"PBSR default", sens.Options{}},
			{"PBSR default, StateTolFactor 1", sens.Options{Tuning: sens.Tuning{StateTolFactor: 1}}},
			{"PBSR default, SensRTol 3 RTol", sens.Options{Tuning: sens.Tuning{SensRTol: 3 * rt}}},
			{"PBSR default, no exponential reuse", sens.Options{Tuning: sens.Tuning{RefTheta: -1, ReuseTol: -1}}},
			{"Exp default", sens.Options{Method: sens.Exp}},
			{"Exp default, StateTolFactor 1", sens.Options{Method: sens.Exp, Tuning: sens.Tuning{StateTolFactor: 1}}},
			{"FS errcon", sens.Options{Method: sens.FS, ErrCon: true}},
		}
		fmt.Printf("== %s rtol %g atol %g\n", cs.name, rt, at)
		for _, v := range vs {
			o := v.o
			o.RTol, o.ATol = rt, at
			r, err := func() (r *sens.Result, err error) {
				defer func() {
					if e := recover(); e != nil {
						err = fmt.Errorf("panic: %v", e)
					}
				}()
				return solve(&o)
			}()
			if err != nil {
				fmt.Printf("  %-55s error: %v\n", v.name, err)
				continue
			}
			st := r.Stats
			fmt.Printf("  %-55s max err %.2e  state steps %4d  intervals %5d  PBS steps %5d  exp steps %5d  exponentials %4d  converged %4d\n", v.name, maxErr(r, ref), st.ODE.Steps, st.Intervals, st.PBSSteps, st.ExpSteps, st.Exponentials, st.Converged)
		}
	}
}
