package dense

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPredict: every order and every length through the 8-, 4- and
// 1-entry blocks gives the passes' result to the bit, writes z[0..q-1]
// only within n, and leaves z[q] unchanged.
func TestPredict(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for q := 1; q <= 5; q++ {
		for n := 0; n <= 21; n++ {
			z := make([][]float64, 6)
			want := make([][]float64, 6)
			for j := range z {
				z[j] = make([]float64, n+1) // one guard entry past n
				for i := range z[j] {
					z[j][i] = rng.NormFloat64() * float64(int(1)<<(3*j))
				}
				want[j] = slices.Clone(z[j])
			}
			for k := 1; k <= q; k++ {
				for j := q; j >= k; j-- {
					for i := 0; i < n; i++ {
						want[j-1][i] += want[j][i]
					}
				}
			}
			zz := make([][]float64, q+1)
			for j := range zz {
				zz[j] = z[j][:n]
			}
			Predict(zz, q)
			for j := range z {
				if !slices.Equal(z[j], want[j]) {
					t.Fatalf("q=%d n=%d: z[%d] = %v, want %v", q, n, j, z[j], want[j])
				}
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Predict with q = 6 did not panic")
		}
	}()
	Predict(make([][]float64, 7), 6)
}

func TestPredictAllocs(t *testing.T) {
	z := make([][]float64, 6)
	for j := range z {
		z[j] = make([]float64, 100)
	}
	if a := testing.AllocsPerRun(10, func() { Predict(z, 5) }); a != 0 {
		t.Errorf("Predict allocates %v times", a)
	}
}
