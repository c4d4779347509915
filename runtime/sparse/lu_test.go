package sparse

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/pbgen/pbgen/runtime/internal/dense"
	"github.com/pbgen/pbgen/runtime/model"
)

// patternFrom builds a validated pattern from per-row column sets.
func patternFrom(t testing.TB, n int, rows [][]int) *model.Pattern {
	t.Helper()
	p := &model.Pattern{Rows: n, Cols: n, RowPtr: make([]int, n+1)}
	for i, r := range rows {
		r = slices.Clone(r)
		slices.Sort(r)
		r = slices.Compact(r)
		p.ColIdx = append(p.ColIdx, r...)
		p.RowPtr[i+1] = len(p.ColIdx)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

// randPattern returns an n x n pattern with about perRow random entries a
// row, plus the diagonal when diag is set.
func randPattern(t testing.TB, rng *rand.Rand, n, perRow int, diag bool) *model.Pattern {
	rows := make([][]int, n)
	for i := range rows {
		if diag {
			rows[i] = append(rows[i], i)
		}
		for k := 0; k < perRow; k++ {
			rows[i] = append(rows[i], rng.IntN(n))
		}
	}
	return patternFrom(t, n, rows)
}

// gridPattern is the 5-point stencil on an r x c grid, numbered by rows.
func gridPattern(t testing.TB, r, c int) *model.Pattern {
	n := r * c
	rows := make([][]int, n)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			k := i*c + j
			rows[k] = append(rows[k], k)
			if i > 0 {
				rows[k] = append(rows[k], k-c)
			}
			if i < r-1 {
				rows[k] = append(rows[k], k+c)
			}
			if j > 0 {
				rows[k] = append(rows[k], k-1)
			}
			if j < c-1 {
				rows[k] = append(rows[k], k+1)
			}
		}
	}
	return patternFrom(t, n, rows)
}

// shuffledChain is a path graph (tridiagonal after renumbering) whose nodes
// are numbered at random, so the natural order fills in.
func shuffledChain(t testing.TB, rng *rand.Rand, n int) *model.Pattern {
	lab := rng.Perm(n)
	rows := make([][]int, n)
	for k := 0; k < n; k++ {
		i := lab[k]
		rows[i] = append(rows[i], i)
		if k > 0 {
			rows[i] = append(rows[i], lab[k-1])
		}
		if k < n-1 {
			rows[i] = append(rows[i], lab[k+1])
		}
	}
	return patternFrom(t, n, rows)
}

// toDense scatters a into a row-major dense matrix.
func toDense(a *CSR) []float64 {
	d := make([]float64, a.Pat.Rows*a.Pat.Cols)
	a.Pat.ScatterTo(d, a.Val)
	return d
}

// mulBlock returns A X for the row-major n x k block x.
func mulBlock(a *CSR, x []float64, k int) []float64 {
	p := a.Pat
	y := make([]float64, p.Rows*k)
	for i := 0; i < p.Rows; i++ {
		for q := p.RowPtr[i]; q < p.RowPtr[i+1]; q++ {
			j := p.ColIdx[q]
			for c := 0; c < k; c++ {
				y[i*k+c] += a.Val[q] * x[j*k+c]
			}
		}
	}
	return y
}

func relDiff(a, b []float64) float64 {
	var num, den float64
	for i := range a {
		num = math.Max(num, math.Abs(a[i]-b[i]))
		den = math.Max(den, math.Abs(b[i]))
	}
	if den == 0 {
		return num
	}
	return num / den
}

// denseSolve solves with the dense LU of runtime/internal/dense.
func denseSolve(t testing.TB, a *CSR, b []float64, k int) []float64 {
	n := a.Pat.Rows
	d := toDense(a)
	piv := make([]int, n)
	if !dense.Factor(d, n, piv) {
		t.Fatal("dense reference: singular")
	}
	x := slices.Clone(b)
	dense.SolveMulti(d, n, piv, x, k)
	return x
}

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// fill sets a's values: off-diagonals N(0,1), the diagonal dom times the
// row's absolute sum (dom = 0: N(0,1) as well), then scales rows and
// columns by 10^U(-scale, scale).
func fill(rng *rand.Rand, a *CSR, dom, scale float64) {
	p := a.Pat
	rs, cs := make([]float64, p.Rows), make([]float64, p.Cols)
	for i := range rs {
		rs[i] = math.Pow(10, scale*(2*rng.Float64()-1))
	}
	for j := range cs {
		cs[j] = math.Pow(10, scale*(2*rng.Float64()-1))
	}
	for i := 0; i < p.Rows; i++ {
		var sum float64
		dk := -1
		for q := p.RowPtr[i]; q < p.RowPtr[i+1]; q++ {
			a.Val[q] = rng.NormFloat64()
			if p.ColIdx[q] == i {
				dk = q
			} else {
				sum += math.Abs(a.Val[q])
			}
		}
		if dk >= 0 && dom > 0 {
			a.Val[dk] = dom * (sum + 1)
		}
	}
	for i := 0; i < p.Rows; i++ {
		for q := p.RowPtr[i]; q < p.RowPtr[i+1]; q++ {
			a.Val[q] *= rs[i] * cs[p.ColIdx[q]]
		}
	}
}

func TestLUAgainstDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	var worstBE float64
	defer func() { t.Logf("largest backward error %.2g", worstBE) }()
	for _, tc := range []struct {
		name      string
		n, perRow int
		diag      bool
		dom       float64
		scale     float64
		tol       float64
	}{
		{"dominant", 60, 4, true, 1.5, 0, 1e-13},
		{"dominant-large", 400, 4, true, 1.1, 0, 1e-13},
		{"nonsymmetric", 80, 4, true, 0, 0, 1e-9},
		{"no-diagonal", 50, 5, false, 0, 0, 1e-9},
		{"badly-scaled", 80, 4, true, 1.2, 6, 1e-8},
		{"nonsymmetric-scaled", 60, 5, true, 0, 3, 1e-7},
	} {
		for _, ord := range []Ordering{OrderAMD, OrderNatural} {
			trial := 0
			for tried := 0; trial < 5 && tried < 50; tried++ {
				p := randPattern(t, rng, tc.n, tc.perRow, tc.diag)
				a := New(p)
				fill(rng, a, tc.dom, tc.scale)
				d := toDense(a)
				piv := make([]int, tc.n)
				if !dense.Factor(d, tc.n, piv) {
					continue // structurally singular draw: covered elsewhere
				}
				// Skip ill-conditioned draws, whose dense solution is no
				// reference to 1e-9 either.
				trial++
				f := NewLU(Analyze(p, ord))
				if err := f.Factor(a); err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
				const k = 3
				b := randVec(rng, tc.n*k)
				want := denseSolve(t, a, b, k)
				got := make([]float64, len(b))
				for i := range got {
					got[i] = math.NaN()
				}
				bc := slices.Clone(b)
				f.SolveTo(got, b, k)
				if !slices.Equal(b, bc) {
					t.Fatalf("%s: b modified", tc.name)
				}
				// Normwise backward error ||b - A x|| / (||A|| ||x|| + ||b||)
				// (infinity norms): small for a stable factorisation whatever
				// the conditioning; the difference to dense depends on it.
				r := mulBlock(a, got, k)
				var anorm float64
				for i := 0; i < tc.n; i++ {
					var s float64
					for q := p.RowPtr[i]; q < p.RowPtr[i+1]; q++ {
						s += math.Abs(a.Val[q])
					}
					anorm = math.Max(anorm, s)
				}
				for c := 0; c < k; c++ {
					var rn, xn, bn float64
					for i := 0; i < tc.n; i++ {
						rn = math.Max(rn, math.Abs(r[i*k+c]-b[i*k+c]))
						xn = math.Max(xn, math.Abs(got[i*k+c]))
						bn = math.Max(bn, math.Abs(b[i*k+c]))
					}
					be := rn / (anorm*xn + bn)
					worstBE = math.Max(worstBE, be)
					if be > 1e-14 || math.IsNaN(be) {
						t.Errorf("%s ord %d: backward error %g", tc.name, ord, be)
					}
				}
				if e := relDiff(got, want); e > tc.tol || math.IsNaN(e) {
					t.Errorf("%s ord %d: differs from dense LU by %g (tol %g)", tc.name, ord, e, tc.tol)
				}
			}
			if trial < 5 {
				t.Fatalf("%s: only %d nonsingular draws", tc.name, trial)
			}
		}
	}
}

func TestLUSingular(t *testing.T) {
	// Column 2 empty: structurally singular, named.
	p := patternFrom(t, 4, [][]int{{0, 1}, {1, 3}, {0}, {3}})
	a := New(p)
	for i := range a.Val {
		a.Val[i] = 1 + float64(i)
	}
	f := NewLU(Analyze(p, OrderAMD))
	err := f.Factor(a)
	var se *SingularError
	if !errors.As(err, &se) || se.Reason != "structurally singular" {
		t.Fatalf("empty column: got %v", err)
	}
	if se.Col != 2 {
		// The column without entries is 2; any other means the permutation
		// was not undone in the report.
		t.Errorf("empty column: reported column %d, want 2", se.Col)
	}
	mustPanic(t, "solve after failure", func() { f.Solve(make([]float64, 4)) })

	// Rank 2 of 3 with exact integers: row 2 = row 0 + row 1.
	p = patternFrom(t, 3, [][]int{{0, 1, 2}, {0, 1, 2}, {0, 1, 2}})
	a = &CSR{Pat: p, Val: []float64{2, 1, 3, 1, 4, 1, 3, 5, 4}}
	for _, ord := range []Ordering{OrderAMD, OrderNatural} {
		f = NewLU(Analyze(p, ord))
		err = f.Factor(a)
		if !errors.As(err, &se) || se.Reason != "zero pivot" {
			t.Errorf("rank-deficient: got %v", err)
		}
		if err := f.Refactor(a); err == nil {
			t.Error("rank-deficient: Refactor succeeded")
		}
	}

	// Two columns whose only entries are in one row.
	p = patternFrom(t, 3, [][]int{{0, 1, 2}, {0}, {0}})
	a = New(p)
	for i := range a.Val {
		a.Val[i] = 1
	}
	f = NewLU(Analyze(p, OrderAMD))
	if err := f.Factor(a); !errors.As(err, &se) {
		t.Errorf("structural rank 2: got %v", err)
	}

	// NaN in the matrix: an error, never a NaN solution.
	p = gridPattern(t, 3, 3)
	a = New(p)
	fill(rand.New(rand.NewPCG(2, 2)), a, 2, 0)
	a.Val[5] = math.NaN()
	f = NewLU(Analyze(p, OrderAMD))
	if err := f.Factor(a); !errors.As(err, &se) || se.Reason != "not finite" {
		t.Errorf("NaN entry: got %v", err)
	}
	a.Val[5] = math.Inf(1)
	if err := f.Factor(a); !errors.As(err, &se) || se.Reason != "not finite" {
		t.Errorf("Inf entry: got %v", err)
	}
}

func mustPanic(t *testing.T, name string, fn func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", name)
		}
	}()
	fn()
}

func TestRefactorEqualsFactor(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	p := randPattern(t, rng, 300, 4, true)
	sym := Analyze(p, OrderAMD)
	a1, a2 := New(p), New(p)
	fill(rng, a1, 1.5, 0)
	fill(rng, a2, 1.5, 0)
	re := NewLU(sym)
	if err := re.Factor(a1); err != nil {
		t.Fatal(err)
	}
	if err := re.Refactor(a2); err != nil {
		t.Fatal(err)
	}
	if re.Stats.Refactors != 1 || re.Stats.Fallbacks != 0 {
		t.Fatalf("stats %+v, want one refactorisation without fallback", re.Stats)
	}
	fresh := NewLU(sym)
	if err := fresh.Factor(a2); err != nil {
		t.Fatal(err)
	}
	b := randVec(rng, 300)
	x1, x2 := make([]float64, 300), make([]float64, 300)
	re.SolveTo(x1, b, 1)
	fresh.SolveTo(x2, b, 1)
	if e := relDiff(x1, x2); e > 1e-14 {
		t.Errorf("refactorised and fresh solutions differ by %g", e)
	}
	if e := relDiff(x1, denseSolve(t, a2, b, 1)); e > 1e-12 {
		t.Errorf("refactorised solution differs from dense by %g", e)
	}

	// A matrix whose pivot order no longer fits: the diagonal of a2 made
	// tiny, so the old (diagonal) pivots fail the threshold test.
	a3 := New(p)
	fill(rng, a3, 0, 0)
	for i := 0; i < 300; i++ {
		for q := p.RowPtr[i]; q < p.RowPtr[i+1]; q++ {
			if p.ColIdx[q] == i {
				a3.Val[q] = 1e-9
			}
		}
	}
	d := toDense(a3)
	if !dense.Factor(d, 300, make([]int, 300)) {
		t.Skip("draw singular")
	}
	if err := re.Refactor(a3); err != nil {
		t.Fatal(err)
	}
	if re.Stats.Fallbacks != 1 {
		t.Errorf("fallbacks %d, want 1 (tiny diagonal)", re.Stats.Fallbacks)
	}
	re.SolveTo(x1, b, 1)
	r := mulBlock(a3, x1, 1)
	if e := relDiff(r, b); e > 1e-10 {
		t.Errorf("after fallback: residual %g", e)
	}
}

func TestMultiRHSEqualsSingle(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	p := randPattern(t, rng, 200, 5, true)
	a := New(p)
	fill(rng, a, 0, 0)
	f := NewLU(Analyze(p, OrderAMD))
	if err := f.Factor(a); err != nil {
		t.Fatal(err)
	}
	const k = 20
	b := randVec(rng, 200*k)
	x := make([]float64, len(b))
	f.SolveTo(x, b, k)
	col := make([]float64, 200)
	for c := 0; c < k; c++ {
		for i := range col {
			col[i] = b[i*k+c]
		}
		f.Solve(col)
		for i := range col {
			// The same operations in the same order, the block's rows
			// with fused multiply-adds (dense.Axpy) that round once: equal
			// to rounding (amplified by the random matrix's condition).
			if d := math.Abs(col[i] - x[i*k+c]); d > 1e-10*(1+math.Abs(col[i])) {
				t.Fatalf("column %d row %d: single %g, block %g", c, i, col[i], x[i*k+c])
			}
		}
	}
	// In place.
	f.SolveTo(b, b, k)
	if e := relDiff(b, x); e > 0 {
		t.Errorf("in-place solve differs by %g", e)
	}
}

func TestAMDFill(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	factorNNZ := func(p *model.Pattern, ord Ordering) int {
		a := New(p)
		fill(rng, a, 2, 0)
		f := NewLU(Analyze(p, ord))
		if err := f.Factor(a); err != nil {
			t.Fatal(err)
		}
		if f.Stats.OffDiag != 0 {
			t.Fatalf("diagonally dominant matrix pivoted off the diagonal %d times", f.Stats.OffDiag)
		}
		return f.NNZ()
	}
	// Shuffled chain: AMD recovers the path, so there is no fill at all.
	n := 500
	p := shuffledChain(t, rng, n)
	amd, nat := factorNNZ(p, OrderAMD), factorNNZ(p, OrderNatural)
	if amd != 3*n-2 {
		t.Errorf("chain: AMD factors have %d entries, want %d (no fill)", amd, 3*n-2)
	}
	if nat <= amd {
		t.Errorf("chain: natural order %d entries, expected more than AMD's %d", nat, amd)
	}
	// 2-D grid: nested-dissection-like orders give O(n log n) fill against
	// the band's n^1.5.
	p = gridPattern(t, 40, 40)
	amd, nat = factorNNZ(p, OrderAMD), factorNNZ(p, OrderNatural)
	t.Logf("grid 40x40: nnz(A) %d, nnz(L+U) AMD %d, natural %d", p.NNZ(), amd, nat)
	if float64(amd) > 0.6*float64(nat) {
		t.Errorf("grid: AMD fill %d not well below natural %d", amd, nat)
	}
}

func TestAMDIsPermutation(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for _, n := range []int{0, 1, 2, 17, 300} {
		p := randPattern(t, rng, n, 3, false)
		perm := AMD(p)
		seen := make([]bool, n)
		for _, i := range perm {
			if i < 0 || i >= n || seen[i] {
				t.Fatalf("n %d: not a permutation: %v", n, perm)
			}
			seen[i] = true
		}
		if len(perm) != n {
			t.Fatalf("n %d: length %d", n, len(perm))
		}
	}
}

func TestLUZeroAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	p := gridPattern(t, 20, 20)
	a := New(p)
	fill(rng, a, 2, 0)
	f := NewLU(Analyze(p, OrderAMD))
	const k = 20
	b := randVec(rng, 400*k)
	x := make([]float64, len(b))
	if err := f.Factor(a); err != nil {
		t.Fatal(err)
	}
	f.SolveTo(x, b, k)
	allocs := testing.AllocsPerRun(20, func() {
		if err := f.Refactor(a); err != nil {
			t.Fatal(err)
		}
		f.SolveTo(x, b, k)
	})
	if allocs != 0 {
		t.Errorf("Refactor+SolveTo: %g allocations, want 0", allocs)
	}
	allocs = testing.AllocsPerRun(20, func() {
		if err := f.Factor(a); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Factor after the first: %g allocations, want 0", allocs)
	}
}

// TestReserve: after Reserve(k) the first k-column solve allocates nothing
// (the integrator's first IntegrateSens must not allocate the workspace).
func TestReserve(t *testing.T) {
	p := &model.Pattern{Rows: 3, Cols: 3, RowPtr: []int{0, 2, 4, 6}, ColIdx: []int{0, 1, 0, 1, 1, 2}}
	a := &CSR{Pat: p, Val: []float64{4, 1, 1, 5, 2, 6}}
	f := NewLU(Analyze(p, OrderAMD))
	if err := f.Factor(a); err != nil {
		t.Fatal(err)
	}
	f.Reserve(7)
	b := make([]float64, 3*7)
	for i := range b {
		b[i] = float64(i + 1)
	}
	// testing.AllocsPerRun would make a warm-up call first: count the
	// first call's own allocations.
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f.SolveTo(b, b, 7)
	runtime.ReadMemStats(&m1)
	if n := m1.Mallocs - m0.Mallocs; n != 0 {
		t.Errorf("first SolveTo after Reserve(7): %d allocations", n)
	}
}
