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

// func gemmAVX(dst, a, b []float64, n, k, m, lda, ldb, ldc int, alpha float64)
//
// dst[i*ldc+j] += alpha sum_l a[i*lda+l] b[l*ldb+j] for row-major dst
// (n x m), a (n x k), b (k x m) with row strides lda, ldb, ldc; k >= 1,
// lengths checked by the caller. Each row of dst is done in column blocks
// of 32 (8 accumulators), 16 (4) and a masked block of the last 1..15
// columns; a block keeps its accumulators in registers over the whole k
// loop.
TEXT ·gemmAVX(SB), NOSPLIT, $0-128
	MOVQ dst_base+0(FP), DI
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	MOVQ n+72(FP), R8
	MOVQ k+80(FP), R9
	MOVQ m+88(FP), R10
	MOVQ ldb+104(FP), R11
	SHLQ $3, R11
	MOVQ ldc+112(FP), R12
	SHLQ $3, R12
	VBROADCASTSD alpha+120(FP), Y15

rowloop:
	TESTQ R8, R8
	JE done
	XORQ R13, R13

colloop:
	MOVQ R10, AX
	SUBQ R13, AX
	JLE rownext
	CMPQ AX, $32
	JL try16
	// 32 columns: 8 accumulators
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	LEAQ (DX)(R13*8), BX
	MOVQ SI, CX
	MOVQ R9, R14
b32k:
	VBROADCASTSD (CX), Y8
	VFMADD231PD 0(BX), Y8, Y0
	VFMADD231PD 32(BX), Y8, Y1
	VFMADD231PD 64(BX), Y8, Y2
	VFMADD231PD 96(BX), Y8, Y3
	VFMADD231PD 128(BX), Y8, Y4
	VFMADD231PD 160(BX), Y8, Y5
	VFMADD231PD 192(BX), Y8, Y6
	VFMADD231PD 224(BX), Y8, Y7
	ADDQ $8, CX
	ADDQ R11, BX
	DECQ R14
	JNZ b32k
	LEAQ (DI)(R13*8), BX
	VMOVUPD 0(BX), Y9
	VFMADD231PD Y0, Y15, Y9
	VMOVUPD Y9, 0(BX)
	VMOVUPD 32(BX), Y9
	VFMADD231PD Y1, Y15, Y9
	VMOVUPD Y9, 32(BX)
	VMOVUPD 64(BX), Y9
	VFMADD231PD Y2, Y15, Y9
	VMOVUPD Y9, 64(BX)
	VMOVUPD 96(BX), Y9
	VFMADD231PD Y3, Y15, Y9
	VMOVUPD Y9, 96(BX)
	VMOVUPD 128(BX), Y9
	VFMADD231PD Y4, Y15, Y9
	VMOVUPD Y9, 128(BX)
	VMOVUPD 160(BX), Y9
	VFMADD231PD Y5, Y15, Y9
	VMOVUPD Y9, 160(BX)
	VMOVUPD 192(BX), Y9
	VFMADD231PD Y6, Y15, Y9
	VMOVUPD Y9, 192(BX)
	VMOVUPD 224(BX), Y9
	VFMADD231PD Y7, Y15, Y9
	VMOVUPD Y9, 224(BX)
	ADDQ $32, R13
	JMP colloop

try16:
	CMPQ AX, $16
	JL tail
	// 16 columns: 4 accumulators
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	LEAQ (DX)(R13*8), BX
	MOVQ SI, CX
	MOVQ R9, R14
b16k:
	VBROADCASTSD (CX), Y8
	VFMADD231PD 0(BX), Y8, Y0
	VFMADD231PD 32(BX), Y8, Y1
	VFMADD231PD 64(BX), Y8, Y2
	VFMADD231PD 96(BX), Y8, Y3
	ADDQ $8, CX
	ADDQ R11, BX
	DECQ R14
	JNZ b16k
	LEAQ (DI)(R13*8), BX
	VMOVUPD 0(BX), Y9
	VFMADD231PD Y0, Y15, Y9
	VMOVUPD Y9, 0(BX)
	VMOVUPD 32(BX), Y9
	VFMADD231PD Y1, Y15, Y9
	VMOVUPD Y9, 32(BX)
	VMOVUPD 64(BX), Y9
	VFMADD231PD Y2, Y15, Y9
	VMOVUPD Y9, 64(BX)
	VMOVUPD 96(BX), Y9
	VFMADD231PD Y3, Y15, Y9
	VMOVUPD Y9, 96(BX)
	ADDQ $16, R13
	JMP colloop

tail:
	// 1..15 columns: masked loads and stores (masked lanes never fault)
	LEAQ gemmMask<>(SB), BX
	MOVQ $16, CX
	SUBQ AX, CX
	LEAQ (BX)(CX*8), BX
	VMOVUPD 0(BX), Y10
	VMOVUPD 32(BX), Y11
	VMOVUPD 64(BX), Y12
	VMOVUPD 96(BX), Y13
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	LEAQ (DX)(R13*8), BX
	MOVQ SI, CX
	MOVQ R9, R14
tailk:
	VBROADCASTSD (CX), Y8
	VMASKMOVPD 0(BX), Y10, Y9
	VFMADD231PD Y9, Y8, Y0
	VMASKMOVPD 32(BX), Y11, Y9
	VFMADD231PD Y9, Y8, Y1
	VMASKMOVPD 64(BX), Y12, Y9
	VFMADD231PD Y9, Y8, Y2
	VMASKMOVPD 96(BX), Y13, Y9
	VFMADD231PD Y9, Y8, Y3
	ADDQ $8, CX
	ADDQ R11, BX
	DECQ R14
	JNZ tailk
	LEAQ (DI)(R13*8), BX
	VMASKMOVPD 0(BX), Y10, Y9
	VFMADD231PD Y0, Y15, Y9
	VMASKMOVPD Y9, Y10, 0(BX)
	VMASKMOVPD 32(BX), Y11, Y9
	VFMADD231PD Y1, Y15, Y9
	VMASKMOVPD Y9, Y11, 32(BX)
	VMASKMOVPD 64(BX), Y12, Y9
	VFMADD231PD Y2, Y15, Y9
	VMASKMOVPD Y9, Y12, 64(BX)
	VMASKMOVPD 96(BX), Y13, Y9
	VFMADD231PD Y3, Y15, Y9
	VMASKMOVPD Y9, Y13, 96(BX)
	JMP rownext

rownext:
	MOVQ lda+96(FP), AX
	LEAQ (SI)(AX*8), SI
	ADDQ R12, DI
	DECQ R8
	JMP rowloop

done:
	VZEROUPPER
	RET

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

