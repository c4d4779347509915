package sparse

import (
	"slices"

	"github.com/pbgen/pbgen/runtime/model"
)

// SelectCols makes dst the pattern of the columns cols of p, in the
// order of cols (column c of dst is column cols[c] of p), and returns for
// each entry of dst the index of that entry in p's values, in from's
// storage. It is how a sensitivity solver keeps the columns of Jp of the
// parameters it differentiates by: gather the values with Gather, then
// use dst as any pattern. The storage of dst and from is reused when
// large enough (p.NNZ() entries always are), so that a solver selecting
// per solve allocates nothing. The columns of a row follow the order of
// cols, so they are increasing only when cols is; the products do not
// need them to be.
func SelectCols(dst *model.Pattern, from []int, p *model.Pattern, cols []int) []int {
	dst.Rows, dst.Cols = p.Rows, len(cols)
	if cap(dst.RowPtr) < p.Rows+1 {
		dst.RowPtr = make([]int, p.Rows+1)
	}
	dst.RowPtr = dst.RowPtr[:p.Rows+1]
	dst.RowPtr[0] = 0
	dst.ColIdx, from = dst.ColIdx[:0], from[:0]
	for i := 0; i < p.Rows; i++ {
		for c, j := range cols {
			for k := p.RowPtr[i]; k < p.RowPtr[i+1]; k++ {
				if p.ColIdx[k] == j {
					dst.ColIdx = append(dst.ColIdx, c)
					from = append(from, k)
				}
			}
		}
		dst.RowPtr[i+1] = len(dst.ColIdx)
	}
	return from
}

// Gather writes dst[k] = src[from[k]]: the values of a SelectCols pattern
// from those of the full one.
func Gather(dst, src []float64, from []int) {
	dst = dst[:len(from)]
	for k, f := range from {
		dst[k] = src[f]
	}
}

// Transpose returns the pattern of the transpose of p (its rows are p's
// columns, each listing its rows in increasing order) and, for each of
// its entries, the index of that entry in p's values: the column-wise
// view of a matrix stored by rows.
func Transpose(p *model.Pattern) (t *model.Pattern, from []int) {
	t = &model.Pattern{Rows: p.Cols, Cols: p.Rows, RowPtr: make([]int, p.Cols+1),
		ColIdx: make([]int, p.NNZ())}
	for _, c := range p.ColIdx {
		t.RowPtr[c+1]++
	}
	for c := 0; c < p.Cols; c++ {
		t.RowPtr[c+1] += t.RowPtr[c]
	}
	from = make([]int, p.NNZ())
	next := append([]int(nil), t.RowPtr[:p.Cols]...)
	for i := 0; i < p.Rows; i++ {
		for k := p.RowPtr[i]; k < p.RowPtr[i+1]; k++ {
			q := next[p.ColIdx[k]]
			next[p.ColIdx[k]]++
			t.ColIdx[q], from[q] = i, k
		}
	}
	return t, from
}

// MapCols makes the pattern of A P, where P maps column j of p to column
// col[j] of a matrix with nc columns (col[j] < 0: column j is dropped), and
// returns for each entry of p the index of the entry of the result it adds
// into, or -1. Several columns of p may map to one column: their values
// add (MapAdd). It is how a parameterisation that reaches one model
// parameter through several paths, or one estimated parameter through
// several model parameters, gets its Jacobian: the chain rule on the
// pattern. Columns within a row of the result are increasing.
func MapCols(p *model.Pattern, col []int, nc int) (dst *model.Pattern, to []int) {
	dst = &model.Pattern{Rows: p.Rows, Cols: nc, RowPtr: make([]int, p.Rows+1)}
	to = make([]int, p.NNZ())
	pos := make([]int, nc) // position+1 of column c in the current row
	for i := 0; i < p.Rows; i++ {
		start := len(dst.ColIdx)
		for k := p.RowPtr[i]; k < p.RowPtr[i+1]; k++ {
			if c := col[p.ColIdx[k]]; c >= 0 && pos[c] == 0 {
				pos[c] = 1
				dst.ColIdx = append(dst.ColIdx, c)
			}
		}
		row := dst.ColIdx[start:]
		slices.Sort(row)
		for n, c := range row {
			pos[c] = start + n + 1
		}
		for k := p.RowPtr[i]; k < p.RowPtr[i+1]; k++ {
			to[k] = -1
			if c := col[p.ColIdx[k]]; c >= 0 {
				to[k] = pos[c] - 1
			}
		}
		for _, c := range row {
			pos[c] = 0
		}
		dst.RowPtr[i+1] = len(dst.ColIdx)
	}
	return dst, to
}

// MapAdd writes the values of a MapCols pattern: dst = 0, then for each
// entry k of the source with to[k] >= 0, dst[to[k]] += src[k] * scale[j],
// where j is the entry's column in the source (colIdx[k]).
func MapAdd(dst, src []float64, to, colIdx []int, scale []float64) {
	clear(dst)
	for k, d := range to {
		if d >= 0 {
			dst[d] += src[k] * scale[colIdx[k]]
		}
	}
}
