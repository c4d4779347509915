//go:build !amd64 || purego

package dense

func axpyExactAVX(y, x []float64, a float64) {
	panic("dense: axpyExactAVX without AVX2")
}

func ewtAVX(ewt, z, atol []float64, rtol float64) {
	panic("dense: ewtAVX without AVX2")
}

func residualAVX(b, f, z1, acor []float64, gamma, rl1 float64) {
	panic("dense: residualAVX without AVX2")
}

func updateAVX(acor, y, z0, b []float64) {
	panic("dense: updateAVX without AVX2")
}
