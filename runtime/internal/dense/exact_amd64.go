//go:build !purego

package dense

//go:noescape
func axpyExactAVX(y, x []float64, a float64)

//go:noescape
func ewtAVX(ewt, z, atol []float64, rtol float64)

//go:noescape
func residualAVX(b, f, z1, acor []float64, gamma, rl1 float64)

//go:noescape
func updateAVX(acor, y, z0, b []float64)
