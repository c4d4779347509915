package model

// JpFunc writes values of Jp = df/dp at (t, x, p) into dst, which has the
// length of the model's JpPattern, in pattern order.
type JpFunc func(dst []float64, t float64, x, p []float64)

// JpColumns is the optional interface of a model that can evaluate Jp for
// some of its parameter columns only.
//
// Why: a solver often wants the sensitivities of a few parameters of a
// model that has many (a PEtab problem estimates 6 of a model's 43
// parameters); Jp of all columns is then mostly work thrown away, at every
// sensitivity right-hand side. Generated code implements it with one
// straight-line function per column (no branch per entry), interp with a
// program compiled for the chosen columns.
type JpColumns interface {
	// JpColumns returns a function that writes the values of the Jp
	// entries in the parameter columns cols (distinct indices in
	// [0, NumParams), in any order) into their JpPattern positions of dst
	// and leaves the other entries of dst as they are. It panics if cols
	// has an index out of range or twice (misuse). The function is safe
	// for concurrent use, as the model is, and allocates nothing.
	JpColumns(cols []int) JpFunc
}

// JpColumnsOf returns m's JpColumns(cols) when m implements JpColumns,
// and otherwise a JpFunc that evaluates all of Jp with m.Jp (so writes the
// entries of the other columns too): callers that want the chosen
// columns need not care which model they have.
func JpColumnsOf(m Model, cols []int) JpFunc {
	if jc, ok := m.(JpColumns); ok {
		return jc.JpColumns(cols)
	}
	checkCols(cols, NumParams(m), "JpColumnsOf")
	return m.Jp
}

// JpColumnFuncs is JpColumns for generated code: fns[j] writes the
// entries of column j (nil for a column without entries) into a dst of
// length nnz, without checking its arguments; nx and np are the model's
// dimensions. The returned function checks the lengths of dst, x and p
// once and calls the chosen columns' functions in the order of cols.
func JpColumnFuncs(fns []JpFunc, nx, nnz int, cols []int) JpFunc {
	np := len(fns)
	checkCols(cols, np, "JpColumns")
	var sel []JpFunc
	for _, j := range cols {
		if fns[j] != nil {
			sel = append(sel, fns[j])
		}
	}
	return func(dst []float64, t float64, x, p []float64) {
		if len(dst) != nnz || len(x) != nx || len(p) != np {
			panic("model: JpColumns: argument length mismatch")
		}
		for _, f := range sel {
			f(dst, t, x, p)
		}
	}
}

// checkCols panics unless cols are distinct indices in [0, np).
func checkCols(cols []int, np int, what string) {
	seen := make([]bool, np)
	for _, j := range cols {
		if j < 0 || j >= np {
			panic("model: " + what + ": parameter column out of range")
		}
		if seen[j] {
			panic("model: " + what + ": parameter column repeated")
		}
		seen[j] = true
	}
}
