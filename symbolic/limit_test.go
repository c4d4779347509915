package symbolic

import (
	"errors"
	"strconv"
	"strings"
	"testing"
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
