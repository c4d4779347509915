package model

import (
	"slices"
	"testing"
)

// TestJpColumnFuncs checks the generated-code helper: the chosen
// columns' functions run in the order of cols, columns without a function
// are skipped, lengths are checked and bad column lists panic.
func TestJpColumnFuncs(t *testing.T) {
	var calls []int
	col := func(j int) JpFunc {
		return func(dst []float64, _ float64, _, _ []float64) {
			calls = append(calls, j)
			dst[j] = float64(10 + j)
		}
	}
	fns := []JpFunc{col(0), nil, col(2)}
	f := JpColumnFuncs(fns, 2, 3, []int{2, 1, 0})
	dst := []float64{-1, -1, -1}
	f(dst, 0, make([]float64, 2), make([]float64, 3))
	if !slices.Equal(calls, []int{2, 0}) || !slices.Equal(dst, []float64{10, -1, 12}) {
		t.Errorf("calls %v, dst %v; want [2 0] and [10 -1 12]", calls, dst)
	}
	mustPanic := func(what string, fn func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", what)
			}
		}()
		fn()
	}
	mustPanic("column out of range", func() { JpColumnFuncs(fns, 2, 3, []int{3}) })
	mustPanic("negative column", func() { JpColumnFuncs(fns, 2, 3, []int{-1}) })
	mustPanic("repeated column", func() { JpColumnFuncs(fns, 2, 3, []int{1, 1}) })
	mustPanic("short dst", func() { f(make([]float64, 2), 0, make([]float64, 2), make([]float64, 3)) })
	mustPanic("short x", func() { f(dst, 0, make([]float64, 1), make([]float64, 3)) })
	mustPanic("short p", func() { f(dst, 0, make([]float64, 2), make([]float64, 2)) })
}
