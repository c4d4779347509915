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
TEXT ·solveTAVX(SB), NOSPLIT, $0-56
	MOVQ at_base+0(FP), DI
	MOVQ b_base+24(FP), SI
	MOVQ n+48(FP), R8
	LEAQ (R8*8), R9         // R9 = the row stride in bytes
	// Forward: k = 0..n-2, BX = &at[k*n], entry i of the column at BX+8i.
	XORQ R10, R10           // k
	MOVQ DI, BX

fk:
	LEAQ 1(R10), R12        // R12 = i, from k+1
	CMPQ R12, R8
	JGE bstart
	VMOVSD (SI)(R10*8), X0
	VBROADCASTSD X0, Y0     // b[k]
	// Entries one at a time up to a multiple of four, so that the blocks
	// of four below sit at the same addresses at every k (a block
	// straddling two earlier stores could not be forwarded from them).

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
	ADDQ R9, BX
	INCQ R10
	JMP fk

bstart:
	// Backward: k = n-1..1, BX = &at[k*n] (k = n-1 after the forward loop).
	MOVQ R8, R10
	DECQ R10
	MOVQ R10, AX
	IMULQ R8, AX
	LEAQ (DI)(AX*8), BX

bk:
	CMPQ R10, $0
	JLE bdone
	VMOVSD (SI)(R10*8), X0
	VDIVSD (BX)(R10*8), X0, X0 // b[k] / at[k*n+k]
	VMOVSD X0, (SI)(R10*8)
	VBROADCASTSD X0, Y0
	XORQ R12, R12

b4:
	LEAQ 4(R12), AX
	CMPQ AX, R10
	JGT b1
	VMOVUPD (BX)(R12*8), Y1
	VMULPD Y0, Y1, Y1
	VMOVUPD (SI)(R12*8), Y2
	VSUBPD Y1, Y2, Y2
	VMOVUPD Y2, (SI)(R12*8)
	MOVQ AX, R12
	JMP b4

b1:
	CMPQ R12, R10
	JGE bnext
	VMOVSD (BX)(R12*8), X1
	VMULSD X0, X1, X1
	VMOVSD (SI)(R12*8), X2
	VSUBSD X1, X2, X2
	VMOVSD X2, (SI)(R12*8)
	INCQ R12
	JMP b1

bnext:
	SUBQ R9, BX
	DECQ R10
	JMP bk

bdone:
	VMOVSD (SI), X0
	VDIVSD (DI), X0, X0
	VMOVSD X0, (SI)
	VZEROUPPER
	RET
