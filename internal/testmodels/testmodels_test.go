package testmodels

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"

	"github.com/pbgen/pbgen/runtime/model"
)

func all() []model.Model {
	a := []float64{-2, 1, 0.5, -3}
	b := []float64{1, 0, 0.3, 2, 1, -1}
	return []model.Model{
		NewChua(), NewRandomLinear(6, 3), NewIsomerization(),
		NewLinearConst(a, b, []float64{1, 2}, []float64{0.5, 1, 2}), TimeVarying{},
	}
}

// TestJacobiansFD checks Jx and Jp against central finite differences of F
// at random points.
func TestJacobiansFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, m := range all() {
		nx, np := model.NumStates(m), model.NumParams(m)
		if err := m.JxPattern().Validate(); err != nil || m.JxPattern().Rows != nx || m.JxPattern().Cols != nx {
			t.Fatalf("%s: bad Jx pattern: %v", m.Name(), err)
		}
		if err := m.JpPattern().Validate(); err != nil || m.JpPattern().Rows != nx || m.JpPattern().Cols != np {
			t.Fatalf("%s: bad Jp pattern: %v", m.Name(), err)
		}
		x := make([]float64, nx)
		p := make([]float64, np)
		m.DefaultParams(p)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		tt := 0.7
		jx := make([]float64, m.JxPattern().NNZ())
		jp := make([]float64, m.JpPattern().NNZ())
		m.Jx(jx, tt, x, p)
		m.Jp(jp, tt, x, p)
		djx := make([]float64, nx*nx)
		djp := make([]float64, nx*np)
		m.JxPattern().ScatterTo(djx, jx)
		m.JpPattern().ScatterTo(djp, jp)
		var fx, fp mat.Dense
		fx.ReuseAs(nx, nx)
		fp.ReuseAs(nx, np)
		fd.Jacobian(&fx, func(dst, y []float64) { m.F(dst, tt, y, p) }, x, &fd.JacobianSettings{Formula: fd.Central})
		fd.Jacobian(&fp, func(dst, q []float64) { m.F(dst, tt, x, q) }, p, &fd.JacobianSettings{Formula: fd.Central})
		if !mat.EqualApprox(&fx, mat.NewDense(nx, nx, djx), 1e-6) {
			t.Errorf("%s: Jx\n%v\nfd\n%v", m.Name(), mat.Formatted(mat.NewDense(nx, nx, djx)), mat.Formatted(&fx))
		}
		if !mat.EqualApprox(&fp, mat.NewDense(nx, np, djp), 1e-6) {
			t.Errorf("%s: Jp\n%v\nfd\n%v", m.Name(), mat.Formatted(mat.NewDense(nx, np, djp)), mat.Formatted(&fp))
		}
	}
}

type exacter interface {
	Exact(dstX, dstS []float64, t float64, p []float64)
}

// TestExact checks the closed forms: x(0) = X0, dx/dt = F (central
// differences in t) and S = dx/dp (central differences in p).
func TestExact(t *testing.T) {
	for _, m := range []model.Model{NewIsomerization(), TimeVarying{}} {
		e := m.(exacter)
		p := make([]float64, 2)
		m.DefaultParams(p)
		x, s, xp, xm, f := make([]float64, 2), make([]float64, 4), make([]float64, 2), make([]float64, 2), make([]float64, 2)
		x0 := make([]float64, 2)
		m.InitialState(x0, p)
		e.Exact(x, s, 0, p)
		for i := range x {
			if !scalar.EqualWithinAbsOrRel(x[i], x0[i], 1e-14, 1e-14) || math.Abs(s[i]) > 1e-14 || math.Abs(s[2+i]) > 1e-14 {
				t.Errorf("%s: at t=0 x=%v s=%v, want x0=%v, S=0", m.Name(), x, s, x0)
			}
		}
		for _, tt := range []float64{0.1, 0.5, 1, 3} {
			e.Exact(x, s, tt, p)
			m.F(f, tt, x, p)
			const h = 1e-5
			e.Exact(xp, make([]float64, 4), tt+h, p)
			e.Exact(xm, make([]float64, 4), tt-h, p)
			for i := range x {
				if d := (xp[i] - xm[i]) / (2 * h); !scalar.EqualWithinAbsOrRel(d, f[i], 1e-8, 1e-7) {
					t.Errorf("%s t=%g: dx%d/dt fd %v, F %v", m.Name(), tt, i, d, f[i])
				}
			}
			for j := range p {
				q := append([]float64(nil), p...)
				q[j] += h
				e.Exact(xp, make([]float64, 4), tt, q)
				q[j] -= 2 * h
				e.Exact(xm, make([]float64, 4), tt, q)
				for i := range x {
					if d := (xp[i] - xm[i]) / (2 * h); !scalar.EqualWithinAbsOrRel(d, s[i*2+j], 1e-8, 1e-7) {
						t.Errorf("%s t=%g: S[%d,%d] fd %v, exact %v", m.Name(), tt, i, j, d, s[i*2+j])
					}
				}
			}
		}
	}
}

// TestPhi checks Phi(s; s) = I and dPhi/dt = Jx(t) Phi by central differences.
func TestPhi(t *testing.T) {
	var m TimeVarying
	p := []float64{1, 2}
	phi, pp, pm := make([]float64, 4), make([]float64, 4), make([]float64, 4)
	m.Phi(phi, 0.4, 0.4, p)
	if !floatsNear(phi, []float64{1, 0, 0, 1}, 1e-15) {
		t.Errorf("Phi(s;s) = %v", phi)
	}
	jx := make([]float64, 3)
	for _, tt := range []float64{0.5, 1.3, 4} {
		s := 0.2
		const h = 1e-5
		m.Phi(phi, tt, s, p)
		m.Phi(pp, tt+h, s, p)
		m.Phi(pm, tt-h, s, p)
		m.Jx(jx, tt, nil, p)
		a := []float64{jx[0], jx[1], 0, jx[2]}
		for i := 0; i < 2; i++ {
			for j := 0; j < 2; j++ {
				want := a[i*2]*phi[j] + a[i*2+1]*phi[2+j]
				if d := (pp[i*2+j] - pm[i*2+j]) / (2 * h); !scalar.EqualWithinAbsOrRel(d, want, 1e-8, 1e-7) {
					t.Errorf("t=%g: dPhi[%d,%d]/dt fd %v, Jx Phi %v", tt, i, j, d, want)
				}
			}
		}
	}
}

func floatsNear(a, b []float64, tol float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

func TestRandomLinearSeeded(t *testing.T) {
	a, b := NewRandomLinear(5, 7), NewRandomLinear(5, 7)
	c := NewRandomLinear(5, 8)
	if !floatsNear(a.A(), b.A(), 0) || floatsNear(a.A(), c.A(), 1e-3) {
		t.Errorf("RandomLinear is not a deterministic function of its seed")
	}
	// A = -B^T B is symmetric negative semidefinite.
	n := 5
	for i := 0; i < n; i++ {
		if a.A()[i*n+i] > 0 {
			t.Errorf("diagonal %d positive", i)
		}
		for j := 0; j < n; j++ {
			if a.A()[i*n+j] != a.A()[j*n+i] {
				t.Errorf("not symmetric at %d,%d", i, j)
			}
		}
	}
}
