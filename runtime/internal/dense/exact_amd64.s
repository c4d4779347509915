//go:build !purego

#include "textflag.h"

// func axpyExactAVX(y, x []float64, a float64)
//
// y[i] += a x[i] for i < len(y) (len(x) >= len(y), checked by the
// caller), the product and the sum rounded separately (VMULPD, VADDPD) as
// in the Go loop: four entries per instruction, then single entries.
TEXT ·axpyExactAVX(SB), NOSPLIT, $0-56
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	VBROADCASTSD a+48(FP), Y0
	XORQ AX, AX

x4:
	LEAQ 4(AX), DX
	CMPQ DX, CX
	JGT x1
	VMULPD (SI)(AX*8), Y0, Y1
	VADDPD (DI)(AX*8), Y1, Y1
	VMOVUPD Y1, (DI)(AX*8)
	MOVQ DX, AX
	JMP x4

x1:
	CMPQ AX, CX
	JGE xdone
	VMULSD (SI)(AX*8), X0, X1
	VADDSD (DI)(AX*8), X1, X1
	VMOVSD X1, (DI)(AX*8)
	INCQ AX
	JMP x1

xdone:
	VZEROUPPER
	RET

// func ewtAVX(ewt, z, atol []float64, rtol float64)
//
// ewt[i] = 1 / (rtol |z[i]| + atol[i]) for i < len(ewt) (z and atol at
// least as long, checked by the caller), each operation rounded as in the
// Go loop: four entries per instruction, then single entries.
TEXT ·ewtAVX(SB), NOSPLIT, $0-80
	MOVQ ewt_base+0(FP), DI
	MOVQ ewt_len+8(FP), CX
	MOVQ z_base+24(FP), SI
	MOVQ atol_base+48(FP), BX
	VBROADCASTSD rtol+72(FP), Y0
	MOVQ $0x7fffffffffffffff, AX
	MOVQ AX, X3
	VBROADCASTSD X3, Y3     // the sign mask of |.|
	MOVQ $0x3ff0000000000000, AX
	MOVQ AX, X4
	VBROADCASTSD X4, Y4     // 1
	XORQ AX, AX

w4:
	LEAQ 4(AX), DX
	CMPQ DX, CX
	JGT w1
	VANDPD (SI)(AX*8), Y3, Y1
	VMULPD Y1, Y0, Y1
	VADDPD (BX)(AX*8), Y1, Y1
	VDIVPD Y1, Y4, Y1
	VMOVUPD Y1, (DI)(AX*8)
	MOVQ DX, AX
	JMP w4

w1:
	CMPQ AX, CX
	JGE wdone
	VMOVSD (SI)(AX*8), X1
	VANDPD X3, X1, X1
	VMULSD X1, X0, X1
	VADDSD (BX)(AX*8), X1, X1
	VDIVSD X1, X4, X1
	VMOVSD X1, (DI)(AX*8)
	INCQ AX
	JMP w1

wdone:
	VZEROUPPER
	RET

// func residualAVX(b, f, z1, acor []float64, gamma, rl1 float64)
//
// b[i] = gamma f[i] - (rl1 z1[i] + acor[i]) for i < len(b) (the others at
// least as long, checked by the caller), each operation rounded as in the
// Go loop: four entries per instruction, then single entries.
TEXT ·residualAVX(SB), NOSPLIT, $0-112
	MOVQ b_base+0(FP), DI
	MOVQ b_len+8(FP), CX
	MOVQ f_base+24(FP), SI
	MOVQ z1_base+48(FP), BX
	MOVQ acor_base+72(FP), DX
	VBROADCASTSD gamma+96(FP), Y0
	VBROADCASTSD rl1+104(FP), Y1
	XORQ AX, AX

r4:
	LEAQ 4(AX), R8
	CMPQ R8, CX
	JGT r1
	VMULPD (SI)(AX*8), Y0, Y2   // g f
	VMULPD (BX)(AX*8), Y1, Y3   // rl1 z1
	VADDPD (DX)(AX*8), Y3, Y3   // + acor
	VSUBPD Y3, Y2, Y2
	VMOVUPD Y2, (DI)(AX*8)
	MOVQ R8, AX
	JMP r4

r1:
	CMPQ AX, CX
	JGE rdone
	VMULSD (SI)(AX*8), X0, X2
	VMULSD (BX)(AX*8), X1, X3
	VADDSD (DX)(AX*8), X3, X3
	VSUBSD X3, X2, X2
	VMOVSD X2, (DI)(AX*8)
	INCQ AX
	JMP r1

rdone:
	VZEROUPPER
	RET

// func updateAVX(acor, y, z0, b []float64)
//
// acor[i] += b[i]; y[i] = z0[i] + acor[i] for i < len(acor) (the others
// at least as long, checked by the caller), rounded as in the Go loop.
TEXT ·updateAVX(SB), NOSPLIT, $0-96
	MOVQ acor_base+0(FP), DI
	MOVQ acor_len+8(FP), CX
	MOVQ y_base+24(FP), SI
	MOVQ z0_base+48(FP), BX
	MOVQ b_base+72(FP), DX
	XORQ AX, AX

u4:
	LEAQ 4(AX), R8
	CMPQ R8, CX
	JGT u1
	VMOVUPD (DI)(AX*8), Y0
	VADDPD (DX)(AX*8), Y0, Y0   // acor + b
	VMOVUPD Y0, (DI)(AX*8)
	VADDPD (BX)(AX*8), Y0, Y1   // acor + z0
	VMOVUPD Y1, (SI)(AX*8)
	MOVQ R8, AX
	JMP u4

u1:
	CMPQ AX, CX
	JGE udone
	VMOVSD (DI)(AX*8), X0
	VADDSD (DX)(AX*8), X0, X0
	VMOVSD X0, (DI)(AX*8)
	VADDSD (BX)(AX*8), X0, X1
	VMOVSD X1, (SI)(AX*8)
	INCQ AX
	JMP u1

udone:
	VZEROUPPER
	RET
