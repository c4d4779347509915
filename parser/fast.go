package parser

import (
	"fmt"
	"math"
	"math/big"

	"github.com/pbgen/pbgen/symbolic"
)

// Fast reactions (fast="true", SBML L2 and L3v1; removed in L3v2) are at
// rapid equilibrium: on the time scale of the others their rates are 0 at
// all times, the state following the slow reactions along the
// equilibrium manifold (L2v4 section 4.13.6; the test suite's cases start
// on it, equilibrated from the declared values with the conserved
// quantities kept).
//
// With the amounts n of the species the fast reactions change (the fast
// species) and N_f their stoichiometry in amounts (stoichiometry times
// conversion factor), the combinations y = L n with L N_f = 0 (a basis of
// the left null space, exact, in rationals) do not change by the fast
// reactions: dy/dt = L (N_s v_s), the slow reactions' flux. Lowering
// writes this as the semi-explicit DAE that runtime/dae solves, y
// differential, the fast species algebraic:
//
//	dy/dt = L N_s v_s(x),   0 = L n - y,   0 = v_f(x),
//
// with y(0) = L n(0) from the declared values, which are the fast
// species' first guess. g_z is [L a; dv_f/dx] (a the amount per unit of
// each fast species' state), nonsingular when the fast reactions are
// independent and the equilibrium is regular: index 1. The states y are
// named "fast_pool<k>" (k from 1).
//
// A fast reaction whose rate has a factor that only events change (a
// parameter an event sets, say) is switched off while that factor is 0:
// it does not run then, and the amount it would move is held in a state
// "fast_held_<id>" taken anew at the events that can switch it
// (heldReactions).
//
// A stoichiometry that an initial assignment or events set is constant
// between events: L is then formed from it as an expression, with the
// pivots its value at t = 0 picks. An event that sets a fast species or
// such a stoichiometry sets the pools instead, y = L(s) a n from the
// values after its assignments (fastEvent): the fast reactions take the
// species to their equilibrium at once, keeping those amounts.
//
// Refused by name: a stoichiometry that a rule sets (other than to a
// constant: it can vary continuously, and the pools would then have to
// follow a changing L), linearly dependent fast reactions, conversion
// factors that are not constants, and a rule that sets a fast species.

// fastSystem is what lowering needs of the fast subsystem.
type fastSystem struct {
	species []*variable  // the fast species, in lowering's order
	L       [][]*big.Rat // conserved combinations: rows over species (amounts); nil when stoich varies
	rx      []*Reaction  // the fast reactions, in document order
	N       [][]float64  // amount stoichiometry at t = 0 and the default parameters, species x reactions
	// With a stoichiometry that an event or an initial assignment sets
	// (varying), L is formed as expressions of the stoichiometries,
	// where it is used: terms[j][k] sums reaction j's amount
	// stoichiometry of species k, and plan is the elimination that
	// found L from their values at t = 0 (pivot column and the row
	// swapped in, per step), replayed on the expressions.
	held      []heldFast // the fast reactions events can switch off (heldReactions)
	varying   bool
	terms     []map[int][]fastTerm
	plan      []rrefStep
	stoichVar map[*variable]bool // the species references whose values terms use
}

// fastTerm is one species reference's part of a fast stoichiometry:
// coef (the conversion factor, negated for a reactant) times the value
// of sv, or coef alone when sv is nil (a constant stoichiometry, folded
// into coef).
type fastTerm struct {
	coef *big.Rat
	sv   *variable
}

// rrefStep is one pivot of rref: column col, the row swapped into place.
type rrefStep struct{ col, from int }

// collectFast marks the fast species and forms the conservation laws.
func (l *lowering) collectFast() {
	var rxs []*Reaction
	for _, rx := range l.m.Reactions {
		if !rx.Fast {
			continue
		}
		// A fast reaction whose rate is identically 0 is at equilibrium
		// everywhere and changes nothing: it is no reaction (its
		// equation would determine no variable). It stays an ordinary
		// reaction of rate 0.
		if r := l.value(l.vars[rx.ID]); r != nil && r.IsConst(0) {
			continue
		}
		// Nor is one that changes no species (boundary or constant
		// species only).
		changes := false
		for _, list := range [][]*SpeciesReference{rx.Reactants, rx.Products} {
			for _, sr := range list {
				if v := l.vars[sr.Species]; v != nil && !v.sp.BoundaryCondition && !v.sp.Constant {
					changes = true
				}
			}
		}
		if !changes {
			continue
		}
		rxs = append(rxs, rx)
	}
	if len(rxs) == 0 {
		return
	}
	refuse := func(line int, el, id, format string, args ...any) {
		l.errs.add(l.m.File, line, el, id, format, args...)
	}
	idx := make(map[*variable]int)
	fs := &fastSystem{rx: rxs}
	// Stoichiometry in amounts: cols[j][species index] for reaction j.
	cols := make([]map[int]*big.Rat, len(rxs))
	terms := make([]map[int][]fastTerm, len(rxs))
	ok := true
	for j, rx := range rxs {
		cols[j] = make(map[int]*big.Rat)
		terms[j] = make(map[int][]fastTerm)
		for i, list := range [][]*SpeciesReference{rx.Reactants, rx.Products} {
			for _, sr := range list {
				v := l.vars[sr.Species]
				if v == nil || v.sp.BoundaryCondition || v.sp.Constant {
					continue
				}
				st := stoich(sr)
				var varSV *variable
				if sr.ID != "" {
					// A stoichiometry set by a rule (stoichiometryMath
					// included) is taken when its value is a constant.
					// One that only an initial assignment or events set
					// is constant between events, which is all the
					// pools need (their conserved combinations are
					// formed anew at each event that sets it): its
					// value at t = 0 picks the elimination's pivots.
					// A rule can change it continuously, and the fast
					// flux then moves the pools along the changing
					// stoichiometry, which L n = y does not describe.
					sv := l.vars[sr.ID]
					val := l.value(sv)
					switch {
					case val == nil:
						l.reportUndef(sv, "stoichiometry in fast reaction "+rx.ID, sv)
						ok = false
						continue
					case sv.rr != nil || sv.alg != nil || (sv.ar != nil && val.Op != symbolic.OpConst):
						refuse(sr.Line, "speciesReference", sr.ID, "stoichiometry set by a rule in fast reaction %q is not supported (only constants, initial assignments and events)", rx.ID)
						ok = false
						continue
					case val.Op == symbolic.OpConst && !sv.evTarget:
						st = val.Val
					default:
						st = l.evalDefault(l.init(sv))
						varSV = sv
					}
				}
				if v.rr != nil || v.ar != nil || v.alg != nil {
					refuse(v.line, "species", v.id, "a species of fast reaction %q that a rule also sets is not supported", rx.ID)
					ok = false
					continue
				}
				cf, good := l.constFactor(v)
				if !good {
					refuse(v.line, "species", v.id, "a conversion factor that is not a constant in fast reaction %q is not supported", rx.ID)
					ok = false
					continue
				}
				k, seen := idx[v]
				if !seen {
					k = len(fs.species)
					idx[v] = k
					fs.species = append(fs.species, v)
				}
				s := new(big.Rat)
				if s.SetFloat64(st) == nil {
					refuse(sr.Line, "speciesReference", sr.ID, "stoichiometry %v in fast reaction %q is not supported", st, rx.ID)
					ok = false
					continue
				}
				s.Mul(s, cf)
				coef := new(big.Rat).Set(cf)
				if i == 0 {
					s.Neg(s)
					coef.Neg(coef)
				}
				if varSV == nil {
					coef.Set(s)
				} else {
					fs.varying = true
					if fs.stoichVar == nil {
						fs.stoichVar = make(map[*variable]bool)
					}
					fs.stoichVar[varSV] = true
				}
				terms[j][k] = append(terms[j][k], fastTerm{coef: coef, sv: varSV})
				if c := cols[j][k]; c != nil {
					s.Add(s, c)
				}
				cols[j][k] = s
			}
		}
	}
	if !ok {
		return
	}
	// The left null space of N_f is the null space of A = N_f^T
	// (reactions x species), from its reduced row echelon form.
	ns := len(fs.species)
	A := make([][]*big.Rat, len(rxs))
	for j := range A {
		A[j] = make([]*big.Rat, ns)
		for k := range A[j] {
			A[j][k] = new(big.Rat)
			if c := cols[j][k]; c != nil {
				A[j][k].Set(c)
			}
		}
	}
	plan := rref(A)
	if len(plan) < len(rxs) {
		refuse(rxs[0].Line, "reaction", rxs[0].ID, "linearly dependent fast reactions (%d reactions of rank %d) are not supported", len(rxs), len(plan))
		return
	}
	if fs.varying {
		fs.terms, fs.plan = terms, plan
	}
	pivots := make([]int, len(plan))
	for r, st := range plan {
		pivots[r] = st.col
	}
	isPivot := make(map[int]int)
	for r, c := range pivots {
		isPivot[c] = r
	}
	for f := 0; f < ns && !fs.varying; f++ {
		if _, p := isPivot[f]; p {
			continue
		}
		row := make([]*big.Rat, ns)
		for k := range row {
			row[k] = new(big.Rat)
		}
		row[f].SetInt64(1)
		for c, r := range isPivot {
			row[c].Neg(A[r][f])
		}
		fs.L = append(fs.L, row)
	}
	fs.N = make([][]float64, ns)
	for i := range fs.N {
		fs.N[i] = make([]float64, len(rxs))
		for j := range rxs {
			if c := cols[j][i]; c != nil {
				fs.N[i][j], _ = c.Float64()
			}
		}
	}
	for _, v := range fs.species {
		v.fast = true
	}
	if !l.heldReactions(fs, cols, plan) {
		return
	}
	l.fast = fs
}

// heldFast is a fast reaction that events can switch off: its rate has a
// factor off makes 0 (a product's factor that reads no fast species and
// no state but those only events change), so that between events it is
// either a fast reaction or none at all.
type heldFast struct {
	j        int                // index in fastSystem.rx
	off      *symbolic.Node     // true where the factor is 0
	P        []*big.Rat         // row j of a left inverse of N_f, over the fast species (amounts)
	switches map[*variable]bool // the states only events change that the factor reads
}

// heldReactions finds the fast reactions that events can switch off
// (fs.held) and reports false, with an error, when it cannot take them.
//
// While such a reaction's rate is 0 whatever the species (its switch
// factor 0: SBML test 00987's k1 A with k1 = 0 until an event), rapid
// equilibrium does not hold it anywhere: it does not run, and the
// species keep what the other reactions give them. Its equation 0 = v_j
// determines nothing then (runtime/dae would find g_z singular), and
// the amount it would move is history, not a function of the state: in
// coordinates w = P a n (P N_f = I), reaction j's extent moves only w_j,
// the slow reactions move it by (P N_s v_s)_j. So a state w_j ("held"),
// with that rate, holds it: while the factor is 0 the reaction's residual
// is P_j a n - w_j instead of v_j, still index 1. An event that sets a
// state the factor reads, or a fast species, sets w_j to P_j a n from the
// values after its assignments: only such an event can switch the factor
// to 0 or move what the reaction holds, and w_j must start from the
// species' values then (while the reaction runs, w_j is not used, and
// drifts; while it is off, w_j follows P_j a n by its rate). The switch
// is recognised only as a factor of a product (k1 A, k1 (A - B/K)), not
// in a sum (k1 A - k1 B): such a rate at k1 = 0 is still refused by
// runtime/dae, not index 1.
func (l *lowering) heldReactions(fs *fastSystem, cols []map[int]*big.Rat, plan []rrefStep) bool {
	isFast := make(map[string]bool, len(fs.species))
	for _, v := range fs.species {
		isFast[v.id] = true
	}
	eventOnly := func(name string) bool {
		v := l.vars[name]
		return v != nil && v.isState && v.evTarget && v.rr == nil && v.alg == nil && !isFast[name] && !(v.kind == vSpecies && v.reacting)
	}
	for j, rx := range fs.rx {
		r := l.value(l.vars[rx.ID])
		if r == nil {
			continue // reported where the residual is formed
		}
		factors := []*symbolic.Node{r}
		if r.Op == symbolic.OpMul {
			factors = r.Args
		}
		var offs []*symbolic.Node
		sw := make(map[*variable]bool)
		for _, f := range factors {
			var reads []*variable
			fixed := true
			for _, sym := range symbolic.FreeSymbols(f) {
				switch {
				case sym.Kind == symbolic.KindParam:
				case sym.Kind == symbolic.KindState && eventOnly(sym.Name):
					reads = append(reads, l.vars[sym.Name])
				default:
					fixed = false
				}
			}
			if len(reads) > 0 && fixed {
				offs = append(offs, l.b.Rel(symbolic.OpEq, f, l.b.Const(0)))
				for _, v := range reads {
					sw[v] = true
				}
			}
		}
		if len(offs) == 0 {
			continue
		}
		if fs.varying {
			l.errs.add(l.m.File, rx.Line, "reaction", rx.ID, "a fast reaction that events can switch off (a factor of its rate that events set) in a system whose stoichiometry events or initial assignments set is not supported")
			return false
		}
		off := offs[0]
		if len(offs) > 1 {
			off = l.b.Logic(symbolic.OpOr, offs...)
		}
		fs.held = append(fs.held, heldFast{j: j, off: off, switches: sw})
	}
	if len(fs.held) == 0 {
		return true
	}
	// P = rows of the inverse of N_f^T's pivot columns (square and
	// invertible: rank nf), zero elsewhere, so that N_f^T P^T = I.
	nf, ns := len(fs.rx), len(fs.species)
	aug := make([][]*big.Rat, nf)
	for j := range aug {
		aug[j] = make([]*big.Rat, 2*nf)
		for r, st := range plan {
			aug[j][r] = new(big.Rat)
			if c := cols[j][st.col]; c != nil {
				aug[j][r].Set(c)
			}
		}
		for k := nf; k < 2*nf; k++ {
			aug[j][k] = new(big.Rat)
		}
		aug[j][nf+j].SetInt64(1)
	}
	rref(aug) // [I | inverse]
	for h := range fs.held {
		j := fs.held[h].j
		P := make([]*big.Rat, ns)
		for k := range P {
			P[k] = new(big.Rat)
		}
		for r, st := range plan {
			P[st.col].Set(aug[r][nf+j])
		}
		fs.held[h].P = P
	}
	return true
}

// constFactor is the conversion factor of species v as a constant, and
// whether it is one.
func (l *lowering) constFactor(v *variable) (*big.Rat, bool) {
	cf := v.sp.ConversionFactor
	if cf == "" {
		cf = l.m.ConversionFactor
	}
	one := big.NewRat(1, 1)
	if cf == "" {
		return one, true
	}
	c := l.vars[cf]
	if c == nil || c.ar != nil || c.rr != nil || c.ia != nil || c.evTarget || c.alg != nil || c.decl == nil || c.decl.Op != symbolic.OpConst {
		return nil, false
	}
	if one.SetFloat64(c.decl.Val) == nil {
		return nil, false
	}
	return one, true
}

// rref brings A to reduced row echelon form in place and returns, for
// each non-zero row, its pivot column and the row swapped into place.
func rref(A [][]*big.Rat) []rrefStep {
	if len(A) == 0 {
		return nil
	}
	rows, cols := len(A), len(A[0])
	var pivots []rrefStep
	r := 0
	for c := 0; c < cols && r < rows; c++ {
		p := -1
		for i := r; i < rows; i++ {
			if A[i][c].Sign() != 0 {
				p = i
				break
			}
		}
		if p < 0 {
			continue
		}
		A[r], A[p] = A[p], A[r]
		inv := new(big.Rat).Inv(A[r][c])
		for k := range A[r] {
			A[r][k].Mul(A[r][k], inv)
		}
		for i := 0; i < rows; i++ {
			if i == r || A[i][c].Sign() == 0 {
				continue
			}
			f := new(big.Rat).Set(A[i][c])
			for k := range A[i] {
				A[i][k].Sub(A[i][k], new(big.Rat).Mul(f, A[r][k]))
			}
		}
		pivots = append(pivots, rrefStep{col: c, from: p})
		r++
	}
	return pivots
}

// conserved returns the rows of L (over the fast species, in amounts) as
// expressions, nil for a zero entry: the constants of fs.L, or, when a
// stoichiometry varies, the elimination of fs.plan replayed on the
// stoichiometries' values that val gives (the value at t, at t = 0, or
// assigned by an event), or nil when val gives none. The pivots are
// those of the values at t = 0; where a later value makes one 0, L's
// entries are not finite and so are the residuals, which runtime/dae
// reports as a failure at that time rather than a wrong equilibrium.
func (l *lowering) conserved(val func(*variable) *symbolic.Node) [][]*symbolic.Node {
	fs, b := l.fast, l.b
	ns := len(fs.species)
	if !fs.varying {
		out := make([][]*symbolic.Node, len(fs.L))
		for k, row := range fs.L {
			out[k] = make([]*symbolic.Node, ns)
			for i, c := range row {
				if c.Sign() != 0 {
					out[k][i] = ratConst(b, c)
				}
			}
		}
		return out
	}
	A := make([][]*symbolic.Node, len(fs.rx))
	for j := range A {
		A[j] = make([]*symbolic.Node, ns)
		for k, ts := range fs.terms[j] {
			var sum []*symbolic.Node
			for _, t := range ts {
				c := ratConst(b, t.coef)
				if t.sv != nil {
					sv := val(t.sv)
					if sv == nil {
						return nil
					}
					c = b.Mul(c, sv)
				}
				sum = append(sum, c)
			}
			A[j][k] = b.Add(sum...)
		}
	}
	isPivot := make(map[int]int)
	for r, st := range fs.plan {
		c := st.col
		isPivot[c] = r
		A[r], A[st.from] = A[st.from], A[r]
		piv := A[r][c]
		for k := range A[r] {
			if A[r][k] != nil {
				A[r][k] = b.Div(A[r][k], piv)
			}
		}
		A[r][c] = b.Const(1)
		for i := range A {
			f := A[i][c]
			if i == r || f == nil {
				continue
			}
			for k := range A[i] {
				if A[r][k] != nil {
					A[i][k] = b.Sub(orZero(b, A[i][k]), b.Mul(f, A[r][k]))
				}
			}
			A[i][c] = nil
		}
	}
	var out [][]*symbolic.Node
	for f := 0; f < ns; f++ {
		if _, p := isPivot[f]; p {
			continue
		}
		row := make([]*symbolic.Node, ns)
		row[f] = b.Const(1)
		for c, r := range isPivot {
			if A[r][f] != nil {
				row[c] = b.Neg(A[r][f])
			}
		}
		out = append(out, row)
	}
	return out
}

func orZero(b *symbolic.Builder, n *symbolic.Node) *symbolic.Node {
	if n == nil {
		return b.Const(0)
	}
	return n
}

// amountFactor is the amount per unit of a fast species' state (the
// compartment size for a concentration state, whose compartment is
// constant), in values (at t) and at t = 0.
func (l *lowering) amountFactor(v *variable, atT0 bool) *symbolic.Node {
	if v.stateIsAmount {
		return l.b.Const(1)
	}
	if atT0 {
		return l.init(v.comp)
	}
	return l.value(v.comp)
}

// fastStates appends the conserved pools y (differential) to ode.States.
func (l *lowering) fastStates(ode *symbolic.ODE) {
	fs := l.fast
	if fs == nil {
		return
	}
	b := l.b
	isFast := make(map[*Reaction]bool, len(fs.rx))
	for _, rx := range fs.rx {
		isFast[rx] = true
	}
	// Slow flux of each fast species in amounts.
	slow := make([]*symbolic.Node, len(fs.species))
	for i, v := range fs.species {
		l.cur = v
		var terms []*symbolic.Node
		for _, u := range l.uses[v] {
			if isFast[u.rx] {
				continue
			}
			st := b.Const(stoich(u.sr))
			if u.sr.ID != "" {
				if st = l.value(l.vars[u.sr.ID]); st == nil {
					l.reportUndef(v, "stoichiometry in reaction "+u.rx.ID, l.vars[u.sr.ID])
					return
				}
			}
			rate := l.value(l.vars[u.rx.ID])
			if rate == nil {
				l.reportUndef(v, "rate of reaction "+u.rx.ID, l.vars[u.rx.ID])
				return
			}
			if u.reactant {
				st = b.Neg(st)
			}
			terms = append(terms, b.Mul(st, rate))
		}
		sum := b.Add(terms...)
		cf := v.sp.ConversionFactor
		if cf == "" {
			cf = l.m.ConversionFactor
		}
		if cf != "" {
			f := l.value(l.vars[cf])
			if f == nil {
				l.reportUndef(v, "conversion factor", l.vars[cf])
				return
			}
			sum = b.Mul(sum, f)
		}
		slow[i] = sum
	}
	rowsT, rows0 := l.conserved(l.value), l.conserved(l.init)
	if rowsT == nil || rows0 == nil {
		l.fastStoichUndef()
		return
	}
	for k, row := range rowsT {
		name := l.fastName(k)
		var rate, init []*symbolic.Node
		for i, cv := range row {
			if cv == nil {
				continue
			}
			v := fs.species[i]
			l.cur = v
			rate = append(rate, b.Mul(cv, slow[i]))
			x0, a0 := l.fastInit(v), l.amountFactor(v, true)
			if x0 == nil || a0 == nil {
				l.reportUndef(v, "initial value", v)
				return
			}
			init = append(init, b.Mul(rows0[k][i], b.Mul(a0, x0)))
		}
		y0 := b.Add(init...)
		if a := l.algDependence(y0); a != nil {
			l.algInitUse(a, "initial value")
			return
		}
		ode.States = append(ode.States, symbolic.State{Name: name, Rate: b.Add(rate...), Init: y0,
			Meta: map[string]string{"sbml": "fast", "about": "amount conserved by the fast reactions"}})
	}
	for _, h := range fs.held {
		var rate, init []*symbolic.Node
		for i, c := range h.P {
			if c.Sign() == 0 {
				continue
			}
			v := fs.species[i]
			l.cur = v
			cv := ratConst(b, c)
			rate = append(rate, b.Mul(cv, slow[i]))
			x0, a0 := l.fastInit(v), l.amountFactor(v, true)
			if x0 == nil || a0 == nil {
				l.reportUndef(v, "initial value", v)
				return
			}
			init = append(init, b.Mul(cv, b.Mul(a0, x0)))
		}
		w0 := b.Add(init...)
		if a := l.algDependence(w0); a != nil {
			l.algInitUse(a, "initial value")
			return
		}
		ode.States = append(ode.States, symbolic.State{Name: l.heldName(fs.rx[h.j]), Rate: b.Add(rate...), Init: w0,
			Meta: map[string]string{"sbml": "fast_held", "reaction": fs.rx[h.j].ID,
				"about": "amount only fast reaction " + fs.rx[h.j].ID + " moves, held while events switch it off"}})
	}
}

// heldName is the name of the held state of fast reaction rx, made
// unique against the SBML ids.
func (l *lowering) heldName(rx *Reaction) string {
	name := "fast_held_" + rx.ID
	for l.vars[name] != nil {
		name += "_"
	}
	return name
}

// heldValue is P_j a n for held reaction h, n the fast species' states
// (n(v) gives each; nil for the current state), or nil with the error
// reported.
func (l *lowering) heldValue(h heldFast, n func(*variable) *symbolic.Node) *symbolic.Node {
	b := l.b
	var terms []*symbolic.Node
	for i, c := range h.P {
		if c.Sign() == 0 {
			continue
		}
		v := l.fast.species[i]
		a := l.amountFactor(v, false)
		if a == nil {
			l.reportUndef(v, "size", v.comp)
			return nil
		}
		x := b.Sym(v.id, symbolic.KindState)
		if n != nil {
			x = n(v)
		}
		terms = append(terms, b.Mul(ratConst(b, c), b.Mul(a, x)))
	}
	return b.Add(terms...)
}

// fastStoichUndef reports the first varying stoichiometry of the fast
// reactions without a value (collectFast formed each once, so this is
// reached only through a failure reported already, or not at all).
func (l *lowering) fastStoichUndef() {
	for _, v := range l.list {
		if l.fast.stoichVar[v] {
			if _, bad := l.undef[v]; bad {
				l.reportUndef(v, "stoichiometry in a fast reaction", v)
				return
			}
		}
	}
	l.errs.add(l.m.File, l.fast.rx[0].Line, "reaction", l.fast.rx[0].ID, "a stoichiometry of the fast reactions has no value")
}

// fastInit is the initial value of a fast species' state (an amount
// where the state is one and the value in math a concentration), or nil.
func (l *lowering) fastInit(v *variable) *symbolic.Node {
	x0 := l.init(v)
	if x0 == nil || !v.stateIsAmount || v.valueIsAmount {
		return x0
	}
	size := l.init(v.comp)
	if size == nil {
		return nil
	}
	return l.b.Mul(x0, size)
}

// fastName is the name of pool k, made unique against the SBML ids.
func (l *lowering) fastName(k int) string {
	name := fmt.Sprintf("fast_pool%d", k+1)
	for l.vars[name] != nil {
		name += "_"
	}
	return name
}

func ratConst(b *symbolic.Builder, r *big.Rat) *symbolic.Node {
	f, _ := r.Float64()
	return b.Const(f)
}

// fastAlgebraic appends the fast species as algebraic variables with the
// residuals L a x - y (one per pool) and v_f (one per fast reaction).
func (l *lowering) fastAlgebraic(ode *symbolic.ODE) {
	fs := l.fast
	if fs == nil {
		return
	}
	b := l.b
	var res []*symbolic.Node
	rows := l.conserved(l.value)
	if rows == nil {
		l.fastStoichUndef()
		return
	}
	for k, row := range rows {
		terms := []*symbolic.Node{b.Neg(b.Sym(l.fastName(k), symbolic.KindState))}
		for i, c := range row {
			if c == nil {
				continue
			}
			v := fs.species[i]
			a := l.amountFactor(v, false)
			if a == nil {
				l.reportUndef(v, "size", v.comp)
				return
			}
			terms = append(terms, b.Mul(c, b.Mul(a, b.Sym(v.id, symbolic.KindState))))
		}
		res = append(res, b.Add(terms...))
	}
	heldOf := make(map[int]heldFast, len(fs.held))
	for _, h := range fs.held {
		heldOf[h.j] = h
	}
	for j, rx := range fs.rx {
		rv := l.vars[rx.ID]
		l.cur = rv
		r := l.value(rv)
		if r == nil {
			l.reportUndef(rv, "rate of fast reaction", rv)
			return
		}
		if h, ok := heldOf[j]; ok {
			pan := l.heldValue(h, nil)
			if pan == nil {
				return
			}
			r = b.Piecewise(b.Sub(pan, b.Sym(l.heldName(rx), symbolic.KindState)), h.off, r)
		}
		res = append(res, r)
	}
	guesses := make([]*symbolic.Node, len(fs.species))
	for i, v := range fs.species {
		l.cur = v
		x0 := l.fastInit(v)
		if x0 == nil {
			l.reportUndef(v, "initial value", v)
			return
		}
		if l.algDependence(x0) != nil {
			x0 = b.Const(0) // a guess only
		}
		guesses[i] = x0
	}
	if relaxed := l.relax(ode, guesses); relaxed != nil {
		for i, v := range relaxed {
			guesses[i] = b.Const(v)
		}
	}
	for i, v := range fs.species {
		l.cur = v
		st := symbolic.State{Name: v.id, Meta: map[string]string{"sbml": "species", "compartment": v.comp.id, "fast": "true"}}
		st.Meta["units"] = "concentration"
		if v.stateIsAmount {
			st.Meta["units"] = "amount"
		}
		st.Init = guesses[i]
		// Residuals are assigned to the fast species in order only to
		// give each algebraic row one: the elimination uses g_z whole.
		st.Rate = res[i]
		ode.States = append(ode.States, st)
		ode.Algebraic++
	}
}

// relax returns the fast species' first guess moved towards the
// equilibrium the fast reactions reach from the declared values, at the
// default parameters, or nil when there is nothing to move or a value is
// not finite.
//
// v_f = 0 may have several solutions (a reaction k S1 S2 with k < 0 is
// at equilibrium when S1 = 0 and when S2 = 0, and only one is reached by
// running it: backwards, until S2 is used up), and Newton's method from
// the declared values may converge to the wrong one, or start where g_z
// is singular (S1 = S2). Rapid equilibrium means the state the fast
// reactions reach, so the guess follows their flow
// dn/ds = N_f v_f(n) (which keeps L n) with explicit Euler steps that
// shrink when |v_f| would grow, until |v_f| has fallen by 1e-9 or after
// a bounded number of steps; runtime/dae's Newton iteration finishes the
// job (for any parameters: the guess only picks the branch).
func (l *lowering) relax(ode *symbolic.ODE, guesses []*symbolic.Node) []float64 {
	fs := l.fast
	ns, nf := len(fs.species), len(fs.rx)
	x := make([]float64, ns)
	for i, g := range guesses {
		if x[i] = l.evalDefault(g); x[i] != x[i] || x[i]-x[i] != 0 {
			return nil
		}
	}
	idx := make(map[string]int, ns)
	for i, v := range fs.species {
		idx[v.id] = i
	}
	other := make(map[string]float64)
	for _, st := range ode.States {
		other[st.Name] = l.evalDefault(st.Init)
	}
	a := make([]float64, ns)
	for i, v := range fs.species {
		if a[i] = l.evalDefault(l.amountFactor(v, true)); a[i] == 0 || a[i] != a[i] {
			return nil
		}
	}
	rates := make([]*symbolic.Node, nf)
	for j, rx := range fs.rx {
		if rates[j] = l.value(l.vars[rx.ID]); rates[j] == nil {
			return nil
		}
	}
	v := make([]float64, nf)
	flux := func(x []float64) float64 {
		env := func(sym *symbolic.Node) float64 {
			switch sym.Kind {
			case symbolic.KindState:
				if i, ok := idx[sym.Name]; ok {
					return x[i]
				}
				if val, ok := other[sym.Name]; ok {
					return val
				}
			case symbolic.KindParam:
				if val, ok := l.paramValue[sym.Name]; ok {
					return val
				}
			case symbolic.KindTime:
				return 0
			}
			return math.NaN()
		}
		n := 0.0
		for j, r := range rates {
			v[j] = symbolic.Eval(r, env)
			n += v[j] * v[j]
		}
		return math.Sqrt(n)
	}
	norm0 := flux(x)
	if norm0 == 0 || norm0 != norm0 || norm0-norm0 != 0 {
		return nil
	}
	deriv := func(dst []float64) {
		for i := range dst {
			d := 0.0
			for j, nij := range fs.N[i] {
				d += nij * v[j]
			}
			dst[i] = d / a[i]
		}
	}
	k1, k2, xn := make([]float64, ns), make([]float64, ns), make([]float64, ns)
	norm, ds := norm0, math.Inf(1)
	for step := 0; step < 20000 && norm > 1e-9*norm0; step++ {
		flux(x)
		deriv(k1)
		// No species may lose more than a tenth of its value in a step
		// (the flow keeps them non-negative), nor change by more than a
		// tenth of the largest.
		scale := 0.0
		for i := range x {
			scale = math.Max(scale, math.Abs(x[i]))
		}
		limit := math.Inf(1)
		for i := range x {
			if k1[i] < 0 && x[i] > 0 {
				limit = math.Min(limit, 0.1*x[i]/-k1[i])
			}
			if k1[i] != 0 {
				limit = math.Min(limit, 0.1*(scale+1e-300)/math.Abs(k1[i]))
			}
		}
		ds = math.Min(2*ds, limit)
		// Heun's method with its Euler companion as error estimate
		// (relative 1e-3: the guess need only be on the right branch).
		accepted := false
		for try := 0; try < 60; try++ {
			for i := range x {
				xn[i] = x[i] + ds*k1[i]
			}
			flux(xn)
			deriv(k2)
			e := 0.0
			for i := range x {
				e = math.Max(e, math.Abs(ds/2*(k2[i]-k1[i]))/(1e-12*scale+1e-3*math.Abs(x[i])+1e-300))
			}
			if e <= 1 && e == e {
				for i := range x {
					x[i] += ds / 2 * (k1[i] + k2[i])
				}
				accepted = true
				break
			}
			ds /= 2
		}
		if !accepted {
			break
		}
		norm = flux(x)
		if norm != norm || norm-norm != 0 {
			return nil
		}
	}
	return x
}

// fastEvent returns the assignments of the conserved pools (and held
// amounts) for an event
// that sets fast species (fastNew: their new states) or a stoichiometry
// of the fast reactions (vals: every assigned value, in math's units),
// and whether they could be formed. The fast species are algebraic:
// an event cannot set them directly, since the fast reactions take any
// value it sets to their equilibrium at once, keeping the conserved
// amounts. So the event sets those amounts, y = L(s) a n, from the
// species' values after the assignments (the assigned ones, the others
// at their equilibrium before the event) and with the stoichiometries
// after it; runtime/dae then solves the new equilibrium (starting from
// the one before the event). An event that sets fast species or a
// factor that switches a fast reaction off also sets its held amount
// w_j = P_j a n from the same values (heldReactions). All of it sees the
// values before the event, like every assignment; an event with a delay
// whose values are its trigger time's is split first (lateFast), so that
// these are formed at its execution from the values saved at its
// trigger.
func (l *lowering) fastEvent(vals, fastNew map[*variable]*symbolic.Node, idx map[string]int) ([]symbolic.EventAssign, bool) {
	fs, b := l.fast, l.b
	if fs == nil {
		return nil, true
	}
	var out []symbolic.EventAssign
	for _, h := range fs.held {
		switches := len(fastNew) > 0
		for v := range vals {
			switches = switches || h.switches[v]
		}
		if !switches {
			continue // the held amount is unchanged, or not in use
		}
		w := l.heldValue(h, func(v *variable) *symbolic.Node {
			if n, ok := fastNew[v]; ok {
				return n
			}
			return b.Sym(v.id, symbolic.KindState)
		})
		if w == nil {
			return nil, false
		}
		out = append(out, symbolic.EventAssign{State: idx[l.heldName(fs.rx[h.j])], Value: w})
	}
	touched := len(fastNew) > 0
	for v := range vals {
		touched = touched || fs.stoichVar[v]
	}
	if !touched {
		return out, true
	}
	rows := l.conserved(func(v *variable) *symbolic.Node {
		if n, ok := vals[v]; ok {
			return n
		}
		return l.value(v)
	})
	if rows == nil {
		l.fastStoichUndef()
		return nil, false
	}
	for k, row := range rows {
		var terms []*symbolic.Node
		for i, c := range row {
			if c == nil {
				continue
			}
			v := fs.species[i]
			n, ok := fastNew[v]
			if !ok {
				n = b.Sym(v.id, symbolic.KindState)
			}
			a := l.amountFactor(v, false)
			if a == nil {
				l.reportUndef(v, "size", v.comp)
				return nil, false
			}
			terms = append(terms, b.Mul(c, b.Mul(a, n)))
		}
		out = append(out, symbolic.EventAssign{State: idx[l.fastName(k)], Value: b.Add(terms...)})
	}
	return out, true
}
