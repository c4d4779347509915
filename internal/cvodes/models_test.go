//go:build cvodes

package cvodes

import (
	"math"
	"slices"

	"github.com/pbgen/pbgen/runtime/model"
)

// linModel is x1' = -p1 x1 + p2 x2, x2' = p1 x1 - p2 x2 with x(0) = (p3, 0):
// a reversible isomerisation with closed-form x and S (see linExact). Jp has
// an empty column (p3 enters only through the initial state).
type linModel struct{}

func (linModel) Name() string                  { return "lin" }
func (linModel) StateNames() []string          { return []string{"x1", "x2"} }
func (linModel) ParamNames() []string          { return []string{"p1", "p2", "p3"} }
func (linModel) DefaultParams(dst []float64)   { copy(dst, []float64{0.7, 0.3, 2}) }
func (linModel) InitialState(dst, p []float64) { dst[0], dst[1] = p[2], 0 }
func (linModel) InitialSens(dst, p []float64)  { clear(dst); dst[2] = 1 }
func (linModel) JxPattern() *model.Pattern     { return &linJx }
func (linModel) JpPattern() *model.Pattern     { return &linJp }
func (linModel) F(dst []float64, t float64, x, p []float64) {
	r := p[0]*x[0] - p[1]*x[1]
	dst[0], dst[1] = -r, r
}
func (linModel) Jx(dst []float64, t float64, x, p []float64) {
	dst[0], dst[1], dst[2], dst[3] = -p[0], p[1], p[0], -p[1]
}
func (linModel) Jp(dst []float64, t float64, x, p []float64) {
	dst[0], dst[1], dst[2], dst[3] = -x[0], x[1], x[0], -x[1]
}

var (
	linJx = model.Pattern{Rows: 2, Cols: 2, RowPtr: []int{0, 2, 4}, ColIdx: []int{0, 1, 0, 1}}
	linJp = model.Pattern{Rows: 2, Cols: 3, RowPtr: []int{0, 2, 4}, ColIdx: []int{0, 1, 0, 1}}
)

// linExact writes the closed-form x(t) and S(t) (row-major 2x3) of linModel.
func linExact(x, S []float64, t float64, p []float64) {
	p1, p2, c := p[0], p[1], p[2]
	k := p1 + p2
	e := math.Exp(-k * t)
	// x1 = c (p2 + p1 e) / k.
	x[0] = c * (p2 + p1*e) / k
	x[1] = c - x[0]
	d1 := c * (p2/(k*k)*(e-1) - p1/k*t*e) // dx1/dp1
	d2 := c * (p1/(k*k)*(1-e) - p1/k*t*e) // dx1/dp2
	d3 := x[0] / c                        // dx1/dp3
	S[0], S[1], S[2] = d1, d2, d3
	S[3], S[4], S[5] = -d1, -d2, 1-d3
}

// robModel is Robertson's stiff chemical kinetics with its three rate
// constants as parameters (the Test Set's ROBER, k1 = 0.04, k2 = 3e7,
// k3 = 1e4, y(0) = (1, 0, 0)).
type robModel struct{}

func (robModel) Name() string                  { return "rober" }
func (robModel) StateNames() []string          { return []string{"y1", "y2", "y3"} }
func (robModel) ParamNames() []string          { return []string{"k1", "k2", "k3"} }
func (robModel) DefaultParams(dst []float64)   { copy(dst, []float64{0.04, 3e7, 1e4}) }
func (robModel) InitialState(dst, p []float64) { dst[0], dst[1], dst[2] = 1, 0, 0 }
func (robModel) InitialSens(dst, p []float64)  { clear(dst) }
func (robModel) JxPattern() *model.Pattern     { return &robJx }
func (robModel) JpPattern() *model.Pattern     { return &robJp }
func (robModel) F(dst []float64, t float64, y, k []float64) {
	dst[0] = -k[0]*y[0] + k[2]*y[1]*y[2]
	dst[1] = k[0]*y[0] - k[1]*y[1]*y[1] - k[2]*y[1]*y[2]
	dst[2] = k[1] * y[1] * y[1]
}
func (robModel) Jx(dst []float64, t float64, y, k []float64) {
	dst[0], dst[1], dst[2] = -k[0], k[2]*y[2], k[2]*y[1]
	dst[3], dst[4], dst[5] = k[0], -2*k[1]*y[1]-k[2]*y[2], -k[2]*y[1]
	dst[6] = 2 * k[1] * y[1]
}
func (robModel) Jp(dst []float64, t float64, y, k []float64) {
	dst[0], dst[1] = -y[0], y[1]*y[2]
	dst[2], dst[3], dst[4] = y[0], -y[1]*y[1], -y[1]*y[2]
	dst[5] = y[1] * y[1]
}

var (
	robJx = model.Pattern{Rows: 3, Cols: 3, RowPtr: []int{0, 3, 6, 7}, ColIdx: []int{0, 1, 2, 0, 1, 2, 1}}
	robJp = model.Pattern{Rows: 3, Cols: 3, RowPtr: []int{0, 2, 5, 6}, ColIdx: []int{0, 2, 0, 1, 2, 1}}
)

// massAction is a mass-action network built from a reaction list, used for
// models of the size of the paper's PKA/CaMKII networks. Its Jacobians are
// checked against finite differences in TestModelJacobians.
type massAction struct {
	name         string
	nx, np       int
	x0, p0       []float64
	rxns         []reaction
	jxPat, jpPat model.Pattern
	jxTerms      []jxTerm
	jpTerms      []jpTerm
}

type reaction struct {
	in  []int // reactant species, with repetition
	nu  map[int]float64
	par int

	// nu as slices, filled by newMassAction for the fast F
	species []int
	coefs   []float64
}

type jxTerm struct { // dst[val] += coef * p[par] * prod of x[in] except occurrence skip
	val, rxn, skip int
	coef           float64
}

type jpTerm struct { // dst[val] += coef * prod of x[in]
	val, rxn int
	coef     float64
}

func newMassAction(name string, nx, np int, x0, p0 []float64, rxns []reaction) *massAction {
	m := &massAction{name: name, nx: nx, np: np, x0: x0, p0: p0, rxns: rxns}
	for i := range rxns {
		r := &rxns[i]
		for s, nu := range r.nu {
			r.species = append(r.species, s)
			r.coefs = append(r.coefs, nu)
		}
	}
	type rc struct{ r, c int }
	jx, jp := map[rc]bool{}, map[rc]bool{}
	for _, r := range rxns {
		for s, nu := range r.nu {
			if nu == 0 {
				continue
			}
			jp[rc{s, r.par}] = true
			for _, c := range r.in {
				jx[rc{s, c}] = true
			}
		}
	}
	build := func(set map[rc]bool, rows, cols int) (model.Pattern, map[rc]int) {
		keys := make([]rc, 0, len(set))
		for k := range set {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b rc) int {
			if a.r != b.r {
				return a.r - b.r
			}
			return a.c - b.c
		})
		p := model.Pattern{Rows: rows, Cols: cols, RowPtr: make([]int, rows+1)}
		pos := map[rc]int{}
		for i, k := range keys {
			p.ColIdx = append(p.ColIdx, k.c)
			p.RowPtr[k.r+1]++
			pos[k] = i
		}
		for i := 0; i < rows; i++ {
			p.RowPtr[i+1] += p.RowPtr[i]
		}
		return p, pos
	}
	var jxPos, jpPos map[rc]int
	m.jxPat, jxPos = build(jx, nx, nx)
	m.jpPat, jpPos = build(jp, nx, np)
	for ri, r := range rxns {
		for s, nu := range r.nu {
			if nu == 0 {
				continue
			}
			m.jpTerms = append(m.jpTerms, jpTerm{jpPos[rc{s, r.par}], ri, nu})
			for a, c := range r.in {
				m.jxTerms = append(m.jxTerms, jxTerm{jxPos[rc{s, c}], ri, a, nu})
			}
		}
	}
	return m
}

func (m *massAction) Name() string { return m.name }
func (m *massAction) StateNames() []string {
	n := make([]string, m.nx)
	for i := range n {
		n[i] = "x" + string(rune('A'+i%26)) + string(rune('0'+i/26))
	}
	return n
}
func (m *massAction) ParamNames() []string {
	n := make([]string, m.np)
	for i := range n {
		n[i] = "k" + string(rune('A'+i%26)) + string(rune('0'+i/26))
	}
	return n
}
func (m *massAction) DefaultParams(dst []float64)   { copy(dst, m.p0) }
func (m *massAction) InitialState(dst, p []float64) { copy(dst, m.x0) }
func (m *massAction) InitialSens(dst, p []float64)  { clear(dst) }
func (m *massAction) JxPattern() *model.Pattern     { return &m.jxPat }
func (m *massAction) JpPattern() *model.Pattern     { return &m.jpPat }

func prodExcept(x []float64, in []int, skip int) float64 {
	v := 1.0
	for a, c := range in {
		if a != skip {
			v *= x[c]
		}
	}
	return v
}

func (m *massAction) F(dst []float64, t float64, x, p []float64) {
	clear(dst)
	for _, r := range m.rxns {
		rate := p[r.par] * prodExcept(x, r.in, -1)
		for q, s := range r.species {
			dst[s] += r.coefs[q] * rate
		}
	}
}

func (m *massAction) Jx(dst []float64, t float64, x, p []float64) {
	clear(dst)
	for _, q := range m.jxTerms {
		r := &m.rxns[q.rxn]
		dst[q.val] += q.coef * p[r.par] * prodExcept(x, r.in, q.skip)
	}
}

func (m *massAction) Jp(dst []float64, t float64, x, p []float64) {
	clear(dst)
	for _, q := range m.jpTerms {
		dst[q.val] += q.coef * prodExcept(x, m.rxns[q.rxn].in, -1)
	}
}

// chainModel is a closed mass-action network of n species with 2(n-1)
// rate constants: x_i + x_c(i) -> x_{i+1} + x_c(i) catalysed by
// c(i) = (i+5) mod n, and x_{i+1} -> x_i. It is stiff through the spread of
// its rate constants (1e-2 to 1e2) and has the size of the paper's networks.
func chainModel(n int) *massAction {
	var rxns []reaction
	p0 := make([]float64, 0, 2*(n-1))
	x0 := make([]float64, n)
	for i := range x0 {
		x0[i] = 1 / float64(i+1)
	}
	for i := 0; i+1 < n; i++ {
		c := (i + 5) % n
		kf := math.Pow(10, float64(i%5)-2)
		kb := math.Pow(10, 1-float64(i%3))
		fwd := reaction{in: []int{i, c}, nu: map[int]float64{i: -1, i + 1: 1}, par: len(p0)}
		p0 = append(p0, kf)
		bwd := reaction{in: []int{i + 1}, nu: map[int]float64{i + 1: -1, i: 1}, par: len(p0)}
		p0 = append(p0, kb)
		rxns = append(rxns, fwd, bwd)
	}
	return newMassAction("chain", n, len(p0), x0, p0, rxns)
}
