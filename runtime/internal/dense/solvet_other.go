//go:build !amd64 || purego

package dense

func solveTAVX(at, b []float64, n int) {
	panic("dense: solveTAVX without AVX2")
}
