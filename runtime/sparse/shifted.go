package sparse

import "github.com/pbgen/pbgen/runtime/model"

// Shifted is the pattern of alpha I + beta J for a square pattern J that
// may lack some diagonal entries (a species whose rate does not depend on
// itself): the Newton matrices I - gamma Jx of the BDF and the
// shift-and-invert matrices of exponential methods need the whole
// diagonal, which the model's pattern does not promise. The pattern is
// built once; Fill then writes the values in one pass over J's values.
type Shifted struct {
	Pat  *model.Pattern // the pattern of J with the full diagonal
	pos  []int          // pos[q] = index in Pat of J's entry q
	diag []int          // diag[i] = index in Pat of (i, i)
	src  *model.Pattern
}

// NewShifted returns the shifted pattern for the square pattern j. When j
// already holds the whole diagonal, Pat is j itself (so analyses of j are
// shared).
func NewShifted(j *model.Pattern) *Shifted {
	if j.Rows != j.Cols {
		panic("sparse: shifted pattern of a non-square pattern")
	}
	n := j.Rows
	s := &Shifted{pos: make([]int, j.NNZ()), diag: make([]int, n), src: j}
	full := true
	for i := 0; i < n && full; i++ {
		found := false
		for q := j.RowPtr[i]; q < j.RowPtr[i+1]; q++ {
			if j.ColIdx[q] == i {
				found = true
			}
		}
		full = found
	}
	if full {
		s.Pat = j
		for i := 0; i < n; i++ {
			for q := j.RowPtr[i]; q < j.RowPtr[i+1]; q++ {
				s.pos[q] = q
				if j.ColIdx[q] == i {
					s.diag[i] = q
				}
			}
		}
		return s
	}
	p := &model.Pattern{Rows: n, Cols: n, RowPtr: make([]int, n+1)}
	for i := 0; i < n; i++ {
		done := false
		for q := j.RowPtr[i]; q < j.RowPtr[i+1]; q++ {
			c := j.ColIdx[q]
			if !done && c >= i {
				if c > i {
					s.diag[i] = len(p.ColIdx)
					p.ColIdx = append(p.ColIdx, i)
				}
				done = true
			}
			if c == i {
				s.diag[i] = len(p.ColIdx)
			}
			s.pos[q] = len(p.ColIdx)
			p.ColIdx = append(p.ColIdx, c)
		}
		if !done {
			s.diag[i] = len(p.ColIdx)
			p.ColIdx = append(p.ColIdx, i)
		}
		p.RowPtr[i+1] = len(p.ColIdx)
	}
	s.Pat = p
	return s
}

// Fill writes alpha I + beta J into dst (whose pattern must be s.Pat), for
// the values jval of J in its pattern's order.
func (s *Shifted) Fill(dst *CSR, alpha, beta float64, jval []float64) {
	if dst.Pat != s.Pat || len(jval) != s.src.NNZ() || len(dst.Val) != s.Pat.NNZ() {
		panic("sparse: Shifted.Fill operands do not match the pattern")
	}
	if s.Pat != s.src {
		clear(dst.Val)
	}
	for q, v := range jval {
		dst.Val[s.pos[q]] = beta * v
	}
	for _, d := range s.diag {
		dst.Val[d] += alpha
	}
}
