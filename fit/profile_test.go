package fit

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestProfileQuadratic: for f = (x-c)'A(x-c)/2 the profile in x_k is
// (v - c_k)^2 / (2 (A^-1)_kk), so the 95% interval is
// c_k ± sqrt(2 * 1.92 * (A^-1)_kk); with a bound inside the interval the
// profile stops there and that side is unbounded (±Inf).
func TestProfileQuadratic(t *testing.T) {
	a := mat.NewSymDense(3, []float64{4, 1, 0.5, 1, 2, 0.3, 0.5, 0.3, 1})
	c := []float64{0.2, -0.3, 0.5}
	var inv mat.Dense
	if err := inv.Inverse(a); err != nil {
		t.Fatal(err)
	}
	lo, hi := []float64{-5, -5, -5}, []float64{5, 5, 1}
	obj := quadratic(a, c, lo, hi)
	for k := range 3 {
		r, err := Profile(context.Background(), obj, c, k, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := inv.At(k, k)
		half := math.Sqrt(2 * 1.92 * s)
		wantLo, wantHi := c[k]-half, c[k]+half
		if c[k]+half > hi[k] {
			wantHi = math.Inf(1)
		}
		if math.Abs(r.Lower-wantLo) > 2e-5 || !(math.IsInf(wantHi, 1) && math.IsInf(r.Upper, 1) || math.Abs(r.Upper-wantHi) < 2e-5) {
			t.Errorf("parameter %d: interval [%.8g, %.8g], want [%.8g, %.8g]", k, r.Lower, r.Upper, wantLo, wantHi)
		}
		for _, p := range r.Points {
			want := (p.Value - c[k]) * (p.Value - c[k]) / (2 * s)
			if math.Abs(p.F-want) > 1e-7*(1+want) || p.X[k] != p.Value {
				t.Errorf("parameter %d at %g: profile %g, want %g (x_k %g)", k, p.Value, p.F, want, p.X[k])
			}
		}
		for i := 1; i < len(r.Points); i++ {
			if !(r.Points[i].Value > r.Points[i-1].Value) {
				t.Errorf("parameter %d: points not increasing", k)
			}
		}
	}
	if _, err := Profile(context.Background(), obj, c, 3, nil); err == nil {
		t.Error("profile of parameter 3 of 3: no error")
	}
}
