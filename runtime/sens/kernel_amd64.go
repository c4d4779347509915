//go:build !purego

package sens

import "github.com/pbgen/pbgen/runtime/expm"

// hasAVX2FMA: the dense products go through expm.MulAdd's AVX2 kernel and
// the forcing through forceAVX.
var hasAVX2FMA = expm.HasFMA()

//go:noescape
func rows4AVX(dst, a, b []float64, n, k int)

//go:noescape
func spRows4AVX(dst, b, x []float64, idx, ptr []int, add bool)

//go:noescape
func forceAVX(ft, wpT, va, vb []float64, perm, off, ptr []int, m, phOff int)

//go:noescape
func addTransAVX(dst, ft []float64, nx, ns int)
