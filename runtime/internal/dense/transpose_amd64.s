//go:build !purego

#include "textflag.h"

// func transposeAVX(at, a []float64, n, m int)
//
// at[j*n+i] = a[i*n+j] for i, j < m (m a multiple of 4, m <= n), in 4 x 4
// blocks: four rows loaded, interleaved (VUNPCKLPD, VUNPCKHPD) and their
// halves exchanged (VPERM2F128), four columns stored. The caller checks
// the lengths.
TEXT ·transposeAVX(SB), NOSPLIT, $0-64
	MOVQ at_base+0(FP), DI
	MOVQ a_base+24(FP), SI
	MOVQ n+48(FP), R8
	MOVQ m+56(FP), R9
	LEAQ (R8*8), R10        // row stride in bytes
	XORQ R11, R11           // i, the block row

ti:
	CMPQ R11, R9
	JGE tdone
	MOVQ R11, AX
	IMULQ R10, AX
	LEAQ (SI)(AX*1), BX     // BX = &a[i*n]
	XORQ R12, R12           // j, the block column

tj:
	CMPQ R12, R9
	JGE tinext
	LEAQ (BX)(R12*8), CX    // &a[i*n+j]
	VMOVUPD (CX), Y0
	ADDQ R10, CX
	VMOVUPD (CX), Y1
	ADDQ R10, CX
	VMOVUPD (CX), Y2
	ADDQ R10, CX
	VMOVUPD (CX), Y3
	VUNPCKLPD Y1, Y0, Y4    // a0 b0 a2 b2
	VUNPCKHPD Y1, Y0, Y5    // a1 b1 a3 b3
	VUNPCKLPD Y3, Y2, Y6    // c0 d0 c2 d2
	VUNPCKHPD Y3, Y2, Y7    // c1 d1 c3 d3
	VPERM2F128 $0x20, Y6, Y4, Y0 // a0 b0 c0 d0
	VPERM2F128 $0x20, Y7, Y5, Y1 // a1 b1 c1 d1
	VPERM2F128 $0x31, Y6, Y4, Y2 // a2 b2 c2 d2
	VPERM2F128 $0x31, Y7, Y5, Y3 // a3 b3 c3 d3
	MOVQ R12, AX
	IMULQ R10, AX
	LEAQ (DI)(AX*1), CX
	LEAQ (CX)(R11*8), CX    // &at[j*n+i]
	VMOVUPD Y0, (CX)
	ADDQ R10, CX
	VMOVUPD Y1, (CX)
	ADDQ R10, CX
	VMOVUPD Y2, (CX)
	ADDQ R10, CX
	VMOVUPD Y3, (CX)
	ADDQ $4, R12
	JMP tj

tinext:
	ADDQ $4, R11
	JMP ti

tdone:
	VZEROUPPER
	RET
