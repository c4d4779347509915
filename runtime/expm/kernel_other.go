//go:build !amd64 || purego

package expm

const hasFMA = false

func gemmAVX(dst, a, b []float64, n, k, m, lda, ldb, ldc int, alpha float64) {
	panic("expm: gemmAVX without AVX2")
}

func trsmAVX(lu, b []float64, n, m int) {
	panic("expm: trsmAVX without AVX2")
}

func gerAVX(a, x, y []float64, m, n, lda, incx int) {
	panic("expm: gerAVX without AVX2")
}
