//go:build !amd64 || purego

package dense

func axpyExactAVX(y, x []float64, a float64) {
	panic("dense: axpyExactAVX without AVX2")
}

func ewtAVX(ewt, z, atol []float64, rtol float64) {
	panic("dense: ewtAVX without AVX2")
}
