package testsuite

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/internal/suites"
	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
)

// TestEventSensCases routes the first event cases of the SBML Test Suite
// (TimeCourse, with parameters) through events.SolveSens with FS and PBSR
// and compares S with central differences of events.Solve in each parameter.
// An entry where the differences at two step sizes disagree is not
// differentiable there (an event moves across an output time, or the
// number of events changes within the step) and is left out; the others
// must agree to 1e-4 of their column's scale (its largest entry, at
// least 1e-6).
func TestEventSensCases(t *testing.T) {
	dir, full := suites.SBMLCases(t)
	cases, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	const want = 25 // cases to check
	checked, entries, rough := 0, 0, 0
	var worst [2]float64 // FS, PBSR
	for _, c := range cases {
		if checked == want {
			break
		}
		if c.TestType != "TimeCourse" || !hasEventTag(c) {
			continue
		}
		path, err := c.ModelFile()
		if err != nil {
			continue
		}
		sys, err := Lower(path)
		if err != nil {
			continue // refused for another construct
		}
		m, err := interp.NewWithEvents(sys)
		if err != nil || m.NumEvents() == 0 || m.NumAlgebraic() > 0 {
			continue // DAEs with events: TestDAESensFD and the suite runs
		}
		np, nx := model.NumParams(m), model.NumStates(m)
		if np == 0 || np > 10 || nx == 0 {
			continue
		}
		p := make([]float64, np)
		m.DefaultParams(p)
		ts := c.Settings.Times()
		var rs []*events.SensResult
		for _, meth := range []sens.Method{sens.FS, sens.PBSR} {
			// ErrCon: where an event leaves the state at a steady state,
			// the state's own steps are long and S, moving towards the
			// new steady state's sensitivity, would go unresolved.
			r, err := events.SolveSens(m, p, nil, nil, ts, &events.SensSettings{Sens: &sens.Options{Method: meth,
				ErrCon: true, RTol: 1e-9, ATol: 1e-11, ODE: ode.Settings{RTol: 1e-10, ATol: 1e-12, MaxSteps: 1000000}}})
			if err != nil {
				t.Errorf("case %s %v: %v", c.ID, meth, err)
				break
			}
			rs = append(rs, r)
		}
		if len(rs) < 2 {
			continue
		}
		fd := func(rel float64) []float64 { return suiteFD(t, m, p, ts, rel) }
		f1, f2 := fd(1e-6), fd(1e-5)
		checked++
		bad := 0
		for j := 0; j < np; j++ {
			// The floor keeps a column of tiny S (1e-8) to the methods'
			// absolute tolerance (ATol 1e-11) rather than a relative one.
			scale := 1e-6
			for k := range ts {
				for i := 0; i < nx; i++ {
					scale = math.Max(scale, math.Abs(f1[(k*nx+i)*np+j]))
				}
			}
			for k := range ts {
				for i := 0; i < nx; i++ {
					at := (k*nx+i)*np + j
					if math.Abs(f1[at]-f2[at]) > 1e-5*scale {
						rough++
						continue
					}
					entries++
					for mi, r := range rs {
						e := math.Abs(r.SAt(k)[i*np+j]-f1[at]) / scale
						worst[mi] = math.Max(worst[mi], e)
						if e > 1e-4 && bad < 3 {
							bad++
							t.Errorf("case %s %s: t=%g: d%s/d%s = %.8g, central differences %.8g", c.ID, []string{"FS", "PBSR"}[mi], ts[k],
								m.StateNames()[i], m.ParamNames()[j], r.SAt(k)[i*np+j], f1[at])
						}
					}
				}
			}
		}
		t.Logf("case %s: %d states, %d parameters, %d events executed", c.ID, nx, np, len(rs[0].Fired))
	}
	t.Logf("%d cases, %d entries compared (%d not differentiable left out): worst relative error FS %.2g, PBSR %.2g", checked, entries, rough, worst[0], worst[1])
	// The vendored subset has one event case with parameters (00026).
	if full && checked < want || checked == 0 || entries == 0 {
		t.Errorf("only %d cases and %d entries checked", checked, entries)
	}
}

func hasEventTag(c *Case) bool {
	for _, tag := range c.Tags {
		if strings.HasPrefix(tag, "Event") {
			return true
		}
	}
	return false
}

// suiteFD is the central difference of events.Solve's x at ts in each
// parameter with step rel*max(1, |p_j|), laid out as SensResult.S.
func suiteFD(t *testing.T, m model.Model, p, ts []float64, rel float64) []float64 {
	t.Helper()
	nx, np := model.NumStates(m), len(p)
	out := make([]float64, len(ts)*nx*np)
	set := &events.Settings{ODE: &ode.Settings{RTol: 1e-12, ATol: 1e-14, MaxSteps: 1000000}, TTol: 1e-14}
	x0 := make([]float64, nx)
	for j := range p {
		h := rel * math.Max(1, math.Abs(p[j]))
		var xs [2]*events.Result
		for s, sg := range []float64{1, -1} {
			q := append([]float64(nil), p...)
			q[j] += sg * h
			m.InitialState(x0, q)
			r, err := events.Solve(m, q, x0, ts, set)
			if err != nil {
				t.Fatal(err)
			}
			xs[s] = r
		}
		for k := range ts {
			for i := 0; i < nx; i++ {
				out[(k*nx+i)*np+j] = (xs[0].XAt(k)[i] - xs[1].XAt(k)[i]) / (2 * h)
			}
		}
	}
	return out
}

// eventSensCase is one model of TestEventSensModels: its file, output
// times, closed form, changes to its default parameters, and the bounds
// of each method's worst relative error (fine bounds FS at RTol 1e-12).
type eventSensCase struct {
	name, file string
	ts         []float64
	exact      func([]complex128, float64) []complex128
	tweak      func(p []float64) // changes to the default parameters
	bound      map[string]float64
	fine       float64
}

// eventSensCases are the models of TestEventSensModels (and of the
// CVODES comparison, TestEventSensModelsCVODES).
func eventSensCases() []eventSensCase {
	return []eventSensCase{
		{"eventtime.xml without its event", "eventtime.xml", []float64{0, 1, 2, 3, 5}, exactEventTime,
			func(p []float64) { p[4] = 100 },
			map[string]float64{"FS": 1e-9, "PBSR": 2.5e-9, pbsrTight: 5e-10}, 3e-11},
		{"bolus.xml", "bolus.xml", []float64{0, 1, 2.5, 4.2, 6, 8}, exactBolus, nil,
			map[string]float64{"FS": 2e-9, "PBSR": 2.5e-9, pbsrTight: 5e-10}, 5e-11},
		{"eventtime.xml", "eventtime.xml", []float64{0, 1, 2, 3, 5}, exactEventTime, nil,
			map[string]float64{"FS": 1e-9, "PBSR": 3e-9, pbsrTight: 5e-10}, 3e-11},
		{"statetrigger.xml", "statetrigger.xml", []float64{0, 1, 2.5, 4, 6}, exactStateTrigger, nil,
			map[string]float64{"FS": 1.5e-8, "PBSR": 1.2e-8, pbsrTight: 2.5e-9}, 3e-10},
		{"piecewise.xml", "piecewise.xml", []float64{0, 1, 2, 2.5, 3.5, 5}, exactPiecewise, nil,
			map[string]float64{"FS": 2.5e-9, "PBSR": 2e-9, pbsrTight: 3e-10}, 8e-11},
	}
}

// TestEventSensModels checks S through events and switches of the
// right-hand side on the small SBML models of testdata/events: repeated
// bolus doses whose times move with a parameter, an event at a parameter
// time, a state-dependent trigger, and a piecewise input switched on and
// off at parameter times feeding a state-dependent switch (no events:
// switches only); with the event-time model's event moved past the end
// as the baseline without events. The output times keep clear of the
// events and switches, where x is not differentiable in p.
//
// The reference is each model's closed form, differentiated by complex
// steps (eventsens_exact_test.go): exact to rounding. That the closed
// forms are the models is checked against fourth-order central
// differences of events.Solve at RTol 1e-14 (the previous reference:
// within 5e-10 of them). Errors are relative to the column's largest
// entry.
//
// S is solved at RTol 1e-10 by FS (with S in its error control, ErrCon),
// PBSR, PBSR with its local error test at SensRTol = RTol/10 and Exp,
// each with its own state tolerance for it. "Within 10x the tolerance"
// (issue #12), 1e-9 here, holds for FS on the baseline (4.3e-10; 1.3e-9
// before its initial step took S into account, as CVODES's does, and
// its step sequence became CVODES's), on the event-time model (3.6e-10)
// and on the bolus model (8.4e-10;
// PBSR 1.3e-9, 1e-8 before its local error test weighed the columns of S,
// sens.Tuning.ColumnWeightMax), not on the piecewise input (1.4e-9) nor
// on the state trigger (1.2e-8, PBSR 7.4e-9), and PBSR's baseline is
// 1.4e-9: there the error is the integrator's global error, not the
// events'. The baseline, where no event fires, is one integration,
// as sens.Solve's of the model without events and to the last digit
// (FS 4.3e-10, 1.1e-11 at RTol 1e-12; 3.4e-10 and 7.5e-12 when
// SolveSens still restarted at the first outputs). Each of the state trigger's five harvests
// restarts the integration from a non-zero S that the logistic then
// carries through its inflection, where the local errors add up
// undamped: over the last such stretch, from the exact S after the
// fifth harvest, FS is 5.5e-9 off dX/dr, as CVODES is (5.5e-9, in the
// same 81 steps: TestStateTriggerSegmentCVODES, build tag cvodes).
// Through the whole of each model, events and switches included,
// CVODES FS with its root finding is as far off at the same tolerances
// (TestEventSensModelsCVODES, build tag cvodes). The jumps themselves
// cost nothing measurable: FS at RTol 1e-12 is 39 to 86 times more
// accurate on every model (7e-12 to 1.4e-10). The bounds are the measured errors (amd64)
// with room for rounding on other platforms; a wrong or missing jump is
// 1e-2 to 1 off, and Exp, without error control of S, is bounded at
// 1e-4 (measured 1e-5 to 4e-5).
// load reads c's model, its parameters (with c.tweak) and the exact S
// at c.ts (SensResult.S's layout).
func (c *eventSensCase) load(t *testing.T) (m *interp.Model, p, ref []float64) {
	t.Helper()
	sys, err := Lower(filepath.Join("..", "testdata", "events", c.file))
	if err != nil {
		t.Fatal(err)
	}
	m, err = interp.NewWithEvents(sys)
	if err != nil {
		t.Fatal(err)
	}
	p = make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	if c.tweak != nil {
		c.tweak(p)
	}
	_, ref = exactSens(c.exact, p, c.ts, model.NumStates(m))
	return m, p, ref
}

func TestEventSensModels(t *testing.T) {
	const rtol = 1e-10
	cases := eventSensCases()
	for _, c := range cases {
		m, p, ref := c.load(t)
		// The closed form is the model: the differences of the solution
		// agree with it to their own error.
		w := worstSensErr(t, c.name+" central differences", m, c.ts, ref, fd4(t, m, p, c.ts))
		if w > 2e-9 {
			t.Errorf("%s: the closed form differs from central differences of events.Solve by %.2g", c.name, w)
		}
		for _, v := range []struct {
			name string
			opt  sens.Options
			rtol float64
		}{
			{"FS", sens.Options{Method: sens.FS, ErrCon: true}, rtol},
			{"PBSR", sens.Options{Method: sens.PBSR}, rtol},
			{pbsrTight, sens.Options{Method: sens.PBSR, Tuning: sens.Tuning{SensRTol: rtol / 10, SensATol: rtol * 1e-3}}, rtol},
			{"Exp", sens.Options{Method: sens.Exp}, rtol},
			{"FS at RTol 1e-12", sens.Options{Method: sens.FS, ErrCon: true}, 1e-12},
		} {
			o := v.opt
			o.RTol, o.ATol = v.rtol, v.rtol*1e-2
			r, err := events.SolveSens(m, p, nil, nil, c.ts, &events.SensSettings{Sens: &o})
			if err != nil {
				t.Fatalf("%s %s: %v", c.name, v.name, err)
			}
			w := worstSensErr(t, fmt.Sprintf("%s %s (%d events)", c.name, v.name, len(r.Fired)), m, c.ts, ref, r.S)
			b, ok := c.bound[v.name]
			switch {
			case v.name == "Exp":
				b, ok = 1e-4, true
			case v.rtol != rtol:
				b, ok = c.fine, true
			}
			if ok && w > b {
				t.Errorf("%s %s: worst relative error %.2g, want <= %.2g", c.name, v.name, w, b)
			}
		}
	}
}

// pbsrTight names PBSR with its local error test at SensRTol = RTol/10.
const pbsrTight = "PBSR SensRTol/10"

// worstSensErr logs and returns the worst error of got (laid out as
// SensResult.S at ts) against ref, relative to the largest entry of the
// column in ref (at least 1e-6).
func worstSensErr(t *testing.T, name string, m model.Model, ts, ref, got []float64) float64 {
	t.Helper()
	np, nx := model.NumParams(m), model.NumStates(m)
	worst, wi, wj, wk := 0.0, 0, 0, 0
	for j := 0; j < np; j++ {
		scale := 1e-6
		for k := range ts {
			for i := 0; i < nx; i++ {
				scale = math.Max(scale, math.Abs(ref[(k*nx+i)*np+j]))
			}
		}
		for k := range ts {
			for i := 0; i < nx; i++ {
				if e := math.Abs(got[(k*nx+i)*np+j]-ref[(k*nx+i)*np+j]) / scale; e > worst || math.IsNaN(e) {
					worst, wi, wj, wk = e, i, j, k
				}
			}
		}
	}
	at := (wk*nx+wi)*np + wj
	t.Logf("%s: worst relative error %.2g at t=%g: d%s/d%s = %.12g, exact %.12g",
		name, worst, ts[wk], m.StateNames()[wi], m.ParamNames()[wj], got[at], ref[at])
	return worst
}

// fd4 is the fourth-order central difference of events.Solve's x at ts
// (RTol 1e-14) in each parameter (step 1e-3 max(1, |p_j|)), laid out as
// SensResult.S.
func fd4(t *testing.T, m model.Model, p, ts []float64) []float64 {
	t.Helper()
	nx, np := model.NumStates(m), len(p)
	out := make([]float64, len(ts)*nx*np)
	set := &events.Settings{ODE: &ode.Settings{RTol: 1e-14, ATol: 1e-16, MaxSteps: 1000000}, TTol: 1e-15}
	x0 := make([]float64, nx)
	for j := range p {
		h := 1e-3 * math.Max(1, math.Abs(p[j]))
		var xs [4]*events.Result
		for s, sg := range []float64{2, 1, -1, -2} {
			q := append([]float64(nil), p...)
			q[j] += sg * h
			m.InitialState(x0, q)
			r, err := events.Solve(m, q, x0, ts, set)
			if err != nil {
				t.Fatal(err)
			}
			xs[s] = r
		}
		for k := range ts {
			for i := 0; i < nx; i++ {
				a, b, c, d := xs[0].XAt(k)[i], xs[1].XAt(k)[i], xs[2].XAt(k)[i], xs[3].XAt(k)[i]
				out[(k*nx+i)*np+j] = (8*(b-c) - (a - d)) / (12 * h)
			}
		}
	}
	return out
}
