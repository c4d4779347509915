//go:build !amd64 || purego

package dense

func predictAVX(z0, z1, z2, z3, z4, z5 []float64, q int) {
	panic("dense: predictAVX without AVX2")
}
