package sparse

import (
	"sort"

	"github.com/pbgen/pbgen/runtime/model"
)

// ScatterTo writes A into the dense row-major Rows x Cols matrix dst,
// zeroing the other entries.
func (a CSR) ScatterTo(dst []float64) {
	clear(dst[:a.Pat.Rows*a.Pat.Cols])
	a.ScatterNZTo(dst, 1)
}

// ScatterNZTo writes alpha A into the pattern positions of the dense
// row-major dst and leaves the others as they are. A caller whose dense
// matrix is written by scatters of one pattern alone keeps its other
// entries zero without the clear of ScatterTo (on CaMKII's 260 of 441
// entries the clear is a third of the work).
func (a CSR) ScatterNZTo(dst []float64, alpha float64) {
	rp, ci := a.Pat.RowPtr, a.Pat.ColIdx
	v := a.Val[:len(ci)]
	nc := a.Pat.Cols
	for i := 0; i < a.Pat.Rows; i++ {
		row := dst[i*nc : (i+1)*nc]
		lo, hi := rp[i], rp[i+1]
		cs, vs := ci[lo:hi], v[lo:hi]
		vs = vs[:len(cs)]
		if alpha == 1 {
			for k, c := range cs {
				row[c] = vs[k]
			}
			continue
		}
		for k, c := range cs {
			row[c] = alpha * vs[k]
		}
	}
}

// ScatterColMajorTo writes A into the dense column-major Rows x Cols
// matrix dst (entry (i, j) at dst[j*Rows+i]), zeroing the other entries:
// the layout of Fortran-order solvers such as SUNDIALS's dense matrices.
func (a CSR) ScatterColMajorTo(dst []float64) {
	rp, ci, v := a.Pat.RowPtr, a.Pat.ColIdx, a.Val
	nr := a.Pat.Rows
	clear(dst[:nr*a.Pat.Cols])
	for i := 0; i < nr; i++ {
		for k := rp[i]; k < rp[i+1]; k++ {
			dst[ci[k]*nr+i] = v[k]
		}
	}
}

// AddTo adds alpha A to the dense row-major dst: dst += alpha A.
func (a CSR) AddTo(dst []float64, alpha float64) {
	rp, ci, v := a.Pat.RowPtr, a.Pat.ColIdx, a.Val
	nc := a.Pat.Cols
	for i := 0; i < a.Pat.Rows; i++ {
		row := dst[i*nc : (i+1)*nc]
		for k := rp[i]; k < rp[i+1]; k++ {
			row[ci[k]] += alpha * v[k]
		}
	}
}

// RowOf returns the row of the k-th stored entry of p: for a Jacobian,
// the component of f whose derivative it is. It is meant for error
// messages (a binary search over the row pointers).
func RowOf(p *model.Pattern, k int) int {
	return sort.SearchInts(p.RowPtr[1:], k+1)
}
