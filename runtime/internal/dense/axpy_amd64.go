//go:build !purego

package dense

//go:noescape
func axpyAVX(y, x []float64, a float64)
