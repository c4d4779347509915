package model

import "fmt"

// Pattern is a sparsity pattern in compressed sparse row form: the non-zeros
// of row i are at columns ColIdx[RowPtr[i]:RowPtr[i+1]], sorted ascending,
// and value k of a Jacobian belongs to (row of k, ColIdx[k]).
// A structural zero never appears in a pattern.
type Pattern struct {
	Rows, Cols int
	RowPtr     []int // length Rows+1, RowPtr[0] = 0, non-decreasing
	ColIdx     []int // length RowPtr[Rows], each row strictly increasing, in [0, Cols)
}

// NNZ is the number of stored entries.
func (p *Pattern) NNZ() int { return len(p.ColIdx) }

// Validate reports whether the pattern is well formed.
func (p *Pattern) Validate() error {
	if p.Rows < 0 || p.Cols < 0 {
		return fmt.Errorf("model: pattern has negative dimensions %dx%d", p.Rows, p.Cols)
	}
	if len(p.RowPtr) != p.Rows+1 || p.RowPtr[0] != 0 {
		return fmt.Errorf("model: pattern row pointer has length %d, want %d starting at 0", len(p.RowPtr), p.Rows+1)
	}
	if p.RowPtr[p.Rows] != len(p.ColIdx) {
		return fmt.Errorf("model: pattern row pointer ends at %d, but there are %d column indices", p.RowPtr[p.Rows], len(p.ColIdx))
	}
	for i := 0; i < p.Rows; i++ {
		if p.RowPtr[i+1] < p.RowPtr[i] {
			return fmt.Errorf("model: pattern row pointer decreases at row %d", i)
		}
		for k := p.RowPtr[i]; k < p.RowPtr[i+1]; k++ {
			c := p.ColIdx[k]
			if c < 0 || c >= p.Cols {
				return fmt.Errorf("model: pattern column %d out of range [0,%d) in row %d", c, p.Cols, i)
			}
			if k > p.RowPtr[i] && c <= p.ColIdx[k-1] {
				return fmt.Errorf("model: pattern columns not strictly increasing in row %d", i)
			}
		}
	}
	return nil
}

// ScatterTo writes the sparse values vals (in pattern order) into the dense
// row-major Rows x Cols matrix dst, zeroing the other entries. It is the
// contract's convenience for a user or a test that wants to look at a
// Jacobian; the runtime's own code goes through runtime/sparse's CSR type,
// which has the products, norms and scatters the solvers use.
func (p *Pattern) ScatterTo(dst []float64, vals []float64) {
	if len(dst) != p.Rows*p.Cols || len(vals) != len(p.ColIdx) {
		panic("model: ScatterTo length mismatch")
	}
	clear(dst)
	for i := 0; i < p.Rows; i++ {
		row := dst[i*p.Cols : (i+1)*p.Cols]
		for k := p.RowPtr[i]; k < p.RowPtr[i+1]; k++ {
			row[p.ColIdx[k]] = vals[k]
		}
	}
}
