package dense

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// hypercube is an iteration matrix I - gamma J of a network whose 2^d
// states are the subsets of d sites and whose reactions add or remove
// one site (the histone acetylation of Blasi_CellSystems2016: d = 4, 16
// states, 80 non-zeros of J): J's rows hold the diagonal and the d
// neighbours.
func hypercube(d int, rng *rand.Rand) []float64 {
	n := 1 << d
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if bits.OnesCount(uint(i^j)) == 1 {
				a[i*n+j] = -0.3 * rng.Float64()
				a[i*n+i] += 0.3 * rng.Float64()
			}
		}
		a[i*n+i] += 1
	}
	return a
}

// Factor's two paths (elimAVX's row updates and the Go loop) give the same
// factors bit for bit, with and without row exchanges, zero multipliers
// and short trailing rows.
func TestFactorKernelBits(t *testing.T) {
	if !HasFMA {
		t.Skip("no AVX2: Factor has one path")
	}
	rng := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{1, 2, 4, 5, 8, 16, 21, 33, 60} {
		for rep := 0; rep < 20; rep++ {
			var a []float64
			switch rep % 3 {
			case 0:
				a = randomSystem(n, rng) // zeros, pivots on the diagonal mostly
			case 1:
				a = make([]float64, n*n) // full, row exchanges
				for i := range a {
					a[i] = rng.NormFloat64()
				}
			default:
				a = randomSystem(n, rng)
				a[rng.IntN(n*n)] = math.NaN()
			}
			v, g := append([]float64(nil), a...), append([]float64(nil), a...)
			pv, pg := make([]int, n), make([]int, n)
			okv, okg := factor(v, n, pv, true), factor(g, n, pg, false)
			if okv != okg {
				t.Fatalf("n=%d rep %d: ok %v with elimAVX, %v without", n, rep, okv, okg)
			}
			for i := range v {
				if math.Float64bits(v[i]) != math.Float64bits(g[i]) {
					t.Fatalf("n=%d rep %d: entry %d %v with elimAVX, %v without", n, rep, i, v[i], g[i])
				}
			}
			for i := range pv {
				if pv[i] != pg[i] {
					t.Fatalf("n=%d rep %d: pivot %d differs", n, rep, i)
				}
			}
		}
	}
}

// The measurement behind elimMin's note: Factor with and without elimAVX
// on the 16 x 16 hypercube and on full matrices.
func BenchmarkFactorKernel(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	type mat struct {
		name string
		a    []float64
		n    int
	}
	ms := []mat{{"hypercube16", hypercube(4, rng), 16}}
	for _, n := range []int{8, 16, 32, 64} {
		a := make([]float64, n*n)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		ms = append(ms, mat{fmt.Sprint("full", n), a, n})
	}
	for _, m := range ms {
		f, piv := make([]float64, m.n*m.n), make([]int, m.n)
		for _, vec := range []bool{true, false} {
			name := m.name + "/go"
			if vec {
				if !HasFMA {
					continue
				}
				name = m.name + "/avx"
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					copy(f, m.a)
					factor(f, m.n, piv, vec)
				}
			})
		}
	}
}

// solveRows and solveColumns force one of Solve's two paths.
func solveRows(a []float64, n int, piv []int, b []float64) {
	b = b[:n]
	permuteRows(b, piv, n, 1)
	for i := 1; i < n; i++ {
		b[i] -= dot(a[i*n:i*n+i], b[:i])
	}
	for i := n - 1; i >= 0; i-- {
		b[i] = (b[i] - dot(a[i*n+i+1:(i+1)*n], b[i+1:])) / a[i*n+i]
	}
}

func solveColumns(a []float64, n int, piv []int, b []float64) {
	b = b[:n]
	permuteRows(b, piv, n, 1)
	solveCols(a[:n*n], n, b)
}

// The measurement behind Solve's note: one right-hand side with the
// factors of the 16 x 16 hypercube and of a random 21 x 21 system.
func BenchmarkSolveSmall(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, m := range []struct {
		name string
		a    []float64
		n    int
	}{{"random4", randomSystem(4, rng), 4}, {"random8", randomSystem(8, rng), 8}, {"hypercube16", hypercube(4, rng), 16}, {"random21", randomSystem(21, rng), 21}, {"random32", randomSystem(32, rng), 32}, {"random40", randomSystem(40, rng), 40}, {"random60", randomSystem(60, rng), 60}, {"random100", randomSystem(100, rng), 100}} {
		n := m.n
		f, piv := append([]float64(nil), m.a...), make([]int, n)
		Factor(f, n, piv)
		x := make([]float64, n)
		at := make([]float64, n*n)
		TransposeTo(at, f, n)
		for _, s := range []struct {
			name string
			fn   func([]float64, int, []int, []float64)
		}{{"columns", solveColumns}, {"rows", solveRows}, {"transposed", func(_ []float64, n int, piv []int, b []float64) { SolveT(at, n, piv, b) }}} {
			b.Run(m.name+"/"+s.name, func(b *testing.B) {
				for b.Loop() {
					for j := range x {
						x[j] = 1
					}
					s.fn(f, n, piv, x)
				}
			})
		}
	}
}

// SolveT (AVX2 and Go) gives Solve's result bit for bit up to
// colSolveMax, with row exchanges, and leaves the factors unchanged.
func TestSolveTBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for n := 1; n <= colSolveMax; n++ {
		for rep := 0; rep < 10; rep++ {
			a := make([]float64, n*n)
			for i := range a {
				a[i] = rng.NormFloat64()
			}
			piv := make([]int, n)
			Factor(a, n, piv)
			at := make([]float64, n*n)
			TransposeTo(at, a, n)
			keep := append([]float64(nil), at...)
			b := make([]float64, n)
			for i := range b {
				b[i] = rng.NormFloat64()
			}
			want := append([]float64(nil), b...)
			Solve(a, n, piv, want)
			got := append([]float64(nil), b...)
			SolveT(at, n, piv, got)
			goT := append([]float64(nil), b...)
			permuteRows(goT, piv, n, 1)
			solveColsT(at, n, goT)
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) || math.Float64bits(goT[i]) != math.Float64bits(want[i]) {
					t.Fatalf("n=%d rep %d: x[%d] = %v (SolveT), %v (Go), Solve %v", n, rep, i, got[i], goT[i], want[i])
				}
			}
			for i := range at {
				if at[i] != keep[i] {
					t.Fatalf("n=%d: SolveT changed the factors", n)
				}
			}
		}
	}
}

func TestTransposeTo(t *testing.T) {
	for n := 0; n <= 13; n++ {
		a, at := make([]float64, n*n), make([]float64, n*n)
		for i := range a {
			a[i] = float64(i)
		}
		TransposeTo(at, a, n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if at[j*n+i] != a[i*n+j] {
					t.Fatalf("n=%d: at[%d][%d] = %v, want %v", n, j, i, at[j*n+i], a[i*n+j])
				}
			}
		}
	}
}
