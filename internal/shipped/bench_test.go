package shipped

import (
	"testing"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/runtime/model"
)

// Hot kernels of generated CaMKII: f, Jx and Jp (go test -bench . -benchmem).
// Each must report 0 allocs/op.

var sink float64

func camkiiPoint() (m camkii.Model, x, p []float64) {
	m = camkii.New()
	x = make([]float64, camkii.NumStates)
	for i := range x {
		x[i] = 0.1 * float64(i+1)
	}
	p = make([]float64, camkii.NumParams)
	m.DefaultParams(p)
	return m, x, p
}

func BenchmarkCaMKIIF(b *testing.B)  { benchKernel(b, camkii.NumStates, camkii.Model.F) }
func BenchmarkCaMKIIJx(b *testing.B) { benchKernel(b, camkii.NNZJx, camkii.Model.Jx) }
func BenchmarkCaMKIIJp(b *testing.B) { benchKernel(b, camkii.NNZJp, camkii.Model.Jp) }

// benchKernel times one generated evaluation into a dst of length n.
func benchKernel(b *testing.B, n int, kernel func(camkii.Model, []float64, float64, []float64, []float64)) {
	m, x, p := camkiiPoint()
	dst := make([]float64, n)
	b.ReportAllocs()
	for b.Loop() {
		kernel(m, dst, 3, x, p)
	}
	sink = dst[0]
}

func TestKernelsAllocateNothing(t *testing.T) {
	m, x, p := camkiiPoint()
	f := make([]float64, camkii.NumStates)
	jx := make([]float64, camkii.NNZJx)
	jp := make([]float64, camkii.NNZJp)
	var mm model.Model = m
	if n := testing.AllocsPerRun(100, func() {
		mm.F(f, 3, x, p)
		mm.Jx(jx, 3, x, p)
		mm.Jp(jp, 3, x, p)
	}); n != 0 {
		t.Errorf("generated kernels allocate %v times per call", n)
	}
}
