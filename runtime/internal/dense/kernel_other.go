//go:build !amd64 || purego

package dense

// HasFMA is false without the amd64 assembly (other architectures, or
// built with the purego tag): every wrapper takes its Go loop.
const HasFMA = false

func gemmAVX(dst, a, b []float64, n, k, m, lda, ldb, ldc int, alpha float64) {
	panic("dense: gemmAVX without AVX2")
}

func trsmAVX(lu, b []float64, n, m int) {
	panic("dense: trsmAVX without AVX2")
}

func gerAVX(a, x, y []float64, m, n, lda, incx int) {
	panic("dense: gerAVX without AVX2")
}

func rows4AVX(dst, a, b []float64, n, k int) {
	panic("dense: rows4AVX without AVX2")
}

func spRows4AVX(dst, b, x []float64, idx, ptr []int, add bool) {
	panic("dense: spRows4AVX without AVX2")
}

func forceAVX(ft, wpT, va, vb []float64, perm, off, ptr []int, m, phOff int) {
	panic("dense: forceAVX without AVX2")
}

func addTransAVX(dst, ft []float64, nx, ns int) {
	panic("dense: addTransAVX without AVX2")
}

func finiteAVX(v []float64) bool {
	panic("dense: finiteAVX without AVX2")
}

func l1distAVX(a, b []float64) float64 {
	panic("dense: l1distAVX without AVX2")
}
