//go:build !purego

package dense

//go:noescape
func solveTAVX(at, b []float64, n int)
