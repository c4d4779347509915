package interp_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/model"
)

// TestJpColumns checks the interpreted model.JpColumns against Jp: the
// chosen columns' entries get Jp's values, every other entry keeps what
// was there (a marker), for several column sets in any order; bad column
// lists panic, and evaluation allocates nothing.
func TestJpColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for name, sys := range systems() {
		m, err := interp.New(sys)
		if err != nil {
			t.Fatal(err)
		}
		np := model.NumParams(m)
		pat := m.JpPattern()
		tt, x, p := point(rng, m)
		full := make([]float64, pat.NNZ())
		m.Jp(full, tt, x, p)
		sets := [][]int{nil, {0}, {np - 1, 0}}
		all := make([]int, np)
		for j := range all {
			all[j] = np - 1 - j
		}
		sets = append(sets, all)
		for _, cols := range sets {
			want := make([]bool, np)
			for _, j := range cols {
				want[j] = true
			}
			got := make([]float64, pat.NNZ())
			const marker = -12345.5
			for k := range got {
				got[k] = marker
			}
			f := m.JpColumns(cols)
			f(got, tt, x, p)
			for k, j := range pat.ColIdx {
				switch {
				case want[j] && !(got[k] == full[k] || math.IsNaN(got[k]) && math.IsNaN(full[k])):
					t.Errorf("%s %v: entry %d (column %d) = %g, Jp has %g", name, cols, k, j, got[k], full[k])
				case !want[j] && got[k] != marker:
					t.Errorf("%s %v: entry %d of column %d outside the set was written", name, cols, k, j)
				}
			}
			if !raceEnabled {
				if n := testing.AllocsPerRun(50, func() { f(got, tt, x, p) }); n != 0 {
					t.Errorf("%s %v: %v allocations per evaluation", name, cols, n)
				}
			}
		}
		for _, bad := range [][]int{{np}, {-1}, {0, 0}} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: JpColumns(%v) did not panic", name, bad)
					}
				}()
				m.JpColumns(bad)
			}()
		}
		// The contract's generic path agrees (it is the model's own).
		g := model.JpColumnsOf(m, []int{0})
		got := make([]float64, pat.NNZ())
		g(got, tt, x, p)
		for k, j := range pat.ColIdx {
			if j == 0 && got[k] != full[k] {
				t.Errorf("%s: JpColumnsOf entry %d = %g, want %g", name, k, got[k], full[k])
			}
		}
	}
}
