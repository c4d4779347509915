//go:build cvodes

package main

import (
	"github.com/pbgen/pbgen/internal/cvodes"
	"github.com/pbgen/pbgen/runtime/model"
)

// cvodesEventSolvers are CVODES's states, FS errcon on and off through
// its root finding and event loop (cvodes.EventSolver).
func cvodesEventSolvers(m model.Model, p, ts []float64, rtol, atol float64) []*evSolver {
	nx, np := model.NumStates(m), model.NumParams(m)
	x0 := make([]float64, nx)
	m.InitialState(x0, p)
	var out []*evSolver
	for _, c := range []struct {
		name         string
		sens, errcon bool
	}{{"states (CVODES)", false, false}, {"FS errcon on (CVODES)", true, true}, {"FS errcon off (CVODES)", true, false}} {
		e, err := cvodes.NewEvents(m, cvodes.Options{RTol: rtol, ATol: atol, Sens: c.sens, ErrCon: c.errcon, MaxSteps: 100000, PBar: pbar(p, nil, c.sens)})
		if err != nil {
			out = append(out, &evSolver{name: c.name, run: func() error { return err }})
			continue
		}
		xs := make([]float64, len(ts)*nx)
		var ss []float64
		if c.sens {
			ss = make([]float64, len(ts)*nx*np)
		}
		sv := &evSolver{name: c.name,
			run:   func() error { return e.Solve(p, x0, ts[0], ts, xs, ss) },
			fired: e.Fired}
		if c.sens {
			sv.s = func() []float64 { return ss }
		}
		out = append(out, sv)
	}
	return out
}
