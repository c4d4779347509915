package dense

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
