//go:build !purego

#include "textflag.h"

// func elimAVX(a []float64, n, k int)
//
// The trailing update of step k of Factor on the row-major n x n a: for
// every row i > k whose multiplier l = a[i*n+k] is not zero,
// a[i*n+j] -= l * a[k*n+j] for j > k. Multiplies and subtracts are
// separate (VMULPD, VSUBPD: no fused multiply-add), so every entry is
// rounded exactly as by Factor's Go loop; four entries per instruction,
// then the remainder one at a time. The caller checks 0 <= k < n and
// len(a) >= n*n.
TEXT ·elimAVX(SB), NOSPLIT, $0-40
	MOVQ a_base+0(FP), DI
	MOVQ n+24(FP), R8
	MOVQ k+32(FP), R9
	MOVQ R8, R10
	SUBQ R9, R10
	DECQ R10                // R10 = L = n-k-1, the row length
	JLE edone
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

erow:
	VMOVSD (BX), X0
	VUCOMISD X15, X0
	JNE elive
	JPS elive               // NaN: not zero, eliminated as in Go
	JMP enext

elive:
	VBROADCASTSD (BX), Y0
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
	JGE enext
	VMOVSD (SI)(R12*8), X1
	VMULSD X0, X1, X1
	VMOVSD (DX)(R12*8), X2
	VSUBSD X1, X2, X2
	VMOVSD X2, (DX)(R12*8)
	INCQ R12
	JMP e1

enext:
	ADDQ R8, BX
	DECQ CX
	JNZ erow
	VZEROUPPER

edone:
	RET
