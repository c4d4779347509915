package testsuite

import (
	"math"
	"math/cmplx"
)

// rk4Complex integrates x' = f(x) in complex arithmetic from x0 at ts[0]
// to each time of ts (ascending), n classical Runge-Kutta steps per unit
// of time (at least one per interval), and returns x at ts. With n and
// 2n steps extrapolated (Richardson: (16 x_2n - x_n) / 15) the error is
// O(h^6); a complex step in a parameter then carries its derivative.
func rk4Complex(f func(dst, x []complex128), x0 []complex128, ts []float64, n int) [][]complex128 {
	nx := len(x0)
	x := append([]complex128(nil), x0...)
	k1, k2, k3, k4, y := make([]complex128, nx), make([]complex128, nx), make([]complex128, nx), make([]complex128, nx), make([]complex128, nx)
	out := [][]complex128{append([]complex128(nil), x...)}
	for i := 1; i < len(ts); i++ {
		m := max(1, int(math.Ceil((ts[i]-ts[i-1])*float64(n))))
		h := complex((ts[i]-ts[i-1])/float64(m), 0)
		for s := 0; s < m; s++ {
			f(k1, x)
			for j := range y {
				y[j] = x[j] + h/2*k1[j]
			}
			f(k2, y)
			for j := range y {
				y[j] = x[j] + h/2*k2[j]
			}
			f(k3, y)
			for j := range y {
				y[j] = x[j] + h*k3[j]
			}
			f(k4, y)
			for j := range x {
				x[j] += h / 6 * (k1[j] + 2*k2[j] + 2*k3[j] + k4[j])
			}
		}
		out = append(out, append([]complex128(nil), x...))
	}
	return out
}

// daeExact is a reduced DAE test model in complex arithmetic: its
// right-hand side, initial state and algebraic variables for parameters
// p.
type daeExact struct {
	x0  []float64
	nz  int
	rhs func(dst, x, p []complex128)
	alg func(dst, x, p []complex128)
}

// cubicZ solves z + z^3 = c by Newton's method (one real root for real
// c; the complex step follows it).
func cubicZ(c complex128) complex128 {
	z := complex(math.Cbrt(real(c)), 0)
	for i := 0; i < 60; i++ {
		d := (z + z*z*z - c) / (1 + 3*z*z)
		z -= d
		if cmplx.Abs(d) <= 1e-17*cmplx.Abs(z) {
			break
		}
	}
	return z
}

// The reduced models of testdata/dae (states and parameters in the
// order of dae.Model): algebraic, A and B with 0 = Z + Z^3 - k2 B and
// A -> B at k1 A Z, B -> A at k3 B (parameters k1, k2, k3); fast, P and
// the pool T = A + B with kf A^2 = kr B at equilibrium, B -> P at k B,
// P -> A at kp P (parameters kf, kr, k, kp).
var daeExacts = map[string]daeExact{
	"algebraic": {x0: []float64{1, 0.5}, nz: 1,
		rhs: func(dst, x, p []complex128) {
			z := cubicZ(p[1] * x[1])
			v := p[0]*x[0]*z - p[2]*x[1]
			dst[0], dst[1] = -v, v
		},
		alg: func(dst, x, p []complex128) { dst[0] = cubicZ(p[1] * x[1]) }},
	"fast": {x0: []float64{0.5, 3}, nz: 2,
		rhs: func(dst, x, p []complex128) {
			a := fastA(x[1], p)
			v := p[2]*(x[1]-a) - p[3]*x[0]
			dst[0], dst[1] = v, -v
		},
		alg: func(dst, x, p []complex128) {
			a := fastA(x[1], p)
			dst[0], dst[1] = a, x[1]-a
		}},
}

// fastA is A at the fast equilibrium kf A^2 = kr (T - A) of the pool T.
func fastA(t complex128, p []complex128) complex128 {
	kf, kr := p[0], p[1]
	return (-kr + cmplx.Sqrt(kr*kr+4*kf*kr*t)) / (2 * kf)
}

// exactDAESens is x, z and their derivatives in p at ts for a reduced
// model, by complex steps through rk4Complex (Richardson-extrapolated),
// laid out as daeFD's.
func exactDAESens(e daeExact, p, ts []float64) (sx, sz []float64) {
	return exactDAESensN(e, p, ts, 2000)
}

func exactDAESensN(e daeExact, p, ts []float64, n int) (sx, sz []float64) {
	nx, np := len(e.x0), len(p)
	sx, sz = make([]float64, len(ts)*nx*np), make([]float64, len(ts)*e.nz*np)
	q := make([]complex128, np)
	x0 := make([]complex128, nx)
	z := make([]complex128, e.nz)
	for i, v := range e.x0 {
		x0[i] = complex(v, 0)
	}

	for j := range p {
		for i := range p {
			q[i] = complex(p[i], 0)
		}
		h := 1e-30 * math.Max(1, math.Abs(p[j]))
		q[j] += complex(0, h)
		f := func(dst, x []complex128) { e.rhs(dst, x, q) }
		a, b := rk4Complex(f, x0, ts, n), rk4Complex(f, x0, ts, 2*n)
		for k := range ts {
			x := make([]complex128, nx)
			for i := range x {
				x[i] = (16*b[k][i] - a[k][i]) / 15
				sx[(k*nx+i)*np+j] = imag(x[i]) / h
			}
			e.alg(z, x, q)
			for i := range z {
				sz[(k*e.nz+i)*np+j] = imag(z[i]) / h
			}
		}
	}
	return sx, sz
}
