//go:build !purego

package dense

//go:noescape
func predictAVX(z0, z1, z2, z3, z4, z5 []float64, q int)
