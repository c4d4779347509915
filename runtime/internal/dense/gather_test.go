package dense

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGatherRow: every width through the 32-, 16-, 4- and 1-column
// blocks, with and without init, in place (init = dst) and with a
// scaling: the result is init followed by Axpy per entry and the
// scaling, to the bit for k >= 8, and dst's neighbours in memory are
// unchanged.
func TestGatherRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const rows = 6
	for k := 0; k <= 75; k++ {
		src := make([]float64, rows*k)
		for i := range src {
			src[i] = rng.NormFloat64()
		}
		vals := []float64{rng.NormFloat64(), -rng.NormFloat64(), 0.5, rng.NormFloat64()}
		idx := []int{4, 0, 5, 2}
		for _, mode := range []string{"nil", "init", "inplace"} {
			alpha := 1.0
			if mode != "nil" {
				alpha = 1 / (1 + rng.Float64())
			}
			init := make([]float64, k)
			for i := range init {
				init[i] = rng.NormFloat64()
			}
			buf := make([]float64, k+2) // dst = buf[1:k+1]
			for i := range buf {
				buf[i] = rng.NormFloat64()
			}
			guard0, guard1 := buf[0], buf[k+1]
			dst := buf[1 : k+1]
			want := make([]float64, k)
			var in []float64
			switch mode {
			case "init":
				in = init
				copy(want, init)
			case "inplace":
				copy(dst, init)
				in = dst
				copy(want, init)
			}
			for q, v := range vals {
				Axpy(want, src[idx[q]*k:], v)
			}
			for c := range want {
				want[c] *= alpha
			}
			GatherRow(dst, in, alpha, vals, idx, src, k)
			for c := range want {
				d := math.Abs(dst[c] - want[c])
				if k >= axpyMin && d != 0 || d > 1e-14*(1+math.Abs(want[c])) {
					t.Fatalf("k=%d %s: dst[%d] = %v, want %v", k, mode, c, dst[c], want[c])
				}
			}
			if buf[0] != guard0 || buf[k+1] != guard1 {
				t.Fatalf("k=%d %s: wrote outside dst", k, mode)
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("GatherRow with a short dst did not panic")
		}
	}()
	GatherRow(make([]float64, 3), nil, 1, nil, nil, nil, 4)
}

func TestGatherRowAllocs(t *testing.T) {
	const k = 317
	src, dst := make([]float64, 3*k), make([]float64, k)
	vals, idx := []float64{1, 2}, []int{2, 0}
	if a := testing.AllocsPerRun(10, func() { GatherRow(dst, nil, 1, vals, idx, src, k) }); a != 0 {
		t.Errorf("GatherRow allocates %v times", a)
	}
}
