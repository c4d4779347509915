package objective

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/sparse"
)

// laws returns the conservation laws L (k x nx) and their projector
// L^T L (nx x nx), found on the first call: only the steady states of
// pre-equilibration and of t = +Inf need them, and finding them (a dense
// SVD of an nx x 3(nx+np) matrix, cubic in nx) was most of an
// evaluation without steady states on a 500-state model when New did it.
// A model with delays never reaches steady() (its f without the delayed
// values is NaN), so it never gets here either. Safe for concurrent use.
//
// The SVD stays: a random sketch of M to nx + nx/2 columns factored by
// QR with column pivoting (gonum's Dgeqp3), with the null space from R,
// found the same laws on every benchmark model and on scalenet (the
// projectors within 4e-14) but took 0.26 s of CPU against the SVD's 0.32 s
// at 498 states and 2.5 against 2.6 s at 1002: gonum's pivoted QR is no
// faster per flop than its SVD.
func (c *core) laws() (l, proj []float64) {
	c.lawsOnce.Do(func() {
		c.consL = conservation(c.m, c.sampleParams())
		c.consP = projector(c.consL, c.nx)
	})
	return c.consL, c.consP
}

// projector returns L^T L (nx x nx, row-major) for the k x nx row-major
// L, nil for no laws. bordered adds it to Jx at every Newton step, which
// summing the k rank-one terms there made O(k nx^2) per step.
func projector(l []float64, nx int) []float64 {
	k := len(l) / max(nx, 1)
	if k == 0 {
		return nil
	}
	p := mat.NewDense(nx, nx, nil)
	lm := mat.NewDense(k, nx, l)
	p.Mul(lm.T(), lm)
	return p.RawMatrix().Data
}

// conservation returns the conservation laws of m (k x nx row-major,
// orthonormal rows): the left null space of [Jx Jp] sampled at three
// random states near x0(p). Columns are scaled to unit norm first, which
// keeps the left null space and makes the rank decision independent of
// the parameters' units. Nil when the model has none or a sample is not
// finite.
func conservation(m model.Model, p []float64) []float64 {
	nx, np := model.NumStates(m), model.NumParams(m)
	if nx == 0 {
		return nil
	}
	const samples = 3
	cols := samples * (nx + np)
	mm := mat.NewDense(nx, cols, nil)
	x0, x := make([]float64, nx), make([]float64, nx)
	jx, jp := make([]float64, m.JxPattern().NNZ()), make([]float64, m.JpPattern().NNZ())
	dx, dp := make([]float64, nx*nx), make([]float64, nx*np)
	m.InitialState(x0, p)
	scale := 1.0
	for _, v := range x0 {
		scale = math.Max(scale, math.Abs(v))
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for s := 0; s < samples; s++ {
		for i, v := range x0 {
			x[i] = math.Abs(v)*(0.5+rng.Float64()) + 0.1*scale*rng.Float64()
		}
		m.Jx(jx, 0, x, p)
		m.Jp(jp, 0, x, p)
		sparse.CSR{Pat: m.JxPattern(), Val: jx}.ScatterTo(dx)
		sparse.CSR{Pat: m.JpPattern(), Val: jp}.ScatterTo(dp)
		for i := 0; i < nx; i++ {
			for j := 0; j < nx; j++ {
				mm.Set(i, s*(nx+np)+j, dx[i*nx+j])
			}
			for j := 0; j < np; j++ {
				mm.Set(i, s*(nx+np)+nx+j, dp[i*np+j])
			}
		}
	}
	for j := 0; j < cols; j++ {
		n := mat.Norm(mm.ColView(j), 2)
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return nil
		}
		if n > 0 {
			for i := 0; i < nx; i++ {
				mm.Set(i, j, mm.At(i, j)/n)
			}
		}
	}
	var svd mat.SVD
	if !svd.Factorize(mm, mat.SVDThinU) {
		return nil
	}
	sv := svd.Values(nil)
	var u mat.Dense
	svd.UTo(&u)
	tol := 1e-10 * math.Max(sv[0], 1e-300) * float64(nx)
	var l []float64
	for c := 0; c < nx; c++ {
		if c < len(sv) && sv[c] > tol {
			continue
		}
		for i := 0; i < nx; i++ {
			l = append(l, u.At(i, c))
		}
	}
	return l
}
