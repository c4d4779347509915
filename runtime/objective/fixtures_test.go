package objective_test

import (
	"math"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
)

// Hand-written models with observables for the tests and the example.

// pattern builds a CSR pattern from a dense 0/1 mask given row by row.
func pattern(rows, cols int, mask ...[]int) *model.Pattern {
	p := &model.Pattern{Rows: rows, Cols: cols, RowPtr: make([]int, rows+1)}
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if mask[i][j] != 0 {
				p.ColIdx = append(p.ColIdx, j)
			}
		}
		p.RowPtr[i+1] = len(p.ColIdx)
	}
	return p
}

// decay is x' = -k x, x(0) = x0 (parameters k, x0) with one observable
// y = u0 x and noise sigma = u1 (an observable and a noise placeholder):
// x(t) = x0 exp(-k t) gives the likelihood, gradient and FIM in closed
// form.
type decay struct{ jx, jp *model.Pattern }

func newDecay() *decay {
	return &decay{jx: pattern(1, 1, []int{1}), jp: pattern(1, 2, []int{1, 0})}
}

func (*decay) Name() string                                { return "decay" }
func (*decay) StateNames() []string                        { return []string{"x"} }
func (*decay) ParamNames() []string                        { return []string{"k", "x0"} }
func (*decay) DefaultParams(dst []float64)                 { dst[0], dst[1] = 1, 1 }
func (*decay) InitialState(dst, p []float64)               { dst[0] = p[1] }
func (*decay) InitialSens(dst, p []float64)                { dst[0], dst[1] = 0, 1 }
func (*decay) F(dst []float64, _ float64, x, p []float64)  { dst[0] = -p[0] * x[0] }
func (d *decay) JxPattern() *model.Pattern                 { return d.jx }
func (*decay) Jx(dst []float64, _ float64, x, p []float64) { dst[0] = -p[0] }
func (d *decay) JpPattern() *model.Pattern                 { return d.jp }
func (*decay) Jp(dst []float64, _ float64, x, p []float64) { dst[0] = -x[0] }

func (*decay) ObservableIDs() []string     { return []string{"y"} }
func (*decay) Placeholders(int) (int, int) { return 1, 1 }
func (*decay) Observe(_ int, _ float64, x, _, u []float64, d *model.ObsDeriv) (float64, float64) {
	if d != nil {
		d.HX[0], d.HP[0], d.HP[1], d.HU[0], d.HU[1] = u[0], 0, 0, x[0], 0
		d.SX[0], d.SP[0], d.SP[1], d.SU[0], d.SU[1] = 0, 0, 0, 0, 1
	}
	return u[0] * x[0], u[1]
}

// abc is A <-> B (A -> B at k1 A, B -> A at k2 B^2: A + B is conserved, so
// Jx is singular) and C made from A and B at k3 A B, degraded at k4 C.
// Parameters k1..k4 and the initial values A0, B0, C0. Observables:
//
//	pB     u0 B             sigma u1             (placeholders 1+1)
//	pC     C                sigma u0 + u1 C      (0+2: state-dependent noise)
//	ratio  k3 A / (A + B)   sigma 0.05           (depends on p)
//	AC     A + C            sigma u0             (0+1)
type abc struct{ jx, jp *model.Pattern }

func newABC() *abc {
	return &abc{
		jx: pattern(3, 3, []int{1, 1, 0}, []int{1, 1, 0}, []int{1, 1, 1}),
		jp: pattern(3, 7, []int{1, 1, 0, 0, 0, 0, 0}, []int{1, 1, 0, 0, 0, 0, 0}, []int{0, 0, 1, 1, 0, 0, 0}),
	}
}

func (*abc) Name() string         { return "abc" }
func (*abc) StateNames() []string { return []string{"A", "B", "C"} }
func (*abc) ParamNames() []string {
	return []string{"k1", "k2", "k3", "k4", "A0", "B0", "C0"}
}
func (*abc) DefaultParams(dst []float64) { copy(dst, []float64{1, 2, 0.5, 0.7, 1, 0.3, 0.2}) }
func (*abc) InitialState(dst, p []float64) {
	dst[0], dst[1], dst[2] = p[4], p[5], p[6]
}
func (*abc) InitialSens(dst, p []float64) {
	clear(dst)
	dst[0*7+4], dst[1*7+5], dst[2*7+6] = 1, 1, 1
}
func (*abc) F(dst []float64, _ float64, x, p []float64) {
	a, b, c := x[0], x[1], x[2]
	v := p[0]*a - p[1]*b*b
	dst[0], dst[1], dst[2] = -v, v, p[2]*a*b-p[3]*c
}
func (m *abc) JxPattern() *model.Pattern { return m.jx }
func (*abc) Jx(dst []float64, _ float64, x, p []float64) {
	a, b := x[0], x[1]
	dst[0], dst[1] = -p[0], 2*p[1]*b
	dst[2], dst[3] = p[0], -2*p[1]*b
	dst[4], dst[5], dst[6] = p[2]*b, p[2]*a, -p[3]
}
func (m *abc) JpPattern() *model.Pattern { return m.jp }
func (*abc) Jp(dst []float64, _ float64, x, p []float64) {
	a, b, c := x[0], x[1], x[2]
	dst[0], dst[1] = -a, b*b
	dst[2], dst[3] = a, -b*b
	dst[4], dst[5] = a*b, -c
}

func (*abc) ObservableIDs() []string { return []string{"pB", "pC", "ratio", "AC"} }
func (*abc) Placeholders(k int) (int, int) {
	return [...]int{1, 0, 0, 0}[k], [...]int{1, 2, 0, 1}[k]
}
func (*abc) Observe(k int, _ float64, x, p, u []float64, d *model.ObsDeriv) (y, sigma float64) {
	a, b, c := x[0], x[1], x[2]
	if d != nil {
		clear(d.HX)
		clear(d.HP)
		clear(d.HU)
		clear(d.SX)
		clear(d.SP)
		clear(d.SU)
	}
	switch k {
	case 0:
		if d != nil {
			d.HX[1], d.HU[0], d.SU[1] = u[0], b, 1
		}
		return u[0] * b, u[1]
	case 1:
		if d != nil {
			d.HX[2] = 1
			d.SX[2], d.SU[0], d.SU[1] = u[1], 1, c
		}
		return c, u[0] + u[1]*c
	case 2:
		s := a + b
		if d != nil {
			d.HX[0] = p[2] * b / (s * s)
			d.HX[1] = -p[2] * a / (s * s)
			d.HP[2] = a / s
		}
		return p[2] * a / s, 0.05
	}
	if d != nil {
		d.HX[0], d.HX[2], d.SU[0] = 1, 1, 1
	}
	return a + c, u[0]
}

// abcProblem is a problem on abc with every path to theta: a theta only in
// the pre-equilibration condition (k1pre), thetas in both conditions, an
// initial value re-initialised after pre-equilibration (C0), observable and
// noise placeholders estimated and overridden by constants, normal and
// Laplace noise on lin, log and log10 observables, steady-state data.
func abcProblem() *objective.Problem {
	th := func(a int) objective.Value { return objective.Value{Theta: a} }
	k := func(v float64) objective.Value { return objective.Value{Theta: -1, Const: v} }
	par := func(id string, s objective.Scale, nominal float64) objective.Param {
		return objective.Param{ID: id, Scale: s, Lower: 1e-3, Upper: 1e3, Nominal: nominal, Estimate: true}
	}
	p := &objective.Problem{
		Params: []objective.Param{
			par("k1", objective.Log10, 1.2),
			par("k1pre", objective.Log, 0.6),
			par("k2", objective.Lin, 1.5),
			par("k3", objective.Log10, 0.8),
			par("k4", objective.Log, 0.9),
			par("A0", objective.Lin, 1.1),
			par("C0", objective.Log, 0.4),
			par("scale", objective.Log10, 2.0),
			par("sigma_pB", objective.Log10, 0.1),
			par("sigma_rel", objective.Lin, 0.2),
			{ID: "fixed", Scale: objective.Lin, Nominal: 3},
		},
		Estimated: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
		Observables: []objective.Observable{
			{ID: "pB", Transform: objective.TransformLin, Noise: objective.Normal},
			{ID: "pC", Transform: objective.TransformLog, Noise: objective.Laplace},
			{ID: "ratio", Transform: objective.TransformLog10, Noise: objective.Normal},
			{ID: "AC", Transform: objective.TransformLin, Noise: objective.Laplace},
		},
		Conditions: []objective.Condition{
			{ID: "preeq", P: []objective.Value{th(1), th(2), th(3), th(4), th(5), k(0.3), k(0.2)}},
			{ID: "stim", P: []objective.Value{th(0), th(2), th(3), th(4), th(5), k(0.3), th(6)}},
			{ID: "plain", P: []objective.Value{th(0), th(2), th(3), k(0.7), th(5), k(0.5), k(0.1)}},
		},
	}
	pB := func(t, y float64, s objective.Value) objective.Datum {
		return objective.Datum{Obs: 0, T: t, Y: y, U: []objective.Value{s, th(8)}}
	}
	pC := func(t, y float64) objective.Datum {
		return objective.Datum{Obs: 1, T: t, Y: y, U: []objective.Value{k(0.05), th(9)}}
	}
	ratio := func(t, y float64) objective.Datum { return objective.Datum{Obs: 2, T: t, Y: y} }
	ac := func(t, y float64) objective.Datum {
		return objective.Datum{Obs: 3, T: t, Y: y, U: []objective.Value{k(0.1)}}
	}
	p.Experiments = []objective.Experiment{
		{Preeq: 0, Sim: 1, Reinit: []int{2}, T0: 0, Data: []objective.Datum{
			pB(0.5, 1.3, th(7)), pB(1, 1.1, k(2)), pC(1, 0.45), pB(1, 1.2, th(7)),
			ratio(3, 0.5), ac(3, 1.0), pC(posInf, 0.6), pB(posInf, 1.4, th(7)),
		}},
		{Preeq: -1, Sim: 2, T0: 0, Data: []objective.Datum{
			pB(0, 1.0, th(7)), pB(1, 0.8, th(7)), pB(2, 0.9, th(7)), ratio(2, 0.3), pC(2.5, 0.3),
		}},
		{Preeq: 0, Sim: 2, T0: 0, Data: []objective.Datum{ratio(posInf, 0.4), ac(posInf, 1.5)}},
	}
	return p
}

var posInf = math.Inf(1)
