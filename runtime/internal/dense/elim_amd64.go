//go:build !purego

package dense

//go:noescape
func elimAVX(a []float64, n, k int)
