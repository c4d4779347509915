//go:build !purego

package dense

//go:noescape
func axpyExactAVX(y, x []float64, a float64)

//go:noescape
func ewtAVX(ewt, z, atol []float64, rtol float64)
