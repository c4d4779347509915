//go:build !amd64 || purego

package dense

func axpyAVX(y, x []float64, a float64) {
	panic("dense: axpyAVX without AVX2")
}
