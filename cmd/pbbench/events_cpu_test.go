//go:build unix

package main

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
)

// TestEventsCPU times the events section's solves of ours (states, FS
// with and without ErrCon, PBSR, Exp) and CVODES's (-tags cvodes) in CPU
// time (getrusage), the median of PBGEN_EVENTS_CPU rounds of at least
// 50 ms each, with our integrators' accepted steps: the section's wall
// times are noisy on a machine shared with other jobs. PBGEN_EVENTS_ROWS
// (comma-separated row names) keeps some rows only.
func TestEventsCPU(t *testing.T) {
	rounds, err := strconv.Atoi(os.Getenv("PBGEN_EVENTS_CPU"))
	if err != nil || rounds < 1 {
		t.Skip("set PBGEN_EVENTS_CPU to the number of rounds")
	}
	m, err := dosedPKA(30)
	if err != nil {
		t.Fatal(err)
	}
	p := make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	t1 := evDay * 31
	ts := grid(0, t1, int(t1))
	nx := model.NumStates(m)
	x0 := make([]float64, nx)
	m.InitialState(x0, p)
	type row struct {
		name  string
		run   func() error
		steps func() int
	}
	rows := []row{{"states (events.Solve)", func() error {
		_, err := events.Solve(m, p, x0, ts, &events.Settings{ODE: &ode.Settings{RTol: evRTol, ATol: evATol}})
		return err
	}, nil}}
	for _, c := range []struct {
		name   string
		meth   sens.Method
		errcon bool
		cols   bool
	}{{"states (SensSolver)", sens.FS, false, false}, {"FS errcon on", sens.FS, true, true}, {"FS errcon off", sens.FS, false, true},
		{"PBSR", sens.PBSR, false, true}, {"Exp", sens.Exp, false, true}} {
		o := &sens.Options{Method: c.meth, ErrCon: c.errcon, RTol: evRTol, ATol: evATol}
		if !c.cols {
			o.Params = []int{}
		}
		v, err := events.NewSensSolver(m, &events.SensSettings{Sens: o})
		if err != nil {
			t.Fatal(err)
		}
		ns := len(p)
		if !c.cols {
			ns = 0
		}
		full := make([]float64, nx*len(p))
		m.InitialSens(full, p)
		s0 := make([]float64, nx*ns)
		if c.cols {
			s0 = full
		}
		var r sens.Result
		rows = append(rows, row{c.name, func() error {
			return v.SolveFrom(&r, p, &events.SensStart{T0: ts[0], X0: x0, S0: s0}, ts)
		}, func() int { return r.Stats.ODE.Steps }})
	}
	for _, s := range cvodesEventSolvers(m, p, ts, evRTol, evATol) {
		rows = append(rows, row{s.name, s.run, nil})
	}
	if keep := os.Getenv("PBGEN_EVENTS_ROWS"); keep != "" {
		// Comma-separated names of the rows to time (a profile of one).
		rows = slices.DeleteFunc(rows, func(r row) bool { return !slices.Contains(strings.Split(keep, ","), r.name) })
	}
	cpu := make([][]float64, len(rows))
	for k := 0; k < rounds; k++ {
		for i, r := range rows {
			n, c0 := 0, cpuTime()
			for n == 0 || cpuTime()-c0 < 50*time.Millisecond {
				if err := r.run(); err != nil {
					t.Fatalf("%s: %v", r.name, err)
				}
				n++
			}
			cpu[i] = append(cpu[i], float64(cpuTime()-c0)/float64(n)/1e6)
		}
	}
	for i, r := range rows {
		slices.Sort(cpu[i])
		st := -1
		if r.steps != nil {
			st = r.steps()
		}
		t.Logf("%-24s %8.3f ms CPU  %6d steps", r.name, cpu[i][rounds/2], st)
	}
}
