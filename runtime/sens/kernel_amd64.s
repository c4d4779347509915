//go:build !purego

#include "textflag.h"

// gemmMask: 16 all-ones then 16 zero quadwords; the 16 quadwords from
// entry 16-r on mask the first r lanes of four YMM registers.
DATA gemmMask<>+0x00(SB)/8, $-1
DATA gemmMask<>+0x08(SB)/8, $-1
DATA gemmMask<>+0x10(SB)/8, $-1
DATA gemmMask<>+0x18(SB)/8, $-1
DATA gemmMask<>+0x20(SB)/8, $-1
DATA gemmMask<>+0x28(SB)/8, $-1
DATA gemmMask<>+0x30(SB)/8, $-1
DATA gemmMask<>+0x38(SB)/8, $-1
DATA gemmMask<>+0x40(SB)/8, $-1
DATA gemmMask<>+0x48(SB)/8, $-1
DATA gemmMask<>+0x50(SB)/8, $-1
DATA gemmMask<>+0x58(SB)/8, $-1
DATA gemmMask<>+0x60(SB)/8, $-1
DATA gemmMask<>+0x68(SB)/8, $-1
DATA gemmMask<>+0x70(SB)/8, $-1
DATA gemmMask<>+0x78(SB)/8, $-1
DATA gemmMask<>+0x80(SB)/8, $0
DATA gemmMask<>+0x88(SB)/8, $0
DATA gemmMask<>+0x90(SB)/8, $0
DATA gemmMask<>+0x98(SB)/8, $0
DATA gemmMask<>+0xa0(SB)/8, $0
DATA gemmMask<>+0xa8(SB)/8, $0
DATA gemmMask<>+0xb0(SB)/8, $0
DATA gemmMask<>+0xb8(SB)/8, $0
DATA gemmMask<>+0xc0(SB)/8, $0
DATA gemmMask<>+0xc8(SB)/8, $0
DATA gemmMask<>+0xd0(SB)/8, $0
DATA gemmMask<>+0xd8(SB)/8, $0
DATA gemmMask<>+0xe0(SB)/8, $0
DATA gemmMask<>+0xe8(SB)/8, $0
DATA gemmMask<>+0xf0(SB)/8, $0
DATA gemmMask<>+0xf8(SB)/8, $0
GLOBL gemmMask<>(SB), RODATA|NOPTR, $256

// func spRowsAVX(dst, b, x []float64, idx, ptr []int, m int)
//
// For each row c of dst (len(ptr)-1 rows of length m, stride m):
// dst[c*m+t] = sum_(q = ptr[c]..ptr[c+1]-1) x[q] b[idx[q]*m+t], t < m; a
// product of a sparse matrix (CSR: ptr, idx, x) and a dense one (b, row
// stride m). Lengths are checked by the caller. Rows are done in masked
// column blocks of 16 with two sets of accumulators (even and odd q) to
// hide the latency of the FMA chain.
TEXT ·spRowsAVX(SB), NOSPLIT, $0-128
	MOVQ dst_base+0(FP), DI
	MOVQ b_base+24(FP), SI
	MOVQ x_base+48(FP), DX
	MOVQ idx_base+72(FP), R8
	MOVQ ptr_base+96(FP), R9
	MOVQ ptr_len+104(FP), R10
	DECQ R10
	MOVQ m+120(FP), R12
	MOVQ R12, R11
	SHLQ $3, R11
	XORQ R13, R13
	TESTQ R10, R10
	JLE spdone

blk:
	MOVQ R12, AX
	SUBQ R13, AX
	JLE nextcol
	CMPQ AX, $16
	JLE masks
	MOVQ $16, AX
masks:
	NEGQ AX
	ADDQ $16, AX
	LEAQ gemmMask<>(SB), BX
	LEAQ (BX)(AX*8), BX
	VMOVUPD 0(BX), Y10
	VMOVUPD 32(BX), Y11
	VMOVUPD 64(BX), Y12
	VMOVUPD 96(BX), Y13
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	MOVQ (R9), R14
	MOVQ 8(R9), CX
qloop:
	CMPQ R14, CX
	JGE qdone
	VBROADCASTSD (DX)(R14*8), Y8
	MOVQ (R8)(R14*8), AX
	IMULQ R11, AX
	ADDQ SI, AX
	LEAQ (AX)(R13*8), AX
	VMASKMOVPD 0(AX), Y10, Y9
	VFMADD231PD Y9, Y8, Y0
	VMASKMOVPD 32(AX), Y11, Y9
	VFMADD231PD Y9, Y8, Y1
	VMASKMOVPD 64(AX), Y12, Y9
	VFMADD231PD Y9, Y8, Y2
	VMASKMOVPD 96(AX), Y13, Y9
	VFMADD231PD Y9, Y8, Y3
	INCQ R14
	CMPQ R14, CX
	JGE qdone
	VBROADCASTSD (DX)(R14*8), Y8
	MOVQ (R8)(R14*8), AX
	IMULQ R11, AX
	ADDQ SI, AX
	LEAQ (AX)(R13*8), AX
	VMASKMOVPD 0(AX), Y10, Y9
	VFMADD231PD Y9, Y8, Y4
	VMASKMOVPD 32(AX), Y11, Y9
	VFMADD231PD Y9, Y8, Y5
	VMASKMOVPD 64(AX), Y12, Y9
	VFMADD231PD Y9, Y8, Y6
	VMASKMOVPD 96(AX), Y13, Y9
	VFMADD231PD Y9, Y8, Y7
	INCQ R14
	JMP qloop
qdone:
	LEAQ (DI)(R13*8), AX
	VADDPD Y4, Y0, Y0
	VMASKMOVPD Y0, Y10, 0(AX)
	VADDPD Y5, Y1, Y1
	VMASKMOVPD Y1, Y11, 32(AX)
	VADDPD Y6, Y2, Y2
	VMASKMOVPD Y2, Y12, 64(AX)
	VADDPD Y7, Y3, Y3
	VMASKMOVPD Y3, Y13, 96(AX)
	ADDQ $16, R13
	JMP blk

nextcol:
	ADDQ $8, R9
	ADDQ R11, DI
	XORQ R13, R13
	DECQ R10
	JNZ blk

spdone:
	VZEROUPPER
	RET

// func rows4AVX(dst, a, b []float64, n, k int)
//
// dst[i*4+q] = sum_l a[i*k+l] b[l*4+q] for q < 4: a (n x k) times b
// (k x 4), the probe products of the local error estimate (nProbe = 4
// columns, one YMM register per row of b). Four rows of a at a time keep
// four independent FMA chains; lengths are checked by the caller, k >= 1.
TEXT ·rows4AVX(SB), NOSPLIT, $0-88
	MOVQ dst_base+0(FP), DI
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	MOVQ n+72(FP), R8
	MOVQ k+80(FP), R9
	SHLQ $3, R9

r4loop:
	CMPQ R8, $4
	JL r1loop
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ SI, R10
	LEAQ (SI)(R9*1), R11
	LEAQ (SI)(R9*2), R12
	LEAQ (R12)(R9*1), R13
	MOVQ DX, BX
	MOVQ k+80(FP), CX

r4k:
	VMOVUPD (BX), Y4
	VBROADCASTSD (R10), Y5
	VFMADD231PD Y4, Y5, Y0
	VBROADCASTSD (R11), Y6
	VFMADD231PD Y4, Y6, Y1
	VBROADCASTSD (R12), Y7
	VFMADD231PD Y4, Y7, Y2
	VBROADCASTSD (R13), Y8
	VFMADD231PD Y4, Y8, Y3
	ADDQ $8, R10
	ADDQ $8, R11
	ADDQ $8, R12
	ADDQ $8, R13
	ADDQ $32, BX
	DECQ CX
	JNZ r4k
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ $128, DI
	LEAQ (SI)(R9*4), SI
	SUBQ $4, R8
	JMP r4loop

r1loop:
	TESTQ R8, R8
	JE r4done
	VXORPD Y0, Y0, Y0
	MOVQ SI, R10
	MOVQ DX, BX
	MOVQ k+80(FP), CX

r1k:
	VBROADCASTSD (R10), Y5
	VFMADD231PD (BX), Y5, Y0
	ADDQ $8, R10
	ADDQ $32, BX
	DECQ CX
	JNZ r1k
	VMOVUPD Y0, (DI)
	ADDQ $32, DI
	ADDQ R9, SI
	DECQ R8
	JMP r1loop

r4done:
	VZEROUPPER
	RET

// func spRows4AVX(dst, b, x []float64, idx, ptr []int, add bool)
//
// For each row i of the n x 4 dst (n = len(ptr)-1): dst[i*4+q] (+)= sum
// over entries p = ptr[i]..ptr[i+1]-1 of x[p] b[idx[p]*4+q]: a CSR matrix
// times a k x 4 dense one, one YMM register per row of b, two
// accumulators alternating over the entries. Lengths are checked by the
// caller.
TEXT ·spRows4AVX(SB), NOSPLIT, $0-121
	MOVQ dst_base+0(FP), DI
	MOVQ b_base+24(FP), SI
	MOVQ x_base+48(FP), DX
	MOVQ idx_base+72(FP), R8
	MOVQ ptr_base+96(FP), R9
	MOVQ ptr_len+104(FP), R10
	DECQ R10
	MOVBQZX add+120(FP), R11
	TESTQ R10, R10
	JLE s4done

s4row:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	MOVQ (R9), R12
	MOVQ 8(R9), R13

s4loop:
	CMPQ R12, R13
	JGE s4sum
	VBROADCASTSD (DX)(R12*8), Y8
	MOVQ (R8)(R12*8), AX
	SHLQ $5, AX
	VFMADD231PD (SI)(AX*1), Y8, Y0
	INCQ R12
	CMPQ R12, R13
	JGE s4sum
	VBROADCASTSD (DX)(R12*8), Y9
	MOVQ (R8)(R12*8), AX
	SHLQ $5, AX
	VFMADD231PD (SI)(AX*1), Y9, Y1
	INCQ R12
	JMP s4loop

s4sum:
	VADDPD Y1, Y0, Y0
	TESTQ R11, R11
	JE s4store
	VADDPD (DI), Y0, Y0

s4store:
	VMOVUPD Y0, (DI)
	ADDQ $32, DI
	ADDQ $8, R9
	DECQ R10
	JNZ s4row

s4done:
	VZEROUPPER
	RET
