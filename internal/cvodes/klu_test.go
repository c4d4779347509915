//go:build cvodes

package cvodes

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/internal/scalenet"
	"github.com/pbgen/pbgen/runtime/model"
)

func TestWithDiagonal(t *testing.T) {
	// Row 0 lacks its diagonal (after col 2 would go first), row 1 has it,
	// row 2 is empty, row 3 has only entries left of the diagonal.
	p := &model.Pattern{Rows: 4, Cols: 4,
		RowPtr: []int{0, 1, 3, 3, 5},
		ColIdx: []int{2, 0, 1, 0, 2}}
	rowPtr, colIdx, pos := withDiagonal(p)
	wantPtr := []int64{0, 2, 4, 5, 8}
	wantIdx := []int64{0, 2, 0, 1, 2, 0, 2, 3}
	wantPos := []int{1, 2, 3, 5, 6}
	if fmt.Sprint(rowPtr) != fmt.Sprint(wantPtr) || fmt.Sprint(colIdx) != fmt.Sprint(wantIdx) || fmt.Sprint(pos) != fmt.Sprint(wantPos) {
		t.Errorf("withDiagonal = %v %v %v, want %v %v %v", rowPtr, colIdx, pos, wantPtr, wantIdx, wantPos)
	}
}

// TestKLUMatchesDense solves CaMKII and a scalenet chain with both linear
// solvers: the answers differ only by the Newton iterates' round-off and the
// steps it changes, so they agree to a small multiple of the tolerances.
func TestKLUMatchesDense(t *testing.T) {
	const rtol, atol = 1e-6, 1e-8
	for _, c := range []struct {
		name string
		m    model.Model
		tout []float64
	}{
		{"CaMKII", camkii.New(), linspace(0, 600, 61)},
		{"chain150", scalenet.New(scalenet.Chain, 150), linspace(0, 10, 11)},
	} {
		for _, errcon := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/errcon=%v", c.name, errcon), func(t *testing.T) {
				p := defaults(c.m)
				opt := Options{RTol: rtol, ATol: atol, Sens: true, ErrCon: errcon, MaxSteps: 100000}
				xd, Sd, std := solveAll(t, c.m, opt, p, c.tout)
				opt.Linear = KLU
				xk, Sk, stk := solveAll(t, c.m, opt, p, c.tout)
				if stk.LUs == 0 || stk.JacEvals == 0 {
					t.Errorf("KLU stats %+v: no setups or Jacobians", stk)
				}
				// The same method on the same model: the step counts may
				// differ a little through round-off, not by much.
				if math.Abs(float64(stk.Steps-std.Steps)) > 0.2*float64(std.Steps)+5 {
					t.Errorf("steps: KLU %d, dense %d", stk.Steps, std.Steps)
				}
				// S has no scale of its own: compare each column against its
				// largest entry over the run.
				nx, np := model.NumStates(c.m), model.NumParams(c.m)
				const k = 1 // tolerance multiple
				worst, worstS := 0.0, 0.0
				for i := range xd {
					d := math.Abs(xk[i]-xd[i]) / (rtol*math.Abs(xd[i]) + atol)
					worst = math.Max(worst, d)
					if !(d <= k) {
						t.Fatalf("x[%d]: KLU %v, dense %v (%.3g tolerances)", i, xk[i], xd[i], d)
					}
				}
				for j := 0; j < np; j++ {
					scale := 0.0
					for q := j; q < len(Sd); q += np {
						scale = math.Max(scale, math.Abs(Sd[q]))
					}
					for q := j; q < len(Sd); q += np {
						d := math.Abs(Sk[q]-Sd[q]) / (rtol*scale + atol)
						worstS = math.Max(worstS, d)
						if !(d <= k) {
							t.Fatalf("S[%d] (state %d, param %d): KLU %v, dense %v (%.3g tolerances)",
								q, (q/np)%nx, j, Sk[q], Sd[q], d)
						}
					}
				}
				t.Logf("steps KLU %d dense %d, worst difference in x %.3g, in S %.3g tolerances", stk.Steps, std.Steps, worst, worstS)
			})
		}
	}
}

func TestKLUSolveAllocs(t *testing.T) {
	m := scalenet.New(scalenet.Chain, 60)
	p := defaults(m)
	s, err := New(m, Options{Sens: true, Linear: KLU})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	nx, np := model.NumStates(m), model.NumParams(m)
	tout := linspace(0, 10, 11)
	x0 := make([]float64, nx)
	m.InitialState(x0, p)
	x, S := make([]float64, len(tout)*nx), make([]float64, len(tout)*nx*np)
	allocs := testing.AllocsPerRun(3, func() {
		if err := s.Solve(p, x0, 0, tout, x, S); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Solve with KLU allocates %v times per call", allocs)
	}
}

// TestParamsSubset: the columns of Options.Params, in their order, are
// those of the full solve's parameters (to the tolerance: the sensitivity
// corrector's convergence test sees other columns, so the steps may
// differ), with the initial sensitivities of those parameters.
func TestParamsSubset(t *testing.T) {
	const rtol, atol = 1e-6, 1e-8
	m := camkii.New()
	p := defaults(m)
	nx, np := model.NumStates(m), model.NumParams(m)
	tout := linspace(0, 600, 31)
	full := Options{RTol: rtol, ATol: atol, Sens: true, ErrCon: true}
	_, S, _ := solveAll(t, m, full, p, tout)
	params := []int{57, 0, 22, 5}
	sub := full
	sub.Params = params
	s, err := New(m, sub)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.NumSens() != len(params) {
		t.Fatalf("NumSens %d, want %d", s.NumSens(), len(params))
	}
	x0 := make([]float64, nx)
	m.InitialState(x0, p)
	ns := len(params)
	x, Ss := nanSlice(len(tout)*nx), nanSlice(len(tout)*nx*ns)
	if err := s.Solve(p, x0, 0, tout, x, Ss); err != nil {
		t.Fatal(err)
	}
	for k, j := range params {
		scale := 0.0
		for q := j; q < len(S); q += np {
			scale = math.Max(scale, math.Abs(S[q]))
		}
		for o := range tout {
			for i := 0; i < nx; i++ {
				got, want := Ss[o*nx*ns+i*ns+k], S[o*nx*np+i*np+j]
				if !(math.Abs(got-want) <= 10*(rtol*scale+atol)) {
					t.Fatalf("S(t=%g)[%d, param %d]: subset %v, full %v", tout[o], i, j, got, want)
				}
			}
		}
	}
	// The initial sensitivities are those of the chosen parameters: lin's
	// x1(0) = p3.
	lin := linModel{}
	sub = Options{RTol: rtol, ATol: atol, Sens: true, Params: []int{2, 0}}
	_, Sl, _ := solveAll(t, lin, sub, defaults(lin), []float64{0, 1})
	if Sl[0] != 1 || Sl[1] != 0 || Sl[2] != 0 || Sl[3] != 0 {
		t.Errorf("S(0) with Params {2, 0} = %v, want [1 0; 0 0]", Sl[:4])
	}
	for _, bad := range [][]int{{0, 0}, {-1}, {np}} {
		o := full
		o.Params = bad
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Params %v: no panic", bad)
				}
			}()
			s, err := New(m, o)
			if err == nil {
				s.Close()
			}
		}()
	}
}

func TestUnknownLinearPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "Linear(7)") {
			t.Errorf("recovered %v, want a panic naming Linear(7)", r)
		}
	}()
	s, err := New(linModel{}, Options{Linear: 7})
	if err == nil {
		s.Close()
	}
}
