//go:build !sensdebug

package sens

// Switches of experiments (build tag sensdebug turns them into environment
// variables in an uncommitted file); all off in normal builds.
const (
	dbgLocal    = false // PBSR steps also bounded by the integrator's local step
	dbgNoFilter = false // unfiltered local error estimate
)
const filterC = 4
const expStepFactor = expGridFactor
const nSlots = 4
