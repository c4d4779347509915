//go:build !purego

#include "textflag.h"

// func elimAVX(a []float64, n, k int, inv float64) (p int, maxv float64)
//
// Step k of Factor on the row-major n x n a after its pivot, with inv =
// 1/a[k*n+k]: for every row i > k whose entry l = a[i*n+k] is not zero
// (NaN is not zero), the multiplier l*inv replaces it and
// a[i*n+j] -= (l*inv) * a[k*n+j] for j > k; then, as the rows are done in
// order, the pivot search of column k+1: p is the first row i > k with the
// largest |a[i*n+k+1]| (a strict comparison that NaN never wins, as
// Factor's Go loop), maxv that value. Multiplies and subtracts are
// separate (VMULPD, VSUBPD: no fused multiply-add), so every entry is
// rounded exactly as by Factor's Go loop; four entries per instruction,
// then the remainder one at a time. The caller checks 0 <= k < n-1 and
// len(a) >= n*n.
TEXT ·elimAVX(SB), NOSPLIT, $0-64
	MOVQ a_base+0(FP), DI
	MOVQ n+24(FP), R8
	MOVQ k+32(FP), R9
	VMOVSD inv+40(FP), X6
	MOVQ R8, R10
	SUBQ R9, R10
	DECQ R10                // R10 = L = n-k-1, the row length
	MOVQ R9, AX
	IMULQ R8, AX
	ADDQ R9, AX
	INCQ AX
	LEAQ (DI)(AX*8), SI     // SI = &a[k*n+k+1], row k's tail
	SHLQ $3, R8             // R8 = the row stride in bytes
	LEAQ -8(SI)(R8*1), BX   // BX = &a[(k+1)*n+k], the first multiplier
	MOVQ R10, CX            // rows left
	MOVQ R10, R11
	ANDQ $-4, R11           // R11 = L rounded down to a multiple of 4
	VXORPD X15, X15, X15
	MOVQ $0x7fffffffffffffff, AX
	MOVQ AX, X7             // the sign mask of |.|
	LEAQ 1(R9), R13         // R13 = i, the row
	MOVQ R13, R14           // R14 = p
	VMOVSD 8(BX), X5
	VANDPD X7, X5, X5       // X5 = maxv, |a[(k+1)*n+k+1]| once updated (below)

erow:
	VMOVSD (BX), X0
	VUCOMISD X15, X0
	JNE elive
	JPS elive               // NaN: not zero, eliminated as in Go
	JMP epiv

elive:
	VMULSD X6, X0, X0       // the multiplier l*inv
	VMOVSD X0, (BX)
	VBROADCASTSD X0, Y0
	LEAQ 8(BX), DX          // DX = &a[i*n+k+1]
	XORQ R12, R12

e4:
	CMPQ R12, R11
	JGE e1
	VMOVUPD (SI)(R12*8), Y1
	VMULPD Y0, Y1, Y1
	VMOVUPD (DX)(R12*8), Y2
	VSUBPD Y1, Y2, Y2
	VMOVUPD Y2, (DX)(R12*8)
	ADDQ $4, R12
	JMP e4

e1:
	CMPQ R12, R10
	JGE epiv
	VMOVSD (SI)(R12*8), X1
	VMULSD X0, X1, X1
	VMOVSD (DX)(R12*8), X2
	VSUBSD X1, X2, X2
	VMOVSD X2, (DX)(R12*8)
	INCQ R12
	JMP e1

epiv:
	// Row i is final in column k+1: the pivot search.
	VMOVSD 8(BX), X4
	VANDPD X7, X4, X4
	LEAQ 1(R9), AX
	CMPQ R13, AX
	JNE ecmp
	VMOVAPD X4, X5          // the first row sets maxv
	JMP enext

ecmp:
	VUCOMISD X5, X4
	JLS enext               // not v > maxv (or unordered)
	VMOVAPD X4, X5
	MOVQ R13, R14

enext:
	ADDQ R8, BX
	INCQ R13
	DECQ CX
	JNZ erow
	VZEROUPPER
	MOVQ R14, p+48(FP)
	VMOVSD X5, maxv+56(FP)
	RET
