package sparse

import "github.com/pbgen/pbgen/runtime/model"

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
