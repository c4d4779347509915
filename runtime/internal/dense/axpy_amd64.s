//go:build !purego

#include "textflag.h"

// func axpyAVX(y, x []float64, a float64)
//
// y[i] += a x[i] for i < len(y) (len(x) >= len(y), checked by the caller):
// blocks of 16 in four YMM registers, then of 4, then single entries.
TEXT ·axpyAVX(SB), NOSPLIT, $0-56
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	VBROADCASTSD a+48(FP), Y0
	XORQ AX, AX

a16:
	MOVQ CX, DX
	SUBQ AX, DX
	CMPQ DX, $16
	JLT a4
	VMOVUPD 0(SI)(AX*8), Y1
	VMOVUPD 32(SI)(AX*8), Y2
	VMOVUPD 64(SI)(AX*8), Y3
	VMOVUPD 96(SI)(AX*8), Y4
	VFMADD213PD 0(DI)(AX*8), Y0, Y1
	VFMADD213PD 32(DI)(AX*8), Y0, Y2
	VFMADD213PD 64(DI)(AX*8), Y0, Y3
	VFMADD213PD 96(DI)(AX*8), Y0, Y4
	VMOVUPD Y1, 0(DI)(AX*8)
	VMOVUPD Y2, 32(DI)(AX*8)
	VMOVUPD Y3, 64(DI)(AX*8)
	VMOVUPD Y4, 96(DI)(AX*8)
	ADDQ $16, AX
	JMP a16

a4:
	CMPQ DX, $4
	JLT a1
	VMOVUPD 0(SI)(AX*8), Y1
	VFMADD213PD 0(DI)(AX*8), Y0, Y1
	VMOVUPD Y1, 0(DI)(AX*8)
	ADDQ $4, AX
	SUBQ $4, DX
	JMP a4

a1:
	CMPQ DX, $0
	JEQ adone
	VMOVSD 0(SI)(AX*8), X1
	VFMADD213SD 0(DI)(AX*8), X0, X1
	VMOVSD X1, 0(DI)(AX*8)
	INCQ AX
	DECQ DX
	JMP a1

adone:
	VZEROUPPER
	RET
