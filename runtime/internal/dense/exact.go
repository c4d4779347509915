package dense

import "math"

// exactMin is the length from which AxpyExact and ErrorWeights take
// their AVX kernels (two blocks of four).
const exactMin = 8

// AxpyExact sets y += a x for len(x) >= len(y) (shorter panics), each
// product and sum rounded separately as in the plain Go loop, so that the
// result is that loop's to the bit (Axpy's fused multiply-adds are not):
// with AVX2 four entries per instruction. The BDF's Nordsieck correction
// of the state, whose numbers must not depend on the CPU.
func AxpyExact(y, x []float64, a float64) {
	n := len(y)
	x = x[:n]
	if HasFMA && n >= exactMin {
		axpyExactAVX(y, x, a)
		return
	}
	for i, v := range x {
		y[i] += a * v
	}
}

// ErrorWeights sets ewt[i] = 1 / (rtol |z[i]| + atol[i]) for i <
// len(ewt) (z and atol at least as long; shorter panics): the BDF's error
// weights, with AVX2 four divisions per instruction, rounded as the plain
// Go loop.
func ErrorWeights(ewt, z, atol []float64, rtol float64) {
	n := len(ewt)
	z, atol = z[:n], atol[:n]
	if HasFMA && n >= exactMin {
		ewtAVX(ewt, z, atol, rtol)
		return
	}
	for i := range ewt {
		ewt[i] = 1 / (rtol*math.Abs(z[i]) + atol[i])
	}
}

// NewtonResidual sets b[i] = g f[i] - (rl1 z1[i] + acor[i]) for i <
// len(b) (the others at least as long; shorter panics): the right-hand
// side of the BDF's Newton iteration (CVODE's cvNewtonIteration), with
// AVX2 four entries per instruction, rounded as the plain Go loop.
func NewtonResidual(b, f, z1, acor []float64, g, rl1 float64) {
	n := len(b)
	f, z1, acor = f[:n], z1[:n], acor[:n]
	if HasFMA && n >= exactMin {
		residualAVX(b, f, z1, acor, g, rl1)
		return
	}
	for i := range b {
		b[i] = g*f[i] - (rl1*z1[i] + acor[i])
	}
}

// NewtonUpdate sets acor[i] += b[i] and y[i] = z0[i] + acor[i] for i <
// len(acor) (the others at least as long; shorter panics): the Newton
// iterate's update, with AVX2 four entries per instruction, rounded as the
// plain Go loop.
func NewtonUpdate(acor, y, z0, b []float64) {
	n := len(acor)
	y, z0, b = y[:n], z0[:n], b[:n]
	if HasFMA && n >= exactMin {
		updateAVX(acor, y, z0, b)
		return
	}
	for i, v := range b {
		acor[i] += v
		y[i] = z0[i] + acor[i]
	}
}
