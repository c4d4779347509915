// Package sparse holds the runtime's sparse matrix type and what is done
// with it: products with vectors and dense blocks, norms, scatters, and the
// sparse LU factorisation of the Newton systems of large models.
package sparse

import "github.com/pbgen/pbgen/runtime/model"

// CSR is a sparse matrix in compressed sparse row form. Its pattern is
// shared, not copied: a generated model's Jx and Jp patterns are package
// variables, and every matrix of that shape points at the one pattern, so
// the symbolic work done on a pattern (orderings, LU analyses) is done once.
type CSR struct {
	Pat *model.Pattern
	Val []float64 // the non-zeros in pattern order, len Pat.NNZ()
}

// New returns a CSR with pattern p and zero values.
func New(p *model.Pattern) *CSR {
	return &CSR{Pat: p, Val: make([]float64, p.NNZ())}
}
