//go:build !purego

package dense

//go:noescape
func transposeAVX(at, a []float64, n, m int)
