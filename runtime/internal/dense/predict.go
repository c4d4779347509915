package dense

// Predict applies the BDF's Nordsieck prediction (CVODE's cvPredict, the
// Pascal triangle matrix) to the history z[0..q], 1 <= q <= 5, over
// n = len(z[0]) entries (every z[j] at least as long): for k = 1..q, for
// j = q..k, z[j-1] += z[j]. With AVX2 each entry of z[0..q] is loaded once
// and z[0..q-1] stored once, four entries per instruction; the additions
// are those of the passes in the same order, so the results are theirs to
// the bit. On Lang_PLOSComputBiol2024's FS (nx (1 + np) = 39432 entries)
// the scalar loops were a fifth of the instructions. Outside 1..5, or a
// short z, panics.
func Predict(z [][]float64, q int) {
	if q < 1 || q > 5 || len(z) < q+1 {
		panic("dense: Predict: order out of range")
	}
	n := len(z[0])
	for j := 1; j <= q; j++ {
		if len(z[j]) < n {
			panic("dense: Predict: short history")
		}
	}
	if HasFMA {
		var zz [6][]float64
		for j := range zz {
			if j <= q {
				zz[j] = z[j]
			} else {
				zz[j] = z[0]
			}
		}
		predictAVX(zz[0], zz[1], zz[2], zz[3], zz[4], zz[5], q)
		return
	}
	for k := 1; k <= q; k++ {
		for j := q; j >= k; j-- {
			a, b := z[j-1][:n], z[j][:n]
			for i, v := range b {
				a[i] += v
			}
		}
	}
}
