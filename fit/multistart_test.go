package fit

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"sync/atomic"
	"testing"
)

// sixHump is the six-hump camel function on [-3, 3] x [-2, 2]: six local
// minima, the global two at ±(0.0898, -0.7126) with f = -1.031628453
// (Dixon and Szegö 1978), with its exact Hessian.
func sixHump() *Func {
	return &Func{N: 2, Lo: []float64{-3, -2}, Hi: []float64{3, 2}, F: func(x, g, h []float64) (float64, error) {
		a, b := x[0], x[1]
		f := (4-2.1*a*a+a*a*a*a/3)*a*a + a*b + (-4+4*b*b)*b*b
		if g != nil {
			g[0] = 8*a - 8.4*a*a*a + 2*a*a*a*a*a + b
			g[1] = a - 8*b + 16*b*b*b
		}
		if h != nil {
			h[0] = 8 - 25.2*a*a + 10*a*a*a*a
			h[1], h[2] = 1, 1
			h[3] = -8 + 48*b*b
		}
		return f, nil
	}}
}

func TestMultiStartSixHump(t *testing.T) {
	for _, s := range []Sampling{LatinHypercube, Uniform} {
		res, err := MultiStart(context.Background(), func() (Objective, error) { return sixHump(), nil }, &MultiOptions{Starts: 20, Seed: 3, Sampling: s})
		if err != nil {
			t.Fatal(err)
		}
		best, err := res.BestStart()
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(best.F+1.031628453) > 1e-8 {
			t.Errorf("%v: best f %.10g, want -1.031628453", s, best.F)
		}
		hits := 0
		for _, st := range res.Starts {
			if !st.Status.Converged() {
				t.Errorf("%v: start %d: status %v", s, st.Index, st.Status)
			}
			if math.Abs(st.F+1.031628453) < 1e-6 {
				hits++
			}
		}
		t.Logf("%v: %d of 20 starts at the global minimum", s, hits)
	}
}

// TestLatinHypercube: each parameter's range is cut into Total strata
// and every stratum holds exactly one start.
func TestLatinHypercube(t *testing.T) {
	const n = 37
	res, err := MultiStart(context.Background(), func() (Objective, error) { return sixHump(), nil }, &MultiOptions{Starts: n, Seed: 9, Options: &Options{MaxIter: 1}})
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := sixHump().Bounds()
	for d := range 2 {
		var strata []int
		for _, st := range res.Starts {
			strata = append(strata, int((st.X0[d]-lo[d])/(hi[d]-lo[d])*n))
		}
		sort.Ints(strata)
		for k, v := range strata {
			if v != k {
				t.Fatalf("parameter %d: strata %v, want 0..%d once each", d, strata, n-1)
			}
		}
	}
}

// TestMultiStartReproducible: the same seed gives the same starts,
// bit for bit, whatever the number of workers, and a subset run with
// FirstStart/Total (a Slurm task) gives the same starts as the full run.
func TestMultiStartReproducible(t *testing.T) {
	run := func(o MultiOptions) []Start {
		o.Seed = 11
		res, err := MultiStart(context.Background(), func() (Objective, error) { return rosenbrock(3, []float64{-2, -2, -2}, []float64{2, 2, 2}), nil }, &o)
		if err != nil {
			t.Fatal(err)
		}
		for i := range res.Starts {
			res.Starts[i].Elapsed = 0
		}
		return res.Starts
	}
	one := run(MultiOptions{Starts: 12, Workers: 1})
	four := run(MultiOptions{Starts: 12, Workers: 4})
	if !reflect.DeepEqual(one, four) {
		t.Errorf("1 worker and 4 workers differ")
	}
	part := run(MultiOptions{Starts: 5, FirstStart: 4, Total: 12, Workers: 2})
	if !reflect.DeepEqual(part, one[4:9]) {
		t.Errorf("starts 4..8 of 12 run alone differ from the full run's")
	}
	other := run(MultiOptions{Starts: 12, Workers: 1, Sampling: Uniform})
	if reflect.DeepEqual(other[0].X0, one[0].X0) {
		t.Errorf("uniform and Latin hypercube starts coincide")
	}
}

// TestRedraw: where the objective fails in the left half of the box,
// failing start points are redrawn and counted, and every start ends
// in the minimum on the right; a start that fails everywhere ends with
// StartFailed after MaxRedraws.
func TestRedraw(t *testing.T) {
	var calls atomic.Int64
	obj := &Func{N: 1, Lo: []float64{-1}, Hi: []float64{1}, F: func(x, g, h []float64) (float64, error) {
		calls.Add(1)
		if x[0] < 0 {
			return 0, errors.New("no solution here")
		}
		d := x[0] - 0.5
		if g != nil {
			g[0] = 2 * d
		}
		if h != nil {
			h[0] = 2
		}
		return d * d, nil
	}}
	var progress []Progress
	res, err := MultiStart(context.Background(), func() (Objective, error) { return obj, nil }, &MultiOptions{Starts: 30, Seed: 5, Progress: func(p Progress) { progress = append(progress, p) }})
	if err != nil {
		t.Fatal(err)
	}
	redraws := 0
	for _, st := range res.Starts {
		redraws += st.Redraws
		if st.Status == StartFailed || math.Abs(st.X[0]-0.5) > 1e-6 || st.X0[0] < 0 {
			t.Errorf("start %d: status %v, x0 %v, x %v", st.Index, st.Status, st.X0, st.X)
		}
	}
	// Latin hypercube: 15 of the 30 strata lie in the failing half.
	if redraws < 15 {
		t.Errorf("%d redraws, want at least 15", redraws)
	}
	last := progress[len(progress)-1]
	if last.Done != 30 || last.Redraws != redraws || last.Failed != 0 {
		t.Errorf("last progress %+v, want 30 done, %d redraws", last, redraws)
	}
	never := &Func{N: 1, Lo: []float64{-1}, Hi: []float64{1}, F: func(x, g, h []float64) (float64, error) { return math.Inf(1), nil }}
	res, err = MultiStart(context.Background(), func() (Objective, error) { return never, nil }, &MultiOptions{Starts: 2, MaxRedraws: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range res.Starts {
		if st.Status != StartFailed || st.Redraws != 3 || st.Err == nil {
			t.Errorf("start %d: status %v after %d redraws (err %v)", st.Index, st.Status, st.Redraws, st.Err)
		}
	}
	if res.Best != -1 {
		t.Errorf("best %d of all-failed starts", res.Best)
	}
	if _, err := res.BestStart(); !errors.Is(err, ErrNoStart) {
		t.Errorf("BestStart: %v", err)
	}
}

// TestMultiStartInit: a caller's Init replaces the sampling, and
// unbounded parameters need one.
func TestMultiStartInit(t *testing.T) {
	unbounded := func() (Objective, error) { return rosenbrock(2, nil, nil), nil }
	if _, err := MultiStart(context.Background(), unbounded, nil); err == nil {
		t.Error("unbounded parameters without Init: no error")
	}
	res, err := MultiStart(context.Background(), unbounded, &MultiOptions{Starts: 4, Init: func(i int, rng *rand.Rand, dst []float64) {
		for d := range dst {
			dst[d] = rng.NormFloat64()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range res.Starts {
		if !st.Status.Converged() || st.F > 1e-8 {
			t.Errorf("start %d from %v: status %v, f %g", st.Index, st.X0, st.Status, st.F)
		}
	}
}
