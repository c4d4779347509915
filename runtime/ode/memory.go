package ode

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"

	"github.com/pbgen/pbgen/runtime/model"
)

// MemoryEstimate returns the bytes NewSolver allocates for a model of nx
// states and np parameters on the dense LU path: the dense nx x nx
// iteration matrix and 19 vectors of nx (1 + np) (the Nordsieck history
// and the work vectors, sized for sensitivities of every parameter). The
// Trajectory, which grows by a few nx per step, is not included. The
// sparse LU path needs no nx x nx matrix: see MemoryEstimateSparse, and
// MemoryEstimateFor for the path NewSolver takes.
func MemoryEstimate(nx, np int) int64 {
	n, p := float64(nx), float64(np)
	return clampBytes(8 * (n*n + 19*n*(1+p) + 6*n + 5*p))
}

// MemoryEstimateSparse returns the bytes NewSolver allocates for a model
// of nx states and np parameters whose Jacobians Jx and Jp have nnzJx and
// nnzJp structural non-zeros, on the sparse LU path: O(nnz + nx np), no
// nx x nx matrix. Besides the 19 vectors of nx (1 + np) of MemoryEstimate
// it counts the sensitivity block's solve workspace (nx np), the
// Jacobians' values, the pattern of I - gamma Jx with its analysis, and
// the LU's factors at the capacity NewLU gives them (4 times that
// pattern's non-zeros for each of L and U, with the row copies of the
// block solves): factors that fill in beyond it grow when first
// factorised, outside the estimate.
func MemoryEstimateSparse(nx, np, nnzJx, nnzJp int) int64 {
	n, p := float64(nx), float64(np)
	nm := float64(nnzJx) + n    // I - gamma Jx: Jx and at most the whole diagonal
	words := 19*n*(1+p) + n*p + // the vectors; the block solve's workspace
		2*float64(nnzJx) + 4*float64(nnzJp) + // jv, jvS; Jp's values and selection
		2*nm + nm + // the shifted pattern and its position map; M's values
		2*nm + // the analysis: M by columns
		16*nm + 24*nm + // L and U (index and value), their row copies
		30*n + 5*p // the orderings, the LU's and the solver's vectors of n and np
	return clampBytes(8 * words)
}

// MemoryEstimateFor returns the bytes NewSolver(m, s) allocates:
// MemoryEstimateSparse where the BDF factorises with the sparse LU
// (LinearSparse, or LinearAuto where AutoSparse picks it), MemoryEstimate
// otherwise. NewSolver checks it against Settings.MemoryLimit.
func MemoryEstimateFor(m model.Model, s *Settings) int64 {
	var set Settings
	if s != nil {
		set = *s
	}
	need, _ := memoryEstimateFor(m, &set)
	return need
}

// memoryEstimateFor is MemoryEstimateFor, and whether it is the sparse
// path's.
func memoryEstimateFor(m model.Model, s *Settings) (int64, bool) {
	nx, np := model.NumStates(m), model.NumParams(m)
	jx := m.JxPattern()
	if s.Method == BDF && (s.LinearSolver == LinearSparse || s.LinearSolver == LinearAuto && AutoSparse(nx, jx.NNZ())) {
		return MemoryEstimateSparse(nx, np, jx.NNZ(), m.JpPattern().NNZ()), true
	}
	b := MemoryEstimate(nx, np)
	if s.Method == Adams {
		// Its Nordsieck array has qmaxAdams+1 columns, not qmax+1.
		b += clampBytes(8 * float64(qmaxAdams-qmax) * float64(nx) * float64(1+np))
	}
	return b, false
}

func clampBytes(b float64) int64 {
	if b >= math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(b)
}

// SmallMemory is the size in bytes below which no limit is checked: every machine
// that runs these solvers has it, and reading /proc/meminfo would cost a
// system call and an allocation in NewSolver for nothing.
const SmallMemory = 64 << 20

// DefaultMemoryLimit is the limit on a solver's memory when
// Settings.MemoryLimit (or sens.Options.MemoryLimit) is zero: the Go
// runtime's soft limit when one is set (GOMEMLIMIT or
// debug.SetMemoryLimit), else 3/4 of MemAvailable in /proc/meminfo (Linux;
// the rest is left to the trajectory, the results and the program), else
// 0: unknown, no check.
func DefaultMemoryLimit() int64 {
	if l := debug.SetMemoryLimit(-1); l > 0 && l < math.MaxInt64 {
		return l
	}
	if a := memAvailable(); a > 0 {
		return a / 4 * 3
	}
	return 0
}

// memAvailable returns MemAvailable of /proc/meminfo in bytes, 0 if
// unknown.
func memAvailable() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		rest, ok := bytes.CutPrefix(line, []byte("MemAvailable:"))
		if !ok {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) < 1 {
			return 0
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil || kb <= 0 {
			return 0
		}
		return kb * 1024
	}
	return 0
}

// MemoryError reports that a solver would need more memory than its limit:
// NewSolver then allocates nothing and every solve returns it.
type MemoryError struct {
	Need, Limit int64 // bytes
	// Msg is the complete explanation (what needs the memory, what would
	// fit).
	Msg string
}

func (e *MemoryError) Error() string { return e.Msg }

// ResolveMemoryLimit returns the limit in bytes for a setting (0 = the
// default, negative = none: returns -1) when need bytes are wanted; below
// SmallMemory the default is not looked up (returns -1).
func ResolveMemoryLimit(setting, need int64) int64 {
	switch {
	case setting < 0:
		return -1
	case setting > 0:
		return setting
	case need < SmallMemory:
		return -1
	}
	if l := DefaultMemoryLimit(); l > 0 {
		return l
	}
	return -1
}

// FormatBytes writes b as a short human-readable size (1.5 GB).
func FormatBytes(b int64) string {
	const unit = 1000
	f := float64(b)
	for _, u := range []string{"B", "kB", "MB", "GB", "TB", "PB"} {
		if f < unit || u == "PB" {
			if u == "B" {
				return fmt.Sprintf("%d B", b)
			}
			return fmt.Sprintf("%.3g %s", f, u)
		}
		f /= unit
	}
	return ""
}

// checkMemory returns a *MemoryError when need bytes exceed the limit of
// the setting.
func checkMemory(need, setting int64, nx, np int, sparse bool) error {
	limit := ResolveMemoryLimit(setting, need)
	if limit < 0 || need <= limit {
		return nil
	}
	if sparse {
		return &MemoryError{Need: need, Limit: limit, Msg: fmt.Sprintf(
			"ode: the integrator needs about %s for %d states and %d parameters (vectors of %d (1 + %d) and the sparse LU), more than the limit of %s (Settings.MemoryLimit; by default 3/4 of the available memory); with sensitivities, ask for fewer parameters",
			FormatBytes(need), nx, np, nx, np, FormatBytes(limit))}
	}
	return &MemoryError{Need: need, Limit: limit, Msg: fmt.Sprintf(
		"ode: the integrator needs about %s for %d states and %d parameters (a dense %d x %d iteration matrix), more than the limit of %s (Settings.MemoryLimit; by default 3/4 of the available memory); the model is too large for the dense solver",
		FormatBytes(need), nx, np, nx, nx, FormatBytes(limit))}
}
