package fit

import "math"

// bfgs applies the BFGS update B += yy'/(y's) - (Bs)(Bs)'/(s'Bs) to the
// m x m matrix b, skipping it when y's <= 0 (the curvature condition, so
// that B stays positive definite) or s'Bs <= 0. u is scratch of length m.
func bfgs(b, s, y, u []float64) {
	m := len(s)
	ys := dot(y, s)
	if !(ys > 0) {
		return
	}
	for i := range m {
		u[i] = dot(b[i*m:(i+1)*m], s)
	}
	sbs := dot(s, u)
	if !(sbs > 0) {
		return
	}
	for i := range m {
		for j := range m {
			b[i*m+j] += y[i]*y[j]/ys - u[i]*u[j]/sbs
		}
	}
}

// sr1 applies the symmetric rank-one update B += zz'/(z's), z = y - Bs,
// skipped when |z's| < 1e-8 |s| |z| (Nocedal and Wright 2006, eq. 6.26).
// u is scratch of length m.
func sr1(b, s, y, u []float64) {
	m := len(s)
	for i := range m {
		u[i] = y[i] - dot(b[i*m:(i+1)*m], s)
	}
	zs := dot(u, s)
	if math.Abs(zs) < 1e-8*math.Sqrt(dot(s, s)*dot(u, u)) || zs == 0 {
		return
	}
	for i := range m {
		for j := range m {
			b[i*m+j] += u[i] * u[j] / zs
		}
	}
}
