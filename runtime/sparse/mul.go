package sparse

import "github.com/pbgen/pbgen/runtime/internal/dense"

// The products take the dense operands row-major: a block X with k columns
// has its row r at X[r*k : (r+1)*k]. Sizes are the caller's contract
// (they are the model's dimensions, fixed when a solver is built); a short
// operand panics on the slice bounds.

// MulVecTo adds A x to y: y += A x.
func (a CSR) MulVecTo(y, x []float64) {
	rp, ci, v := a.Pat.RowPtr, a.Pat.ColIdx, a.Val
	y = y[:a.Pat.Rows]
	for i := range y {
		var s float64
		for k := rp[i]; k < rp[i+1]; k++ {
			s += v[k] * x[ci[k]]
		}
		y[i] += s
	}
}

// MulVecTransTo adds A^T x to y: y += A^T x.
func (a CSR) MulVecTransTo(y, x []float64) {
	rp, ci, v := a.Pat.RowPtr, a.Pat.ColIdx, a.Val
	for i, xi := range x[:a.Pat.Rows] {
		for k := rp[i]; k < rp[i+1]; k++ {
			y[ci[k]] += v[k] * xi
		}
	}
}

// MulBlockTo writes Y = A X for a dense block X of k columns (Cols x k)
// into Y (Rows x k). With k = dense.ProbeCols the AVX2/FMA kernel runs
// where the CPU has it. Zero entries of A are multiplied like the others:
// a test for them cost runtime/ode's sensitivity products 10% (POLLU,
// HIRES), more than the rows it saved.
func (a CSR) MulBlockTo(y, x []float64, k int) {
	if k == dense.ProbeCols {
		dense.SpMul4(y, a.Val, a.Pat.RowPtr, a.Pat.ColIdx, x, false)
		return
	}
	a.mulBlock(y, x, k, false)
}

// MulAddBlockTo adds A X to Y: Y += A X, X and Y as for MulBlockTo.
func (a CSR) MulAddBlockTo(y, x []float64, k int) {
	if k == dense.ProbeCols {
		dense.SpMul4(y, a.Val, a.Pat.RowPtr, a.Pat.ColIdx, x, true)
		return
	}
	a.mulBlock(y, x, k, true)
}

// mulBlock is the portable product of MulBlockTo and MulAddBlockTo: row i
// of Y gets the rows of X named by row i of A, scaled, in pattern order.
//
// From 8 columns, with AVX2/FMA, a row of Y is summed in registers by
// dense.GatherRow, one load and one fused multiply-add per entry and
// column where the row updates (dense.Axpy per entry) load and store the
// row of Y for every entry; the sums are the same, in the same order, to
// the bit (the products of runtime/sens's PBSR and Exp are unchanged).
func (a CSR) mulBlock(y, x []float64, k int, add bool) {
	rp, ci, v := a.Pat.RowPtr, a.Pat.ColIdx, a.Val
	if k >= rowsMin && dense.HasFMA {
		n := a.Pat.Rows
		// The kernel does not check the rows it reads (the pattern's
		// columns are in range): the blocks are checked whole.
		if len(y) < n*k || len(x) < a.Pat.Cols*k {
			panic("sparse: product block too short")
		}
		for i := 0; i < n; i++ {
			d := y[i*k : (i+1)*k]
			var init []float64
			if add {
				init = d
			}
			lo, hi := rp[i], rp[i+1]
			dense.GatherRow(d, init, 1, v[lo:hi], ci[lo:hi], x, k)
		}
		return
	}
	for i := 0; i < a.Pat.Rows; i++ {
		d := y[i*k : (i+1)*k]
		if !add {
			clear(d)
		}
		if k < smallBlock {
			mulRowSmall(d, x, v, ci, rp[i], rp[i+1], k)
			continue
		}
		for q := rp[i]; q < rp[i+1]; q++ {
			dense.Axpy(d, x[ci[q]*k:(ci[q]+1)*k], v[q])
		}
	}
}

// mulRowSmall adds row q0:q1 of A times the block X (k < smallBlock
// columns) to the row d of Y, four, two and one columns at a time with the
// sums in registers: a dense.Axpy call per entry cost more than its
// update, and a scalar loop into d reloads d at every entry (2-3 times
// faster on a random 75 x 75 matrix with 20 entries per row and k = 6, a
// throwaway benchmark on a loaded machine). Each sum
// runs over the row in pattern order from d's value, as the axpy loop
// did, so the results are the same.
func mulRowSmall(d, x, v []float64, ci []int, q0, q1, k int) {
	c := 0
	for ; c+4 <= k; c += 4 {
		s0, s1, s2, s3 := d[c], d[c+1], d[c+2], d[c+3]
		for q := q0; q < q1; q++ {
			a := v[q]
			xr := x[ci[q]*k+c:][:4]
			s0 += a * xr[0]
			s1 += a * xr[1]
			s2 += a * xr[2]
			s3 += a * xr[3]
		}
		d[c], d[c+1], d[c+2], d[c+3] = s0, s1, s2, s3
	}
	for ; c+2 <= k; c += 2 {
		s0, s1 := d[c], d[c+1]
		for q := q0; q < q1; q++ {
			a := v[q]
			xr := x[ci[q]*k+c:][:2]
			s0 += a * xr[0]
			s1 += a * xr[1]
		}
		d[c], d[c+1] = s0, s1
	}
	if c < k {
		s0 := d[c]
		for q := q0; q < q1; q++ {
			s0 += v[q] * x[ci[q]*k+c]
		}
		d[c] = s0
	}
}

// MulTransAddBlockTo adds A^T X to Y: Y += A^T X for X Rows x k and Y
// Cols x k.
func (a CSR) MulTransAddBlockTo(y, x []float64, k int) {
	rp, ci, v := a.Pat.RowPtr, a.Pat.ColIdx, a.Val
	for i := 0; i < a.Pat.Rows; i++ {
		xr := x[i*k : (i+1)*k]
		for q := rp[i]; q < rp[i+1]; q++ {
			s := v[q]
			d := y[ci[q]*k : (ci[q]+1)*k]
			d = d[:len(xr)]
			for j, w := range xr {
				d[j] += s * w
			}
		}
	}
}

// LeftMulAddTo adds X A to Y: Y += X A for a dense X of m rows (m x Rows)
// and Y m x Cols. Zero entries of X are skipped: X is typically an
// exponential's integral, whose entries between uncoupled species vanish.
func (a CSR) LeftMulAddTo(y, x []float64, m int) {
	rp, ci, v := a.Pat.RowPtr, a.Pat.ColIdx, a.Val
	nr, nc := a.Pat.Rows, a.Pat.Cols
	for r := 0; r < m; r++ {
		d := y[r*nc : (r+1)*nc]
		for i, s := range x[r*nr : (r+1)*nr] {
			if s == 0 {
				continue
			}
			for k := rp[i]; k < rp[i+1]; k++ {
				d[ci[k]] += s * v[k]
			}
		}
	}
}

// MulShiftedBlockTo writes Y = (A - mu I) X for a square A and X, Y
// Rows x k (Y must not alias X): the shifted products of the exponential
// actions of runtime/expm, with the shift applied first in each row.
//
// Each row is computed four columns at a time, the four sums kept in
// registers over the row's entries (then the remaining columns one at a
// time): updating the row of Y in memory for every entry cost a load and
// a store per column and entry, and this product is most of the time of
// runtime/sens's sparse exponential steps (k = 20 columns of S). On
// scalenet chains with k = 20 (BenchmarkMulShiftedBlock20, CPU time) it
// went from 12.0 to 7.3 us at n = 198 and from 62.5 to 44.2 us at 999.
func (a CSR) MulShiftedBlockTo(y, x []float64, k int, mu float64) {
	rp, ci, v := a.Pat.RowPtr, a.Pat.ColIdx, a.Val
	n := a.Pat.Rows
	if len(y) < n*k || len(x) < n*k {
		panic("sparse: MulShiftedBlockTo: short block")
	}
	for i := 0; i < n; i++ {
		cols, vals := ci[rp[i]:rp[i+1]], v[rp[i]:rp[i+1]]
		vals = vals[:len(cols)]
		d := y[i*k : (i+1)*k]
		xi := x[i*k : (i+1)*k]
		c := 0
		for ; c+4 <= k; c += 4 {
			u := xi[c : c+4 : c+4]
			d0, d1, d2, d3 := -mu*u[0], -mu*u[1], -mu*u[2], -mu*u[3]
			for q, j := range cols {
				s := vals[q]
				r := x[j*k+c : j*k+c+4 : j*k+c+4]
				d0 += s * r[0]
				d1 += s * r[1]
				d2 += s * r[2]
				d3 += s * r[3]
			}
			dd := d[c : c+4 : c+4]
			dd[0], dd[1], dd[2], dd[3] = d0, d1, d2, d3
		}
		for ; c < k; c++ {
			d0 := -mu * xi[c]
			for q, j := range cols {
				d0 += vals[q] * x[j*k+c]
			}
			d[c] = d0
		}
	}
}
