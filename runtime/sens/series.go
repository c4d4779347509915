package sens

import (
	"fmt"
	"math"
)

// seriesStep is the scratch of the PBS step.
type seriesStep struct {
	jsum []float64 // nnz(Jx): Ja + Jb
}

// pbsMaxZ bounds dt ||Jx|| (the larger of the end points' norms) on a PBS
// step. The step multiplies a mode of eigenvalue lambda by 1 + z + z^2/2,
// z = dt lambda (the series truncated after I2), which for a decaying mode
// (z real, negative) has modulus at most 1 only for |z| <= 2: beyond it
// the truncated series grows where the solution decays, and S diverges
// geometrically. Any induced norm bounds |lambda|, so dt ||Jx|| <= 2 keeps
// every real decaying mode stable; PBS gives up beyond it (PBSR and Exp
// take exponential steps there, which are exact for such modes).
const pbsMaxZ = 2

// pbsStep advances s in place over [a.t, b.t] by the PBS step:
// S(tb) = PhiF (S(ta) + dt/2 (Pa + PhiB Pb)), PhiF/B = I +- I1 + I2,
// I1 = dt/2 (Ja+Jb), I2 = dt^2/4 Jb (Ja+Jb). Only sparse products.
func (en *engine) pbsStep(s []float64, a, b *point) {
	dt := b.t - a.t
	if z := dt * math.Max(en.norm(a.jx), en.norm(b.jx)); !(z <= pbsMaxZ) && en.err == nil {
		en.err = &MethodError{Method: en.cfg.method, Paper: en.cfg.paper, T: a.t, Index: -1, Alternative: PBSR,
			Reason: fmt.Sprintf("the truncated Peano-Baker series is unstable on the step [%.6g, %.6g]: dt ||Jx|| = %.3g exceeds %g, so the step amplifies the decaying modes of a stiff network instead of damping them", a.t, b.t, z, float64(pbsMaxZ))}
	}
	nSa := rowSumMax(s, en.ns)
	for k := range en.series.jsum {
		en.series.jsum[k] = a.jx[k] + b.jx[k]
	}
	h2, h4 := dt/2, dt*dt/4
	// t1 = Pb dense; t2 = (Ja+Jb) Pb; t3 = Jb t2.
	clear(en.t1)
	en.addP(en.t1, 1, b.jp)
	en.spmm(en.t2, en.series.jsum, en.t1)
	en.spmm(en.t3, b.jx, en.t2)
	// u = S + dt/2 (Pa + PhiB Pb) into s.
	for i, x := range en.t1 {
		s[i] += h2 * (x - h2*en.t2[i] + h4*en.t3[i])
	}
	en.addP(s, h2, a.jp)
	// S = PhiF u.
	en.spmm(en.t2, en.series.jsum, s)
	en.spmm(en.t3, b.jx, en.t2)
	for i := range s {
		s[i] += h2*en.t2[i] + h4*en.t3[i]
	}
	en.stats.PBSSteps++
	en.checkGrowth(s, a, b, nSa)
}

// pbsGrowth is the slack of checkGrowth over the bound of the linearised
// dynamics: Jx varies within a step, the bound uses its end points.
const pbsGrowth = 2

// checkGrowth is the divergence test of a PBS step: S' = Jx S + Jp gives
// ||S(tb)|| <= e^{dt mu} ||S(ta)|| + dt e^{dt max(mu, 0)} ||Jp|| in the
// infinity norm, with mu the logarithmic norm of Jx (largest over the end
// points). A result more than pbsGrowth times that is the truncated series
// amplifying a mode that the dynamics damp (complex eigenvalues with dt
// |lambda| <= 2 still allow a growth of up to 2.2 per step).
func (en *engine) checkGrowth(s []float64, a, b *point, nSa float64) {
	if en.err != nil {
		return
	}
	dt := b.t - a.t
	mu := math.Max(en.logNormInf(a.jx), en.logNormInf(b.jx))
	nP := math.Max(en.pRowSumMax(a.jp), en.pRowSumMax(b.jp))
	bound := math.Exp(dt*mu)*nSa + dt*math.Exp(dt*math.Max(mu, 0))*nP
	nSb := rowSumMax(s, en.ns)
	if nSb <= pbsGrowth*bound+en.cfg.satol || math.IsInf(bound, 1) {
		return
	}
	en.err = &MethodError{Method: en.cfg.method, Paper: en.cfg.paper, T: a.t, Index: -1, Alternative: PBSR,
		Reason: fmt.Sprintf("the truncated Peano-Baker series diverged on the step [%.6g, %.6g]: ||S|| grew from %.3g to %.3g, above the bound %.3g of the linearised dynamics", a.t, b.t, nSa, nSb, bound)}
}

// rowSumMax is the infinity norm of the row-major matrix s of ns columns.
func rowSumMax(s []float64, ns int) float64 {
	var mx float64
	for i := 0; i+ns <= len(s); i += ns {
		var r float64
		for _, x := range s[i : i+ns] {
			r += math.Abs(x)
		}
		if !(r <= mx) {
			mx = r
		}
	}
	return mx
}

// logNormInf is the logarithmic infinity norm of the sparse Jx values v:
// max over rows of the diagonal entry plus the absolute off-diagonal ones.
func (en *engine) logNormInf(v []float64) float64 { return en.jxm(v).LogNormInf() }

// pRowSumMax is the infinity norm of the reduced Jp values v.
func (en *engine) pRowSumMax(v []float64) float64 { return en.jpm(v).NormInf() }
