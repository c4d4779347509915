package testode

// POLLU is written as its reaction table: rate r_j = k_j times the product
// of its (one or two) reactant concentrations, and stoichiometric changes.
// F, Jx and Jp are assembled from the table by precomputed index lists, so
// the evaluation is a flat loop with no interface calls.

type polluReaction struct {
	r1, r2 int      // reactant states (0-based); r2 = -1 for first order
	stoich [][2]int // (state, change)
}

var polluTable = [25]polluReaction{
	{0, -1, [][2]int{{0, -1}, {1, 1}, {2, 1}}},                    // r1 = k1 y1
	{1, 3, [][2]int{{0, 1}, {1, -1}, {3, -1}}},                    // r2 = k2 y2 y4
	{4, 1, [][2]int{{0, 1}, {1, -1}, {4, -1}, {5, 1}}},            // r3 = k3 y5 y2
	{6, -1, [][2]int{{4, 2}, {6, -1}, {7, 1}}},                    // r4 = k4 y7
	{6, -1, [][2]int{{6, -1}, {7, 1}}},                            // r5 = k5 y7
	{6, 5, [][2]int{{4, 1}, {5, -1}, {6, -1}, {7, 1}}},            // r6 = k6 y7 y6
	{8, -1, [][2]int{{4, 1}, {7, 1}, {8, -1}, {9, 1}}},            // r7 = k7 y9
	{8, 5, [][2]int{{5, -1}, {8, -1}, {10, 1}}},                   // r8 = k8 y9 y6
	{10, 1, [][2]int{{0, 1}, {1, -1}, {9, 1}, {10, -1}, {11, 1}}}, // r9 = k9 y11 y2
	{10, 0, [][2]int{{0, -1}, {10, -1}, {12, 1}}},                 // r10 = k10 y11 y1
	{12, -1, [][2]int{{0, 1}, {10, 1}, {12, -1}}},                 // r11 = k11 y13
	{9, 1, [][2]int{{0, 1}, {1, -1}, {9, -1}, {13, 1}}},           // r12 = k12 y10 y2
	{13, -1, [][2]int{{4, 1}, {6, 1}, {13, -1}}},                  // r13 = k13 y14
	{0, 5, [][2]int{{0, -1}, {5, -1}, {14, 1}}},                   // r14 = k14 y1 y6
	{2, -1, [][2]int{{2, -1}, {3, 1}}},                            // r15 = k15 y3
	{3, -1, [][2]int{{3, -1}, {15, 1}}},                           // r16 = k16 y4
	{3, -1, [][2]int{{2, 1}, {3, -1}}},                            // r17 = k17 y4
	{15, -1, [][2]int{{5, 2}, {15, -1}}},                          // r18 = k18 y16
	{15, -1, [][2]int{{2, 1}, {15, -1}}},                          // r19 = k19 y16
	{16, 5, [][2]int{{4, 1}, {5, -1}, {16, -1}, {17, 1}}},         // r20 = k20 y17 y6
	{18, -1, [][2]int{{1, 1}, {18, -1}}},                          // r21 = k21 y19
	{18, -1, [][2]int{{0, 1}, {2, 1}, {18, -1}}},                  // r22 = k22 y19
	{0, 3, [][2]int{{0, -1}, {3, -1}, {18, 1}}},                   // r23 = k23 y1 y4
	{18, 0, [][2]int{{0, -1}, {18, -1}, {19, 1}}},                 // r24 = k24 y19 y1
	{19, -1, [][2]int{{0, 1}, {18, 1}, {19, -1}}},                 // r25 = k25 y20
}

// polluTerm is one contribution coef * k_j * (other reactant or 1) to the
// Jacobian entry at index pos.
type polluTerm struct {
	pos, j, other int // other = -1: no second factor
	coef          float64
}

type pollu struct {
	meta
	fterm [][3]int // (state, reaction, change) for F
	jx    []polluTerm
	jp    []polluTerm // here j is the reaction and the factor is the monomial
}

// Pollu is the RIVM air pollution model (20 states, 25 reactions) on
// [0, 60]; the 25 rate constants are the parameters. Reference at t = 60.
func Pollu() Problem {
	m := &pollu{}
	m.name = "POLLU"
	m.states = names("y", 20)
	m.params = names("k", 25)
	m.p0 = []float64{0.35, 26.6, 1.23e4, 8.6e-4, 8.2e-4, 1.5e4, 1.3e-4, 2.4e4, 1.65e4, 9.0e3,
		0.022, 1.2e4, 1.88, 1.63e4, 4.8e6, 3.5e-4, 0.0175, 1.0e8, 4.44e11, 1.24e3,
		2.1, 5.78, 0.0474, 1.78e3, 3.12}
	m.x0 = make([]float64, 20)
	m.x0[1], m.x0[3], m.x0[6], m.x0[7], m.x0[8], m.x0[16] = 0.2, 0.04, 0.1, 0.3, 0.01, 0.007

	// Dense index maps to build the sorted patterns.
	var jxIdx [20][20]int
	var jpIdx [20][25]int
	for i := range jxIdx {
		for k := range jxIdx[i] {
			jxIdx[i][k] = -1
		}
		for k := range jpIdx[i] {
			jpIdx[i][k] = -1
		}
	}
	type jxc struct {
		i, s, j, other int
		coef           float64
	}
	var jxcs []jxc
	for j, r := range polluTable {
		for _, sc := range r.stoich {
			i, c := sc[0], float64(sc[1])
			m.fterm = append(m.fterm, [3]int{i, j, sc[1]})
			jpIdx[i][j] = 0
			// d r_j / d y_r1 = k_j * y_r2 (or k_j), d r_j / d y_r2 = k_j * y_r1.
			jxIdx[i][r.r1] = 0
			jxcs = append(jxcs, jxc{i, r.r1, j, r.r2, c})
			if r.r2 >= 0 {
				jxIdx[i][r.r2] = 0
				jxcs = append(jxcs, jxc{i, r.r2, j, r.r1, c})
			}
		}
	}
	var jxe, jpe [][2]int
	for i := 0; i < 20; i++ {
		for k := 0; k < 20; k++ {
			if jxIdx[i][k] >= 0 {
				jxIdx[i][k] = len(jxe)
				jxe = append(jxe, [2]int{i, k})
			}
		}
		for k := 0; k < 25; k++ {
			if jpIdx[i][k] >= 0 {
				jpIdx[i][k] = len(jpe)
				jpe = append(jpe, [2]int{i, k})
			}
		}
	}
	m.jxp = pattern(20, 20, jxe)
	m.jpp = pattern(20, 25, jpe)
	for _, c := range jxcs {
		m.jx = append(m.jx, polluTerm{pos: jxIdx[c.i][c.s], j: c.j, other: c.other, coef: c.coef})
	}
	for j := range polluTable {
		for _, sc := range polluTable[j].stoich {
			m.jp = append(m.jp, polluTerm{pos: jpIdx[sc[0]][j], j: j, coef: float64(sc[1])})
		}
	}
	return Problem{
		Name: "POLLU", Model: m, T0: 0, TEnd: 60, Stiff: true,
		Refs: []Checkpoint{{60, []float64{
			5.64625548002276928e-2, 1.34248413042233852e-1, 4.13973433109942697e-9, 5.52314020748435994e-3,
			2.01897726230219604e-7, 1.46454186349396579e-7, 7.78424911899796415e-2, 3.24507535339601822e-1,
			7.49401338388040555e-3, 1.62229315730156035e-8, 1.13586383325707482e-8, 2.23050597572135986e-3,
			2.08716288279863004e-4, 1.39692101684015772e-5, 8.96488485689829418e-3, 4.35284636933010367e-18,
			6.89921969626340540e-3, 1.00780303736594595e-4, 1.77214651396998454e-6, 5.68294329231639344e-5,
		}}},
	}
}

// monomials writes the reactant products (rate / k) of the 25 reactions.
func polluMonomials(dst *[25]float64, y []float64) {
	for j := range polluTable {
		r := &polluTable[j]
		v := y[r.r1]
		if r.r2 >= 0 {
			v *= y[r.r2]
		}
		dst[j] = v
	}
}

// F evaluates f; the rates live on the stack, so F is safe for
// concurrent use.
func (m *pollu) F(dst []float64, t float64, y, p []float64) {
	var r [25]float64
	polluMonomials(&r, y)
	for j := range r {
		r[j] *= p[j]
	}
	clear(dst[:20])
	for _, ft := range m.fterm {
		dst[ft[0]] += float64(ft[2]) * r[ft[1]]
	}
}

func (m *pollu) Jx(dst []float64, t float64, y, p []float64) {
	clear(dst[:len(m.jxp.ColIdx)])
	for _, e := range m.jx {
		v := e.coef * p[e.j]
		if e.other >= 0 {
			v *= y[e.other]
		}
		dst[e.pos] += v
	}
}

func (m *pollu) Jp(dst []float64, t float64, y, p []float64) {
	var r [25]float64
	polluMonomials(&r, y)
	clear(dst[:len(m.jpp.ColIdx)])
	for _, e := range m.jp {
		dst[e.pos] += e.coef * r[e.j]
	}
}
