package fit

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// rosenbrock is the n-dimensional Rosenbrock function (minimum 0 at all
// ones) with its exact Hessian as the objective's Hessian.
func rosenbrock(n int, lo, hi []float64) *Func {
	return &Func{N: n, Lo: lo, Hi: hi, F: func(x, g, h []float64) (float64, error) {
		f := 0.0
		for i := range g {
			g[i] = 0
		}
		for i := range h {
			h[i] = 0
		}
		for i := 0; i+1 < n; i++ {
			a, b := x[i+1]-x[i]*x[i], 1-x[i]
			f += 100*a*a + b*b
			if g != nil {
				g[i] += -400*a*x[i] - 2*b
				g[i+1] += 200 * a
			}
			if h != nil {
				h[i*n+i] += 1200*x[i]*x[i] - 400*x[i+1] + 2
				h[i*n+i+1] += -400 * x[i]
				h[(i+1)*n+i] += -400 * x[i]
				h[(i+1)*n+i+1] += 200
			}
		}
		return f, nil
	}}
}

func TestRosenbrock(t *testing.T) {
	for _, h := range []Hessian{FIM, BFGS, SR1, Hybrid} {
		for _, sub := range []Subspace{TwoD, Full} {
			for _, n := range []int{2, 5} {
				x0 := make([]float64, n)
				for i := range x0 {
					x0[i] = -1.2
					if i%2 == 1 {
						x0[i] = 1
					}
				}
				r, err := Minimize(context.Background(), rosenbrock(n, nil, nil), x0, &Options{Hessian: h, Subspace: sub, MaxIter: 5000, FATol: 1e-14, FRTol: 1e-14})
				if err != nil {
					t.Fatal(err)
				}
				// From this start, 4- to 7-dimensional Rosenbrock can
				// also end in its local minimum near (-1, 1, ..., 1),
				// f = 3.9308 (a stationary point: the gradient is checked).
				local := n >= 4 && math.Abs(r.F-3.930839) < 1e-5
				if !r.Status.Converged() || r.F > 1e-8 && !local || floats.Norm(r.Grad, 2) > 1e-3 {
					t.Errorf("%v %v n=%d: status %v, f %g, |g| %g after %d iterations, x %v", h, sub, n, r.Status, r.F, floats.Norm(r.Grad, 2), r.Iter, r.X)
					continue
				}
				if local {
					continue
				}
				for i, v := range r.X {
					if math.Abs(v-1) > 1e-3 {
						t.Errorf("%v %v n=%d: x[%d] = %g, want 1", h, sub, n, i, v)
					}
				}
			}
		}
	}
}

// TestRosenbrockBounded puts an upper bound through the minimum: x1 <=
// 0.5. The constrained minimum is (0.5, 0.25), f = 0.25 (x2 = x1^2 zeroes
// the first term, and 1-x1 is smallest at the bound).
func TestRosenbrockBounded(t *testing.T) {
	for _, h := range []Hessian{FIM, BFGS, SR1, Hybrid} {
		obj := rosenbrock(2, []float64{-2, -2}, []float64{0.5, 2})
		r, err := Minimize(context.Background(), obj, []float64{-1.2, 1}, &Options{Hessian: h})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Status.Converged() || math.Abs(r.F-0.25) > 1e-7 || math.Abs(r.X[0]-0.5) > 1e-6 || math.Abs(r.X[1]-0.25) > 1e-5 {
			t.Errorf("%v: status %v, f %.10g, x %v; want f 0.25 at (0.5, 0.25)", h, r.Status, r.F, r.X)
		}
	}
}

// quadratic is f = (x-c)'A(x-c)/2 with Hessian A.
func quadratic(a *mat.SymDense, c, lo, hi []float64) *Func {
	n := len(c)
	return &Func{N: n, Lo: lo, Hi: hi, F: func(x, g, h []float64) (float64, error) {
		d := make([]float64, n)
		for i := range d {
			d[i] = x[i] - c[i]
		}
		f := 0.0
		for i := range n {
			ad := 0.0
			for j := range n {
				ad += a.At(i, j) * d[j]
				if h != nil {
					h[i*n+j] = a.At(i, j)
				}
			}
			if g != nil {
				g[i] = ad
			}
			f += 0.5 * d[i] * ad
		}
		return f, nil
	}}
}

// boxQPReference minimises the bounded quadratic by enumerating active
// sets: every coordinate at its lower bound, its upper bound or free; the
// free ones solve the reduced system; the feasible point with the least f
// wins. Exponential, independent of the trust-region code.
func boxQPReference(a *mat.SymDense, c, lo, hi []float64) []float64 {
	n := len(c)
	best, bestF := []float64(nil), math.Inf(1)
	state := make([]int, n)
	for {
		x := make([]float64, n)
		var free []int
		for i, s := range state {
			switch s {
			case 0:
				free = append(free, i)
			case 1:
				x[i] = lo[i]
			case 2:
				x[i] = hi[i]
			}
		}
		ok := true
		if len(free) > 0 {
			k := len(free)
			af := mat.NewDense(k, k, nil)
			rhs := mat.NewVecDense(k, nil)
			for p, i := range free {
				r := 0.0
				for j := range n {
					r += a.At(i, j) * c[j]
					if state[j] != 0 {
						r -= a.At(i, j) * x[j]
					}
				}
				rhs.SetVec(p, r)
				for q, j := range free {
					af.Set(p, q, a.At(i, j))
				}
			}
			var sol mat.VecDense
			if err := sol.SolveVec(af, rhs); err != nil {
				ok = false
			} else {
				for p, i := range free {
					x[i] = sol.AtVec(p)
					if x[i] < lo[i] || x[i] > hi[i] {
						ok = false
					}
				}
			}
		}
		if ok {
			f := 0.0
			for i := range n {
				for j := range n {
					f += 0.5 * (x[i] - c[i]) * a.At(i, j) * (x[j] - c[j])
				}
			}
			if f < bestF {
				best, bestF = x, f
			}
		}
		k := 0
		for k < n && state[k] == 2 {
			state[k] = 0
			k++
		}
		if k == n {
			return best
		}
		state[k]++
	}
}

func TestBoxQuadratic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := range 20 {
		n := 2 + trial%5
		b := mat.NewDense(n, n, nil)
		for i := range n {
			for j := range n {
				b.Set(i, j, rng.NormFloat64())
			}
		}
		a := mat.NewSymDense(n, nil)
		for i := range n {
			for j := range n {
				s := 0.0
				for k := range n {
					s += b.At(k, i) * b.At(k, j)
				}
				if i == j {
					s += 0.1
				}
				a.SetSym(i, j, s)
			}
		}
		c, lo, hi, x0 := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range n {
			c[i] = 3 * rng.NormFloat64() // often outside the box: active bounds
			lo[i], hi[i] = -1, 1+rng.Float64()
			x0[i] = lo[i] + (hi[i]-lo[i])*rng.Float64()
		}
		want := boxQPReference(a, c, lo, hi)
		active := 0
		for i := range n {
			if want[i] == lo[i] || want[i] == hi[i] {
				active++
			}
		}
		for _, h := range []Hessian{FIM, BFGS, SR1} {
			for _, sub := range []Subspace{TwoD, Full} {
				r, err := Minimize(context.Background(), quadratic(a, c, lo, hi), x0, &Options{Hessian: h, Subspace: sub})
				if err != nil {
					t.Fatal(err)
				}
				for i := range n {
					if !scalar.EqualWithinAbs(r.X[i], want[i], 1e-4) || r.X[i] < lo[i] || r.X[i] > hi[i] {
						t.Errorf("trial %d (n %d, %d active) %v %v: status %v after %d iterations, x %v, want %v", trial, n, active, h, sub, r.Status, r.Iter, r.X, want)
						break
					}
				}
			}
		}
	}
}

// TestDegenerateLeastSquares fits y = exp(-(k1+k2) t): only k1+k2 is
// determined, so the Gauss-Newton matrix is singular everywhere. Every
// method must reach f = 0 with k1 + k2 = 0.7.
func TestDegenerateLeastSquares(t *testing.T) {
	ts := []float64{0.5, 1, 2, 4, 8}
	obj := &Func{N: 2, Lo: []float64{0, 0}, Hi: []float64{5, 5}, F: func(x, g, h []float64) (float64, error) {
		f := 0.0
		for i := range g {
			g[i] = 0
		}
		for i := range h {
			h[i] = 0
		}
		for _, t := range ts {
			m := math.Exp(-(x[0] + x[1]) * t)
			r := m - math.Exp(-0.7*t)
			f += 0.5 * r * r
			dm := -t * m // dr/dk1 = dr/dk2
			for i := range g {
				g[i] += r * dm
			}
			for i := range h {
				h[i] += dm * dm // J'J: all four entries equal
			}
		}
		return f, nil
	}}
	for _, hs := range []Hessian{FIM, BFGS, SR1, Hybrid} {
		for _, sub := range []Subspace{TwoD, Full} {
			r, err := Minimize(context.Background(), obj, []float64{3, 4}, &Options{Hessian: hs, Subspace: sub})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Status.Converged() || r.F > 1e-12 || math.Abs(r.X[0]+r.X[1]-0.7) > 1e-5 {
				t.Errorf("%v %v: status %v, f %g, k1+k2 = %g, want 0.7", hs, sub, r.Status, r.F, r.X[0]+r.X[1])
			}
		}
	}
}

// TestIteratesInterior records every point the optimiser evaluates on
// problems whose minimum lies on the bounds, and checks that each lies
// strictly inside the box, that reflections happened and that the
// minimum is found.
func TestIteratesInterior(t *testing.T) {
	lo, hi := []float64{0, 0, 0}, []float64{1, 1, 1}
	c := []float64{2, -1, 0.5} // minimum at (1, 0, 0.5)
	a := mat.NewSymDense(3, []float64{2, 0.5, 0, 0.5, 1, 0.3, 0, 0.3, 1})
	q := quadratic(a, c, lo, hi)
	bad := 0
	obj := &Func{N: 3, Lo: lo, Hi: hi, F: func(x, g, h []float64) (float64, error) {
		for i := range x {
			if !(x[i] > lo[i] && x[i] < hi[i]) {
				bad++
			}
		}
		return q.F(x, g, h)
	}}
	r, err := Minimize(context.Background(), obj, []float64{0.5, 0.5, 0.1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := boxQPReference(a, c, lo, hi)
	if bad > 0 {
		t.Errorf("%d evaluations on or outside the bounds", bad)
	}
	t.Logf("%d iterations, %d reflections, status %v", r.Iter, r.Reflections, r.Status)
	for i := range want {
		if math.Abs(r.X[i]-want[i]) > 1e-5 {
			t.Errorf("x = %v, want %v (status %v)", r.X, want, r.Status)
			break
		}
	}
}

// TestReflect checks one step at x = (0.9, 0.1) in the unit box (unit
// scaling) for the model g = (-2, -1), H = diag(1, 0.1), whose Newton
// step (2, 10) leaves through x1 = 1 at t = 0.05; along the reflected
// direction (-2, 10) the model still falls. The subproblem must return
// the Newton step, and the chosen step must be inside the box and at
// least as good, by the model, as the truncated step and as the best
// point (brute force) on the first reflected ray up to the stepped-back
// bound.
func TestReflect(t *testing.T) {
	st := newStepper(2, Full)
	st.lo, st.hi = []float64{0, 0}, []float64{1, 1}
	st.x = []float64{0.9, 0.1}
	st.sv = []float64{1, 1}
	st.theta = 0.95
	st.delta = 100
	copy(st.mh, []float64{1, 0, 0, 0.1})
	copy(st.gh, []float64{-2, -1})
	if !st.subproblem() {
		t.Fatal("subproblem failed")
	}
	if math.Abs(st.sh[0]-2) > 1e-12 || math.Abs(st.sh[1]-10) > 1e-10 {
		t.Fatalf("subproblem step %v, Newton step (2, 10)", st.sh)
	}
	psi := st.propose()
	sb := []float64{0.1, 0.5} // the bound point, t = 0.05
	d := []float64{-2, 10}
	tb := 0.4 / 10 // along d from x + sb, x2 reaches 1
	ref := math.Inf(1)
	for k := 1; k <= 10000; k++ {
		tt := 0.95 * tb * float64(k) / 10000
		ref = min(ref, st.model([]float64{sb[0] + tt*d[0], sb[1] + tt*d[1]}))
	}
	trunc := st.model([]float64{0.95 * 0.05 * 2, 0.95 * 0.05 * 10})
	if st.count == 0 {
		t.Errorf("no reflection")
	}
	if !(psi <= trunc) || !(psi <= ref+1e-12) || !(ref < trunc) {
		t.Errorf("chosen step's model %g, truncated %g, best on the reflected ray %g", psi, trunc, ref)
	}
	x := []float64{st.x[0] + st.best[0], st.x[1] + st.best[1]}
	if !(x[0] > 0 && x[0] < 1 && x[1] > 0 && x[1] < 1) {
		t.Errorf("chosen point %v is not inside the box", x)
	}
}

// TestFixed holds one Rosenbrock coordinate fixed: with x2 = 1 fixed, the
// minimum over x1 of 100(1-x1^2)^2 + (1-x1)^2 is at x1 = 1.
func TestFixed(t *testing.T) {
	r, err := Minimize(context.Background(), rosenbrock(2, nil, nil), []float64{0.3, 1}, &Options{Fixed: []bool{false, true}})
	if err != nil {
		t.Fatal(err)
	}
	if r.X[1] != 1 || math.Abs(r.X[0]-1) > 1e-6 || !r.Status.Converged() {
		t.Errorf("x = %v (status %v), want (1, 1) with x2 untouched", r.X, r.Status)
	}
}

// TestFailures: a start where the objective fails is StartFailed; a
// region where it fails is avoided (rejected steps), and the run still
// converges; misuse is an error.
func TestFailures(t *testing.T) {
	q := quadratic(mat.NewSymDense(2, []float64{1, 0, 0, 1}), []float64{0, 0}, []float64{-3, -3}, []float64{3, 3})
	fail := &Func{N: 2, Lo: q.Lo, Hi: q.Hi, F: func(x, g, h []float64) (float64, error) {
		if x[0] > 1 {
			return 0, errors.New("solver failed")
		}
		if x[0] < -1 {
			return math.NaN(), nil
		}
		f, err := q.F(x, g, h)
		for i := range h {
			h[i] *= 0.1 // a Hessian approximation 10 times too flat: steps overshoot into the failing regions
		}
		return f, err
	}}
	r, err := Minimize(context.Background(), fail, []float64{2, 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StartFailed || r.Err == nil || !math.IsNaN(r.F) {
		t.Errorf("start in the failing region: status %v, err %v, f %g", r.Status, r.Err, r.F)
	}
	r, err = Minimize(context.Background(), fail, []float64{0.9, 2.5}, &Options{Delta0: 10, FATol: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Status.Converged() || r.F > 1e-10 || r.Failed == 0 {
		t.Errorf("status %v, f %g, %d failed evaluations; want convergence to 0 after some failures", r.Status, r.F, r.Failed)
	}
	for _, c := range []struct {
		x0  []float64
		opt *Options
	}{
		{[]float64{0}, nil},
		{[]float64{4, 0}, nil},
		{[]float64{0, 0}, &Options{Fixed: []bool{true}}},
	} {
		if _, err := Minimize(context.Background(), q, c.x0, c.opt); err == nil {
			t.Errorf("x0 %v, options %+v: no error", c.x0, c.opt)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r, _ := Minimize(ctx, rosenbrock(2, nil, nil), []float64{0, 0}, nil); r.Status != Canceled {
		t.Errorf("cancelled context: status %v", r.Status)
	}
	if r, _ := Minimize(context.Background(), rosenbrock(2, nil, nil), []float64{-1.2, 1}, &Options{MaxIter: 3}); r.Status != MaxIter || r.Iter != 3 {
		t.Errorf("MaxIter 3: status %v after %d iterations", r.Status, r.Iter)
	}
}

// TestHybridSwitches: on Rosenbrock, whose exact Hessian is no
// Gauss-Newton matrix but serves as one, the HybridFixed rule with a
// switch after 2 unchanged-radius iterations does switch, and still
// converges.
func TestHybridSwitches(t *testing.T) {
	r, err := Minimize(context.Background(), rosenbrock(2, nil, nil), []float64{-1.2, 1}, &Options{Hessian: Hybrid, SwitchIter: 1, MaxIter: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if r.Switched == 0 || !r.Status.Converged() || r.F > 1e-8 {
		t.Errorf("switched at %d, status %v, f %g", r.Switched, r.Status, r.F)
	}
}

// TestLBFGS: gonum's L-BFGS on unbounded Rosenbrock reaches the minimum;
// a bounded problem is refused.
func TestLBFGS(t *testing.T) {
	for _, n := range []int{2, 10} {
		x0 := make([]float64, n)
		for i := range x0 {
			x0[i] = -1.2
			if i%2 == 1 {
				x0[i] = 1
			}
		}
		r, err := MinimizeLBFGS(context.Background(), rosenbrock(n, nil, nil), x0, &Options{FATol: 1e-14, FRTol: 1e-14, GATol: 1e-8})
		if err != nil {
			t.Fatal(err)
		}
		local := n >= 4 && math.Abs(r.F-3.930839) < 1e-5 // as in TestRosenbrock
		if !r.Status.Converged() || r.F > 1e-10 && !local {
			t.Errorf("n=%d: status %v (%v), f %g after %d iterations", n, r.Status, r.Err, r.F, r.Iter)
		}
	}
	if _, err := MinimizeLBFGS(context.Background(), rosenbrock(2, []float64{-2, -2}, []float64{2, 2}), []float64{0, 0}, nil); err == nil {
		t.Error("bounded problem: no error")
	}
}
