package interp

import (
	"fmt"
	"sync"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/symbolic"
)

var _ model.JpColumns = (*Model)(nil)

// JpColumns returns a function that writes the Jp entries of the
// parameter columns cols into their JpPattern positions of dst, leaving
// the others as they are (model.JpColumns). It compiles those entries
// into a program of their own, so that subexpressions the chosen columns
// share are still computed once and those of the other columns not at
// all. It panics if cols has an index out of range or twice.
func (m *Model) JpColumns(cols []int) model.JpFunc {
	want := make([]bool, m.np)
	for _, j := range cols {
		if j < 0 || j >= m.np {
			panic(fmt.Sprintf("interp: JpColumns: parameter column %d out of range [0,%d)", j, m.np))
		}
		if want[j] {
			panic(fmt.Sprintf("interp: JpColumns: parameter column %d repeated", j))
		}
		want[j] = true
	}
	var roots []*symbolic.Node
	var pos []int
	for k, e := range m.sys.Jp {
		if want[e.Col] {
			roots = append(roots, e.Expr)
			pos = append(pos, k)
		}
	}
	nnz := m.jp.NNZ()
	// The entries compiled into m.fjp compile again: the same symbols, a
	// subset of its roots.
	c, err := symbolic.CompileDelayed(roots, m.stateNames, m.paramNames, delayNames(m.sys))
	if err != nil {
		panic(fmt.Sprintf("interp: JpColumns: %v", err))
	}
	type scratch struct{ slots, vals []float64 }
	pool := sync.Pool{New: func() any {
		return &scratch{slots: make([]float64, c.ScratchLen()), vals: make([]float64, len(roots))}
	}}
	return func(dst []float64, t float64, x, p []float64) {
		m.check(dst, nnz, x, p, "JpColumns")
		s := pool.Get().(*scratch)
		c.EvalTo(s.vals, s.slots, t, x, p)
		for i, k := range pos {
			dst[k] = s.vals[i]
		}
		pool.Put(s)
	}
}
