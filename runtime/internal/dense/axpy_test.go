package dense

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestAxpy: every length through the 16-, 4- and 1-entry paths, x longer
// than y untouched beyond len(y), y's neighbours in memory unchanged.
func TestAxpy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for n := 0; n <= 70; n++ {
		x := make([]float64, n+5)
		buf := make([]float64, n+2) // y = buf[1:n+1], guards at both ends
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		for i := range buf {
			buf[i] = rng.NormFloat64()
		}
		orig := append([]float64(nil), buf...)
		a := rng.NormFloat64()
		Axpy(buf[1:n+1], x, a)
		for i := 0; i < n; i++ {
			want := orig[i+1] + a*x[i]
			if math.Abs(buf[i+1]-want) > 1e-15*(1+math.Abs(want)) {
				t.Fatalf("n=%d: y[%d] = %v, want %v", n, i, buf[i+1], want)
			}
		}
		if buf[0] != orig[0] || buf[n+1] != orig[n+1] {
			t.Fatalf("n=%d: wrote outside y", n)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Axpy with a short x did not panic")
		}
	}()
	Axpy(make([]float64, 4), make([]float64, 3), 1)
}

func TestAxpyAllocs(t *testing.T) {
	x, y := make([]float64, 317), make([]float64, 317)
	if a := testing.AllocsPerRun(10, func() { Axpy(y, x, 2) }); a != 0 {
		t.Errorf("Axpy allocates %v times", a)
	}
}

func BenchmarkAxpy(b *testing.B) {
	for _, n := range []int{20, 317} {
		x, y := make([]float64, n), make([]float64, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				Axpy(y, x, 1e-9)
			}
		})
	}
}
