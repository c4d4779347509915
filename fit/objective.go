package fit

// Objective is the function Minimize minimises, on the scale the
// parameters are estimated on (for a PEtab problem: the parameters'
// lin/log/log10 scales). Each worker of MultiStart owns its Objective, so
// implementations need not be safe for concurrent use: a PEtab objective
// keeps its ODE solvers and workspaces per goroutine.
type Objective interface {
	// Dim is the number of parameters.
	Dim() int
	// Eval returns f(x), the value to minimise (for a PEtab problem the
	// negative log posterior: -(log-likelihood + log prior)). With grad
	// non-nil (length Dim) it writes the gradient of f; with hess non-nil
	// (length Dim*Dim, row-major) a symmetric approximation of the Hessian
	// of f, positive semi-definite where it stands for the Fisher
	// information (Gauss-Newton) plus the prior's curvature. Eval must not
	// modify or retain x. An error means f could not be evaluated at x (a
	// failed ODE solve); the optimiser treats it as f = +Inf there, so the
	// step is rejected and the trust region shrinks. Hessians are asked
	// for only when Options.Hessian needs them (FIM, and Hybrid until it
	// switches); an objective may return an error for a hess it cannot
	// compute.
	Eval(x, grad, hess []float64) (f float64, err error)
	// Bounds returns the lower and upper bounds of x. Either may be nil
	// for none; entries may be ±Inf. Minimize reads them once and does
	// not modify them.
	Bounds() (lo, hi []float64)
}

// Func is an Objective made of a function, for problems that need no
// per-worker state (tests, analytic functions). MultiStart shares one Func
// between workers when the factory returns the same value, so F must then
// be safe for concurrent use.
type Func struct {
	N      int                                                  // dimension
	Lo, Hi []float64                                            // bounds (nil for none)
	F      func(x, grad, hess []float64) (f float64, err error) // as Objective.Eval
}

// Dim returns f.N.
func (f *Func) Dim() int { return f.N }

// Bounds returns f.Lo and f.Hi.
func (f *Func) Bounds() (lo, hi []float64) { return f.Lo, f.Hi }

// Eval calls f.F.
func (f *Func) Eval(x, grad, hess []float64) (float64, error) { return f.F(x, grad, hess) }
