//go:build !purego

package expm

//go:noescape
func gemmAVX(dst, a, b []float64, n, k, m, lda, ldb, ldc int, alpha float64)

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax, edx uint32)

// hasFMA reports whether the CPU and the OS support AVX2 and FMA (the OS
// must save the YMM registers: XCR0 bits 1 and 2).
var hasFMA = func() bool {
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

//go:noescape
func trsmAVX(lu, b []float64, n, m int)

//go:noescape
func gerAVX(a, x, y []float64, m, n, lda, incx int)
