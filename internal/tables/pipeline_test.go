package tables

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/parser"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/symbolic"
)

// pipelineModel reads a committed networks/<name>.xml through pbgen's own
// path: parser -> symbolic.ODE -> symbolic.Build -> interp.
func pipelineModel(t *testing.T, name string) model.Model {
	t.Helper()
	m, err := parser.ReadFile(filepath.Join(networksDir, name+".xml"))
	if err != nil {
		t.Fatalf("parser: %v", err)
	}
	ode, err := m.ODE(nil)
	if err != nil {
		t.Fatalf("lowering: %v", err)
	}
	sys, err := symbolic.Build(ode)
	if err != nil {
		t.Fatalf("symbolic.Build: %v", err)
	}
	im, err := interp.New(sys)
	if err != nil {
		t.Fatalf("interp.New: %v", err)
	}
	return im
}

// dense scatters CSR values into a dense rows x cols matrix.
func dense(pat *model.Pattern, vals []float64) *mat.Dense {
	d := mat.NewDense(pat.Rows, pat.Cols, nil)
	for i := 0; i < pat.Rows; i++ {
		for k := pat.RowPtr[i]; k < pat.RowPtr[i+1]; k++ {
			d.Set(i, pat.ColIdx[k], vals[k])
		}
	}
	return d
}

// TestPipelineAgreesWithTables is the cross-check of the SBML path: the
// committed SBML (itself checked fresh against the tables by
// TestSBMLFresh) read by pbgen's parser, lowered, built and interpreted
// must have the tables' names, defaults and initial state, the tables'
// f at seeded random states and times, and Jacobians that match central
// finite differences of the tables' f.
func TestPipelineAgreesWithTables(t *testing.T) {
	for _, nw := range networks {
		t.Run(nw.name, func(t *testing.T) {
			n := load(t, nw)
			m := pipelineModel(t, nw.name)
			nx, np := n.NumStates(), n.NumParams()

			var states, params []string
			for _, s := range n.States {
				states = append(states, s.ID)
			}
			for _, p := range n.Params {
				params = append(params, p.ID)
			}
			if got := m.StateNames(); !slices.Equal(got, states) {
				t.Fatalf("states %v, want %v", got, states)
			}
			if got := m.ParamNames(); !slices.Equal(got, params) {
				t.Fatalf("parameters %v, want %v", got, params)
			}
			p0 := make([]float64, np)
			n.DefaultParams(p0)
			got := make([]float64, np)
			m.DefaultParams(got)
			if !slices.Equal(got, p0) {
				t.Errorf("default parameters %v, want %v", got, p0)
			}
			x0 := make([]float64, nx)
			n.InitialState(x0)
			gotX0 := make([]float64, nx)
			m.InitialState(gotX0, p0)
			if !slices.Equal(gotX0, x0) {
				t.Errorf("initial state %v, want %v", gotX0, x0)
			}

			rng := rand.New(rand.NewPCG(1, 1))
			want, f := make([]float64, nx), make([]float64, nx)
			maxRel := 0.0
			for k := 0; k < 200; k++ {
				x := make([]float64, nx)
				for i := range x {
					x[i] = rng.Float64()
				}
				p := p0
				if k%2 == 1 { // also away from the defaults
					p = make([]float64, np)
					for i := range p {
						p[i] = p0[i] * (0.5 + rng.Float64())
					}
				}
				tm := 600 * rng.Float64()
				if k < 20 {
					tm = rng.Float64() // where the CaMKII input Ca(t) still rises
				}
				n.F(want, tm, x, p)
				m.F(f, tm, x, p)
				for i := range f {
					if !scalar.EqualWithinAbsOrRel(f[i], want[i], 1e-9, 1e-9) {
						t.Fatalf("sample %d (t=%v): f[%s] = %v from the pipeline, %v from the tables", k, tm, states[i], f[i], want[i])
					}
					if d := abs(f[i]-want[i]) / max(1, abs(want[i])); d > maxRel {
						maxRel = d
					}
				}
			}
			t.Logf("%s: nx=%d np=%d; f agrees at 200 seeded points, max |diff|/max(1,|f|) = %.3g", nw.name, nx, np, maxRel)

			// Jacobians against central differences of the tables' f at a
			// seeded point.
			x := make([]float64, nx)
			for i := range x {
				x[i] = 0.1 + rng.Float64()
			}
			tm := 0.3
			jxFD := mat.NewDense(nx, nx, nil)
			fd.Jacobian(jxFD, func(dst, y []float64) { n.F(dst, tm, y, p0) }, x, &fd.JacobianSettings{Formula: fd.Central})
			jpFD := mat.NewDense(nx, np, nil)
			fd.Jacobian(jpFD, func(dst, q []float64) { n.F(dst, tm, x, q) }, p0, &fd.JacobianSettings{Formula: fd.Central})
			jx := make([]float64, m.JxPattern().NNZ())
			m.Jx(jx, tm, x, p0)
			jp := make([]float64, m.JpPattern().NNZ())
			m.Jp(jp, tm, x, p0)
			for _, c := range []struct {
				name    string
				got, fd *mat.Dense
			}{{"Jx", dense(m.JxPattern(), jx), jxFD}, {"Jp", dense(m.JpPattern(), jp), jpFD}} {
				r, cc := c.got.Dims()
				scale := mat.Norm(c.fd, 1)
				for i := 0; i < r; i++ {
					for j := 0; j < cc; j++ {
						if !scalar.EqualWithinAbsOrRel(c.got.At(i, j), c.fd.At(i, j), 1e-6*max(1, scale), 1e-5) {
							t.Errorf("%s[%d][%d] = %v, central difference %v", c.name, i, j, c.got.At(i, j), c.fd.At(i, j))
						}
					}
				}
			}
		})
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
