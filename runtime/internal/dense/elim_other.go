//go:build !amd64 || purego

package dense

func elimAVX(a []float64, n, k int) {
	panic("dense: elimAVX without AVX2")
}
