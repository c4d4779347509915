package dense

// GatherRow sets dst[c] = alpha (init[c] + sum_q vals[q] src[idx[q]*k + c])
// for c < k: one row of a sparse matrix (the entries vals at the rows idx
// of the row-major block src with k columns) times that block, added to
// init (nil: zero) and scaled. It is the row-oriented form of runtime/
// sparse's products and triangular solves with many right-hand sides:
// with AVX2/FMA each block of 32 columns keeps its sums in registers over
// all the entries, one load and one fused multiply-add per entry and
// column, where a column-oriented update (Axpy per entry) loads and stores
// the target row for every entry.
//
// The entries are applied in order, each with one fused multiply-add
// (with FMA; else y += a x in Go, as Axpy), and alpha multiplies the sum
// last, so that for k >= 8 the result is that of init followed by Axpy
// calls in the same order and a final scaling, to the bit (apart from the
// sign of zeros, and NaN where an entry is zero and its row of src not
// finite: the column-oriented callers skip zero entries).
//
// init may be dst (the sum is added in place); src must not overlap dst
// in the rows that idx names. The indices must name rows within src:
// they are not checked (the caller's patterns are validated once), so that
// the kernel stays a pass over the entries. Short dst, init or idx panic.
func GatherRow(dst, init []float64, alpha float64, vals []float64, idx []int, src []float64, k int) {
	if k < 0 || len(dst) < k || (init != nil && len(init) < k) || len(idx) < len(vals) {
		panic("dense: GatherRow: short operand")
	}
	if HasFMA {
		gatherAVX(dst, init, vals, idx, src, k, alpha)
		return
	}
	dst = dst[:k]
	if init == nil {
		clear(dst)
	} else {
		copy(dst, init[:k])
	}
	for q, v := range vals {
		r := src[idx[q]*k : idx[q]*k+k]
		for c, x := range r {
			dst[c] += v * x
		}
	}
	if alpha != 1 {
		for c := range dst {
			dst[c] *= alpha
		}
	}
}
