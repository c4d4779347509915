package dense

import (
	"math"
	"math/rand/v2"
	"testing"
)

// AxpyExact and ErrorWeights equal their plain Go loops bit for bit at
// every length (kernel blocks and tails), and write nothing past len(y).
func TestExactKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for n := 0; n <= 40; n++ {
		x, z, atol := make([]float64, n+3), make([]float64, n+3), make([]float64, n+3)
		for i := range x {
			x[i], z[i], atol[i] = rng.NormFloat64(), rng.NormFloat64()*math.Pow(10, rng.Float64()*10-5), 1e-8*(1+rng.Float64())
		}
		buf := make([]float64, n+2)
		for i := range buf {
			buf[i] = rng.NormFloat64()
		}
		want := append([]float64(nil), buf...)
		a := rng.NormFloat64()
		for i := 0; i < n; i++ {
			want[i+1] += a * x[i]
		}
		AxpyExact(buf[1:n+1], x, a)
		for i := range buf {
			if math.Float64bits(buf[i]) != math.Float64bits(want[i]) {
				t.Fatalf("AxpyExact n=%d: y[%d] = %v, want %v", n, i-1, buf[i], want[i])
			}
		}
		ewt := make([]float64, n+1)
		ewt[n] = -1
		ErrorWeights(ewt[:n], z, atol, 1e-6)
		for i := 0; i < n; i++ {
			w := 1 / (1e-6*math.Abs(z[i]) + atol[i])
			if math.Float64bits(ewt[i]) != math.Float64bits(w) {
				t.Fatalf("ErrorWeights n=%d: ewt[%d] = %v, want %v", n, i, ewt[i], w)
			}
		}
		if ewt[n] != -1 {
			t.Fatalf("ErrorWeights n=%d wrote past the end", n)
		}
		f, z1, acor := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range f {
			f[i], z1[i], acor[i] = rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()*1e-3
		}
		g, rl1 := rng.Float64(), 1+rng.Float64()
		b := make([]float64, n+1)
		b[n] = -1
		NewtonResidual(b[:n], f, z1, acor, g, rl1)
		for i := 0; i < n; i++ {
			w := g*f[i] - (rl1*z1[i] + acor[i])
			if math.Float64bits(b[i]) != math.Float64bits(w) {
				t.Fatalf("NewtonResidual n=%d: b[%d] = %v, want %v", n, i, b[i], w)
			}
		}
		wa, wy := append([]float64(nil), acor...), make([]float64, n)
		for i := range wa {
			wa[i] += b[i]
			wy[i] = z1[i] + wa[i]
		}
		y := make([]float64, n+1)
		y[n] = -1
		NewtonUpdate(acor, y[:n], z1, b[:n])
		for i := 0; i < n; i++ {
			if math.Float64bits(acor[i]) != math.Float64bits(wa[i]) || math.Float64bits(y[i]) != math.Float64bits(wy[i]) {
				t.Fatalf("NewtonUpdate n=%d: entry %d differs", n, i)
			}
		}
		if b[n] != -1 || y[n] != -1 {
			t.Fatalf("n=%d: wrote past the end", n)
		}
	}
}
