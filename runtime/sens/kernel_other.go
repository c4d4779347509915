//go:build !amd64 || purego

package sens

const hasAVX2FMA = false

func rows4AVX(dst, a, b []float64, n, k int) {
	panic("sens: rows4AVX without AVX2")
}

func spRows4AVX(dst, b, x []float64, idx, ptr []int, add bool) {
	panic("sens: spRows4AVX without AVX2")
}

func forceAVX(ft, wpT, va, vb []float64, perm, off, ptr []int, m, phOff int) {
	panic("sens: forceAVX without AVX2")
}

func addTransAVX(dst, ft []float64, nx, ns int) {
	panic("sens: addTransAVX without AVX2")
}
