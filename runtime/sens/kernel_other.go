//go:build !amd64 || purego

package sens

const hasAVX2FMA = false

func gemmAVX(dst, a, b []float64, n, k, m int, alpha float64) {
	panic("sens: gemmAVX without AVX2")
}

func spRowsAVX(dst, b, x []float64, idx, ptr []int, m int) {
	panic("sens: spRowsAVX without AVX2")
}
