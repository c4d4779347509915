// Package testmodels holds hand-written implementations of model.Model used
// as reference problems by the runtime's tests and benchmarks: Chua's
// circuit, the random linear system of the Peano-Baker paper, a closed
// two-species network A <-> B (singular Jx), a constant-coefficient linear
// system and a time-varying linear system with a closed-form solution.
// Where a closed form exists it is provided, so that sensitivities can be
// checked against something independent of the solvers.
//
// All models are immutable after construction and safe for concurrent use.
package testmodels

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"

	"github.com/pbgen/pbgen/runtime/model"
)

func names(prefix string, n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("%s%d", prefix, i+1)
	}
	return s
}

func densePattern(r, c int) *model.Pattern {
	p := &model.Pattern{Rows: r, Cols: c, RowPtr: make([]int, r+1), ColIdx: make([]int, 0, r*c)}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			p.ColIdx = append(p.ColIdx, j)
		}
		p.RowPtr[i+1] = len(p.ColIdx)
	}
	return p
}

func diagPattern(n int) *model.Pattern {
	p := &model.Pattern{Rows: n, Cols: n, RowPtr: make([]int, n+1), ColIdx: make([]int, n)}
	for i := 0; i < n; i++ {
		p.ColIdx[i] = i
		p.RowPtr[i+1] = i + 1
	}
	return p
}

// ---------------------------------------------------------------- Chua

// Chua is Chua's circuit as in the Peano-Baker paper:
//
//	dx1/dt = p1 (x2 - x1 - g(x1)),  g(x) = -8/7 x + 4/63 x^3
//	dx2/dt = x1 - x2 + x3
//	dx3/dt = -p2 x2
//
// with x(0) = X0 (default (0, 0, -0.1)) independent of p. p = (7, 15) gives
// a limit cycle, p1 = 1 a stable equilibrium.
type Chua struct {
	X0 [3]float64
}

// NewChua returns Chua's circuit with x(0) = (0, 0, -0.1).
func NewChua() *Chua { return &Chua{X0: [3]float64{0, 0, -0.1}} }

var (
	chuaJx = &model.Pattern{Rows: 3, Cols: 3, RowPtr: []int{0, 2, 5, 6}, ColIdx: []int{0, 1, 0, 1, 2, 1}}
	chuaJp = &model.Pattern{Rows: 3, Cols: 2, RowPtr: []int{0, 1, 1, 2}, ColIdx: []int{0, 1}}
)

func (*Chua) Name() string                    { return "chua" }
func (*Chua) StateNames() []string            { return []string{"x1", "x2", "x3"} }
func (*Chua) ParamNames() []string            { return []string{"p1", "p2"} }
func (*Chua) DefaultParams(dst []float64)     { dst[0], dst[1] = 7, 15 }
func (c *Chua) InitialState(dst, _ []float64) { copy(dst, c.X0[:]) }
func (*Chua) InitialSens(dst, _ []float64)    { clear(dst) }
func (*Chua) JxPattern() *model.Pattern       { return chuaJx }
func (*Chua) JpPattern() *model.Pattern       { return chuaJp }

func (*Chua) F(dst []float64, _ float64, x, p []float64) {
	x1, x2, x3 := x[0], x[1], x[2]
	dst[0] = p[0] * (x2 + x1/7 - 4.0/63*x1*x1*x1)
	dst[1] = x1 - x2 + x3
	dst[2] = -p[1] * x2
}

func (*Chua) Jx(dst []float64, _ float64, x, p []float64) {
	dst[0] = p[0] * (1.0/7 - 12.0/63*x[0]*x[0])
	dst[1] = p[0]
	dst[2], dst[3], dst[4] = 1, -1, 1
	dst[5] = -p[1]
}

func (*Chua) Jp(dst []float64, _ float64, x, _ []float64) {
	x1 := x[0]
	dst[0] = x[1] + x1/7 - 4.0/63*x1*x1*x1
	dst[1] = -x[1]
}

// ---------------------------------------------------------------- random linear

// RandomLinear is the random linear system of the Peano-Baker paper:
// B uniform on [0,1]^(n x n), A = -B^T B, p uniform on [0,1]^n (the default
// parameters), dx/dt = A x + p.^2 + 1, x(0) = ones. Jx = A is dense and
// constant; Jp = diag(2 p).
type RandomLinear struct {
	n  int
	a  []float64 // row-major n x n
	p0 []float64
	jx *model.Pattern
	jp *model.Pattern
}

// NewRandomLinear draws the system of dimension n from the PCG generator
// seeded with (seed, seed).
func NewRandomLinear(n int, seed uint64) *RandomLinear {
	if n <= 0 {
		panic("testmodels: RandomLinear dimension must be positive")
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	b := make([]float64, n*n)
	for i := range b {
		b[i] = rng.Float64()
	}
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for k := 0; k < n; k++ {
				s += b[k*n+i] * b[k*n+j]
			}
			a[i*n+j] = -s
		}
	}
	p0 := make([]float64, n)
	for i := range p0 {
		p0[i] = rng.Float64()
	}
	return &RandomLinear{n: n, a: a, p0: p0, jx: densePattern(n, n), jp: diagPattern(n)}
}

// A returns the system matrix (row-major, do not modify).
func (m *RandomLinear) A() []float64 { return m.a }

func (m *RandomLinear) Name() string                  { return fmt.Sprintf("randomlinear%d", m.n) }
func (m *RandomLinear) StateNames() []string          { return names("x", m.n) }
func (m *RandomLinear) ParamNames() []string          { return names("p", m.n) }
func (m *RandomLinear) DefaultParams(dst []float64)   { copy(dst, m.p0) }
func (m *RandomLinear) InitialState(dst, _ []float64) { fill(dst, 1) }
func (m *RandomLinear) InitialSens(dst, _ []float64)  { clear(dst) }
func (m *RandomLinear) JxPattern() *model.Pattern     { return m.jx }
func (m *RandomLinear) JpPattern() *model.Pattern     { return m.jp }

func (m *RandomLinear) F(dst []float64, _ float64, x, p []float64) {
	n := m.n
	for i := 0; i < n; i++ {
		s := p[i]*p[i] + 1
		row := m.a[i*n : (i+1)*n]
		for j, v := range row {
			s += v * x[j]
		}
		dst[i] = s
	}
}

func (m *RandomLinear) Jx(dst []float64, _ float64, _, _ []float64) { copy(dst, m.a) }

func (m *RandomLinear) Jp(dst []float64, _ float64, _, p []float64) {
	for i := range dst {
		dst[i] = 2 * p[i]
	}
}

func fill(dst []float64, v float64) {
	for i := range dst {
		dst[i] = v
	}
}

// ---------------------------------------------------------------- A <-> B

// Isomerization is the closed network A <-> B with mass action,
//
//	dA/dt = -k1 A + k2 B,   dB/dt = k1 A - k2 B,
//
// p = (k1, k2) (default (3, 0.5)), x(0) = X0 (default (1, 0)). A + B is
// conserved, so Jx = [[-k1, k2], [k1, -k2]] is singular: methods that invert
// Jx fail here, exponential methods must not.
type Isomerization struct {
	X0 [2]float64
}

// NewIsomerization returns A <-> B with x(0) = (1, 0).
func NewIsomerization() *Isomerization { return &Isomerization{X0: [2]float64{1, 0}} }

var (
	isoJx = densePattern(2, 2)
	isoJp = densePattern(2, 2)
)

func (*Isomerization) Name() string                    { return "isomerization" }
func (*Isomerization) StateNames() []string            { return []string{"A", "B"} }
func (*Isomerization) ParamNames() []string            { return []string{"k1", "k2"} }
func (*Isomerization) DefaultParams(dst []float64)     { dst[0], dst[1] = 3, 0.5 }
func (m *Isomerization) InitialState(dst, _ []float64) { copy(dst, m.X0[:]) }
func (*Isomerization) InitialSens(dst, _ []float64)    { clear(dst) }
func (*Isomerization) JxPattern() *model.Pattern       { return isoJx }
func (*Isomerization) JpPattern() *model.Pattern       { return isoJp }

func (*Isomerization) F(dst []float64, _ float64, x, p []float64) {
	v := p[0]*x[0] - p[1]*x[1]
	dst[0], dst[1] = -v, v
}

func (*Isomerization) Jx(dst []float64, _ float64, _, p []float64) {
	dst[0], dst[1], dst[2], dst[3] = -p[0], p[1], p[0], -p[1]
}

func (*Isomerization) Jp(dst []float64, _ float64, x, _ []float64) {
	dst[0], dst[1], dst[2], dst[3] = -x[0], x[1], x[0], -x[1]
}

// Exact writes the closed-form x(t) (length 2) and S(t) = dx/dp (row-major
// 2 x 2) for x(0) = X0: with T = A0 + B0, r = k1 + k2, c = T k2 / r,
// A(t) = c + (A0 - c) e^{-rt}, B = T - A.
func (m *Isomerization) Exact(dstX, dstS []float64, t float64, p []float64) {
	k1, k2 := p[0], p[1]
	a0 := m.X0[0]
	tot := m.X0[0] + m.X0[1]
	r := k1 + k2
	c := tot * k2 / r
	e := math.Exp(-r * t)
	a := c + (a0-c)*e
	dstX[0], dstX[1] = a, tot-a
	dc1 := -tot * k2 / (r * r)
	dc2 := tot * k1 / (r * r)
	oneMinus := -math.Expm1(-r * t)
	da1 := dc1*oneMinus - (a0-c)*t*e
	da2 := dc2*oneMinus - (a0-c)*t*e
	dstS[0], dstS[1] = da1, da2
	dstS[2], dstS[3] = -da1, -da2
}

// ---------------------------------------------------------------- constant linear

// LinearConst is dx/dt = A x + B p with constant A (n x n) and B (n x np),
// x(0) = X0. Jx = A and Jp = B do not depend on x, so S(t) = dx/dp has the
// closed form of Theorem 1 of the Peano-Baker paper.
type LinearConst struct {
	N, NP int
	A, B  []float64 // row-major
	X0    []float64
	P0    []float64 // default parameters
	jx    *model.Pattern
	jp    *model.Pattern
}

// NewLinearConst copies the matrices; a and b are row-major n x n, n x np.
func NewLinearConst(a, b, x0, p0 []float64) *LinearConst {
	n := len(x0)
	if len(a) != n*n || n == 0 || len(b)%n != 0 || len(b)/n != len(p0) {
		panic("testmodels: LinearConst dimension mismatch")
	}
	np := len(p0)
	return &LinearConst{
		N: n, NP: np,
		A: append([]float64(nil), a...), B: append([]float64(nil), b...),
		X0: append([]float64(nil), x0...), P0: append([]float64(nil), p0...),
		jx: densePattern(n, n), jp: densePattern(n, np),
	}
}

func (m *LinearConst) Name() string                  { return "linearconst" }
func (m *LinearConst) StateNames() []string          { return names("x", m.N) }
func (m *LinearConst) ParamNames() []string          { return names("p", m.NP) }
func (m *LinearConst) DefaultParams(dst []float64)   { copy(dst, m.P0) }
func (m *LinearConst) InitialState(dst, _ []float64) { copy(dst, m.X0) }
func (m *LinearConst) InitialSens(dst, _ []float64)  { clear(dst) }
func (m *LinearConst) JxPattern() *model.Pattern     { return m.jx }
func (m *LinearConst) JpPattern() *model.Pattern     { return m.jp }
func (m *LinearConst) Jx(dst []float64, _ float64, _, _ []float64) {
	copy(dst, m.A)
}
func (m *LinearConst) Jp(dst []float64, _ float64, _, _ []float64) {
	copy(dst, m.B)
}

func (m *LinearConst) F(dst []float64, _ float64, x, p []float64) {
	n, np := m.N, m.NP
	for i := 0; i < n; i++ {
		var s float64
		for j := 0; j < n; j++ {
			s += m.A[i*n+j] * x[j]
		}
		for j := 0; j < np; j++ {
			s += m.B[i*np+j] * p[j]
		}
		dst[i] = s
	}
}

// ---------------------------------------------------------------- time-varying linear

// TimeVarying is the linear system with a time-dependent Jacobian
//
//	dx1/dt = -p1 x1 + t x2,   dx2/dt = -p2 x2,   x(0) = (1, 1),
//
// default p = (1, 2). Its transition matrix is in closed form
// (Phi21 = 0, Phi22 = e^{-p2 (t-s)}, Phi11 = e^{-p1 (t-s)},
// Phi12 = integral_s^t e^{-p1 (t-u)} u e^{-p2 (u-s)} du), and so is x(t);
// Exact differentiates the closed form by complex step, so S is exact to
// rounding and independent of any ODE solver.
type TimeVarying struct{}

var (
	tvJx = &model.Pattern{Rows: 2, Cols: 2, RowPtr: []int{0, 2, 3}, ColIdx: []int{0, 1, 1}}
	tvJp = &model.Pattern{Rows: 2, Cols: 2, RowPtr: []int{0, 1, 2}, ColIdx: []int{0, 1}}
)

func (TimeVarying) Name() string                  { return "timevarying" }
func (TimeVarying) StateNames() []string          { return []string{"x1", "x2"} }
func (TimeVarying) ParamNames() []string          { return []string{"p1", "p2"} }
func (TimeVarying) DefaultParams(dst []float64)   { dst[0], dst[1] = 1, 2 }
func (TimeVarying) InitialState(dst, _ []float64) { dst[0], dst[1] = 1, 1 }
func (TimeVarying) InitialSens(dst, _ []float64)  { clear(dst) }
func (TimeVarying) JxPattern() *model.Pattern     { return tvJx }
func (TimeVarying) JpPattern() *model.Pattern     { return tvJp }

func (TimeVarying) F(dst []float64, t float64, x, p []float64) {
	dst[0] = -p[0]*x[0] + t*x[1]
	dst[1] = -p[1] * x[1]
}

func (TimeVarying) Jx(dst []float64, t float64, _, p []float64) {
	dst[0], dst[1], dst[2] = -p[0], t, -p[1]
}

func (TimeVarying) Jp(dst []float64, _ float64, x, _ []float64) {
	dst[0], dst[1] = -x[0], -x[1]
}

// tvX is the closed-form solution for complex parameters (for complex-step
// differentiation): x2 = e^{-p2 t}, x1 = e^{-p1 t} (1 + I(t)) with
// I(t) = integral_0^t u e^{d u} du, d = p1 - p2.
func tvX(t float64, p1, p2 complex128) (complex128, complex128) {
	d := p1 - p2
	tc := complex(t, 0)
	var integral complex128
	if cmplx.Abs(d*tc) < 1e-3 {
		// Series: sum_k d^k t^{k+2} / (k! (k+2)).
		term := complex(1, 0)
		for k := 0; k < 12; k++ {
			integral += term * cmplx.Pow(tc, complex(float64(k+2), 0)) / complex(float64(k+2), 0)
			term *= d / complex(float64(k+1), 0)
		}
	} else {
		integral = (cmplx.Exp(d*tc)*(d*tc-1) + 1) / (d * d)
	}
	return cmplx.Exp(-p1*tc) * (1 + integral), cmplx.Exp(-p2 * tc)
}

// Exact writes x(t) and S(t) (row-major 2 x 2) of the system at parameters p.
func (TimeVarying) Exact(dstX, dstS []float64, t float64, p []float64) {
	x1, x2 := tvX(t, complex(p[0], 0), complex(p[1], 0))
	dstX[0], dstX[1] = real(x1), real(x2)
	const h = 1e-30
	for j := 0; j < 2; j++ {
		q := [2]complex128{complex(p[0], 0), complex(p[1], 0)}
		q[j] += complex(0, h)
		y1, y2 := tvX(t, q[0], q[1])
		dstS[0*2+j] = imag(y1) / h
		dstS[1*2+j] = imag(y2) / h
	}
}

// Phi writes the transition matrix Phi(t; s) (row-major 2 x 2) of
// dS/dt = Jx(t) S at parameters p: Phi12 = e^{-p1 t + p2 s} J with
// J = integral_s^t u e^{d u} du, d = p1 - p2.
func (TimeVarying) Phi(dst []float64, t, s float64, p []float64) {
	p1, p2 := p[0], p[1]
	d := p1 - p2
	prim := func(u float64) float64 { // antiderivative of u e^{du}
		if d == 0 {
			return u * u / 2
		}
		return math.Exp(d*u) * (d*u - 1) / (d * d)
	}
	dst[0] = math.Exp(-p1 * (t - s))
	dst[1] = math.Exp(-p1*t+p2*s) * (prim(t) - prim(s))
	dst[2] = 0
	dst[3] = math.Exp(-p2 * (t - s))
}
