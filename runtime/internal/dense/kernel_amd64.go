//go:build !purego

package dense

// HasFMA reports whether the CPU and the OS support AVX2 and FMA (the OS
// must save the YMM registers: XCR0 bits 1 and 2), so that the kernels of
// kernel_amd64.s run. Detected once at start-up for the whole runtime;
// the wrappers of this package and the callers' own fallbacks branch on it.
var HasFMA = func() bool {
	mx, _, _, _ := cpuid(0, 0)
	if mx < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if c1&fma == 0 || c1&osxsave == 0 || c1&avx == 0 {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 {
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<5) != 0
}()

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax, edx uint32)

//go:noescape
func gemmAVX(dst, a, b []float64, n, k, m, lda, ldb, ldc int, alpha float64)

//go:noescape
func trsmAVX(lu, b []float64, n, m int)

//go:noescape
func gerAVX(a, x, y []float64, m, n, lda, incx int)

//go:noescape
func rows4AVX(dst, a, b []float64, n, k int)

//go:noescape
func spRows4AVX(dst, b, x []float64, idx, ptr []int, add bool)

//go:noescape
func forceAVX(ft, wpT, va, vb []float64, perm, off, ptr []int, m, phOff int)

//go:noescape
func addTransAVX(dst, ft []float64, nx, ns int)

//go:noescape
func finiteAVX(v []float64) bool

//go:noescape
func l1distAVX(a, b []float64) float64
