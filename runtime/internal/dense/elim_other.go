//go:build !amd64 || purego

package dense

func elimAVX(a []float64, n, k int, inv float64) (p int, maxv float64) {
	panic("dense: elimAVX without AVX2")
}
