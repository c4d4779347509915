package dense

import "math"

// Finite reports whether every entry of v is finite (neither NaN nor
// infinite). The sensitivity engine has no error path inside its steps: a
// NaN Jacobian shows up as NaN in S, so every output block is scanned, a
// pass over all of S that this keeps at a few cycles per hundred entries.
func Finite(v []float64) bool {
	if HasFMA {
		return finiteAVX(v)
	}
	return finiteGo(v)
}

// finiteGo is Finite without AVX2: v*0 is NaN for a NaN or infinite v and
// 0 otherwise; eight partial sums, since one is bound by the latency of
// its additions.
func finiteGo(v []float64) bool {
	var s0, s1, s2, s3, s4, s5, s6, s7 float64
	i := 0
	for ; i+8 <= len(v); i += 8 {
		x := v[i : i+8 : i+8]
		s0 += x[0] * 0
		s1 += x[1] * 0
		s2 += x[2] * 0
		s3 += x[3] * 0
		s4 += x[4] * 0
		s5 += x[5] * 0
		s6 += x[6] * 0
		s7 += x[7] * 0
	}
	for ; i < len(v); i++ {
		s0 += v[i] * 0
	}
	return ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)) == 0
}

// L1Dist is sum_i |a[i] - b[i]| (b at least as long as a); NaN when an
// entry of either is NaN. The sensitivity engine compares Jacobians with
// it at every step near equilibrium.
func L1Dist(a, b []float64) float64 {
	if len(b) < len(a) {
		panic("dense: L1Dist: b shorter than a")
	}
	if HasFMA {
		return l1distAVX(a, b)
	}
	return l1distGo(a, b)
}

// l1distGo is L1Dist without AVX2: four partial sums, since one is bound
// by the latency of its additions.
func l1distGo(a, b []float64) float64 {
	var s0, s1, s2, s3 float64
	b = b[:len(a)]
	i := 0
	for ; i+4 <= len(a); i += 4 {
		x, y := a[i:i+4:i+4], b[i:i+4:i+4]
		s0 += math.Abs(x[0] - y[0])
		s1 += math.Abs(x[1] - y[1])
		s2 += math.Abs(x[2] - y[2])
		s3 += math.Abs(x[3] - y[3])
	}
	for ; i < len(a); i++ {
		s0 += math.Abs(a[i] - b[i])
	}
	return (s0 + s1) + (s2 + s3)
}
