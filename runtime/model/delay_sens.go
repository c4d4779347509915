package model

// DelaySens is the optional interface of a model.Delays that also gives
// the partial derivatives forward sensitivities through the delays need
// (runtime/dde.SolveSens). With S = dx/dp and D_k = dd_k/dp,
//
//	S'(t) = Jx S(t) + Jp + sum_k (df/dd_k) D_k(t),
//	D_k(t) = de_k/dx S(s) + de_k/dp + sum_{j<k} de_k/dd_j D_j(s) - e_k'(s) dtau_k/dp,
//
// at s = t - tau_k, where e_k'(s) is the derivative of e_k along the
// solution; before the start time e_k is DelayHistory and its
// derivatives dH_k/dp and dH_k/dt take the place of the bracket. Jx and
// Jp are JxDelayed and JpDelayed (d held fixed): the paths through the
// delayed values are the explicit sum.
//
// Only delays whose length depends on the parameters alone
// (DelayInfo.Constant) are supported by the solver; DelayTimeGrad gives
// the derivative in p of any delay, the one such a delay has.
//
// Every method writes all entries of its destinations. It is optional
// and additive, like Delays: generated code without it keeps compiling,
// and a model implementing only Delays has its states solved but its
// sensitivities refused.
type DelaySens interface {
	Delays
	// JpDelayed writes df/dp at (t, x, p, d), d held fixed, in JpPattern
	// order into dst.
	JpDelayed(dst []float64, t float64, x, p, d []float64)
	// FdPattern is the fixed sparsity pattern of df/dd (NumStates x
	// NumDelays).
	FdPattern() *Pattern
	// FdDelayed writes df/dd at (t, x, p, d) in FdPattern order into dst.
	FdDelayed(dst []float64, t float64, x, p, d []float64)
	// DelayArgGrad writes the partial derivatives of e_k at (t, x, p,
	// d[:k]) in x into dx (length NumStates), in p into dp (length
	// NumParams) and in the delayed values into dd (length NumDelays;
	// entries k and above are zero), and returns the partial derivative
	// in t.
	DelayArgGrad(k int, t float64, x, p, d, dx, dp, dd []float64) float64
	// DelayTimeGrad writes the partial derivative of tau_k at (t, x, p,
	// d[:k]) in p into dp (length NumParams).
	DelayTimeGrad(k int, t float64, x, p, d, dp []float64)
	// DelayHistoryGrad writes dH_k/dp at t (before the start) into dp
	// (length NumParams) and returns dH_k/dt.
	DelayHistoryGrad(k int, t float64, p, dp []float64) float64
}
