package testsuite

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/dae"
	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
)

// TestOwnCases runs pbgen's own cases in the suite's layout, each folder
// with a README.md that gives the exact solutions its results hold:
// testdata/latefast, delayed events that use their trigger time's values
// and set a fast species (90001: two executions pending together; 90002:
// a concentration, a parameter beside it, and an execution cancelled), a
// fast reaction's stoichiometry (90003) or a factor that switches a fast
// reaction on and off (90004), which the reader refused before; and
// testdata/complocal, comp replacements of a kinetic law's local
// parameter by metaid (90101 through a port with a conversion factor,
// 90102 replacedBy), which failed or gave wrong numbers before.
// Interpreted, and through generated packages unless -short.
func TestOwnCases(t *testing.T) {
	for _, c := range []struct {
		dir string
		n   int
	}{{"testdata/latefast", 4}, {"testdata/complocal", 2}} {
		check := func(path string, outs []Outcome, err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			if len(outs) != c.n {
				t.Fatalf("%s %s: %d cases, want %d", c.dir, path, len(outs), c.n)
			}
			for _, o := range outs {
				if o.Status != Passed {
					t.Errorf("%s %s: case %s %v: %s", c.dir, path, o.Case.ID, o.Status, o.Reason)
				}
			}
		}
		outs, err := RunDir(c.dir, &Filter{All: true}, nil)
		check("interpreted", outs, err)
		if testing.Short() {
			continue
		}
		var log strings.Builder
		outs, err = RunDirGenerated(c.dir, &Filter{All: true}, nil, &log)
		if err != nil {
			t.Log(log.String())
		}
		check("generated", outs, err)
	}
}

// TestLateFastSens checks S = dx/dp through case 90001's split event
// (FS by runtime/events on the reduced DAE): exactly for the pool T = A +
// B against v0, and against central differences for kf, kr and v0. With
// K = kf/kr = 2 and T(0) = 3, T = 3 + v0 t before t = 2, then
// T(2+) = T(1)/3 + 5 + 2 T(2-)/3 = 8 + 5 v0/3 and T = T(2+) + v0 (t - 2),
// then T(2.4+) = (3 + 1.4 v0)/3 + 5 + 2 T(2.4-)/3, so dT/dv0 is t before
// 2, 5/3 + (t - 2) until 2.4 and 16.6/9 + (t - 2.4) after.
func TestLateFastSens(t *testing.T) {
	sys, err := Lower("testdata/latefast/90001/90001-sbml-l3v2.xml")
	if err != nil {
		t.Fatal(err)
	}
	im, err := interp.NewWithEvents(sys)
	if err != nil {
		t.Fatal(err)
	}
	m, err := dae.New(im)
	if err != nil {
		t.Fatal(err)
	}
	np := model.NumParams(m)
	p := make([]float64, np)
	m.DefaultParams(p)
	pn := m.ParamNames()
	if !slices.Equal(pn, []string{"kf", "kr", "v0"}) {
		t.Fatalf("parameters %v, want kf, kr, v0", pn)
	}
	ts := []float64{0, 0.5, 1.5, 1.9, 2, 2.2, 2.4, 3, 4}
	r, err := events.SolveSens(m, p, nil, nil, ts, &events.SensSettings{Sens: &sens.Options{Method: sens.FS,
		ErrCon: true, RTol: 1e-10, ATol: 1e-12, ODE: ode.Settings{RTol: 1e-10, ATol: 1e-12, MaxSteps: 1000000}}})
	if err != nil {
		t.Fatal(err)
	}
	nx := model.NumStates(m)
	pool := slices.Index(m.StateNames(), "fast_pool1")
	if pool < 0 {
		t.Fatalf("no state fast_pool1 among %v", m.StateNames())
	}
	for k, tt := range ts {
		want := tt
		switch {
		case tt >= 2.4:
			want = 16.6/9 + tt - 2.4
		case tt >= 2:
			want = 5.0/3 + tt - 2
		}
		if got := r.SAt(k)[pool*np+2]; !(math.Abs(got-want) <= 1e-7) {
			t.Errorf("dT/dv0 at t = %v: %.10g, exactly %.10g", tt, got, want)
		}
	}
	fd := suiteFD(t, m, p, ts, 1e-5)
	worst := 0.0
	for k := range ts {
		for i := 0; i < nx; i++ {
			for j := 0; j < np; j++ {
				at := (k*nx+i)*np + j
				worst = math.Max(worst, math.Abs(r.SAt(k)[i*np+j]-fd[at])/(1+math.Abs(fd[at])))
			}
		}
	}
	t.Logf("FS against central differences: worst %.2g", worst)
	if !(worst <= 1e-6) {
		t.Errorf("FS sensitivities differ from central differences by %.2g", worst)
	}
}
