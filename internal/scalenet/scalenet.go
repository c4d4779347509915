// Package scalenet generates reaction networks of any size for the tests
// and benchmarks of the large-network solvers (issue #13): the sparse LU
// of runtime/sparse and the exponential actions of runtime/expm need
// models with thousands of states whose Jacobians have a few non-zeros per
// row, as real signalling networks do, and the paper's networks stop at 21
// states.
//
// # The networks
//
// A network is a set of m enzyme units. Unit i has a substrate X_i, an
// enzyme E_i and the complex C_i, and converts X_i into the substrate of
// the next unit by reversible mass-action steps:
//
//	E_i + X_i      <-> C_i   (kon_{i/2}, koff)
//	C_i            <-> E_i + X_next(i)   (kcat_i, krev)
//
// In a Chain the next unit of i is i+1, and the last feeds the first (a
// cycle, so every unit looks alike). In a Grid the units sit on an r x c
// torus, next is the right neighbour in the row, and substrates also
// exchange with the unit below by X_i <-> X_down(i) (kdown, kup). A chain
// has n = 3m states and 13/3 non-zeros per row of Jx, a grid 5 per row.
// The parameters are one kon per pair of units, one kcat per unit and the
// shared koff, krev (and kdown, kup): about n/2 of them.
//
// Each unit conserves its enzyme (E_i + C_i), and the substrate is
// conserved in total (the sum of X_i and C_i over the units), so Jx is
// singular, as in real networks with conservation laws.
//
// # Two forms
//
// *Network implements runtime/model.Model directly with generic
// mass-action kernels over the reaction list (fast, no code generation),
// and WriteSBML writes the same network as SBML Level 3 so that it can go
// through parser, interp and codegen.
package scalenet

import (
	"fmt"
	"math"
	"slices"

	"github.com/pbgen/pbgen/runtime/model"
)

// Shape is the topology of the units.
type Shape int

const (
	// Chain is a cycle of units, each feeding the next.
	Chain Shape = iota
	// Grid is a torus of units: feeding to the right, exchanging substrate
	// up and down.
	Grid
)

func (s Shape) String() string {
	if s == Grid {
		return "grid"
	}
	return "chain"
}

// term is a species with its stoichiometric coefficient.
type term struct{ sp, st int }

// reaction is a mass-action reaction: rate p[k] * prod x[sp]^st over the
// reactants, net change per species.
type reaction struct {
	id   string
	reac []term
	prod []term
	net  []term // products minus reactants, zero entries dropped
	k    int
}

// Network is a generated mass-action network. It implements model.Model
// and holds no mutable state after New.
type Network struct {
	name    string
	species []string
	params  []string
	pdef    []float64
	x0      []float64
	rx      []reaction
	jx, jp  model.Pattern

	// posX lists, for each reaction, reactant q and net species s (in
	// that loop order), the index of Jx(s, q) in the pattern; posP the
	// index of Jp(s, k) for each net species.
	posX, posP []int
}

// New generates a network of the shape with about n states (n is rounded
// to a multiple of 3; at least 2 units). It panics on n < 6.
func New(shape Shape, n int) *Network {
	m := n / 3
	if m < 2 {
		panic("scalenet: need at least 6 states")
	}
	cols := m
	if shape == Grid {
		cols = int(math.Ceil(math.Sqrt(float64(m))))
		m = (m / cols) * cols // whole rows of the torus
	}
	rows := m / cols
	net := &Network{name: fmt.Sprintf("scalenet_%s_%d", shape, 3*m)}
	X := func(i int) int { return 3 * i }
	E := func(i int) int { return 3*i + 1 }
	C := func(i int) int { return 3*i + 2 }
	for i := 0; i < m; i++ {
		net.species = append(net.species, fmt.Sprintf("X%d", i), fmt.Sprintf("E%d", i), fmt.Sprintf("C%d", i))
		// Initial amounts vary so that no two units are alike.
		net.x0 = append(net.x0, 1+0.5*math.Sin(7*float64(i)), 0.2+0.1*math.Cos(3*float64(i)), 0)
	}
	param := func(name string, v float64) int {
		net.params = append(net.params, name)
		net.pdef = append(net.pdef, v)
		return len(net.params) - 1
	}
	kon := make([]int, (m+1)/2)
	for j := range kon {
		kon[j] = param(fmt.Sprintf("kon%d", j), 10*(1+0.5*math.Sin(float64(j))))
	}
	kcat := make([]int, m)
	for i := range kcat {
		kcat[i] = param(fmt.Sprintf("kcat%d", i), 5*(1+0.5*math.Cos(float64(i))))
	}
	koff := param("koff", 1)
	krev := param("krev", 0.1)
	var kdown, kup int
	if shape == Grid {
		kdown = param("kdown", 0.3)
		kup = param("kup", 0.2)
	}
	add := func(id string, k int, reac, prod []term) {
		net.rx = append(net.rx, reaction{id: id, reac: reac, prod: prod, k: k})
	}
	one := func(sps ...int) []term {
		t := make([]term, len(sps))
		for i, s := range sps {
			t[i] = term{s, 1}
		}
		return t
	}
	for i := 0; i < m; i++ {
		r, c := i/cols, i%cols
		next := (i + 1) % m
		if shape == Grid {
			next = r*cols + (c+1)%cols
		}
		add(fmt.Sprintf("bind%d", i), kon[i/2], one(E(i), X(i)), one(C(i)))
		add(fmt.Sprintf("unbind%d", i), koff, one(C(i)), one(E(i), X(i)))
		add(fmt.Sprintf("cat%d", i), kcat[i], one(C(i)), one(E(i), X(next)))
		add(fmt.Sprintf("rev%d", i), krev, one(E(i), X(next)), one(C(i)))
		if shape == Grid && rows > 1 {
			down := ((r+1)%rows)*cols + c
			if down != i {
				add(fmt.Sprintf("down%d", i), kdown, one(X(i)), one(X(down)))
				add(fmt.Sprintf("up%d", i), kup, one(X(down)), one(X(i)))
			}
		}
	}
	net.build()
	return net
}

// build computes the net stoichiometry, the patterns and the index tables.
func (net *Network) build() {
	nx, np := len(net.species), len(net.params)
	for r := range net.rx {
		rx := &net.rx[r]
		d := map[int]int{}
		for _, t := range rx.reac {
			d[t.sp] -= t.st
		}
		for _, t := range rx.prod {
			d[t.sp] += t.st
		}
		for sp, st := range d {
			if st != 0 {
				rx.net = append(rx.net, term{sp, st})
			}
		}
		slices.SortFunc(rx.net, func(a, b term) int { return a.sp - b.sp })
	}
	jx := make([][]int, nx)
	jp := make([][]int, nx)
	for _, rx := range net.rx {
		for _, s := range rx.net {
			for _, q := range rx.reac {
				jx[s.sp] = append(jx[s.sp], q.sp)
			}
			jp[s.sp] = append(jp[s.sp], rx.k)
		}
	}
	net.jx = csr(jx, nx, nx)
	net.jp = csr(jp, nx, np)
	find := func(p *model.Pattern, i, j int) int {
		k, ok := slices.BinarySearch(p.ColIdx[p.RowPtr[i]:p.RowPtr[i+1]], j)
		if !ok {
			panic("scalenet: entry missing from pattern")
		}
		return p.RowPtr[i] + k
	}
	for _, rx := range net.rx {
		for _, q := range rx.reac {
			for _, s := range rx.net {
				net.posX = append(net.posX, find(&net.jx, s.sp, q.sp))
			}
		}
		for _, s := range rx.net {
			net.posP = append(net.posP, find(&net.jp, s.sp, rx.k))
		}
	}
}

// csr turns per-row column lists into a validated pattern.
func csr(rows [][]int, nr, nc int) model.Pattern {
	p := model.Pattern{Rows: nr, Cols: nc, RowPtr: make([]int, nr+1)}
	for i, r := range rows {
		slices.Sort(r)
		r = slices.Compact(r)
		p.ColIdx = append(p.ColIdx, r...)
		p.RowPtr[i+1] = len(p.ColIdx)
	}
	if err := p.Validate(); err != nil {
		panic("scalenet: " + err.Error())
	}
	return p
}

var _ model.Model = (*Network)(nil)

// Name is the network's id, e.g. scalenet_grid_999.
func (net *Network) Name() string { return net.name }

// StateNames are X0, E0, C0, X1, ...
func (net *Network) StateNames() []string { return net.species }

// ParamNames are the kon, kcat, then the shared constants.
func (net *Network) ParamNames() []string { return net.params }

// DefaultParams writes the default rate constants.
func (net *Network) DefaultParams(dst []float64) { copy(dst[:len(net.pdef)], net.pdef) }

// InitialState writes x0 (independent of p).
func (net *Network) InitialState(dst []float64, p []float64) { copy(dst[:len(net.x0)], net.x0) }

// InitialSens writes zero: x0 does not depend on p.
func (net *Network) InitialSens(dst []float64, p []float64) {
	clear(dst[:len(net.species)*len(net.params)])
}

// JxPattern is the pattern of df/dx.
func (net *Network) JxPattern() *model.Pattern { return &net.jx }

// JpPattern is the pattern of df/dp.
func (net *Network) JpPattern() *model.Pattern { return &net.jp }

func (net *Network) check(dst []float64, want int, x, p []float64) {
	if len(dst) != want || len(x) != len(net.species) || len(p) != len(net.params) {
		panic("scalenet: length mismatch")
	}
}

func pow(x float64, n int) float64 {
	switch n {
	case 0:
		return 1
	case 1:
		return x
	case 2:
		return x * x
	}
	return math.Pow(x, float64(n))
}

// F writes f(t, x, p).
func (net *Network) F(dst []float64, t float64, x, p []float64) {
	net.check(dst, len(net.species), x, p)
	clear(dst)
	for _, rx := range net.rx {
		v := p[rx.k]
		for _, q := range rx.reac {
			v *= pow(x[q.sp], q.st)
		}
		for _, s := range rx.net {
			dst[s.sp] += float64(s.st) * v
		}
	}
}

// Jx writes df/dx in JxPattern order.
func (net *Network) Jx(dst []float64, t float64, x, p []float64) {
	net.check(dst, net.jx.NNZ(), x, p)
	clear(dst)
	pos := net.posX
	for _, rx := range net.rx {
		for qi, q := range rx.reac {
			// d rate / d x_q
			v := p[rx.k] * float64(q.st) * pow(x[q.sp], q.st-1)
			for oi, o := range rx.reac {
				if oi != qi {
					v *= pow(x[o.sp], o.st)
				}
			}
			for _, s := range rx.net {
				dst[pos[0]] += float64(s.st) * v
				pos = pos[1:]
			}
		}
	}
}

// Jp writes df/dp in JpPattern order.
func (net *Network) Jp(dst []float64, t float64, x, p []float64) {
	net.check(dst, net.jp.NNZ(), x, p)
	clear(dst)
	pos := net.posP
	for _, rx := range net.rx {
		v := 1.0
		for _, q := range rx.reac {
			v *= pow(x[q.sp], q.st)
		}
		for _, s := range rx.net {
			dst[pos[0]] += float64(s.st) * v
			pos = pos[1:]
		}
	}
}

// Conservation returns the network's conservation laws as weight vectors
// w over the states with w^T f(t, x, p) = 0 for all x and p: one per unit
// for its enzyme, one for the substrate.
func (net *Network) Conservation() [][]float64 {
	nx := len(net.species)
	m := nx / 3
	var laws [][]float64
	for i := 0; i < m; i++ {
		w := make([]float64, nx)
		w[3*i+1], w[3*i+2] = 1, 1
		laws = append(laws, w)
	}
	w := make([]float64, nx)
	for i := 0; i < m; i++ {
		w[3*i], w[3*i+2] = 1, 1
	}
	return append(laws, w)
}
