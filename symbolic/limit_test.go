package symbolic

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBounded: work past the limit stops with ErrTooLarge, the limit is
// restored, nested limits take the tighter one, and other panics pass
// through.
func TestBounded(t *testing.T) {
	b := NewBuilder()
	x := b.Sym("x", KindState)
	before := b.Size()
	err := b.Bounded(100, func() {
		for i := range 1000 {
			b.Add(x, b.Const(float64(i)))
		}
		t.Error("the loop was not stopped")
	})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
	if grown := b.Size() - before; grown > 100+10 {
		t.Errorf("grew by %d past a limit of 100", grown)
	}
	// The limit is gone afterwards.
	for i := range 1000 {
		b.Add(x, b.Const(float64(-i)))
	}
	// Nested: the outer, tighter limit applies inside a looser inner one.
	var inner error
	outer := b.Bounded(50, func() {
		inner = b.Bounded(1000, func() {
			for i := range 1000 {
				b.Mul(x, b.Const(float64(i+2)))
			}
		})
	})
	if !errors.Is(inner, ErrTooLarge) || outer != nil {
		t.Errorf("nested: inner %v, outer %v", inner, outer)
	}
	if err := b.Bounded(10, func() { b.Sym("y", KindState) }); err != nil {
		t.Errorf("small work: %v", err)
	}
	defer func() {
		if r := recover(); r != "other" {
			t.Errorf("recovered %v, want the panic to pass through", r)
		}
	}()
	_ = b.Bounded(10, func() { panic("other") })
}

// composed returns g^k(x) for g(y) = sin(y) + y: a DAG of O(k) nodes whose
// tree has 2^k leaves.
func composed(b *Builder, x *Node, k int) *Node {
	y := x
	for range k {
		y = b.Add(b.Func(OpSin, y), y)
	}
	return y
}

// TestStringBounded: printing a DAG whose tree is exponential stops at
// MaxStringLen with a placeholder, quickly.
func TestStringBounded(t *testing.T) {
	b := NewBuilder()
	x := b.Sym("x", KindState)
	s := composed(b, x, 60).String()
	if !strings.HasPrefix(s, "<expression longer than") {
		t.Errorf("got %d bytes starting %.40q, want a placeholder", len(s), s)
	}
	if small := composed(b, x, 3).String(); !strings.Contains(small, "sin(") || len(small) > 200 {
		t.Errorf("small expression printed as %q", small)
	}
}

// TestBuildBounded: a rate whose derivatives are quadratic in its size
// (a product of n distinct sums) makes Build fail with ErrTooLarge naming
// the state, instead of exhausting memory.
func TestBuildBounded(t *testing.T) {
	b := NewBuilder()
	n := 2500
	x := b.Sym("x", KindState)
	ps := make([]Param, n)
	fs := make([]*Node, n)
	for i := range n {
		ps[i] = Param{Name: "p" + strconv.Itoa(i), Value: 1}
		fs[i] = b.Add(x, b.Sym(ps[i].Name, KindParam))
	}
	ode := &ODE{B: b, Name: "wide", Params: ps, States: []State{{Name: "x", Rate: b.Mul(fs...), Init: b.Const(1)}}}
	_, err := Build(ode)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), `derivatives of the rate of "x"`) {
		t.Errorf("got %v", err)
	}
}

// sharedODE has n states whose rates all use one sum of n terms in x0:
// f_i = -x_i * T, T = sum_j j * x0^j.
func sharedODE(n int) *ODE {
	b := NewBuilder()
	x0 := b.Sym("x0", KindState)
	terms := make([]*Node, n)
	for j := range n {
		terms[j] = b.Mul(b.Const(float64(j+1)), b.Pow(x0, b.Const(float64(j+1))))
	}
	total := b.Add(terms...)
	ode := &ODE{B: b, Name: "shared"}
	for i := range n {
		x := b.Sym("x"+strconv.Itoa(i), KindState)
		ode.States = append(ode.States, State{Name: x.Name, Rate: b.Neg(b.Mul(x, total)), Init: b.Const(1)})
		ode.Outputs = append(ode.Outputs, Output{Name: "y" + strconv.Itoa(i), Expr: b.Mul(x, total)})
	}
	return ode
}

// TestBuildSharedScalesLinearly: rows and outputs sharing a large
// subexpression cost their own size, not the shared one's each time (the
// symbol sets of rows were once found by walking every row in full, which
// is quadratic here). Best of three runs, 16 times the size, well under
// 256 times the time.
func TestBuildSharedScalesLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("times Build of a 16,000-state system")
	}
	cost := func(n int) time.Duration {
		best := time.Duration(1 << 62)
		for range 3 {
			ode := sharedODE(n)
			start := cpuTime()
			sys, err := Build(ode)
			if err != nil {
				t.Fatal(err)
			}
			if len(sys.Jx) != 2*n-1 {
				t.Fatalf("Jx has %d entries, want %d", len(sys.Jx), 2*n-1)
			}
			best = min(best, cpuTime()-start)
		}
		return best
	}
	small, large := cost(1000), cost(16000)
	if ratio := float64(large) / float64(small); ratio > 64 {
		t.Errorf("1000 states %v, 16000 states %v: ratio %.1f, want about 16 (linear; quadratic is 256)", small, large, ratio)
	}
}

// TestBuildDenseRefused: a Jacobian with more than MaxNonzeros structural
// nonzeros is refused before differentiation, naming a state.
func TestBuildDenseRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("checks 4 million structural nonzeros")
	}
	n := 2100 // n*n > MaxNonzeros
	b := NewBuilder()
	xs := make([]*Node, n)
	for i := range xs {
		xs[i] = b.Sym("x"+strconv.Itoa(i), KindState)
	}
	total := b.Add(xs...)
	ode := &ODE{B: b, Name: "dense"}
	for i := range n {
		ode.States = append(ode.States, State{Name: xs[i].Name, Rate: b.Neg(b.Mul(xs[i], total)), Init: b.Const(1)})
	}
	start := time.Now()
	_, err := Build(ode)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "nonzeros") {
		t.Errorf("got %v", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %v", d)
	}
}
