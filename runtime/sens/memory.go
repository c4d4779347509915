package sens

import (
	"fmt"
	"math"
	"strings"

	"github.com/pbgen/pbgen/runtime/ode"
)

// MemoryEstimate returns the bytes a Solver for a model of nx states, with
// ns sensitivity parameters (and ns model parameters), allocates with
// options opt: the state integrator's (ode.MemoryEstimate) and, for PBS,
// PBSR and Exp, 15 + 3 MaxDepth nx x ns blocks and either about 48 dense
// nx x nx matrices (the dense exponentials, ExpActionDense: their cached
// slots, the W-method and error-filter factors, the exponential's
// scratch) or, on the sparse path (ExpActionSparse, automatic for large
// sparse models), about 100 more nx x ns blocks (the Taylor action, the
// forcing and the Krylov basis of stiff steps) and a few times nnz(Jx),
// which MemoryEstimate takes as 5 nx. A Solve adds its result, len(ts)
// (nx + nx ns) values, and the trajectory, a few nx per step. The dense
// path grows with nx^2: a network of 20,000 species needed about 150 GB
// for PBSR, where the sparse path's workspaces need about 0.45 GB for 20
// parameters (besides the state integrator's, ode.MemoryEstimate).
func MemoryEstimate(nx, ns int, opt *Options) int64 {
	c, err := resolve(opt)
	if err != nil {
		var d Options
		c, _ = resolve(&d)
		if opt != nil {
			c.method = opt.Method
		}
	}
	return memoryEstimate(nx, ns, ns, &c)
}

// memoryEstimate is MemoryEstimate for a model of np parameters, with
// nnz(Jx) = c.nnzx when known (NewSolver sets it).
func memoryEstimate(nx, np, ns int, c *config) int64 {
	n, p, k := float64(nx), float64(np), float64(ns)
	b := float64(c.odeEstimate(nx, np)) + 8*(n*p+2*n*k+n)
	if c.method != FS {
		depth := float64(c.maxDepth)
		if depth == 0 {
			depth = 8
		}
		b += 8 * ((15+3*depth)*n*k + 20*n)
		if c.orderFor(nx, c.nnzEstimate(nx)) == 3 && c.method == PBSR {
			b += 8 * 4 * n * k // the corrector's history (correct.go)
			if nnz := c.nnzEstimate(nx); nx >= SparseExpMinStates && 4*nnz < nx*nx {
				b += 8*n*k + 8*16*float64(nnz) // its sparse filter (corrFilter)
			}
		}
		if nnz := c.nnzEstimate(nx); useSparseExp(c.expAction, nx, nnz) {
			b += sparseExpBytes(nx, ns, nnz)
		} else {
			b += 8 * 48 * n * n
		}
	}
	if b >= math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(b)
}

// odeEstimate is the integrator's share: the sparse LU's O(nnz + n np)
// where the integrator takes that path (the BDF with LinearSparse, or
// LinearAuto on a large sparse Jx, as ode.NewSolver decides), else the
// dense n x n of ode.MemoryEstimate.
func (c *config) odeEstimate(nx, np int) int64 {
	nnz := c.nnzEstimate(nx)
	if c.odeSparse(nx) {
		nnzp := c.nnzp
		if nnzp == 0 {
			nnzp = 5 * np
		}
		return ode.MemoryEstimateSparse(nx, np, nnz, nnzp)
	}
	return ode.MemoryEstimate(nx, np)
}

// odeSparse reports whether the integrator takes the sparse LU path.
func (c *config) odeSparse(nx int) bool {
	ls := c.ode.LinearSolver
	return c.ode.Method == ode.BDF && (ls == ode.LinearSparse || ls == ode.LinearAuto && ode.AutoSparse(nx, c.nnzEstimate(nx)))
}

// nnzEstimate is nnz(Jx) of the solver's model, or 5 nx (a reaction
// network's few per row) when not known.
func (c *config) nnzEstimate(nx int) int {
	if c.nnzx > 0 {
		return c.nnzx
	}
	return 5 * nx
}

// checkMemory returns a *ode.MemoryError when the solver's workspaces
// (work bytes, in NewSolver) or a result (result bytes, in Solve) exceed
// the memory limit, saying what would fit: another method, fewer
// parameters or output times.
func (s *Solver) checkMemory(work, result int64) error {
	need := work + result
	if s.limit == 0 {
		// Resolved once (the default reads /proc/meminfo, which
		// allocates): later solves allocate nothing. Below ode.SmallMemory
		// nothing is looked up and the limit stays unresolved.
		s.limit = ode.ResolveMemoryLimit(s.cfg.memLimit, need)
		if s.limit < 0 && s.cfg.memLimit == 0 && need < ode.SmallMemory {
			s.limit = 0
		}
	}
	limit := s.limit
	if limit <= 0 || need <= limit {
		return nil
	}
	nx, np, ns := s.nx, s.np, len(s.params)
	m := s.cfg.method
	var b strings.Builder
	if result > 0 {
		fmt.Fprintf(&b, "sens: %v: the result of %d output times needs about %s for %d states and %d parameters, more than the memory limit of %s (Options.MemoryLimit; by default 3/4 of the available memory). Ask for fewer output times or fewer sensitivity parameters (Params).",
			m, result/(8*int64(nx)*int64(ns+1)), ode.FormatBytes(result), nx, ns, ode.FormatBytes(limit))
		return &ode.MemoryError{Need: need, Limit: limit, Msg: b.String()}
	}
	what := "its dense nx x nx iteration matrix and vectors of nx (1 + parameters)"
	if s.cfg.odeSparse(nx) {
		what = "its sparse LU and vectors of nx (1 + parameters)"
	}
	if m != FS {
		what = fmt.Sprintf("about 48 dense %d x %d matrices", nx, nx)
		if useSparseExp(s.cfg.expAction, nx, s.cfg.nnzEstimate(nx)) {
			what = fmt.Sprintf("about 130 blocks of %d x %d for its sparse exponential actions", nx, ns)
		}
	}
	fmt.Fprintf(&b, "sens: %v needs about %s for %d states and %d sensitivity parameters (%s), more than the memory limit of %s (Options.MemoryLimit; by default 3/4 of the available memory).",
		m, ode.FormatBytes(need), nx, ns, what, ode.FormatBytes(limit))
	// Alternatives: another method with the same parameters, or fewer
	// parameters with this method.
	fits := false
	for _, alt := range []Method{FS, Exp, PBSR, PBS} {
		if alt == m {
			continue
		}
		c := s.cfg
		c.method = alt
		if n := memoryEstimate(nx, np, ns, &c); n <= limit {
			fmt.Fprintf(&b, " Method %v would need about %s, which fits.", alt, ode.FormatBytes(n))
			fits = true
			break
		}
	}
	for i, alt := range []Method{m, FS} {
		if fits || (i == 1 && alt == m) {
			break
		}
		c := s.cfg
		c.method = alt
		lo, hi := 0, ns // the largest number of parameters that fits
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if memoryEstimate(nx, np, mid, &c) <= limit {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		if lo > 0 {
			fmt.Fprintf(&b, " %v with at most %d sensitivity parameters (Params) would fit.", alt, lo)
			fits = true
		}
	}
	if !fits {
		c := s.cfg
		c.method = FS
		fmt.Fprintf(&b, " No method fits: even FS with one parameter needs about %s; the model is too large for this memory limit.", ode.FormatBytes(memoryEstimate(nx, np, 1, &c)))
	}
	return &ode.MemoryError{Need: need, Limit: limit, Msg: b.String()}
}
