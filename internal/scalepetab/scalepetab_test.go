package scalepetab

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/internal/scalenet"
	"github.com/pbgen/pbgen/petab"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/ode"
	"github.com/pbgen/pbgen/runtime/sens"
)

// reference simulates the observables of the written problem with the
// scalenet Network itself (its own mass-action kernels, not the SBML, the
// parser, interp or the PEtab lowering) at tight tolerances: condition c
// sets X0 and the middle enzyme, with preeq after a long run from the
// network's initial state. Rows are in the measurement table's order.
func reference(t *testing.T, o Options) []float64 {
	net := scalenet.New(o.Shape, o.N)
	nx, m := model.NumStates(net), model.NumStates(net)/3
	p := make([]float64, model.NumParams(net))
	net.DefaultParams(p)
	sv := sens.NewSolver(net, &sens.Options{Method: sens.FS, Params: []int{}, ODE: ode.Settings{RTol: 1e-11, ATol: 1e-13}})
	var res sens.Result
	start := make([]float64, nx)
	net.InitialState(start, p)
	if o.Preeq {
		if err := sv.Solve(&res, p, start, 0, []float64{1e4}); err != nil {
			t.Fatal(err)
		}
		copy(start, res.XAt(0))
	}
	var out []float64
	for c := range o.Conditions {
		x0 := slices.Clone(start)
		x0[0] = 1 + float64(c)             // X0
		x0[3*(m/2)+1] = 0.1 * float64(c+1) // E_mid
		if err := sv.Solve(&res, p, x0, 0, o.Times); err != nil {
			t.Fatal(err)
		}
		for k := range o.Observables {
			u := unit(m, k, o.Observables)
			for ti := range o.Times {
				x := res.XAt(ti)
				out = append(out, (1+0.25*float64(k))*(x[3*u+2]+x[3*(u+1)+2]+x[3*(u+2)]))
			}
		}
	}
	return out
}

// The written problem loads with the advertised sizes, its simulations
// agree with the network's own (the data were simulated through PEtab),
// and its chi2 at the nominal parameters is that of data with the
// nominal noise: a chi-square with one degree per measurement.
func TestWrite(t *testing.T) {
	for _, preeq := range []bool{false, true} {
		t.Run(fmt.Sprint("preeq=", preeq), func(t *testing.T) {
			o := (&Options{N: 48, Preeq: preeq}).defaults()
			path, err := Write(t.TempDir(), &o)
			if err != nil {
				t.Fatal(err)
			}
			p, err := petab.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			nx, np := model.NumStates(p.Model), len(p.Objective.Estimated)
			// 16 units: 8 kon, 8 even kcat, koff, krev, 8 scales, 8 sigmas.
			if nx != 48 || np != 8+8+2+16 || len(p.Measurements) != 4*8*10 {
				t.Fatalf("%d states, %d estimated, %d measurements", nx, np, len(p.Measurements))
			}
			th, err := p.Theta(nil)
			if err != nil {
				t.Fatal(err)
			}
			r, err := p.Evaluate(th, &petab.EvalOptions{Method: sens.FS, RTol: 1e-10, ATol: 1e-12})
			if err != nil {
				t.Fatal(err)
			}
			ref := reference(t, o)
			for i, m := range p.Measurements {
				if d := math.Abs(r.Sim[i] - ref[i]); !(d <= 1e-6*math.Max(1, math.Abs(ref[i]))) {
					t.Errorf("%s:%d: simulated %g, the network gives %g", m.File, m.Line, r.Sim[i], ref[i])
				}
			}
			n := float64(len(p.Measurements))
			if sd := math.Sqrt(2 * n); math.Abs(r.Chi2-n) > 5*sd {
				t.Errorf("chi2 %g, want %g +- %g", r.Chi2, n, 5*sd)
			}
			t.Logf("llh %g chi2 %g", r.LLH, r.Chi2)
		})
	}
}

// The gradient with pre-equilibration (the steady state's S solved with
// the bordered matrix Jx + s L^T L of runtime/objective, 17 conservation
// laws) agrees with central differences of the llh at tight tolerances.
func TestGradientPreeq(t *testing.T) {
	o := Options{N: 48, Preeq: true, Times: []float64{1, 5, 20}}
	path, err := Write(t.TempDir(), &o)
	if err != nil {
		t.Fatal(err)
	}
	p, err := petab.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	th, err := p.Theta(nil)
	if err != nil {
		t.Fatal(err)
	}
	// Away from the data-generating point, so that the gradient is not
	// a sum of cancelling noise terms.
	for k := range th {
		th[k] *= 1 + 0.2*math.Sin(float64(3*k+1))
	}
	r, err := p.Evaluate(th, &petab.EvalOptions{Method: sens.FS, Grad: true})
	if err != nil {
		t.Fatal(err)
	}
	tight := &petab.EvalOptions{Method: sens.FS, RTol: 1e-10, ATol: 1e-12}
	llh := func(v []float64) float64 {
		q, err := p.Evaluate(v, tight)
		if err != nil {
			t.Fatal(err)
		}
		return q.LLH
	}
	ids := p.EstimatedIDs()
	bad := 0
	for k := range th {
		// theta is on log10 scale: a relative step of h in the value.
		const h = 1e-4
		up, dn := slices.Clone(th), slices.Clone(th)
		up[k] *= math.Pow(10, h)
		dn[k] *= math.Pow(10, -h)
		fd := (llh(up) - llh(dn)) / (2 * h)
		if d := math.Abs(r.Grad[k] - fd); d > 1e-3+1e-3*math.Abs(fd) {
			bad++
			t.Errorf("%s: gradient %g, finite differences %g", ids[k], r.Grad[k], fd)
		}
	}
	if bad == 0 && !strings.Contains(fmt.Sprint(r.Grad), "NaN") {
		t.Logf("%d components agree with finite differences", len(th))
	}
}
