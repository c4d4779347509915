package testsuite

import (
	"math"
	"math/cmplx"
)

// chain2 is the solution at time s of A' = -k1 A, B' = k1 A - k2 B from
// (a0, b0), in complex arithmetic for complex-step derivatives.
func chain2(a0, b0, k1, k2, s complex128) (a, b complex128) {
	e1, e2 := cmplx.Exp(-k1*s), cmplx.Exp(-k2*s)
	return a0 * e1, b0*e2 + a0*k1/(k2-k1)*(e1-e2)
}

// exactBolus: states D, C, tnext; parameters ka, ke, dose, tau.
func exactBolus(p []complex128, t float64) []complex128 {
	ka, ke, dose, tau := p[0], p[1], p[2], p[3]
	var d, c complex128
	tl := complex(0, 0)
	tn := complex(0.5, 0)
	for real(tn) < t {
		d, c = chain2(d, c, ka, ke, tn-tl)
		d += dose
		tl = tn
		tn += tau
	}
	d, c = chain2(d, c, ka, ke, complex(t, 0)-tl)
	return []complex128{d, c, tn}
}

// exactEventTime: states A, B; parameters k1, k2, a, m, T.
func exactEventTime(p []complex128, t float64) []complex128 {
	k1, k2, a, m, T := p[0], p[1], p[2], p[3], p[4]
	if t <= real(T) {
		x, y := chain2(1, 0, k1, k2, complex(t, 0))
		return []complex128{x, y}
	}
	x, y := chain2(1, 0, k1, k2, T)
	x, y = chain2(x+a, y*m, k1, k2, complex(t, 0)-T)
	return []complex128{x, y}
}

// exactStateTrigger: states X, H; parameters r, K, c, kh.
func exactStateTrigger(p []complex128, t float64) []complex128 {
	r, K, c, kh := p[0], p[1], p[2], p[3]
	logistic := func(x0, s complex128) complex128 { return K / (1 + (K/x0-1)*cmplx.Exp(-r*s)) }
	reach := func(x0 complex128) complex128 { return cmplx.Log((K/x0-1)/(K/c-1)) / r }
	x, h := complex(0.1, 0), complex(0, 0)
	tl := complex(0, 0)
	for {
		te := tl + reach(x)
		if real(te) >= t {
			break
		}
		h = h*cmplx.Exp(-kh*(te-tl)) + c/2
		x = c / 2
		tl = te
	}
	s := complex(t, 0) - tl
	return []complex128{logistic(x, s), h * cmplx.Exp(-kh*s)}
}

// exactPiecewise: states X, Y; parameters u, Ton, Toff, k, c, v, ky.
func exactPiecewise(p []complex128, t float64) []complex128 {
	u, ton, toff, k, c, v, ky := p[0], p[1], p[2], p[3], p[4], p[5], p[6]
	tc := complex(t, 0)
	var x complex128
	switch {
	case t <= real(ton):
		x = 0
	case t <= real(toff):
		x = u / k * (1 - cmplx.Exp(-k*(tc-ton)))
	default:
		x = u / k * (1 - cmplx.Exp(-k*(toff-ton))) * cmplx.Exp(-k*(tc-toff))
	}
	// Y is produced at v while X > c: from t1 (rising) to t2 (falling).
	xoff := u / k * (1 - cmplx.Exp(-k*(toff-ton)))
	t1 := ton - cmplx.Log(1-c*k/u)/k
	t2 := toff + cmplx.Log(xoff/c)/k
	var y complex128
	switch {
	case t <= real(t1):
		y = 0
	case t <= real(t2):
		y = v / ky * (1 - cmplx.Exp(-ky*(tc-t1)))
	default:
		y = v / ky * (1 - cmplx.Exp(-ky*(t2-t1))) * cmplx.Exp(-ky*(tc-t2))
	}
	return []complex128{x, y}
}

// exactSens is dx/dp at ts by complex steps of an exact solution, laid
// out as SensResult.S, and x at ts.
func exactSens(f func([]complex128, float64) []complex128, p, ts []float64, nx int) (x, s []float64) {
	np := len(p)
	x = make([]float64, len(ts)*nx)
	s = make([]float64, len(ts)*nx*np)
	q := make([]complex128, np)
	for k, tk := range ts {
		for i := range p {
			q[i] = complex(p[i], 0)
		}
		for i, v := range f(q, tk) {
			x[k*nx+i] = real(v)
		}
		for j := range p {
			h := 1e-30 * math.Max(1, math.Abs(p[j]))
			q[j] = complex(p[j], h)
			for i, v := range f(q, tk) {
				s[(k*nx+i)*np+j] = imag(v) / h
			}
			q[j] = complex(p[j], 0)
		}
	}
	return x, s
}
