package sens

import "fmt"

// ExpAction selects how the exponential steps of PBSR and Exp (default
// and paper mode) apply e^{hJx} and its phi functions to S.
type ExpAction int

const (
	// ExpActionAuto is ExpActionDense for small or dense Jacobians and
	// ExpActionSparse for large sparse ones (see useSparseExp for the
	// measured crossover).
	ExpActionAuto ExpAction = iota
	// ExpActionDense forms the dense nx x nx exponentials (Padé, scaling
	// and squaring) and caches them across steps of the same length:
	// O(nx^3) per exponential and O(nx^2 ns) per step, the fastest on the
	// paper's networks (tens of states, Jacobians half full).
	ExpActionDense
	// ExpActionSparse never forms an nx x nx matrix: each step applies
	// the exponential and phi functions of h Jx to the block of S and the
	// forcing (runtime/expm: Al-Mohy and Higham's Taylor action, or
	// shift-and-invert Krylov on stiff steps), at a cost of a number of
	// sparse products with nnz(Jx) ns operations each, and memory
	// O(nnz + nx ns).
	ExpActionSparse
)

func (e ExpAction) String() string {
	switch e {
	case ExpActionAuto:
		return "auto"
	case ExpActionDense:
		return "dense"
	case ExpActionSparse:
		return "sparse"
	}
	return fmt.Sprintf("ExpAction(%d)", int(e))
}

// sparseExpMinN and sparseExpMaxFill are the automatic choice of
// ExpActionSparse: at least sparseExpMinN states and nnz(Jx) at most
// sparseExpMaxFill nx^2. See useSparseExp.
const (
	sparseExpMinN    = 60
	sparseExpMaxFill = 0.1
)

// useSparseExp reports whether a model of nx states with nnz non-zeros in
// Jx (nnz < 0: unknown, taken as a sparse network's 5 per row) takes the
// sparse exponential actions under the choice e.
func useSparseExp(e ExpAction, nx, nnz int) bool {
	switch e {
	case ExpActionDense:
		return false
	case ExpActionSparse:
		return true
	}
	if nnz < 0 {
		nnz = 5 * nx
	}
	return nx >= sparseExpMinN && float64(nnz) <= sparseExpMaxFill*float64(nx)*float64(nx)
}
