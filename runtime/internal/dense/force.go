package dense

// ForceCols computes the forcing of runtime/sens's end-point step by
// columns of the sparse Jp, transposed: for each column c (len(ptr)-1 of
// them) it sets row c of the row-major ft (length m each) to the sum over
// its entries q = ptr[c]..ptr[c+1]-1 of va[perm[q]] w_q + vb[perm[q]] p_q,
// where w_q is the row of length m of wpT at byte offset off[q] and p_q
// the one at byte offset off[q] + phOff (the rows of Wt^T, then those of
// Ph^T). With AVX2/FMA a row is done in passes of 32 entries kept in
// registers over the column's entries, the Jp values read in place
// through perm. perm, off and ptr are the caller's construction and are
// not checked (the kernel reads wherever they point); short ft panics.
func ForceCols(ft, wpT, va, vb []float64, perm, off, ptr []int, m, phOff int) {
	nc := len(ptr) - 1
	if nc < 0 || m < 0 || len(ft) < nc*m {
		panic("dense: ForceCols: short operand")
	}
	if HasFMA {
		forceAVX(ft, wpT, va, vb, perm, off, ptr, m, phOff)
		return
	}
	for c := 0; c < nc; c++ {
		row := ft[c*m : (c+1)*m]
		clear(row)
		for q := ptr[c]; q < ptr[c+1]; q++ {
			a, b := va[perm[q]], vb[perm[q]]
			w := wpT[off[q]/8:][:m]
			p := wpT[(off[q]+phOff)/8:][:m]
			for i := range row {
				row[i] += a*w[i] + b*p[i]
			}
		}
	}
}

// AddTrans4 adds the transpose of ft (ns x nx, row-major) to dst (nx x
// ns) over the rows r < nx&^3 and columns c < ns&^3: dst[r*ns+c] +=
// ft[c*nx+r], in 4 x 4 blocks transposed in registers with AVX2. The
// caller adds the edges (the last nx%4 rows and ns%4 columns). Short
// operands panic.
func AddTrans4(dst, ft []float64, nx, ns int) {
	if nx < 0 || ns < 0 || len(dst) < nx*ns || len(ft) < nx*ns {
		panic("dense: AddTrans4: short operand")
	}
	if HasFMA {
		addTransAVX(dst, ft, nx, ns)
		return
	}
	nx4, ns4 := nx&^3, ns&^3
	for r := 0; r < nx4; r++ {
		d := dst[r*ns : r*ns+ns4]
		for c := range d {
			d[c] += ft[c*nx+r]
		}
	}
}
