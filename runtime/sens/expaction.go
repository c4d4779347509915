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

// SparseExpMinStates is the smallest model on which ExpActionAuto takes
// the sparse path, and sparseExpRowNNZ the non-zeros per row of Jx at
// which it does there: measured on scalenet chains (13/3 per row) and
// grids (5 per row), PBSR and Exp with 20 columns of S on [0, 10] at rtol
// 1e-5, sparse over dense CPU time (PBSR/Exp) on chains 1.66/1.46 at 48
// states, 1.14/0.99 at 60, 0.78/0.63 at 75 and 0.49/0.39 at 99; on grids
// 1.53/1.32 at 48, 1.08/0.89 at 60 and 0.85/0.71 at 72. The dense path's
// cost grows as nx^3 and the sparse one's as nnz(Jx) (the number of
// products per step depends on ||h Jx||, not on nx), so the non-zeros per
// row at which they cross grow as nx^2. But the sparse action's cost also
// grows with ||h Jx|| (the Taylor degree), which a size rule cannot see:
// on the PEtab problem Lang_PLOSComputBiol2024 (124 states, 9.5
// non-zeros per row, 294 parameters, stiff) one PBSR llh + gradient took
// 27 s of CPU with dense exponentials and did not finish a warm-up and a
// timed evaluation in 20 minutes with the sparse actions; a PBSR solve of
// its SBML model with all 317 parameters (pbbench -lang -lang-pb,
// TestLangAccuracy; ||h Jx||_1 of 1e7 to 1e9 on most steps, where the
// shift-and-invert Krylov action runs) takes 13 s of CPU with dense
// exponentials (order 3 steps, see order3States) and had not finished
// after 420 s with ExpActionSparse. So below
// sparseExpLargeStates the sparse path is taken only for Jacobians as
// sparse as the measured networks (at most sparseExpRowNNZ per row), and
// from it, where the dense path's nx^3 (11.8 s per PBSR solve on the
// chain of 498 states, measured before the dense path took order 3 steps
// and panel factorisations from 64 states) and its 48 nx^2 doubles of memory dominate, with
// up to sparseExpRowNNZ (nx/SparseExpMinStates)^2 per row.
const (
	SparseExpMinStates   = 64
	sparseExpLargeStates = 500
	sparseExpRowNNZ      = 5
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
	n, m, z := float64(nx), float64(SparseExpMinStates), float64(nnz)
	switch {
	case nx < SparseExpMinStates:
		return false
	case nx < sparseExpLargeStates:
		return z <= sparseExpRowNNZ*n
	}
	return z*m*m <= sparseExpRowNNZ*n*n*n
}
