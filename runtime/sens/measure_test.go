package sens

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/generated/pka"
	"github.com/pbgen/pbgen/internal/testmodels"
	"github.com/pbgen/pbgen/runtime/model"
)

var measure = flag.Bool("measure", false, "print the time/accuracy table of the sensitivity methods")

type measCase struct {
	name       string
	m          model.Model
	p          []float64
	ts         []float64
	rtol, atol float64
}

func measCases() []measCase {
	grid := func(t1, dt float64) []float64 {
		n := int(t1/dt + 0.5)
		ts := make([]float64, n+1)
		for i := range ts {
			ts[i] = float64(i) * dt
		}
		return ts
	}
	def := func(m model.Model) []float64 {
		p := make([]float64, model.NumParams(m))
		m.DefaultParams(p)
		return p
	}
	return []measCase{
		{"PKA", pka.New(), def(pka.New()), grid(600, 1), 1e-5, 1e-6},
		{"CaMKII", camkii.New(), def(camkii.New()), grid(600, 1), 1e-5, 1e-6},
		{"Chua", testmodels.NewChua(), []float64{7, 15}, grid(10, 0.1), 1e-6, 1e-8},
	}
}

func timeSolve(m model.Model, c measCase, o *Options) (*Result, time.Duration, error) {
	s := NewSolver(m, o)
	var res Result
	if err := s.Solve(&res, c.p, nil, c.ts[0], c.ts); err != nil {
		return nil, 0, err
	}
	best := time.Duration(1 << 62)
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		s.Solve(&res, c.p, nil, c.ts[0], c.ts)
		if d := time.Since(t0); d < best {
			best = d
		}
	}
	return &res, best, nil
}

func TestMeasure(t *testing.T) {
	if !*measure {
		t.Skip("-measure not set")
	}
	for _, c := range measCases() {
		ref, _, err := timeSolve(c.m, c, &Options{Method: FS, RTol: 1e-10, ATol: 1e-12, ErrCon: true})
		if err != nil {
			t.Fatal(err)
		}
		interp := odeInterp()
		for _, ip := range []bool{false, true} {
			s := NewSolver(c.m, &Options{RTol: c.rtol, ATol: c.atol, ODE: odeSettings{Interpolate: ip}, Tuning: Tuning{Grid: GridState}})
			x0 := make([]float64, s.nx)
			c.m.InitialState(x0, c.p)
			best := time.Duration(1 << 62)
			for i := 0; i < 4; i++ {
				t0 := time.Now()
				s.ode.Integrate(&s.tr, c.p, x0, c.ts[0], c.ts)
				if d := time.Since(t0); d < best {
					best = d
				}
			}
			fmt.Printf("%-7s ODE interp=%v %8.2f ms steps %d\n", c.name, ip, float64(best.Microseconds())/1000, s.ode.Stats().Steps)
		}
		for _, v := range []struct {
			n string
			o Options
		}{
			{"PBSR default", Options{Method: PBSR}},
			{"PBSR noreuse", Options{Method: PBSR, Tuning: Tuning{RefTheta: -1}}},
			{"PBSR old", Options{Method: PBSR, Tuning: Tuning{Grid: GridState, ExpStep: ExpMagnus, StateTolFactor: 1}}},
			{"PBSR interp", Options{Method: PBSR, ODE: interp, Tuning: Tuning{Grid: GridState, ExpStep: ExpMagnus, StateTolFactor: 1}}},
			{"Exp default", Options{Method: Exp}},
			{"Exp old", Options{Method: Exp, Tuning: Tuning{Grid: GridState, ExpStep: ExpMagnus, StateTolFactor: 1}}},
			{"PBSR paper", Options{Method: PBSR, Paper: true}},
			{"Exp paper", Options{Method: Exp, Paper: true}},
			{"FS errcon", Options{Method: FS, ErrCon: true}},
			{"FS", Options{Method: FS}},
		} {
			o := v.o
			o.RTol, o.ATol = c.rtol, c.atol
			r, d, err := timeSolve(c.m, c, &o)
			if err != nil {
				t.Errorf("%s %s: %v", c.name, v.n, err)
				continue
			}
			st := r.Stats
			fmt.Printf("%-7s %-14s %8.2f ms  err %.2e  steps %5d  int %5d  ref %5d  expm %5d  reuse %5d  sq %6d conv %5d\n",
				c.name, v.n, float64(d.Microseconds())/1000, maxRelFro(r, ref), st.ODE.Steps, st.Intervals,
				st.Refinements, st.Exponentials, st.ExpReuses, st.Squarings, st.Converged)
		}
	}
}

func BenchmarkMeasureCaMKIIExpEnd(b *testing.B) {
	c := measCases()[1]
	s := NewSolver(c.m, &Options{RTol: c.rtol, ATol: c.atol})
	var res Result
	for i := 0; i < b.N; i++ {
		s.Solve(&res, c.p, nil, c.ts[0], c.ts)
	}
}
