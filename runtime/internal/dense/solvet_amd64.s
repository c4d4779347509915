//go:build !purego

#include "textflag.h"

// func solveTAVX(at, b []float64, n int)
//
// solveCols on the transposed factors (at[k*n+i] = the factor's entry
// (i, k), so that a column is contiguous), b already permuted: forward,
// b[k+1:n] -= b[k] * at[k*n+k+1 : (k+1)*n] for k = 0..n-2; backward,
// b[k] /= at[k*n+k] then b[0:k] -= b[k] * at[k*n : k*n+k] for k = n-1..1;
// b[0] /= at[0]. Multiplies and subtracts are separate (no fused
// multiply-add), so each entry rounds as in solveCols. The caller checks
// n >= 1, len(at) >= n*n and len(b) >= n.
//
// The solve is a chain of dependent steps, so its time is latency: the
// entry the next step needs (b[k+1] going forward, b[k-1] backward) is
// updated first and carried in a register, and the others follow in
// blocks of four at fixed, 4-aligned addresses (a block straddling two
// earlier stores could not be forwarded from them) with single entries
// around them.
TEXT ·solveTAVX(SB), NOSPLIT, $0-56
	MOVQ at_base+0(FP), DI
	MOVQ b_base+24(FP), SI
	MOVQ n+48(FP), R8
	LEAQ (R8*8), R9         // R9 = the row stride in bytes
	// Forward: k = 0..n-2, BX = &at[k*n] (entry i of column k at BX+8i),
	// X0 = b[k].
	XORQ R10, R10
	MOVQ DI, BX
	VMOVSD (SI), X0

fk:
	LEAQ 1(R10), R12        // R12 = i = k+1
	CMPQ R12, R8
	JGE bstart
	VBROADCASTSD X0, Y0
	VMULSD (BX)(R12*8), X0, X1
	VMOVSD (SI)(R12*8), X8
	VSUBSD X1, X8, X8       // b[k+1], final: the next step's b[k]
	VMOVSD X8, (SI)(R12*8)
	INCQ R12

fh:
	TESTQ $3, R12
	JEQ f4
	CMPQ R12, R8
	JGE fnext
	VMOVSD (BX)(R12*8), X1
	VMULSD X0, X1, X1
	VMOVSD (SI)(R12*8), X2
	VSUBSD X1, X2, X2
	VMOVSD X2, (SI)(R12*8)
	INCQ R12
	JMP fh

f4:
	LEAQ 4(R12), AX
	CMPQ AX, R8
	JGT f1
	VMOVUPD (BX)(R12*8), Y1
	VMULPD Y0, Y1, Y1
	VMOVUPD (SI)(R12*8), Y2
	VSUBPD Y1, Y2, Y2
	VMOVUPD Y2, (SI)(R12*8)
	MOVQ AX, R12
	JMP f4

f1:
	CMPQ R12, R8
	JGE fnext
	VMOVSD (BX)(R12*8), X1
	VMULSD X0, X1, X1
	VMOVSD (SI)(R12*8), X2
	VSUBSD X1, X2, X2
	VMOVSD X2, (SI)(R12*8)
	INCQ R12
	JMP f1

fnext:
	VMOVAPD X8, X0
	ADDQ R9, BX
	INCQ R10
	JMP fk

bstart:
	// Backward: k = n-1..1, BX = &at[k*n], X0 = b[k] before its division.
	MOVQ R8, R10
	DECQ R10
	MOVQ R10, AX
	IMULQ R8, AX
	LEAQ (DI)(AX*8), BX
	VMOVSD (SI)(R10*8), X0

bk:
	CMPQ R10, $0
	JLE bdone
	VDIVSD (BX)(R10*8), X0, X0 // b[k] / at[k*n+k]
	VMOVSD X0, (SI)(R10*8)
	VBROADCASTSD X0, Y0
	LEAQ -1(R10), R13       // R13 = k-1, the entry updated first
	VMULSD (BX)(R13*8), X0, X1
	VMOVSD (SI)(R13*8), X8
	VSUBSD X1, X8, X8       // b[k-1], final before its division
	VMOVSD X8, (SI)(R13*8)
	XORQ R12, R12           // then entries 0..k-2

b4:
	LEAQ 4(R12), AX
	CMPQ AX, R13
	JGT b1
	VMOVUPD (BX)(R12*8), Y1
	VMULPD Y0, Y1, Y1
	VMOVUPD (SI)(R12*8), Y2
	VSUBPD Y1, Y2, Y2
	VMOVUPD Y2, (SI)(R12*8)
	MOVQ AX, R12
	JMP b4

b1:
	CMPQ R12, R13
	JGE bnext
	VMOVSD (BX)(R12*8), X1
	VMULSD X0, X1, X1
	VMOVSD (SI)(R12*8), X2
	VSUBSD X1, X2, X2
	VMOVSD X2, (SI)(R12*8)
	INCQ R12
	JMP b1

bnext:
	VMOVAPD X8, X0
	SUBQ R9, BX
	DECQ R10
	JMP bk

bdone:
	VDIVSD (DI), X0, X0     // b[0] / at[0]
	VMOVSD X0, (SI)
	VZEROUPPER
	RET
