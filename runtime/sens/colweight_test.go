package sens

import (
	"math"
	"testing"

	"github.com/pbgen/pbgen/internal/testmodels"
	"github.com/pbgen/pbgen/runtime/model"
)

// The column weights: a column below the RMS column norm weighs
// rms/||S_c||, at most the bound; the others and zero columns 1; the
// probes are scaled by them; S = 0 or a bound of 1 or less leaves the
// test unweighted.
func TestSetWeights(t *testing.T) {
	const nx, ns = 2, 4
	c := newStepControl(nx, ns)
	// Column norms 4, 1, 0 and 0.01 (rows of S0 are states).
	s0 := []float64{4, 0, 0, 0.01, 0, 1, 0, 0}
	c.setWeights(s0, nx, ns, 16)
	rms := math.Sqrt((16 + 1 + 1e-4) / 4)
	want := []float64{1, rms, 1, 16}
	if !c.weighted {
		t.Fatal("not weighted")
	}
	for j, w := range want {
		if math.Abs(c.w[j]-w) > 1e-12*w {
			t.Errorf("weight %d = %g, want %g", j, c.w[j], w)
		}
		for k := 0; k < nProbe; k++ {
			if got := c.pw[j*nProbe+k]; math.Abs(got-w*c.pv[j*nProbe+k]) > 1e-12*math.Abs(got) {
				t.Errorf("probe %d,%d = %g, want %g", j, k, got, w*c.pv[j*nProbe+k])
			}
		}
	}
	for _, v := range []struct {
		s0   []float64
		wmax float64
	}{{make([]float64, nx*ns), 16}, {s0, 1}, {s0, -1}} {
		c.setWeights(v.s0, nx, ns, v.wmax)
		if c.weighted || &c.pw[0] != &c.pv[0] {
			t.Errorf("S0 %v, bound %g: weighted", v.s0, v.wmax)
		}
	}
}

// A solve from S = 0 has no column sizes: PBSR's result is the same, bit
// for bit, with and without column weights (the paper's benchmarks are
// unchanged); from a non-zero S0 with columns of unequal size the weights
// change the steps.
func TestColumnWeightsFromZero(t *testing.T) {
	m := testmodels.NewChua()
	np, nx := model.NumParams(m), model.NumStates(m)
	p := make([]float64, np)
	m.DefaultParams(p)
	ts := []float64{0, 1, 2, 5}
	x0 := make([]float64, nx)
	m.InitialState(x0, p)
	s1 := make([]float64, nx*np)
	for i := range s1 {
		s1[i] = float64(1 + i%np*99) // column norms 1:100
	}
	for _, s0 := range [][]float64{make([]float64, nx*np), s1} {
		var res [2]Result
		for i, cw := range []float64{-1, 0} {
			o := &Options{Method: PBSR, RTol: 1e-8, ATol: 1e-10, Tuning: Tuning{ColumnWeightMax: cw}}
			if err := NewSolver(m, o).SolveFrom(&res[i], p, &Start{T0: 0, X0: x0, S0: s0}, ts); err != nil {
				t.Fatal(err)
			}
		}
		same := true
		for i := range res[0].S {
			same = same && res[0].S[i] == res[1].S[i]
		}
		if zero := s0[0] == 0; same != zero {
			t.Errorf("S0 zero %v: results identical %v with and without weights (%d and %d intervals)", zero, same, res[0].Stats.Intervals, res[1].Stats.Intervals)
		}
	}
}
