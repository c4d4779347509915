//go:build !purego

package dense

//go:noescape
func gatherAVX(dst, init, vals []float64, idx []int, src []float64, k int, alpha float64)
