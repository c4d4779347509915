package sparse

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pbgen/pbgen/runtime/model"
)

// randomCSR returns an r x c matrix with about a third of its entries
// stored, some of them zero (a structural entry that vanishes), and its
// dense row-major copy.
func randomCSR(rng *rand.Rand, r, c int) (CSR, []float64) {
	p := &model.Pattern{Rows: r, Cols: c, RowPtr: make([]int, r+1)}
	var v []float64
	d := make([]float64, r*c)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if rng.IntN(3) == 0 {
				x := rng.NormFloat64()
				if rng.IntN(5) == 0 {
					x = 0
				}
				p.ColIdx = append(p.ColIdx, j)
				v = append(v, x)
				d[i*c+j] = x
			}
		}
		p.RowPtr[i+1] = len(p.ColIdx)
	}
	if err := p.Validate(); err != nil {
		panic(err)
	}
	return CSR{Pat: p, Val: v}, d
}

func randVector(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

func near(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
			t.Fatalf("%s: entry %d is %v, want %v", what, i, got[i], want[i])
		}
	}
}

// denseMul returns Y0 + op(A) X for the dense row-major A (r x c) and X
// with k columns.
func denseMul(a []float64, r, c int, trans bool, x, y0 []float64, k int) []float64 {
	y := append([]float64(nil), y0...)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			for l := 0; l < k; l++ {
				if trans {
					y[j*k+l] += a[i*c+j] * x[i*k+l]
				} else {
					y[i*k+l] += a[i*c+j] * x[j*k+l]
				}
			}
		}
	}
	return y
}

func TestProducts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][2]int{{0, 0}, {1, 1}, {7, 5}, {5, 7}, {21, 21}} {
		r, c := sz[0], sz[1]
		a, d := randomCSR(rng, r, c)
		for _, k := range []int{1, 3, 4, 6, 7, 9} {
			x, xt := randVector(rng, c*k), randVector(rng, r*k)
			y0, yt0 := randVector(rng, r*k), randVector(rng, c*k)
			y := append([]float64(nil), y0...)
			a.MulAddBlockTo(y, x, k)
			near(t, "Y += A X", y, denseMul(d, r, c, false, x, y0, k))
			a.MulBlockTo(y, x, k)
			near(t, "Y = A X", y, denseMul(d, r, c, false, x, make([]float64, r*k), k))
			yt := append([]float64(nil), yt0...)
			a.MulTransAddBlockTo(yt, xt, k)
			near(t, "Y += A^T X", yt, denseMul(d, r, c, true, xt, yt0, k))
			if k == 1 {
				y = append(y[:0], y0...)
				a.MulVecTo(y, x)
				near(t, "y += A x", y, denseMul(d, r, c, false, x, y0, 1))
				yt = append(yt[:0], yt0...)
				a.MulVecTransTo(yt, xt)
				near(t, "y += A^T x", yt, denseMul(d, r, c, true, xt, yt0, 1))
			}
		}
		// Y += X A for X m x r: (A^T X^T)^T.
		const m = 3
		x := randVector(rng, m*r)
		y0 := randVector(rng, m*c)
		y := append([]float64(nil), y0...)
		a.LeftMulAddTo(y, x, m)
		want := append([]float64(nil), y0...)
		for l := 0; l < m; l++ {
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					want[l*c+j] += x[l*r+i] * d[i*c+j]
				}
			}
		}
		near(t, "Y += X A", y, want)
	}
}

func TestScatters(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a, d := randomCSR(rng, 6, 9)
	got := randVector(rng, 6*9)
	a.ScatterTo(got)
	near(t, "ScatterTo", got, d)
	cm := randVector(rng, 6*9)
	a.ScatterColMajorTo(cm)
	for i := 0; i < 6; i++ {
		for j := 0; j < 9; j++ {
			if cm[j*6+i] != d[i*9+j] {
				t.Fatalf("ScatterColMajorTo (%d,%d) = %v, want %v", i, j, cm[j*6+i], d[i*9+j])
			}
		}
	}
	base := randVector(rng, 6*9)
	nz := append([]float64(nil), base...)
	a.ScatterNZTo(nz, 2)
	add := append([]float64(nil), base...)
	a.AddTo(add, -0.5)
	for i := 0; i < 6; i++ {
		for j := 0; j < 9; j++ {
			stored := false
			for k := a.Pat.RowPtr[i]; k < a.Pat.RowPtr[i+1]; k++ {
				stored = stored || a.Pat.ColIdx[k] == j
			}
			wantNZ, wantAdd := base[i*9+j], base[i*9+j]
			if stored {
				wantNZ, wantAdd = 2*d[i*9+j], base[i*9+j]-0.5*d[i*9+j]
			}
			if nz[i*9+j] != wantNZ || add[i*9+j] != wantAdd {
				t.Fatalf("(%d,%d): ScatterNZTo %v want %v, AddTo %v want %v", i, j, nz[i*9+j], wantNZ, add[i*9+j], wantAdd)
			}
		}
	}
	for k := 0; k < a.Pat.NNZ(); k++ {
		i := RowOf(a.Pat, k)
		if k < a.Pat.RowPtr[i] || k >= a.Pat.RowPtr[i+1] {
			t.Fatalf("RowOf(%d) = %d, whose entries are [%d, %d)", k, i, a.Pat.RowPtr[i], a.Pat.RowPtr[i+1])
		}
	}
}

func TestNorms(t *testing.T) {
	// [[1 -2 0] [0 3 0] [-4 0 0.5]]: row sums 3, 3, 4.5; column sums 5,
	// 5, 0.5; Frobenius sqrt(30.25); log-norm rows 1+2, 3, 0.5+4.
	p := &model.Pattern{Rows: 3, Cols: 3, RowPtr: []int{0, 2, 3, 5}, ColIdx: []int{0, 1, 1, 0, 2}}
	a := CSR{Pat: p, Val: []float64{1, -2, 3, -4, 0.5}}
	work, work5 := make([]float64, 3), make([]float64, 5)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"NormInf", a.NormInf(), 4.5},
		{"Norm1", a.Norm1(work), 5},
		{"NormFro", a.NormFro(), math.Sqrt(30.25)},
		{"LogNormInf", a.LogNormInf(), 4.5},
		{"DistInf", a.DistInf([]float64{1, -2, 3, -4, 1.5}), 1},
		{"SubNormInf", a.SubNormInf(work5, []float64{0, -2, 3, -4, 1.5}), 1},
	} {
		if math.Abs(c.got-c.want) > 1e-15 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if want := []float64{1, 0, 0, 0, -1}; !slicesEqual(work5, want) {
		t.Errorf("SubNormInf wrote %v, want %v", work5, want)
	}
	// The spectral norm of diag(3, -5) padded to a pattern is 5.
	d := CSR{Pat: &model.Pattern{Rows: 2, Cols: 2, RowPtr: []int{0, 1, 2}, ColIdx: []int{0, 1}}, Val: []float64{3, -5}}
	if got := d.Norm2(make([]float64, 2), make([]float64, 2)); math.Abs(got-5) > 1e-2 {
		t.Errorf("Norm2 = %v, want 5", got)
	}
	a.Val[4] = math.NaN()
	if n := a.NormInf(); !math.IsNaN(n) {
		t.Errorf("NormInf with a NaN entry = %v, want NaN", n)
	}
}

func TestSelectAndTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	a, d := randomCSR(rng, 8, 6)
	cols := []int{4, 1, 5}
	sel := &model.Pattern{}
	from := SelectCols(sel, nil, a.Pat, cols)
	sv := make([]float64, len(from))
	Gather(sv, a.Val, from)
	got := make([]float64, 8*len(cols))
	CSR{Pat: sel, Val: sv}.ScatterTo(got)
	for i := 0; i < 8; i++ {
		for c, j := range cols {
			if got[i*len(cols)+c] != d[i*6+j] {
				t.Fatalf("selected (%d,%d) = %v, want column %d's %v", i, c, got[i*len(cols)+c], j, d[i*6+j])
			}
		}
	}
	tp, tf := Transpose(a.Pat)
	if err := tp.Validate(); err != nil {
		t.Fatal(err)
	}
	tv := make([]float64, len(tf))
	Gather(tv, a.Val, tf)
	gt := make([]float64, 6*8)
	CSR{Pat: tp, Val: tv}.ScatterTo(gt)
	for i := 0; i < 8; i++ {
		for j := 0; j < 6; j++ {
			if gt[j*8+i] != d[i*6+j] {
				t.Fatalf("transpose (%d,%d) = %v, want %v", j, i, gt[j*8+i], d[i*6+j])
			}
		}
	}
}

func TestProductsAllocateNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	a, _ := randomCSR(rng, 21, 21)
	sel := &model.Pattern{ColIdx: make([]int, 0, a.Pat.NNZ())}
	from := make([]int, a.Pat.NNZ())
	if n := testing.AllocsPerRun(10, func() {
		from = SelectCols(sel, from, a.Pat, []int{3, 1, 2})
	}); n != 0 {
		t.Errorf("%v allocations per reselection, want 0", n)
	}
	x, y := randVector(rng, 21*4), make([]float64, 21*4)
	if n := testing.AllocsPerRun(10, func() {
		a.MulBlockTo(y, x, 4)
		a.MulAddBlockTo(y, x, 3)
		_ = a.NormInf()
	}); n != 0 {
		t.Errorf("%v allocations per product, want 0", n)
	}
}

func slicesEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestShiftedProducts: the shifted products and norms against A - mu I formed
// densely, on a square matrix whose pattern lacks some diagonal entries.
func TestShiftedProducts(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n, mu = 9, 0.75
	a, d := randomCSR(rng, n, n)
	var tr float64
	for i := 0; i < n; i++ {
		tr += d[i*n+i]
		d[i*n+i] -= mu
	}
	if got := a.Trace(); math.Abs(got-tr) > 1e-14 {
		t.Errorf("Trace = %v, want %v", got, tr)
	}
	// k = 3 (the one-column tail alone), 4 (the four-column blocks
	// alone), 9 and 20 (both; 20 is runtime/sens's case).
	for _, k := range []int{3, 4, 9, 20} {
		x := randVector(rng, n*k)
		y := randVector(rng, n*k)
		a.MulShiftedBlockTo(y, x, k, mu)
		near(t, fmt.Sprintf("Y = (A - mu I) X, k = %d", k), y, denseMul(d, n, n, false, x, make([]float64, n*k), k))
	}
	var want float64
	for j := 0; j < n; j++ {
		var s float64
		for i := 0; i < n; i++ {
			s += math.Abs(d[i*n+j])
		}
		want = math.Max(want, s)
	}
	if got := a.Norm1Shifted(mu, make([]float64, n)); math.Abs(got-want) > 1e-13 {
		t.Errorf("Norm1Shifted = %v, want %v", got, want)
	}
}
