package shipped

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/generated/chua"
	"github.com/pbgen/pbgen/generated/pka"
	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/parser"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/symbolic"
)

var networks = []struct {
	file string
	gen  model.Model
	nx   int
	np   int
}{
	{"../../networks/PKA.xml", pka.New(), 11, 35},
	{"../../networks/CaMKII.xml", camkii.New(), 21, 59},
	{"../../networks/Chua.xml", chua.New(), 3, 2},
}

func interpreted(t *testing.T, file string) *interp.Model {
	t.Helper()
	m, err := parser.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	o, err := m.ODE(nil)
	if err != nil {
		t.Fatal(err)
	}
	sys, err := symbolic.Build(o)
	if err != nil {
		t.Fatal(err)
	}
	im, err := interp.New(sys)
	if err != nil {
		t.Fatal(err)
	}
	return im
}

// point draws a random (t, x, p): states in [0, 2*scale), parameters the
// defaults times log-normal factors, t in [0, 600).
func point(r *rand.Rand, m model.Model) (t float64, x, p []float64) {
	x = make([]float64, model.NumStates(m))
	for i := range x {
		x[i] = 2 * r.Float64()
	}
	p = make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	for j := range p {
		p[j] *= math.Exp(0.3 * r.NormFloat64())
		if p[j] == 0 {
			p[j] = r.Float64()
		}
	}
	return 600 * r.Float64(), x, p
}

// relDiff is max |a-b| / max(max|b|, 1e-300) over the vectors.
func relDiff(a, b []float64) float64 {
	var d, s float64
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
		s = math.Max(s, math.Abs(b[i]))
	}
	if s == 0 {
		return d
	}
	return d / s
}

func TestDimensionsAndNames(t *testing.T) {
	for _, n := range networks {
		im := interpreted(t, n.file)
		g := n.gen
		if model.NumStates(g) != n.nx || model.NumParams(g) != n.np {
			t.Errorf("%s: generated nx=%d np=%d, want %d %d", n.file, model.NumStates(g), model.NumParams(g), n.nx, n.np)
		}
		if !slices.Equal(g.StateNames(), im.StateNames()) || !slices.Equal(g.ParamNames(), im.ParamNames()) {
			t.Errorf("%s: names differ between generated and interpreted", n.file)
		}
		pg, pi := make([]float64, n.np), make([]float64, n.np)
		g.DefaultParams(pg)
		im.DefaultParams(pi)
		if !slices.Equal(pg, pi) {
			t.Errorf("%s: default parameters differ", n.file)
		}
		for _, pat := range [][2]*model.Pattern{{g.JxPattern(), im.JxPattern()}, {g.JpPattern(), im.JpPattern()}} {
			if err := pat[0].Validate(); err != nil {
				t.Errorf("%s: %v", n.file, err)
			}
			if !slices.Equal(pat[0].RowPtr, pat[1].RowPtr) || !slices.Equal(pat[0].ColIdx, pat[1].ColIdx) {
				t.Errorf("%s: sparsity patterns differ", n.file)
			}
		}
	}
}

// TestGeneratedAgreesWithInterpreted compares f, Jx, Jp and x0 of the
// generated package with the interpreted system at seeded random points.
func TestGeneratedAgreesWithInterpreted(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range networks {
		im := interpreted(t, n.file)
		g := n.gen
		nx := n.nx
		fg, fi := make([]float64, nx), make([]float64, nx)
		jxg, jxi := make([]float64, g.JxPattern().NNZ()), make([]float64, g.JxPattern().NNZ())
		jpg, jpi := make([]float64, g.JpPattern().NNZ()), make([]float64, g.JpPattern().NNZ())
		x0g, x0i := make([]float64, nx), make([]float64, nx)
		var worst float64
		for k := 0; k < 200; k++ {
			tt, x, p := point(r, g)
			g.F(fg, tt, x, p)
			im.F(fi, tt, x, p)
			g.Jx(jxg, tt, x, p)
			im.Jx(jxi, tt, x, p)
			g.Jp(jpg, tt, x, p)
			im.Jp(jpi, tt, x, p)
			g.InitialState(x0g, p)
			im.InitialState(x0i, p)
			for _, d := range []float64{relDiff(fg, fi), relDiff(jxg, jxi), relDiff(jpg, jpi), relDiff(x0g, x0i)} {
				worst = math.Max(worst, d)
			}
		}
		t.Logf("%s: generated vs interpreted, worst relative difference %.2g", n.file, worst)
		if !(worst <= 1e-10) {
			t.Errorf("%s: generated and interpreted differ by %.3g (relative)", n.file, worst)
		}
	}
}

// TestJacobiansAgainstFiniteDifferences checks the generated Jx and Jp
// against central differences of the generated f.
func TestJacobiansAgainstFiniteDifferences(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for _, n := range networks {
		g := n.gen
		nx, np := n.nx, n.np
		jx, jp := make([]float64, nx*nx), make([]float64, nx*np)
		vx, vp := make([]float64, g.JxPattern().NNZ()), make([]float64, g.JpPattern().NNZ())
		fplus, fminus := make([]float64, nx), make([]float64, nx)
		d1, d2 := make([]float64, nx), make([]float64, nx)
		var worst float64
		for k := 0; k < 50; k++ {
			tt, x, p := point(r, g)
			g.Jx(vx, tt, x, p)
			g.JxPattern().ScatterTo(jx, vx)
			g.Jp(vp, tt, x, p)
			g.JpPattern().ScatterTo(jp, vp)
			// Richardson-extrapolated central differences (error O(h^4)),
			// with a step large enough that cancellation in f stays small.
			central := func(v []float64, j int, h float64, dst []float64) {
				old := v[j]
				v[j] = old + h
				g.F(fplus, tt, x, p)
				v[j] = old - h
				g.F(fminus, tt, x, p)
				v[j] = old
				for i := range dst {
					dst[i] = (fplus[i] - fminus[i]) / (2 * h)
				}
			}
			// The tolerance is 1e-6 relative to the column's largest entry,
			// plus the rounding error of the differences, 100 eps |f| / h.
			check := func(v []float64, j int, dense []float64, ncol int) {
				h := 1e-3 * math.Max(math.Abs(v[j]), 1e-2)
				central(v, j, h, d1)
				central(v, j, h/2, d2)
				var scale, fmax float64
				for i := 0; i < nx; i++ {
					d1[i] = (4*d2[i] - d1[i]) / 3
					scale = math.Max(scale, math.Max(math.Abs(d1[i]), math.Abs(dense[i*ncol+j])))
					fmax = math.Max(fmax, math.Max(math.Abs(fplus[i]), math.Abs(fminus[i])))
				}
				tol := 1e-6*scale + 100*0x1p-52*fmax/h
				for i := 0; i < nx; i++ {
					worst = math.Max(worst, math.Abs(d1[i]-dense[i*ncol+j])/tol)
				}
			}
			for j := 0; j < nx; j++ {
				check(x, j, jx, nx)
			}
			for j := 0; j < np; j++ {
				check(p, j, jp, np)
			}
		}
		t.Logf("%s: Jx, Jp vs central differences, worst error %.2g of the tolerance", n.file, worst)
		if !(worst <= 1) {
			t.Errorf("%s: Jacobians differ from central differences by %.3g times the tolerance", n.file, worst)
		}
	}
}
