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

// func forceAVX(ft, wpT, va, vb []float64, perm, off, ptr []int, m, phOff int)
//
// The forcing of the end-point step by columns of Jp, transposed: for
// each column c (len(ptr)-1 of them), row c of ft (length m = nx) is
// sum over its entries q = ptr[c]..ptr[c+1]-1 of va[perm[q]] Wt^T[i_q] +
// vb[perm[q]] Ph^T[i_q], where wpT holds the rows of Wt^T, then those of
// Ph^T at byte offset phOff, and off[q] = i_q m 8 is the byte offset of
// row i_q. A column is done in passes of 32 entries of its row (8
// accumulators; the last pass 16 plain and a masked rest, or up to 16
// masked), the Jp values read in place through perm. Lengths and offsets
// are checked or constructed by the caller.
TEXT ·forceAVX(SB), NOSPLIT, $0-184
	MOVQ ft_base+0(FP), DI
	MOVQ wpT_base+24(FP), SI
	MOVQ va_base+48(FP), DX
	MOVQ vb_base+72(FP), R8
	MOVQ perm_base+96(FP), R9
	MOVQ off_base+120(FP), R10
	MOVQ ptr_base+144(FP), R11
	MOVQ ptr_len+152(FP), R12
	DECQ R12
	JLE fdone
	XORQ R13, R13

fpass:
	MOVQ m+168(FP), AX
	SUBQ R13, AX
	JLE fnext
	CMPQ AX, $32
	JGE f32
	CMPQ AX, $16
	JG f16m0
	// r <= 16: masks from entry 16 - r
	NEGQ AX
	ADDQ $16, AX
	JMP fm
f16m0:
	// 16 < r < 32: masks for r - 16 lanes from entry 32 - r
	NEGQ AX
	ADDQ $32, AX
	JMP f16m

f32:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	MOVQ (R11), R14
	MOVQ 8(R11), CX
	CMPQ R14, CX
	JGE f32st
f32q:
	MOVQ (R9)(R14*8), AX
	VBROADCASTSD (DX)(AX*8), Y8
	VBROADCASTSD (R8)(AX*8), Y9
	MOVQ (R10)(R14*8), BX
	ADDQ SI, BX
	LEAQ (BX)(R13*8), BX
	VFMADD231PD 0(BX), Y8, Y0
	VFMADD231PD 32(BX), Y8, Y1
	VFMADD231PD 64(BX), Y8, Y2
	VFMADD231PD 96(BX), Y8, Y3
	VFMADD231PD 128(BX), Y8, Y4
	VFMADD231PD 160(BX), Y8, Y5
	VFMADD231PD 192(BX), Y8, Y6
	VFMADD231PD 224(BX), Y8, Y7
	ADDQ phOff+176(FP), BX
	VFMADD231PD 0(BX), Y9, Y0
	VFMADD231PD 32(BX), Y9, Y1
	VFMADD231PD 64(BX), Y9, Y2
	VFMADD231PD 96(BX), Y9, Y3
	VFMADD231PD 128(BX), Y9, Y4
	VFMADD231PD 160(BX), Y9, Y5
	VFMADD231PD 192(BX), Y9, Y6
	VFMADD231PD 224(BX), Y9, Y7
	INCQ R14
	CMPQ R14, CX
	JL f32q
f32st:
	LEAQ (DI)(R13*8), BX
	VMOVUPD Y0, 0(BX)
	VMOVUPD Y1, 32(BX)
	VMOVUPD Y2, 64(BX)
	VMOVUPD Y3, 96(BX)
	VMOVUPD Y4, 128(BX)
	VMOVUPD Y5, 160(BX)
	VMOVUPD Y6, 192(BX)
	VMOVUPD Y7, 224(BX)
	ADDQ $32, R13
	JMP fpass
f16m:
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
	MOVQ (R11), R14
	MOVQ 8(R11), CX
	CMPQ R14, CX
	JGE f16mst
f16mq:
	MOVQ (R9)(R14*8), AX
	VBROADCASTSD (DX)(AX*8), Y8
	VBROADCASTSD (R8)(AX*8), Y9
	MOVQ (R10)(R14*8), BX
	ADDQ SI, BX
	LEAQ (BX)(R13*8), BX
	VFMADD231PD 0(BX), Y8, Y0
	VFMADD231PD 32(BX), Y8, Y1
	VFMADD231PD 64(BX), Y8, Y2
	VFMADD231PD 96(BX), Y8, Y3
	VMASKMOVPD 128(BX), Y10, Y14
	VFMADD231PD Y14, Y8, Y4
	VMASKMOVPD 160(BX), Y11, Y14
	VFMADD231PD Y14, Y8, Y5
	VMASKMOVPD 192(BX), Y12, Y14
	VFMADD231PD Y14, Y8, Y6
	VMASKMOVPD 224(BX), Y13, Y14
	VFMADD231PD Y14, Y8, Y7
	ADDQ phOff+176(FP), BX
	VFMADD231PD 0(BX), Y9, Y0
	VFMADD231PD 32(BX), Y9, Y1
	VFMADD231PD 64(BX), Y9, Y2
	VFMADD231PD 96(BX), Y9, Y3
	VMASKMOVPD 128(BX), Y10, Y14
	VFMADD231PD Y14, Y9, Y4
	VMASKMOVPD 160(BX), Y11, Y14
	VFMADD231PD Y14, Y9, Y5
	VMASKMOVPD 192(BX), Y12, Y14
	VFMADD231PD Y14, Y9, Y6
	VMASKMOVPD 224(BX), Y13, Y14
	VFMADD231PD Y14, Y9, Y7
	INCQ R14
	CMPQ R14, CX
	JL f16mq
f16mst:
	LEAQ (DI)(R13*8), BX
	VMOVUPD Y0, 0(BX)
	VMOVUPD Y1, 32(BX)
	VMOVUPD Y2, 64(BX)
	VMOVUPD Y3, 96(BX)
	VMASKMOVPD Y4, Y10, 128(BX)
	VMASKMOVPD Y5, Y11, 160(BX)
	VMASKMOVPD Y6, Y12, 192(BX)
	VMASKMOVPD Y7, Y13, 224(BX)
	ADDQ $32, R13
	JMP fpass
fm:
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
	MOVQ (R11), R14
	MOVQ 8(R11), CX
	CMPQ R14, CX
	JGE fmst
fmq:
	MOVQ (R9)(R14*8), AX
	VBROADCASTSD (DX)(AX*8), Y8
	VBROADCASTSD (R8)(AX*8), Y9
	MOVQ (R10)(R14*8), BX
	ADDQ SI, BX
	LEAQ (BX)(R13*8), BX
	VMASKMOVPD 0(BX), Y10, Y14
	VFMADD231PD Y14, Y8, Y0
	VMASKMOVPD 32(BX), Y11, Y14
	VFMADD231PD Y14, Y8, Y1
	VMASKMOVPD 64(BX), Y12, Y14
	VFMADD231PD Y14, Y8, Y2
	VMASKMOVPD 96(BX), Y13, Y14
	VFMADD231PD Y14, Y8, Y3
	ADDQ phOff+176(FP), BX
	VMASKMOVPD 0(BX), Y10, Y14
	VFMADD231PD Y14, Y9, Y0
	VMASKMOVPD 32(BX), Y11, Y14
	VFMADD231PD Y14, Y9, Y1
	VMASKMOVPD 64(BX), Y12, Y14
	VFMADD231PD Y14, Y9, Y2
	VMASKMOVPD 96(BX), Y13, Y14
	VFMADD231PD Y14, Y9, Y3
	INCQ R14
	CMPQ R14, CX
	JL fmq
fmst:
	LEAQ (DI)(R13*8), BX
	VMASKMOVPD Y0, Y10, 0(BX)
	VMASKMOVPD Y1, Y11, 32(BX)
	VMASKMOVPD Y2, Y12, 64(BX)
	VMASKMOVPD Y3, Y13, 96(BX)
	ADDQ $16, R13
	JMP fpass

fnext:
	XORQ R13, R13
	ADDQ $8, R11
	MOVQ m+168(FP), AX
	LEAQ (DI)(AX*8), DI
	DECQ R12
	JNZ fpass

fdone:
	VZEROUPPER
	RET

// func addTransAVX(dst, ft []float64, nx, ns int)
//
// dst[r*ns+c] += ft[c*nx+r] for r < nx&^3, c < ns&^3: the transposed add
// of the forcing in 4 x 4 blocks (four rows of ft, transposed in
// registers, added to four rows of dst). The caller does the edges and
// checks the lengths.
TEXT ·addTransAVX(SB), NOSPLIT, $0-64
	MOVQ dst_base+0(FP), DI
	MOVQ ft_base+24(FP), SI
	MOVQ nx+48(FP), R10
	MOVQ ns+56(FP), R11
	MOVQ R10, R8
	SHRQ $2, R8
	MOVQ R11, R9
	SHRQ $2, R9
	SHLQ $3, R10
	SHLQ $3, R11
	TESTQ R8, R8
	JE atdone
	TESTQ R9, R9
	JE atdone
	XORQ R13, R13

atc:
	MOVQ R13, CX
	IMULQ R10, CX
	ADDQ SI, CX
	LEAQ (DI)(R13*8), BX
	MOVQ R8, R12

atr:
	VMOVUPD (CX), Y0
	VMOVUPD (CX)(R10*1), Y1
	LEAQ (CX)(R10*2), AX
	VMOVUPD (AX), Y2
	VMOVUPD (AX)(R10*1), Y3
	VUNPCKLPD Y1, Y0, Y4
	VUNPCKHPD Y1, Y0, Y5
	VUNPCKLPD Y3, Y2, Y6
	VUNPCKHPD Y3, Y2, Y7
	VPERM2F128 $0x20, Y6, Y4, Y0
	VPERM2F128 $0x20, Y7, Y5, Y1
	VPERM2F128 $0x31, Y6, Y4, Y2
	VPERM2F128 $0x31, Y7, Y5, Y3
	VADDPD (BX), Y0, Y0
	VMOVUPD Y0, (BX)
	VADDPD (BX)(R11*1), Y1, Y1
	VMOVUPD Y1, (BX)(R11*1)
	LEAQ (BX)(R11*2), AX
	VADDPD (AX), Y2, Y2
	VMOVUPD Y2, (AX)
	VADDPD (AX)(R11*1), Y3, Y3
	VMOVUPD Y3, (AX)(R11*1)
	ADDQ $32, CX
	LEAQ (BX)(R11*4), BX
	DECQ R12
	JNZ atr
	ADDQ $4, R13
	DECQ R9
	JNZ atc

atdone:
	VZEROUPPER
	RET
