package model

// Observables is the optional interface of a model compiled together with a
// measurement model (a PEtab problem's observables table). Observable k has
// the value y = h_k(t, x, p, u) and the noise scale sigma_k(t, x, p, u),
// where u holds the observable's placeholder values for one measurement:
// first observableParameter1..nObs_<id>, then noiseParameter1..nNoise_<id>
// (PEtab's per-measurement overrides). Generated packages and interp both
// implement it; runtime/objective turns it into a likelihood.
type Observables interface {
	// ObservableIDs returns the observables' ids in the order of k.
	ObservableIDs() []string
	// Placeholders returns the number of observable and noise
	// placeholders of observable k.
	Placeholders(k int) (nObs, nNoise int)
	// Observe returns h_k and sigma_k at (t, x, p, u) and, when d is not
	// nil, writes their derivatives into d's slices (every slice is written
	// whole, zeros included).
	Observe(k int, t float64, x, p, u []float64, d *ObsDeriv) (y, sigma float64)
}

// ObsDeriv receives the derivatives of one observable and its noise scale,
// dense and caller-owned: HX, SX have length nx, HP, SP length np, HU, SU
// length nObs+nNoise of that observable.
type ObsDeriv struct {
	HX, HP, HU []float64 // dh/dx, dh/dp, dh/du
	SX, SP, SU []float64 // dsigma/dx, dsigma/dp, dsigma/du
}
