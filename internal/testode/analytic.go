package testode

import "math"

// ---------------------------------------------------------------- Linear

type linear struct{ meta }

// Linear is the two-compartment chain x1' = -a x1, x2' = a x1 - b x2 from
// x(0) = (1, 0) with parameters (a, b), whose solution and sensitivities
// are known in closed form (LinearSolution, LinearSens). With b >> a it is
// stiff. Its reference is at TEnd = 10.
func Linear(a, b float64) Problem {
	m := &linear{meta{
		name:   "LINEAR",
		states: []string{"x1", "x2"},
		params: []string{"a", "b"},
		p0:     []float64{a, b},
		x0:     []float64{1, 0},
		jxp:    pattern(2, 2, [][2]int{{0, 0}, {1, 0}, {1, 1}}),
		jpp:    pattern(2, 2, [][2]int{{0, 0}, {1, 0}, {1, 1}}),
	}}
	x := make([]float64, 2)
	LinearSolution(x, 10, m.p0)
	return Problem{Name: "LINEAR", Model: m, T0: 0, TEnd: 10, Stiff: b > 100*a,
		Refs: []Checkpoint{{10, x}}}
}

func (m *linear) F(dst []float64, t float64, y, p []float64) {
	dst[0] = -p[0] * y[0]
	dst[1] = p[0]*y[0] - p[1]*y[1]
}

func (m *linear) Jx(dst []float64, t float64, y, p []float64) {
	dst[0], dst[1], dst[2] = -p[0], p[0], -p[1]
}

func (m *linear) Jp(dst []float64, t float64, y, p []float64) {
	dst[0], dst[1], dst[2] = -y[0], y[0], -y[1]
}

// LinearSolution writes x(t) of Linear for parameters p = (a, b), a != b.
func LinearSolution(dst []float64, t float64, p []float64) {
	a, b := p[0], p[1]
	ea, eb := math.Exp(-a*t), math.Exp(-b*t)
	dst[0] = ea
	dst[1] = a / (b - a) * (ea - eb)
}

// LinearSens writes dx(t)/dp of Linear (row-major 2 x 2) for p = (a, b).
func LinearSens(dst []float64, t float64, p []float64) {
	a, b := p[0], p[1]
	ea, eb := math.Exp(-a*t), math.Exp(-b*t)
	d := b - a
	e := ea - eb
	dst[0] = -t * ea
	dst[1] = 0
	dst[2] = e*b/(d*d) - a*t*ea/d
	dst[3] = -a*e/(d*d) + a*t*eb/d
}

// ---------------------------------------------------------------- Blowup

type blowup struct{ meta }

// Blowup is y' = p y^2, y(0) = 1 with p = 1: y = 1/(1 - t), which blows up
// at t = 1. TEnd = 0.9 is the last reference point; integrating past 1 must
// fail with an error.
func Blowup() Problem {
	m := &blowup{meta{
		name:   "BLOWUP",
		states: []string{"y"},
		params: []string{"p"},
		p0:     []float64{1},
		x0:     []float64{1},
		jxp:    pattern(1, 1, [][2]int{{0, 0}}),
		jpp:    pattern(1, 1, [][2]int{{0, 0}}),
	}}
	return Problem{Name: "BLOWUP", Model: m, T0: 0, TEnd: 0.9,
		Refs: []Checkpoint{{0.5, []float64{2}}, {0.9, []float64{10}}}}
}

func (m *blowup) F(dst []float64, t float64, y, p []float64) { dst[0] = p[0] * y[0] * y[0] }
func (m *blowup) Jx(dst []float64, t float64, y, p []float64) {
	dst[0] = 2 * p[0] * y[0]
}
func (m *blowup) Jp(dst []float64, t float64, y, p []float64) { dst[0] = y[0] * y[0] }
