package dense

// axpyMin is the length from which Axpy calls the AVX2/FMA kernel.
const axpyMin = 8

// Axpy sets y += a x for len(x) >= len(y) (x longer than y is read only
// up to len(y); shorter panics): the row updates of runtime/sparse's
// triangular solves and products with many right-hand sides, where rows are
// the columns of S. With AVX2/FMA four entries take one fused multiply-add
// (rounded once, so the last bit may differ from the scalar loop's).
func Axpy(y, x []float64, a float64) {
	n := len(y)
	x = x[:n]
	if HasFMA && n >= axpyMin {
		axpyAVX(y, x, a)
		return
	}
	for i, v := range x {
		y[i] += a * v
	}
}
