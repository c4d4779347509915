package scalenet

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/parser"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/symbolic"
)

// point returns the default parameters and a random positive state.
func point(net *Network, rng *rand.Rand) (x, p []float64) {
	x = make([]float64, len(net.StateNames()))
	p = make([]float64, len(net.ParamNames()))
	net.DefaultParams(p)
	for i := range x {
		x[i] = 0.1 + rng.Float64()
	}
	return x, p
}

func TestSizes(t *testing.T) {
	for _, tc := range []struct {
		shape     Shape
		n         int
		minPerRow float64
		maxPerRow float64
	}{
		{Chain, 50, 4.3, 4.4},
		{Chain, 2000, 4.3, 4.4},
		{Grid, 50, 4.5, 5.1},
		{Grid, 500, 4.9, 5.1},
		{Grid, 2000, 4.9, 5.1},
	} {
		net := New(tc.shape, tc.n)
		nx, np := model.NumStates(net), model.NumParams(net)
		if nx > tc.n || nx < tc.n-3*int(math.Sqrt(float64(tc.n))) {
			t.Errorf("%s %d: %d states", tc.shape, tc.n, nx)
		}
		per := float64(net.JxPattern().NNZ()) / float64(nx)
		if per < tc.minPerRow || per > tc.maxPerRow {
			t.Errorf("%s %d: %.2f non-zeros per row of Jx, want in [%g, %g]", tc.shape, tc.n, per, tc.minPerRow, tc.maxPerRow)
		}
		if r := float64(np) / float64(nx); r < 0.45 || r > 0.6 {
			t.Errorf("%s %d: %d parameters for %d states", tc.shape, tc.n, np, nx)
		}
		if err := net.JxPattern().Validate(); err != nil {
			t.Error(err)
		}
		if err := net.JpPattern().Validate(); err != nil {
			t.Error(err)
		}
		t.Logf("%s %d: nx %d np %d nnz(Jx) %d (%.2f/row) nnz(Jp) %d", tc.shape, tc.n, nx, np, net.JxPattern().NNZ(), per, net.JpPattern().NNZ())
	}
}

func TestConservation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, shape := range []Shape{Chain, Grid} {
		net := New(shape, 300)
		x, p := point(net, rng)
		f := make([]float64, len(x))
		net.F(f, 0, x, p)
		laws := net.Conservation()
		if len(laws) != len(x)/3+1 {
			t.Fatalf("%s: %d laws", shape, len(laws))
		}
		var fmax float64
		for _, v := range f {
			fmax = math.Max(fmax, math.Abs(v))
		}
		for li, w := range laws {
			var s, scale float64
			for i := range w {
				s += w[i] * f[i]
				scale += math.Abs(w[i] * f[i])
			}
			if math.Abs(s) > 1e-13*scale {
				t.Errorf("%s law %d: w.f = %g (scale %g)", shape, li, s, scale)
			}
		}
		if fmax == 0 {
			t.Errorf("%s: f is zero at a random point", shape)
		}
	}
}

// TestJacobiansFD compares Jx and Jp with central differences.
func TestJacobiansFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, shape := range []Shape{Chain, Grid} {
		net := New(shape, 150)
		x, p := point(net, rng)
		nx, np := len(x), len(p)
		jx := make([]float64, net.JxPattern().NNZ())
		jp := make([]float64, net.JpPattern().NNZ())
		net.Jx(jx, 0, x, p)
		net.Jp(jp, 0, x, p)
		dx := make([]float64, nx*nx)
		dp := make([]float64, nx*np)
		net.JxPattern().ScatterTo(dx, jx)
		net.JpPattern().ScatterTo(dp, jp)
		fp, fm := make([]float64, nx), make([]float64, nx)
		check := func(what string, v []float64, j, cols int, d []float64) {
			h := 1e-6 * math.Max(1, math.Abs(v[j]))
			old := v[j]
			v[j] = old + h
			net.F(fp, 0, x, p)
			v[j] = old - h
			net.F(fm, 0, x, p)
			v[j] = old
			for i := 0; i < nx; i++ {
				fd := (fp[i] - fm[i]) / (2 * h)
				if got := d[i*cols+j]; math.Abs(got-fd) > 1e-7*(1+math.Abs(fd)) {
					t.Fatalf("%s %s(%d,%d): analytic %g, central difference %g", shape, what, i, j, got, fd)
				}
			}
		}
		for j := 0; j < nx; j++ {
			check("Jx", x, j, nx, dx)
		}
		for j := 0; j < np; j++ {
			check("Jp", p, j, np, dp)
		}
	}
}

// TestSBML runs the written SBML through parser, symbolic and interp and
// compares f, Jx and Jp with the Network's own.
func TestSBML(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, shape := range []Shape{Chain, Grid} {
		net := New(shape, 60)
		var buf bytes.Buffer
		if err := net.WriteSBML(&buf); err != nil {
			t.Fatal(err)
		}
		pm, err := parser.Read(&buf, net.Name()+".xml")
		if err != nil {
			t.Fatal(err)
		}
		ode, err := pm.ODE(nil)
		if err != nil {
			t.Fatal(err)
		}
		sys, err := symbolic.Build(ode)
		if err != nil {
			t.Fatal(err)
		}
		im, err := interp.New(sys)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := im.StateNames(), net.StateNames(); len(got) != len(want) {
			t.Fatalf("%s: %d states from SBML, want %d", shape, len(got), len(want))
		}
		for i, s := range im.StateNames() {
			if s != net.StateNames()[i] {
				t.Fatalf("%s: state %d is %s, want %s", shape, i, s, net.StateNames()[i])
			}
		}
		for i, s := range im.ParamNames() {
			if s != net.ParamNames()[i] {
				t.Fatalf("%s: param %d is %s, want %s", shape, i, s, net.ParamNames()[i])
			}
		}
		x, p := point(net, rng)
		nx, np := len(x), len(p)
		x0a, x0b := make([]float64, nx), make([]float64, nx)
		net.InitialState(x0a, p)
		im.InitialState(x0b, p)
		cmp := func(what string, a, b []float64) {
			for i := range a {
				if math.Abs(a[i]-b[i]) > 1e-13*(1+math.Abs(a[i])) {
					t.Fatalf("%s %s[%d]: network %g, SBML %g", shape, what, i, a[i], b[i])
				}
			}
		}
		cmp("x0", x0a, x0b)
		fa, fb := make([]float64, nx), make([]float64, nx)
		net.F(fa, 0, x, p)
		im.F(fb, 0, x, p)
		cmp("f", fa, fb)
		dense := func(m model.Model, jac bool) []float64 {
			pat, cols := m.JxPattern(), nx
			if !jac {
				pat, cols = m.JpPattern(), np
			}
			v := make([]float64, pat.NNZ())
			if jac {
				m.Jx(v, 0, x, p)
			} else {
				m.Jp(v, 0, x, p)
			}
			d := make([]float64, nx*cols)
			pat.ScatterTo(d, v)
			return d
		}
		cmp("Jx", dense(net, true), dense(im, true))
		cmp("Jp", dense(net, false), dense(im, false))
		if a, b := net.JxPattern().NNZ(), im.JxPattern().NNZ(); a != b {
			t.Errorf("%s: Jx pattern %d entries, SBML's %d", shape, a, b)
		}
	}
}
