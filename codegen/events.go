package codegen

import (
	"errors"
	"fmt"
	"slices"

	"github.com/dave/jennifer/jen"

	"github.com/pbgen/pbgen/symbolic"
)

// ErrEvents was wrapped by the error Generate returned for a system with
// events, before generated code implemented model.Events.
//
// Deprecated: Generate no longer returns it; it stays so that code (and
// other branches) testing for it keep compiling.
var ErrEvents = errors.New("events are not supported by generated code")

// evSet is one event checked and ordered for emission: its targets
// ascending (the contract of EventTargets) with their values permuted
// alike, and the structurally non-zero derivatives of its delay (row 0)
// and values (row 1+i) in t, the states and the parameters.
type evSet struct {
	e       *symbolic.Event
	targets []int
	values  []*symbolic.Node
	derivs  []evDeriv
}

// evDeriv is one structurally non-zero derivative: of row row with
// respect to time (kind 't'), state (kind 'x') or parameter (kind 'p')
// number col.
type evDeriv struct {
	row  int
	kind byte
	col  int
	expr *symbolic.Node
}

// checkEvents validates the events (expressions over time, states and
// parameters; targets states, each at most once), collects the root
// functions of all triggers as interp does (per event in document order,
// symbolic.Builder.Roots order, first occurrence kept), so that root j
// means the same function in both, and differentiates the delays, values
// and roots. Derivatives are taken with respect to time, then states,
// then parameters, each by index, so the output never depends on map
// order.
func (g *generator) checkEvents() error {
	name := g.sys.ODE.Name
	b := g.sys.B
	seenRoot := make(map[*symbolic.Node]bool)
	for k := range g.sys.ODE.Events {
		e := &g.sys.ODE.Events[k]
		what := fmt.Sprintf("event %q", e.Name)
		if e.Trigger == nil || !b.Owns(e.Trigger) {
			return fmt.Errorf("codegen: model %q: %s: trigger is nil or from another Builder", name, what)
		}
		if err := g.checkRoot(what+" trigger", e.Trigger, false); err != nil {
			return err
		}
		for _, n := range []*symbolic.Node{e.Delay, e.Priority} {
			if n == nil {
				continue
			}
			if !b.Owns(n) {
				return fmt.Errorf("codegen: model %q: %s: delay or priority from another Builder", name, what)
			}
			if err := g.checkRoot(what, n, false); err != nil {
				return err
			}
		}
		as := slices.Clone(e.Assign)
		slices.SortStableFunc(as, func(a, c symbolic.EventAssign) int { return a.State - c.State })
		set := evSet{e: e}
		for _, a := range as {
			if a.State < 0 || a.State >= g.nx || len(set.targets) > 0 && set.targets[len(set.targets)-1] == a.State {
				return fmt.Errorf("codegen: model %q: %s: bad or repeated target state %d", name, what, a.State)
			}
			if a.Value == nil || !b.Owns(a.Value) {
				return fmt.Errorf("codegen: model %q: %s: value of %q is nil or from another Builder", name, what, g.sys.ODE.States[a.State].Name)
			}
			if err := g.checkRoot(what, a.Value, false); err != nil {
				return err
			}
			set.targets = append(set.targets, a.State)
			set.values = append(set.values, a.Value)
		}
		rows := append([]*symbolic.Node{e.Delay}, set.values...)
		var err error
		if set.derivs, err = g.txpDerivs(rows); err != nil {
			return fmt.Errorf("codegen: model %q: %s: %w", name, what, err)
		}
		g.evs = append(g.evs, set)
		for _, r := range b.Roots(e.Trigger) {
			if !seenRoot[r] {
				seenRoot[r] = true
				g.evRoots = append(g.evRoots, r)
			}
		}
	}
	// The switches of f (model.Switches) follow the triggers' roots, as
	// in interp.
	sw := b.Switches(g.sys.F)
	g.nsw = len(sw)
	g.evRoots = append(g.evRoots, sw...)
	for _, r := range g.evRoots {
		ds, err := g.txpDerivs([]*symbolic.Node{r})
		if err != nil {
			return fmt.Errorf("codegen: model %q: event root functions: %w", name, err)
		}
		g.evRootDerivs = append(g.evRootDerivs, ds)
	}
	return nil
}

// txpDerivs returns the structurally non-zero derivatives of rows (nil
// rows have none) in t, the states, the parameters and the delayed
// values (kind 'd': model.DelayEventDerivs), row by row.
func (g *generator) txpDerivs(rows []*symbolic.Node) ([]evDeriv, error) {
	var out []evDeriv
	dIx := g.sys.ODE.DelayIndex()
	for r, v := range rows {
		if v == nil {
			continue
		}
		var tsym *symbolic.Node
		xs, ps, ds := make([]*symbolic.Node, g.nx), make([]*symbolic.Node, g.np), make([]*symbolic.Node, len(g.sys.ODE.Delays))
		for _, s := range symbolic.FreeSymbols(v) {
			switch s.Kind {
			case symbolic.KindTime:
				tsym = s
			case symbolic.KindState:
				xs[g.stateIx[s.Name]] = s
			case symbolic.KindParam:
				ps[g.paramIx[s.Name]] = s
			case symbolic.KindDelay:
				ds[dIx[s.Name]] = s
			}
		}
		groups := []struct {
			kind byte
			syms []*symbolic.Node
		}{{'t', []*symbolic.Node{tsym}}, {'x', xs}, {'p', ps}, {'d', ds}}
		for _, grp := range groups {
			for col, s := range grp.syms {
				if s == nil {
					continue
				}
				d, err := g.sys.B.Diff(v, s)
				if err != nil {
					return nil, err
				}
				if !d.IsConst(0) {
					out = append(out, evDeriv{row: r, kind: grp.kind, col: col, expr: d})
				}
			}
		}
	}
	return out, nil
}

// Parameter lists of the event functions.
var (
	evDerivParams   = []jen.Code{jen.Id("t").Float64(), jen.List(jen.Id("x"), jen.Id("p")).Index().Float64(), jen.Id("d").Op("*").Qual(modelPkg, "EventDeriv")}
	evDerivArgs     = []jen.Code{jen.Id("t"), jen.Id("x"), jen.Id("p"), jen.Id("d")}
	rootGradParams  = []jen.Code{jen.Id("dst").Index().Float64(), jen.Id("t").Float64(), jen.List(jen.Id("x"), jen.Id("p"), jen.Id("dx"), jen.Id("dp")).Index().Float64()}
	rootGradArgs    = []jen.Code{jen.Id("dst"), jen.Id("t"), jen.Id("x"), jen.Id("p"), jen.Id("dx"), jen.Id("dp")}
	evTriggerHelper = "triggers"
)

func evValueName(k int) string  { return fmt.Sprintf("event%d", k) }
func evDerivName(k int) string  { return fmt.Sprintf("eventDeriv%d", k) }
func rootGradName(j int) string { return fmt.Sprintf("rootGrad%d", j) }

// eventSections lists the event sections: the triggers as numbers, the
// root functions (RootsTo itself), then per event its values and their
// derivatives, then per root function its gradient.
func (g *generator) eventSections() []*section {
	trig := &section{method: evTriggerHelper, helper: evTriggerHelper, file: "events.go", function: true,
		doc:    "triggers writes each event's trigger at (t, x, p) into dst as 1 (true) or 0 (false); TriggersTo reads NaN as false, as interp does.",
		params: txpParams, args: txpArgs}
	if g.delayed() {
		trig.params, trig.args = txpdParams, txpdArgs
	}
	for k := range g.evs {
		e := g.evs[k].e
		trig.add(e.Trigger, k, fmt.Sprintf("%s: %s", e.Name, oneLine(e.Trigger.String(), 100)))
	}
	roots := g.txpSection("RootsTo", "roots", "events.go", "RootsTo writes the root functions of the triggers at (t, x, p) into dst (model.Events).", jen.Id("NumRoots"))
	for j, r := range g.evRoots {
		roots.add(r, j, fmt.Sprintf("g%d%s", j, g.infix(r)))
	}
	secs := []*section{trig, roots}
	for k := range g.evs {
		secs = append(secs, g.evValueSection(k), g.evDerivSection(k))
	}
	for j := range g.evRoots {
		secs = append(secs, g.rootGradSection(j))
	}
	return secs
}

// evValueSection is event k's values: dst[0] its delay (0 without one),
// dst[1] its priority (0 without one), dst[2+i] the value assigned to
// target number i, the layout of interp's per-event program.
func (g *generator) evValueSection(k int) *section {
	set := g.evs[k]
	s := &section{method: evValueName(k), helper: evValueName(k), file: "events.go", function: true,
		doc: fmt.Sprintf("%s writes event %d's (%q) delay, priority and assigned values (in the order of EventTargets(%d)) into dst[0], dst[1] and dst[2:].",
			evValueName(k), k, set.e.Name, k),
		params: txpParams, args: txpArgs}
	if g.delayed() {
		s.params, s.args = txpdParams, txpdArgs
	}
	zero := g.sys.B.Const(0)
	delay, prio := zero, zero
	if set.e.Delay != nil {
		delay = set.e.Delay
	}
	if set.e.Priority != nil {
		prio = set.e.Priority
	}
	s.add(delay, 0, "delay"+g.infix(delay))
	s.add(prio, 1, "priority"+g.infix(prio))
	for i, v := range set.values {
		c := g.sys.ODE.States[set.targets[i]].Name + " :="
		if e := oneLine(v.String(), 100); e != "" {
			c += " " + e
		}
		s.add(v, 2+i, c)
	}
	return s
}

// derivLHS is where derivative d goes: into field T, X or P of an n-row
// row-major block, or, for a root gradient (rootGrad), dst[0], dx or dp;
// a derivative in a delayed value into dd (row-major NumDelays columns
// for an event).
func (g *generator) derivLHS(d evDeriv, rootGrad bool) (jen.Code, string) {
	var wrt string
	switch d.kind {
	case 't':
		wrt = "t"
	case 'x':
		wrt = g.sys.ODE.States[d.col].Name
	case 'd':
		wrt = g.sys.ODE.Delays[d.col].Label
		if rootGrad || d.row == 0 {
			return jen.Id("dd").Index(jen.Lit(d.col)), wrt
		}
		return jen.Id("dd").Index(jen.Lit(d.row).Op("*").Id("NumDelays").Op("+").Lit(d.col)), wrt
	default:
		wrt = g.sys.ODE.Params[d.col].Name
	}
	if rootGrad {
		switch d.kind {
		case 't':
			return jen.Id("dst").Index(jen.Lit(0)), wrt
		case 'x':
			return jen.Id("dx").Index(jen.Id(g.stateConst[d.col])), wrt
		default:
			return jen.Id("dp").Index(jen.Id(g.paramConst[d.col])), wrt
		}
	}
	// d.T[1], d.X[StateA], d.P[NumParams+ParamK], d.X[2*NumStates+StateB]
	if d.kind == 't' {
		return jen.Id(g.edName()).Dot("T").Index(jen.Lit(d.row)), wrt
	}
	field, size, col := "P", "NumParams", ""
	if d.kind == 'x' {
		field, size, col = "X", "NumStates", g.stateConst[d.col]
	} else {
		col = g.paramConst[d.col]
	}
	var ix *jen.Statement
	switch d.row {
	case 0:
		ix = jen.Id(col)
	case 1:
		ix = jen.Id(size).Op("+").Id(col)
	default:
		ix = jen.Lit(d.row).Op("*").Id(size).Op("+").Id(col)
	}
	return jen.Id(g.edName()).Dot(field).Index(ix), wrt
}

// edName is the name of the *model.EventDeriv argument of the event
// derivative sections: d, or ed in a model with delayed values, whose
// sections read those from d.
func (g *generator) edName() string {
	if g.delayed() {
		return "ed"
	}
	return "d"
}

// evDerivSig and rootGradSig are the parameters and call arguments of
// the event derivative and root gradient sections: with delayed values
// d and the derivatives in them dd last (and the event derivatives
// renamed ed).
func (g *generator) evDerivSig() (params, args []jen.Code) {
	if !g.delayed() {
		return evDerivParams, evDerivArgs
	}
	return []jen.Code{jen.Id("t").Float64(), jen.List(jen.Id("x"), jen.Id("p")).Index().Float64(), jen.Id("ed").Op("*").Qual(modelPkg, "EventDeriv"), jen.List(jen.Id("d"), jen.Id("dd")).Index().Float64()},
		[]jen.Code{jen.Id("t"), jen.Id("x"), jen.Id("p"), jen.Id("ed"), jen.Id("d"), jen.Id("dd")}
}

func (g *generator) rootGradSig() (params, args []jen.Code) {
	if !g.delayed() {
		return rootGradParams, rootGradArgs
	}
	return []jen.Code{jen.Id("dst").Index().Float64(), jen.Id("t").Float64(), jen.List(jen.Id("x"), jen.Id("p"), jen.Id("dx"), jen.Id("dp"), jen.Id("d"), jen.Id("dd")).Index().Float64()},
		append(slices.Clone(rootGradArgs), jen.Id("d"), jen.Id("dd"))
}

// evDerivSection is event k's non-zero derivatives, written into d,
// which EventDeriv has checked and cleared.
func (g *generator) evDerivSection(k int) *section {
	set := g.evs[k]
	s := &section{method: evDerivName(k), helper: evDerivName(k), file: "events.go", function: true,
		doc: fmt.Sprintf("%s writes the non-zero derivatives of event %d's (%q) delay (row 0) and assigned values (row 1+i) into d, whose slices EventDeriv has checked and cleared.",
			evDerivName(k), k, set.e.Name),
	}
	s.params, s.args = g.evDerivSig()
	for _, d := range set.derivs {
		lhs, wrt := g.derivLHS(d, false)
		what := "delay"
		if d.row > 0 {
			what = "new " + g.sys.ODE.States[set.targets[d.row-1]].Name
		}
		s.addTo(d.expr, 0, lhs, fmt.Sprintf("d(%s)/d(%s)%s", what, wrt, g.infix(d.expr)))
	}
	return s
}

// rootGradSection is root function j's non-zero derivatives: in t into
// dst[0], in x and p into dx and dp, which RootGrad has cleared.
func (g *generator) rootGradSection(j int) *section {
	s := &section{method: rootGradName(j), helper: rootGradName(j), file: "events.go", function: true,
		doc: fmt.Sprintf("%s writes the non-zero derivatives of root function %d in t, x and p into dst[0], dx and dp, which RootGrad has cleared.", rootGradName(j), j),
	}
	s.params, s.args = g.rootGradSig()
	for _, d := range g.evRootDerivs[j] {
		lhs, wrt := g.derivLHS(d, true)
		s.addTo(d.expr, 0, lhs, fmt.Sprintf("d(g%d)/d(%s)%s", j, wrt, g.infix(d.expr)))
	}
	return s
}

// eventDecls emits what makes Model a model.EventDerivs besides the
// section functions: the counts, the flags and target tables, and the
// methods, each checking its arguments and dispatching on k with a switch
// into a stack array, so that nothing escapes and no method allocates
// (interp's allocate in RootGrad and EventDeriv; these need not).
//
//	const NumEvents int = 2
//	const NumRoots int = 3
//	var eventInfo = [NumEvents]model.EventInfo{{Name: "E1", ...}, ...}
//	var eventPtr = [NumEvents + 1]int{0, 1, 3}
//	var eventTargets = [3]int{StateA, StateA, StateB}
func (g *generator) eventDecls() []jen.Code {
	ptr := []jen.Code{jen.Lit(0)}
	var rows, infos []jen.Code
	n, maxOut := 0, 2
	for _, set := range g.evs {
		n += len(set.targets)
		maxOut = max(maxOut, 2+len(set.targets))
		ptr = append(ptr, jen.Lit(n))
		e := set.e
		d := jen.Dict{jen.Id("Name"): jen.Lit(e.Name)}
		for _, f := range []struct {
			name string
			on   bool
		}{{"InitialValue", e.InitialValue}, {"Persistent", e.Persistent}, {"UseValuesFromTriggerTime", e.UseValuesFromTriggerTime},
			{"HasDelay", e.Delay != nil}, {"HasPriority", e.Priority != nil}} {
			if f.on {
				d[jen.Id(f.name)] = jen.True()
			}
		}
		infos = append(infos, jen.Values(d))
		if len(set.targets) == 0 {
			continue
		}
		var ids []jen.Code
		for _, t := range set.targets {
			ids = append(ids, jen.Id(g.stateConst[t]))
		}
		rows = append(rows, jen.List(ids...))
	}
	var targets jen.Code = jen.Values()
	if len(rows) > 0 {
		targets = jen.Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, rows...)
	}
	multi := func(cs []jen.Code) jen.Code {
		return jen.Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, cs...)
	}
	k, t, x, p := jen.Id("k"), jen.Id("t"), jen.Id("x"), jen.Id("p")
	txp := jen.List(jen.Id("x"), jen.Id("p")).Index().Float64()
	rangeCheck := func(method string) jen.Code {
		return jen.If(jen.Id("k").Op("<").Lit(0).Op("||").Id("k").Op(">=").Id("NumEvents")).Block(
			jen.Panic(jen.Lit(g.pkg + ": " + method + ": event index out of range")))
	}
	xpCheck := func(method string, extra jen.Code) jen.Code {
		cond := jen.Len(jen.Id("x")).Op("!=").Id("NumStates").Op("||").Len(jen.Id("p")).Op("!=").Id("NumParams")
		if extra != nil {
			cond = cond.Op("||").Add(extra)
		}
		return jen.If(cond).Block(jen.Panic(jen.Lit(g.pkg + ": " + method + ": argument length mismatch")))
	}
	dispatch := func(count int, name func(int) string, args ...jen.Code) jen.Code {
		return jen.Switch(jen.Id("k")).BlockFunc(func(grp *jen.Group) {
			for i := range count {
				grp.Case(jen.Lit(i)).Block(jen.Id(name(i)).Call(args...))
			}
		})
	}
	// In a model with delayed values the event functions read them: the
	// methods below are their Delayed variants (model.DelayEvents), with
	// d, and the plain ones call them with every delayed value NaN.
	dl := g.delayed()
	var dArgs []jen.Code
	var dParam jen.Code
	suffix := func(name, delayed string) string {
		if dl {
			return delayed
		}
		return name
	}
	if dl {
		dArgs = []jen.Code{jen.Id("d")}
		dParam = jen.Id("d").Index().Float64()
	}
	withD := func(ps ...jen.Code) []jen.Code {
		if dl {
			return append(ps, dParam)
		}
		return ps
	}
	dCheck := func(method string) jen.Code {
		if !dl {
			return jen.Null()
		}
		return jen.If(jen.Len(jen.Id("d")).Op("!=").Id("NumDelays")).Block(jen.Panic(jen.Lit(g.pkg + ": " + method + ": argument length mismatch")))
	}
	// values evaluates event k's program into the stack array v.
	values := []jen.Code{
		jen.Var().Id("v").Index(jen.Id("eventOut")).Float64(),
		dispatch(len(g.evs), evValueName, append([]jen.Code{jen.Id("v").Index(jen.Op(":")), t, x, p}, dArgs...)...),
	}
	// nanArgs declares dn, every delayed value NaN, for the helpers that
	// take them, and dz, the derivatives in them, which the plain
	// RootGrad and EventDeriv drop (RootGradDelayed and EventDerivDelayed
	// give them: model.DelayEventDerivs).
	var nanDecl jen.Code = jen.Null()
	var nanArgs []jen.Code
	if dl {
		nanDecl = jen.Id("dn").Op(":=").Id("nanDelays").Call().Line().Var().Id("dz").Index(jen.Id("eventOut").Op("*").Id("NumDelays")).Float64()
		nanArgs = []jen.Code{jen.Id("dn").Index(jen.Op(":")), jen.Id("dz").Index(jen.Op(":"))}
	}
	edArgs := append([]jen.Code{t, x, p, jen.Id("d")}, nanArgs...)
	// EventDeriv of a model with switches and no events (NumEvents 0)
	// dispatches to nothing: dn and dz would be unused, which Go refuses.
	evNanDecl := nanDecl
	if len(g.evs) == 0 {
		evNanDecl = jen.Null()
	}
	nTargets := jen.Id("eventPtr").Index(jen.Id("k").Op("+").Lit(1)).Op("-").Id("eventPtr").Index(jen.Id("k"))
	meth := func(d, name string) *jen.Statement {
		return doc(d).Func().Params(jen.Id("Model")).Id(name)
	}
	return append([]jen.Code{
		jen.Comment("NumEvents is the number of events, in document order.").Line().
			Const().Id("NumEvents").Int().Op("=").Lit(len(g.evs)),
		jen.Comment(numRootsDoc(g.nsw)).Line().
			Const().Id("NumRoots").Int().Op("=").Lit(len(g.evRoots)),
		doc("eventOut is the length of the longest event program: delay, priority and assigned values.").
			Const().Id("eventOut").Op("=").Lit(maxOut),
		doc("eventInfo holds each event's name and SBML flags.").
			Var().Id("eventInfo").Op("=").Index(jen.Id("NumEvents")).Qual(modelPkg, "EventInfo").Add(multi(infos)),
		doc("eventPtr and eventTargets are the states each event sets, ascending: those of event k are eventTargets[eventPtr[k]:eventPtr[k+1]] (one line per event).").
			Var().Id("eventPtr").Op("=").Index(jen.Id("NumEvents").Op("+").Lit(1)).Int().Values(ptr...),
		jen.Var().Id("eventTargets").Op("=").Index(jen.Lit(n)).Int().Add(targets),
		jen.Var().Id("_").Qual(modelPkg, "EventDerivs").Op("=").Id("Model").Values(),
		meth("NumEvents returns the number of events.", "NumEvents").Params().Int().Block(jen.Return(jen.Id("NumEvents"))),
		meth("NumRoots returns the number of root functions.", "NumRoots").Params().Int().Block(jen.Return(jen.Id("NumRoots"))),
		meth("EventInfo returns event k's name and flags.", "EventInfo").Params(jen.Id("k").Int()).Qual(modelPkg, "EventInfo").Block(
			rangeCheck("EventInfo"), jen.Return(jen.Id("eventInfo").Index(k))),
		meth("EventTargets returns the states event k sets (indices, ascending); the caller must not modify the slice, which is capped so that appending to it copies.", "EventTargets").
			Params(jen.Id("k").Int()).Index().Int().Block(
			rangeCheck("EventTargets"),
			jen.Return(jen.Id("eventTargets").Index(jen.Id("eventPtr").Index(k).Op(":").Id("eventPtr").Index(jen.Id("k").Op("+").Lit(1)).Op(":").Id("eventPtr").Index(jen.Id("k").Op("+").Lit(1))))),
		meth("TriggersTo writes each event's trigger at (t, x, p) into dst; a trigger whose value is NaN is false.", suffix("TriggersTo", "TriggersDelayedTo")).
			Params(withD(jen.Id("dst").Index().Bool(), jen.Id("t").Float64(), txp)...).Block(
			xpCheck("TriggersTo", jen.Len(jen.Id("dst")).Op("!=").Id("NumEvents")),
			dCheck("TriggersTo"),
			jen.Var().Id("v").Index(jen.Id("NumEvents")).Float64(),
			jen.Id(evTriggerHelper).Call(append([]jen.Code{jen.Id("v").Index(jen.Op(":")), t, x, p}, dArgs...)...),
			jen.For(jen.List(jen.Id("i"), jen.Id("vi")).Op(":=").Range().Id("v")).Block(
				jen.Id("dst").Index(jen.Id("i")).Op("=").Id("vi").Op("!=").Lit(0).Op("&&").Id("vi").Op("==").Id("vi"))),
		meth("Delay returns event k's delay at (t, x, p), 0 for an event without one.", suffix("Delay", "EventDelayDelayed")).
			Params(withD(jen.Id("k").Int(), jen.Id("t").Float64(), txp)...).Float64().Block(
			concat([]jen.Code{rangeCheck("Delay"), xpCheck("Delay", nil), dCheck("Delay")}, append(values, jen.Return(jen.Id("v").Index(jen.Lit(0)))))...),
		meth("Priority returns event k's priority at (t, x, p), 0 for an event without one.", suffix("Priority", "PriorityDelayed")).
			Params(withD(jen.Id("k").Int(), jen.Id("t").Float64(), txp)...).Float64().Block(
			concat([]jen.Code{rangeCheck("Priority"), xpCheck("Priority", nil), dCheck("Priority")}, append(values, jen.Return(jen.Id("v").Index(jen.Lit(1)))))...),
		meth("EventAssign writes the new values of event k's targets, computed at (t, x, p), into dst, in the order of EventTargets(k).", suffix("EventAssign", "EventAssignDelayed")).
			Params(jen.Id("k").Int(), jen.Id("t").Float64(), jen.List(append([]jen.Code{jen.Id("x"), jen.Id("p")}, append(dArgs, jen.Id("dst"))...)...).Index().Float64()).Block(
			concat([]jen.Code{rangeCheck("EventAssign"), jen.Id("n").Op(":=").Add(nTargets), xpCheck("EventAssign", jen.Len(jen.Id("dst")).Op("!=").Id("n")), dCheck("EventAssign")},
				append(values, jen.Copy(jen.Id("dst"), jen.Id("v").Index(jen.Lit(2).Op(":").Lit(2).Op("+").Id("n")))))...),
		meth("RootGrad writes the derivatives of root function j in x and p into dx and dp at (t, x, p) and returns its derivative in t.", "RootGrad").
			Params(jen.Id("j").Int(), jen.Id("t").Float64(), jen.List(jen.Id("x"), jen.Id("p"), jen.Id("dx"), jen.Id("dp")).Index().Float64()).Float64().Block(
			jen.If(jen.Id("j").Op("<").Lit(0).Op("||").Id("j").Op(">=").Id("NumRoots")).Block(
				jen.Panic(jen.Lit(g.pkg+": RootGrad: root index out of range"))),
			xpCheck("RootGrad", jen.Len(jen.Id("dx")).Op("!=").Id("NumStates").Op("||").Len(jen.Id("dp")).Op("!=").Id("NumParams")),
			jen.Id("clear").Call(jen.Id("dx")),
			jen.Id("clear").Call(jen.Id("dp")),
			jen.Var().Id("v").Index(jen.Lit(1)).Float64(),
			nanDecl,
			jen.Switch(jen.Id("j")).BlockFunc(func(grp *jen.Group) {
				for j := range g.evRoots {
					grp.Case(jen.Lit(j)).Block(jen.Id(rootGradName(j)).Call(append([]jen.Code{jen.Id("v").Index(jen.Op(":")), t, x, p, jen.Id("dx"), jen.Id("dp")}, nanArgs...)...))
				}
			}),
			jen.Return(jen.Id("v").Index(jen.Lit(0)))),
		meth("EventDeriv writes the derivatives of event k's delay (row 0) and assigned values (row 1+i) at (t, x, p) into d, every entry (only the structurally non-zero ones are computed).", "EventDeriv").
			Params(jen.Id("k").Int(), jen.Id("t").Float64(), txp, jen.Id("d").Op("*").Qual(modelPkg, "EventDeriv")).Block(
			rangeCheck("EventDeriv"),
			jen.Id("n").Op(":=").Add(nTargets).Op("+").Lit(1),
			xpCheck("EventDeriv", jen.Len(jen.Id("d").Dot("X")).Op("!=").Id("n").Op("*").Id("NumStates").Op("||").Len(jen.Id("d").Dot("P")).Op("!=").Id("n").Op("*").Id("NumParams").Op("||").Len(jen.Id("d").Dot("T")).Op("!=").Id("n")),
			jen.Id("clear").Call(jen.Id("d").Dot("X")),
			jen.Id("clear").Call(jen.Id("d").Dot("P")),
			jen.Id("clear").Call(jen.Id("d").Dot("T")),
			evNanDecl,
			dispatch(len(g.evs), evDerivName, edArgs...)),
	}, append(append(g.delayEventDecls(), g.delayEventDerivDecls()...), g.switchDecls()...)...)
}

// delayEventDerivDecls emits, in a model with delayed values, the
// derivative methods with the delayed values (model.DelayEventDerivs):
// RootGradDelayed and EventDerivDelayed, which also write the
// derivatives in d that runtime/dde folds into dtau/dp and the jumps of S.
func (g *generator) delayEventDerivDecls() []jen.Code {
	if !g.delayed() || len(g.evs) == 0 && g.nsw == 0 {
		return nil
	}
	meth := func(d, name string) *jen.Statement {
		return doc(d).Func().Params(jen.Id("Model")).Id(name)
	}
	t, x, p, d, dd := jen.Id("t"), jen.Id("x"), jen.Id("p"), jen.Id("d"), jen.Id("dd")
	lenCheck := func(method string, cond jen.Code) jen.Code {
		return jen.If(cond).Block(jen.Panic(jen.Lit(g.pkg + ": " + method + ": argument length mismatch")))
	}
	nTargets := jen.Id("eventPtr").Index(jen.Id("k").Op("+").Lit(1)).Op("-").Id("eventPtr").Index(jen.Id("k"))
	return []jen.Code{
		jen.Var().Id("_").Qual(modelPkg, "DelayEventDerivs").Op("=").Id("Model").Values(),
		meth("RootGradDelayed is RootGrad with the delayed values d (length NumDelays); it also writes the derivatives in them into dd (length NumDelays).", "RootGradDelayed").
			Params(jen.Id("j").Int(), jen.Id("t").Float64(), jen.List(x, p, d, jen.Id("dx"), jen.Id("dp"), dd).Index().Float64()).Float64().Block(
			jen.If(jen.Id("j").Op("<").Lit(0).Op("||").Id("j").Op(">=").Id("NumRoots")).Block(
				jen.Panic(jen.Lit(g.pkg+": RootGradDelayed: root index out of range"))),
			lenCheck("RootGradDelayed", jen.Len(x).Op("!=").Id("NumStates").Op("||").Len(p).Op("!=").Id("NumParams").Op("||").Len(d).Op("!=").Id("NumDelays").Op("||").
				Len(jen.Id("dx")).Op("!=").Id("NumStates").Op("||").Len(jen.Id("dp")).Op("!=").Id("NumParams").Op("||").Len(dd).Op("!=").Id("NumDelays")),
			jen.Id("clear").Call(jen.Id("dx")),
			jen.Id("clear").Call(jen.Id("dp")),
			jen.Id("clear").Call(dd),
			jen.Var().Id("v").Index(jen.Lit(1)).Float64(),
			jen.Switch(jen.Id("j")).BlockFunc(func(grp *jen.Group) {
				for j := range g.evRoots {
					grp.Case(jen.Lit(j)).Block(jen.Id(rootGradName(j)).Call(jen.Id("v").Index(jen.Op(":")), t, x, p, jen.Id("dx"), jen.Id("dp"), d, dd))
				}
			}),
			jen.Return(jen.Id("v").Index(jen.Lit(0)))),
		meth("EventDerivDelayed is EventDeriv with the delayed values d (length NumDelays); it also writes the derivatives in them into dd, row-major (n+1) x NumDelays in the rows of ed.", "EventDerivDelayed").
			Params(jen.Id("k").Int(), jen.Id("t").Float64(), jen.List(x, p, d).Index().Float64(), jen.Id("ed").Op("*").Qual(modelPkg, "EventDeriv"), dd.Clone().Index().Float64()).Block(
			jen.If(jen.Id("k").Op("<").Lit(0).Op("||").Id("k").Op(">=").Id("NumEvents")).Block(
				jen.Panic(jen.Lit(g.pkg+": EventDerivDelayed: event index out of range"))),
			jen.Id("n").Op(":=").Add(nTargets).Op("+").Lit(1),
			lenCheck("EventDerivDelayed", jen.Len(x).Op("!=").Id("NumStates").Op("||").Len(p).Op("!=").Id("NumParams").Op("||").Len(d).Op("!=").Id("NumDelays").Op("||").
				Len(jen.Id("ed").Dot("X")).Op("!=").Id("n").Op("*").Id("NumStates").Op("||").Len(jen.Id("ed").Dot("P")).Op("!=").Id("n").Op("*").Id("NumParams").Op("||").
				Len(jen.Id("ed").Dot("T")).Op("!=").Id("n").Op("||").Len(dd).Op("!=").Id("n").Op("*").Id("NumDelays")),
			jen.Id("clear").Call(jen.Id("ed").Dot("X")),
			jen.Id("clear").Call(jen.Id("ed").Dot("P")),
			jen.Id("clear").Call(jen.Id("ed").Dot("T")),
			jen.Id("clear").Call(dd),
			jen.Switch(jen.Id("k")).BlockFunc(func(grp *jen.Group) {
				for i := range g.evs {
					grp.Case(jen.Lit(i)).Block(jen.Id(evDerivName(i)).Call(t, x, p, jen.Id("ed"), d, dd))
				}
			})),
	}
}

// delayEventDecls emits, in a model with delayed values, the plain
// event methods of model.Events as wrappers of their Delayed variants
// (model.DelayEvents) with every delayed value NaN.
func (g *generator) delayEventDecls() []jen.Code {
	if !g.delayed() || len(g.evs) == 0 && g.nsw == 0 {
		return nil
	}
	meth := func(d, name string) *jen.Statement {
		return doc(d).Func().Params(jen.Id("Model")).Id(name)
	}
	k, t, x, p, dst := jen.Id("k"), jen.Id("t"), jen.Id("x"), jen.Id("p"), jen.Id("dst")
	txp := jen.List(jen.Id("x"), jen.Id("p")).Index().Float64()
	dn := jen.Id("d").Op(":=").Id("nanDelays").Call()
	dv := jen.Id("d").Index(jen.Op(":"))
	why := " with every delayed value NaN: events that read them need the history a delay solver keeps (runtime/dde; model.DelayEvents)."
	return []jen.Code{
		jen.Var().Id("_").Qual(modelPkg, "DelayEvents").Op("=").Id("Model").Values(),
		meth("TriggersTo is TriggersDelayedTo"+why, "TriggersTo").Params(jen.Id("dst").Index().Bool(), jen.Id("t").Float64(), txp).Block(
			dn, jen.Id("Model").Values().Dot("TriggersDelayedTo").Call(dst, t, x, p, dv)),
		meth("RootsTo is RootsDelayedTo"+why, "RootsTo").Params(jen.Id("dst").Index().Float64(), jen.Id("t").Float64(), txp).Block(
			dn, jen.Id("Model").Values().Dot("RootsDelayedTo").Call(dst, t, x, p, dv)),
		meth("Delay is EventDelayDelayed"+why, "Delay").Params(jen.Id("k").Int(), jen.Id("t").Float64(), txp).Float64().Block(
			dn, jen.Return(jen.Id("Model").Values().Dot("EventDelayDelayed").Call(k, t, x, p, dv))),
		meth("Priority is PriorityDelayed"+why, "Priority").Params(jen.Id("k").Int(), jen.Id("t").Float64(), txp).Float64().Block(
			dn, jen.Return(jen.Id("Model").Values().Dot("PriorityDelayed").Call(k, t, x, p, dv))),
		meth("EventAssign is EventAssignDelayed"+why, "EventAssign").Params(jen.Id("k").Int(), jen.Id("t").Float64(), jen.List(jen.Id("x"), jen.Id("p"), jen.Id("dst")).Index().Float64()).Block(
			dn, jen.Id("Model").Values().Dot("EventAssignDelayed").Call(k, t, x, p, dv, dst)),
	}
}
