//go:build !purego

package dense

//go:noescape
func elimAVX(a []float64, n, k int, inv float64) (p int, maxv float64)
