//go:build !amd64 || purego

package dense

func gatherAVX(dst, init, vals []float64, idx []int, src []float64, k int, alpha float64) {
	panic("dense: gatherAVX without AVX2")
}
