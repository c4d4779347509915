//go:build !amd64 || purego

package dense

func transposeAVX(at, a []float64, n, m int) {
	panic("dense: transposeAVX without AVX2")
}
