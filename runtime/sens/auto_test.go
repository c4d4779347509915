package sens

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/generated/chua"
	"github.com/pbgen/pbgen/generated/pka"
	"github.com/pbgen/pbgen/internal/scalenet"
	"github.com/pbgen/pbgen/internal/testmodels"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
)

// TestResolve checks Auto's rules at pbgen sim's defaults (t in [0, 10],
// rtol 1e-6, atol 1e-8, ErrCon): CaMKII is stiff (the probe's h ||Jx||
// reaches 5e3, where pbgen sim took 68 ms of CPU with fs and 110 ms
// with pbsr, docs/bench/auto-2026-12-08.txt) and resolves to FS, and so
// does PKA (46, above AutoStiff); PKA on [0, 1] (8.2) to PBSR,
// but to FS without ErrCon or with the outputs interpolated (the
// objective's FS); Chua, 2 columns, and
// CaMKII with 4 to FS without a probe; the random linear system to PBSR
// without ErrCon (linear kinetics); a scalenet chain to FS (sparse Jx);
// and the decision is the same when repeated.
func TestResolve(t *testing.T) {
	for _, c := range []struct {
		name   string
		m      model.Model
		params []int
		noErr  bool // ErrCon off
		want   Method
		reason string
		probe  bool    // the probe ran
		t1     float64 // the end of the span (0: 10)
	}{
		{"CaMKII", camkii.New(), nil, false, FS, "stiff", true, 0},
		{"PKA", pka.New(), nil, false, FS, "stiff", true, 0},
		{"PKA on [0, 1]", pka.New(), nil, false, PBSR, "columns", true, 1},
		{"PKA without ErrCon", pka.New(), nil, true, FS, "ErrCon", false, 0},
		{"PKA interpolated", pka.New(), nil, false, FS, "interpolated", false, 0},
		{"Chua", chua.New(), nil, false, FS, "fewer than", false, 0},
		{"CaMKII 4 columns", camkii.New(), []int{0, 1, 2, 3}, false, FS, "fewer than", false, 0},
		{"random linear 20", testmodels.NewRandomLinear(20, 1), nil, true, PBSR, "linear", false, 0},
		{"scalenet chain 99", scalenet.New(scalenet.Chain, 99), []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, false, FS, "sparse", false, 0},
	} {
		p := make([]float64, model.NumParams(c.m))
		c.m.DefaultParams(p)
		opt := &Options{Method: Auto, Params: c.params, ErrCon: !c.noErr}
		opt.ODE.Interpolate = strings.HasSuffix(c.name, "interpolated")
		t1 := c.t1
		if t1 == 0 {
			t1 = 10
		}
		ch, err := Resolve(c.m, p, nil, t1, opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		t.Logf("%s: %v (%s)", c.name, ch.Method, ch.Reason)
		if ch.Method != c.want || !strings.Contains(ch.Reason, c.reason) {
			t.Errorf("%s: resolved to %v (%s), want %v for %q", c.name, ch.Method, ch.Reason, c.want, c.reason)
		}
		if (ch.ProbeSteps > 0) != c.probe {
			t.Errorf("%s: probe steps %d, want a probe: %v", c.name, ch.ProbeSteps, c.probe)
		}
		if (c.name == "CaMKII" || c.name == "PKA") && !(ch.Stiffness > AutoStiff) || c.name == "PKA on [0, 1]" && !(ch.Stiffness > 1 && ch.Stiffness <= AutoStiff) {
			t.Errorf("%s: stiffness %g", c.name, ch.Stiffness)
		}
		again, _ := Resolve(c.m, p, nil, t1, opt)
		if again != ch {
			t.Errorf("%s: Resolve is not deterministic: %+v then %+v", c.name, ch, again)
		}
	}
}

// TestSolveAuto checks that Solve with Auto returns exactly the numbers of
// the method Resolve chose (PKA on [0, 1]: PBSR), that NewSolver refuses Auto by
// name, and that Auto with Paper or an explicit grid is refused.
func TestSolveAuto(t *testing.T) {
	m := pka.New()
	p := make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	ts := []float64{0, 0.25, 0.5, 1}
	got, err := Solve(m, p, ts, &Options{Method: Auto, ErrCon: true})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Solve(m, p, ts, &Options{Method: PBSR})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.S, want.S) || !slices.Equal(got.X, want.X) {
		t.Errorf("Solve with Auto differs from PBSR, its resolution")
	}
	if err := NewSolver(m, &Options{Method: Auto}).Err(); !errors.Is(err, ode.ErrInvalid) || !strings.Contains(err.Error(), "Resolve") {
		t.Errorf("NewSolver with Auto: %v, want an ErrInvalid naming Resolve", err)
	}
	for _, o := range []Options{{Method: Auto, Paper: true}, {Method: Auto, Tuning: Tuning{Grid: GridDyadic}}} {
		if err := o.Validate(); !errors.Is(err, ode.ErrInvalid) {
			t.Errorf("%+v: Validate %v, want ErrInvalid", o, err)
		}
	}
	if _, err := Resolve(m, p, nil, 10, &Options{Method: FS}); !errors.Is(err, ode.ErrInvalid) {
		t.Errorf("Resolve with Method FS: %v, want ErrInvalid", err)
	}
	if _, err := Resolve(m, p[:3], nil, 10, &Options{Method: Auto}); !errors.Is(err, ode.ErrInvalid) {
		t.Errorf("Resolve with 3 parameters: %v, want ErrInvalid", err)
	}
	if m, err := ParseMethod("auto"); err != nil || m != Auto || m.String() != "Auto" {
		t.Errorf("ParseMethod(auto) = %v, %v", m, err)
	}
}
