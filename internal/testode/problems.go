package testode

// ---------------------------------------------------------------- ROBER

type rober struct{ meta }

// Rober is Robertson's chemical kinetics problem on [0, 1e11],
// parameters (k1, k2, k3) = (0.04, 3e7, 1e4), with [S7] references at
// t = 40 and t = 1e11.
func Rober() Problem {
	m := &rober{meta{
		name:   "ROBER",
		states: names("y", 3),
		params: []string{"k1", "k2", "k3"},
		p0:     []float64{0.04, 3e7, 1e4},
		x0:     []float64{1, 0, 0},
		jxp:    pattern(3, 3, [][2]int{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {2, 1}}),
		jpp:    pattern(3, 3, [][2]int{{0, 0}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {2, 1}}),
	}}
	return Problem{
		Name: "ROBER", Model: m, T0: 0, TEnd: 1e11, Stiff: true,
		ATolMax: []float64{1, 1e-14, 1},
		Refs: []Checkpoint{
			{40, []float64{7.15827068719405090e-1, 9.18553476455776390e-6, 2.84163745745830352e-1}},
			{1e11, []float64{2.08334014970129423e-8, 8.33336077033478340e-14, 9.99999979166515169e-1}},
		},
	}
}

func (m *rober) F(dst []float64, t float64, y, p []float64) {
	k1, k2, k3 := p[0], p[1], p[2]
	dst[0] = -k1*y[0] + k3*y[1]*y[2]
	dst[1] = k1*y[0] - k3*y[1]*y[2] - k2*y[1]*y[1]
	dst[2] = k2 * y[1] * y[1]
}

func (m *rober) Jx(dst []float64, t float64, y, p []float64) {
	k1, k2, k3 := p[0], p[1], p[2]
	dst[0] = -k1
	dst[1] = k3 * y[2]
	dst[2] = k3 * y[1]
	dst[3] = k1
	dst[4] = -2*k2*y[1] - k3*y[2]
	dst[5] = -k3 * y[1]
	dst[6] = 2 * k2 * y[1]
}

func (m *rober) Jp(dst []float64, t float64, y, p []float64) {
	dst[0] = -y[0]
	dst[1] = y[1] * y[2]
	dst[2] = y[0]
	dst[3] = -y[1] * y[1]
	dst[4] = -y[1] * y[2]
	dst[5] = y[1] * y[1]
}

// ---------------------------------------------------------------- HIRES

type hires struct{ meta }

// Hires is the High Irradiance RESponse problem on [0, 321.8122] with
// parameters (k1, k2, k3, k4, k5, k6, k+, k-, k*, oks), references at
// t = 321.8122 and 421.8122.
func Hires() Problem {
	m := &hires{meta{
		name:   "HIRES",
		states: names("y", 8),
		params: []string{"k1", "k2", "k3", "k4", "k5", "k6", "kplus", "kminus", "kstar", "oks"},
		p0:     []float64{1.71, 0.43, 8.32, 0.69, 0.035, 8.32, 280, 0.69, 0.69, 0.0007},
		x0:     []float64{1, 0, 0, 0, 0, 0, 0, 0.0057},
		jxp: pattern(8, 8, [][2]int{
			{0, 0}, {0, 1}, {0, 2},
			{1, 0}, {1, 1},
			{2, 2}, {2, 3}, {2, 4},
			{3, 1}, {3, 2}, {3, 3},
			{4, 4}, {4, 5}, {4, 6},
			{5, 3}, {5, 4}, {5, 5}, {5, 6}, {5, 7},
			{6, 5}, {6, 6}, {6, 7},
			{7, 5}, {7, 6}, {7, 7},
		}),
		jpp: pattern(8, 10, [][2]int{
			{0, 0}, {0, 1}, {0, 5}, {0, 9},
			{1, 0}, {1, 1}, {1, 2},
			{2, 0}, {2, 1}, {2, 4}, {2, 5},
			{3, 0}, {3, 1}, {3, 2}, {3, 3},
			{4, 0}, {4, 1}, {4, 4},
			{5, 0}, {5, 1}, {5, 3}, {5, 6}, {5, 7},
			{6, 1}, {6, 6}, {6, 7}, {6, 8},
			{7, 1}, {7, 6}, {7, 7}, {7, 8},
		}),
	}}
	return Problem{
		Name: "HIRES", Model: m, T0: 0, TEnd: 321.8122, Stiff: true,
		Refs: []Checkpoint{
			{321.8122, []float64{7.37131257332566781e-4, 1.44248572631618466e-4, 5.88872974096757501e-5,
				1.17565134328314915e-3, 2.38635619883133047e-3, 6.23896825274279578e-3,
				2.84999839518576866e-3, 2.85000160481423134e-3}},
		},
	}
}

func (m *hires) F(dst []float64, t float64, y, p []float64) {
	k1, k2, k3, k4, k5, k6, kp, km, ks, oks := p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9]
	dst[0] = -k1*y[0] + k2*y[1] + k6*y[2] + oks
	dst[1] = k1*y[0] - (k2+k3)*y[1]
	dst[2] = -(k6+k1)*y[2] + k2*y[3] + k5*y[4]
	dst[3] = k3*y[1] + k1*y[2] - (k4+k2)*y[3]
	dst[4] = -(k5+k1)*y[4] + k2*(y[5]+y[6])
	dst[5] = -kp*y[5]*y[7] + k4*y[3] + k1*y[4] - k2*y[5] + km*y[6]
	f7 := kp*y[5]*y[7] - (k2+km+ks)*y[6]
	dst[6] = f7
	dst[7] = -f7
}

func (m *hires) Jx(dst []float64, t float64, y, p []float64) {
	k1, k2, k3, k4, k5, k6, kp, km, ks := p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8]
	dst[0], dst[1], dst[2] = -k1, k2, k6
	dst[3], dst[4] = k1, -(k2 + k3)
	dst[5], dst[6], dst[7] = -(k6 + k1), k2, k5
	dst[8], dst[9], dst[10] = k3, k1, -(k4 + k2)
	dst[11], dst[12], dst[13] = -(k5 + k1), k2, k2
	dst[14], dst[15], dst[16], dst[17], dst[18] = k4, k1, -kp*y[7]-k2, km, -kp*y[5]
	d := k2 + km + ks
	dst[19], dst[20], dst[21] = kp*y[7], -d, kp*y[5]
	dst[22], dst[23], dst[24] = -kp*y[7], d, -kp*y[5]
}

func (m *hires) Jp(dst []float64, t float64, y, p []float64) {
	dst[0], dst[1], dst[2], dst[3] = -y[0], y[1], y[2], 1
	dst[4], dst[5], dst[6] = y[0], -y[1], -y[1]
	dst[7], dst[8], dst[9], dst[10] = -y[2], y[3], y[4], -y[2]
	dst[11], dst[12], dst[13], dst[14] = y[2], -y[3], y[1], -y[3]
	dst[15], dst[16], dst[17] = -y[4], y[5]+y[6], -y[4]
	dst[18], dst[19], dst[20], dst[21], dst[22] = y[4], -y[5], y[3], -y[5]*y[7], y[6]
	dst[23], dst[24], dst[25], dst[26] = -y[6], y[5]*y[7], -y[6], -y[6]
	dst[27], dst[28], dst[29], dst[30] = y[6], -y[5]*y[7], y[6], y[6]
}

// ---------------------------------------------------------------- VDPOL

type vdpol struct{ meta }

// VdPol is the Van der Pol oscillator in the test set's eps form
// (y2' = ((1 - y1^2) y2 - y1)/eps, eps = 1e-6) on [0, 2] from (2, 0),
// references at t = 1 and t = 2.
func VdPol() Problem {
	m := &vdpol{meta{
		name:   "VDPOL",
		states: names("y", 2),
		params: []string{"eps"},
		p0:     []float64{1e-6},
		x0:     []float64{2, 0},
		jxp:    pattern(2, 2, [][2]int{{0, 1}, {1, 0}, {1, 1}}),
		jpp:    pattern(2, 1, [][2]int{{1, 0}}),
	}}
	return Problem{
		Name: "VDPOL", Model: m, T0: 0, TEnd: 2, Stiff: true,
		Refs: []Checkpoint{
			{1, []float64{-1.86364625480813389, 7.53543086543543360e-1}},
			{2, []float64{1.70616773217046501, -8.92809701024816548e-1}},
		},
	}
}

func (m *vdpol) F(dst []float64, t float64, y, p []float64) {
	dst[0] = y[1]
	dst[1] = ((1-y[0]*y[0])*y[1] - y[0]) / p[0]
}

func (m *vdpol) Jx(dst []float64, t float64, y, p []float64) {
	dst[0] = 1
	dst[1] = (-2*y[0]*y[1] - 1) / p[0]
	dst[2] = (1 - y[0]*y[0]) / p[0]
}

func (m *vdpol) Jp(dst []float64, t float64, y, p []float64) {
	dst[0] = -((1-y[0]*y[0])*y[1] - y[0]) / (p[0] * p[0])
}

// ---------------------------------------------------------------- OREGO

type orego struct{ meta }

// Orego is the Oregonator on [0, 360] with parameters (s, w, q) =
// (77.27, 0.161, 8.375e-6), references at t = 30 and t = 360.
func Orego() Problem {
	m := &orego{meta{
		name:   "OREGO",
		states: names("y", 3),
		params: []string{"s", "w", "q"},
		p0:     []float64{77.27, 0.161, 8.375e-6},
		x0:     []float64{1, 2, 3},
		jxp:    pattern(3, 3, [][2]int{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {1, 2}, {2, 0}, {2, 2}}),
		jpp:    pattern(3, 3, [][2]int{{0, 0}, {0, 2}, {1, 0}, {2, 1}}),
	}}
	return Problem{
		Name: "OREGO", Model: m, T0: 0, TEnd: 360, Stiff: true,
		Refs: []Checkpoint{
			{30, []float64{1.00066146718049672, 1.51277893734825042e+3, 1.03585431276722757e+4}},
			{360, []float64{1.00081487031852272, 1.22817852154988798e+3, 1.32055494284650829e+2}},
		},
	}
}

func (m *orego) F(dst []float64, t float64, y, p []float64) {
	s, w, q := p[0], p[1], p[2]
	dst[0] = s * (y[1] + y[0]*(1-q*y[0]-y[1]))
	dst[1] = (y[2] - (1+y[0])*y[1]) / s
	dst[2] = w * (y[0] - y[2])
}

func (m *orego) Jx(dst []float64, t float64, y, p []float64) {
	s, w, q := p[0], p[1], p[2]
	dst[0] = s * (1 - 2*q*y[0] - y[1])
	dst[1] = s * (1 - y[0])
	dst[2] = -y[1] / s
	dst[3] = -(1 + y[0]) / s
	dst[4] = 1 / s
	dst[5] = w
	dst[6] = -w
}

func (m *orego) Jp(dst []float64, t float64, y, p []float64) {
	s, q := p[0], p[2]
	dst[0] = y[1] + y[0]*(1-q*y[0]-y[1])
	dst[1] = -s * y[0] * y[0]
	dst[2] = -(y[2] - (1+y[0])*y[1]) / (s * s)
	dst[3] = y[0] - y[2]
}

// ---------------------------------------------------------------- E5

type e5 struct{ meta }

// E5 is Datta's chemical pyrolysis problem on [0, 1e13] with parameters
// (A, B, C, M) = (7.89e-10, 1.1e7, 1.13e3, 1e6), references at t = 1e11
// and 1e13. Its values span 1e-3 to 1e-23, so it needs atol about 1e-24
// (ATolMax).
func E5() Problem {
	m := &e5{meta{
		name:   "E5",
		states: names("y", 4),
		params: []string{"A", "B", "C", "M"},
		p0:     []float64{7.89e-10, 1.1e7, 1.13e3, 1e6},
		x0:     []float64{1.76e-3, 0, 0, 0},
		jxp: pattern(4, 4, [][2]int{{0, 0}, {0, 2}, {1, 0}, {1, 1}, {1, 2},
			{2, 0}, {2, 1}, {2, 2}, {2, 3}, {3, 0}, {3, 2}, {3, 3}}),
		jpp: pattern(4, 4, [][2]int{{0, 0}, {0, 1}, {1, 0}, {1, 2}, {1, 3},
			{2, 0}, {2, 1}, {2, 2}, {2, 3}, {3, 1}, {3, 2}}),
	}}
	return Problem{
		Name: "E5", Model: m, T0: 0, TEnd: 1e13, Stiff: true,
		Refs: []Checkpoint{
			{1e11, []float64{3.76930821973897288e-49, 1.01925825681427059e-20, 1.01925825681427059e-20, 3.73990121946418238e-65}},
			{1e13, []float64{0, 8.86123352129108424e-23, 8.86123352129108424e-23, 0}},
		},
		ATolMax: []float64{1e-24, 1e-24, 1e-24, 1e-24},
	}
}

// F follows e5.f: f3 = f2 - f4 avoids cancellation.
func (m *e5) F(dst []float64, t float64, y, p []float64) {
	a, b, c, mm := p[0], p[1], p[2], p[3]
	p1 := a * y[0]
	p2 := b * y[0] * y[2]
	p3 := mm * c * y[1] * y[2]
	p4 := c * y[3]
	dst[0] = -p1 - p2
	dst[1] = p1 - p3
	dst[3] = p2 - p4
	dst[2] = dst[1] - dst[3]
}

func (m *e5) Jx(dst []float64, t float64, y, p []float64) {
	a, b, c, mm := p[0], p[1], p[2], p[3]
	mc := mm * c
	dst[0], dst[1] = -a-b*y[2], -b*y[0]
	dst[2], dst[3], dst[4] = a, -mc*y[2], -mc*y[1]
	dst[5], dst[6], dst[7], dst[8] = a-b*y[2], -mc*y[2], -mc*y[1]-b*y[0], c
	dst[9], dst[10], dst[11] = b*y[2], b*y[0], -c
}

func (m *e5) Jp(dst []float64, t float64, y, p []float64) {
	c, mm := p[2], p[3]
	y23 := y[1] * y[2]
	dst[0], dst[1] = -y[0], -y[0]*y[2]
	dst[2], dst[3], dst[4] = y[0], -mm*y23, -c*y23
	dst[5], dst[6], dst[7], dst[8] = y[0], -y[0]*y[2], -mm*y23+y[3], -c*y23
	dst[9], dst[10] = y[0]*y[2], -y[3]
}
