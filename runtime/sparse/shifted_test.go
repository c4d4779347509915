package sparse

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestShifted(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	// Rows 1 and 3 lack the diagonal; row 4 is empty.
	j := patternFrom(t, 5, [][]int{{0, 2}, {0, 4}, {1, 2, 3}, {0, 1}, {}})
	s := NewShifted(j)
	if err := s.Pat.Validate(); err != nil {
		t.Fatal(err)
	}
	if s.Pat == j || s.Pat.NNZ() != j.NNZ()+3 {
		t.Fatalf("shifted pattern has %d entries, want %d", s.Pat.NNZ(), j.NNZ()+3)
	}
	jv := make([]float64, j.NNZ())
	for i := range jv {
		jv[i] = rng.NormFloat64()
	}
	m := New(s.Pat)
	for i := range m.Val {
		m.Val[i] = math.NaN()
	}
	s.Fill(m, 1, -0.3, jv)
	want := make([]float64, 25)
	j.ScatterTo(want, jv)
	for i := range want {
		want[i] *= -0.3
	}
	for i := 0; i < 5; i++ {
		want[i*5+i]++
	}
	got := toDense(m)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Fatalf("entry %d: got %g, want %g", i, got[i], want[i])
		}
	}
	// A full diagonal: the pattern itself is shared.
	g := gridPattern(t, 3, 4)
	if NewShifted(g).Pat != g {
		t.Error("pattern with a full diagonal was copied")
	}
}
