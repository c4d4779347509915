package objective

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbgen/pbgen/internal/scalenet"
	"github.com/pbgen/pbgen/runtime/internal/dense"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sparse"
)

// The conservation laws of a scalenet chain (one per enzyme, one for the
// substrate: the network's own Conservation) are found, and the
// projector L^T L that bordered and solveSens use gives what the k
// rank-one terms they summed before gave: the same bordered matrix to
// rounding, the same Newton step and the same right-hand side of the S
// solve to 1e-12.
func TestProjectorBordering(t *testing.T) {
	net := scalenet.New(scalenet.Chain, 48)
	nx, np := model.NumStates(net), model.NumParams(net)
	p := make([]float64, np)
	net.DefaultParams(p)
	l := conservation(net, p)
	if k := len(l) / nx; k != len(net.Conservation()) {
		t.Fatalf("%d laws, the network has %d", k, len(net.Conservation()))
	}
	proj := projector(l, nx)
	// Each of the network's laws w is in the span: P w = w.
	for _, w := range net.Conservation() {
		pw := make([]float64, nx)
		dense.MulAdd(pw, proj, w, nx, nx, 1, 1, 0)
		for i := range w {
			if math.Abs(pw[i]-w[i]) > 1e-12 {
				t.Fatalf("law %v not in the span: P w = %v", w, pw)
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, nx)
	for i := range x {
		x[i] = 0.1 + rng.Float64()
	}
	jx := make([]float64, net.JxPattern().NNZ())
	net.Jx(jx, 0, x, p)
	const sc = 7.5
	// Before: Jx plus sc l_r l_r^T, law by law.
	ref := make([]float64, nx*nx)
	sparse.CSR{Pat: net.JxPattern(), Val: jx}.ScatterTo(ref)
	for r := 0; r+nx <= len(l); r += nx {
		lr := l[r : r+nx]
		for i, li := range lr {
			for j, lj := range lr {
				ref[i*nx+j] += sc * li * lj
			}
		}
	}
	got := make([]float64, nx*nx)
	sparse.CSR{Pat: net.JxPattern(), Val: jx}.ScatterTo(got)
	addProjector(got, proj, sc)
	big := 0.0
	for _, v := range ref {
		big = math.Max(big, math.Abs(v))
	}
	for i := range ref {
		if math.Abs(got[i]-ref[i]) > 1e-14*big {
			t.Fatalf("A[%d] = %g, the rank-one sum gives %g", i, got[i], ref[i])
		}
	}
	// The Newton step A dx = f.
	f := make([]float64, nx)
	net.F(f, 0, x, p)
	dxRef, dxGot := append([]float64(nil), f...), append([]float64(nil), f...)
	piv := make([]int, nx)
	if !dense.Factor(ref, nx, piv) {
		t.Fatal("reference A singular")
	}
	dense.Solve(ref, nx, piv, dxRef)
	if !dense.Factor(got, nx, piv) {
		t.Fatal("A singular")
	}
	dense.Solve(got, nx, piv, dxGot)
	for i := range dxRef {
		if math.Abs(dxGot[i]-dxRef[i]) > 1e-12*math.Max(1, math.Abs(dxRef[i])) {
			t.Errorf("dx[%d] = %g, with the rank-one sum %g", i, dxGot[i], dxRef[i])
		}
	}
	// The S solve's right-hand side s L^T (L S0).
	const nc = 5
	s0 := make([]float64, nx*nc)
	for i := range s0 {
		s0[i] = rng.NormFloat64()
	}
	rhsRef, rhsGot := make([]float64, nx*nc), make([]float64, nx*nc)
	for r := 0; r+nx <= len(l); r += nx {
		lr := l[r : r+nx]
		ls := make([]float64, nc)
		for i, li := range lr {
			for c := range nc {
				ls[c] += li * s0[i*nc+c]
			}
		}
		for i, li := range lr {
			for c := range nc {
				rhsRef[i*nc+c] += sc * li * ls[c]
			}
		}
	}
	dense.MulAdd(rhsGot, proj, s0, nx, nx, nc, sc, 1)
	for i := range rhsRef {
		if math.Abs(rhsGot[i]-rhsRef[i]) > 1e-12*math.Max(1, math.Abs(rhsRef[i])) {
			t.Errorf("rhs[%d] = %g, with the rank-one sums %g", i, rhsGot[i], rhsRef[i])
		}
	}
}
