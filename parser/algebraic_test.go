package parser

import (
	"maps"
	"math"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/symbolic"
)

func lowerDAE(t *testing.T, doc string) (names []string, algebraic int, err error) {
	t.Helper()
	m, err := Read(strings.NewReader(doc), "dae.xml")
	if err != nil {
		t.Fatal(err)
	}
	ode, err := m.ODE(nil)
	if err != nil {
		return nil, 0, err
	}
	return ode.StateNames(), ode.Algebraic, nil
}

// TestAlgebraicMatching checks which variable an algebraic rule
// determines: not a species reactions change, not a constant, not one a
// rate rule sets; algebraic variables come after the differential states.
func TestAlgebraicMatching(t *testing.T) {
	doc := l3(comp1 + `
<listOfSpecies>
<species id="S1" compartment="C" initialAmount="0.5" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
<species id="S2" compartment="C" initialAmount="0.5" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
</listOfSpecies>
<listOfParameters><parameter id="k1" value="1" constant="true"/><parameter id="P" value="0" constant="false"/></listOfParameters>
<listOfRules>
<algebraicRule>` + ma(`<apply><minus/><apply><plus/><ci>S1</ci><ci>S2</ci></apply><ci>k1</ci></apply>`) + `</algebraicRule>
<algebraicRule>` + ma(`<apply><minus/><ci>P</ci><apply><times/><cn>2</cn><ci>S2</ci></apply></apply>`) + `</algebraicRule>
</listOfRules>
<listOfReactions><reaction id="R" reversible="false">
<listOfProducts><speciesReference species="S1" stoichiometry="1" constant="true"/></listOfProducts>
<listOfModifiers><modifierSpeciesReference species="S2"/></listOfModifiers>
<kineticLaw>` + ma(`<apply><times/><ci>k1</ci><ci>S2</ci></apply>`) + `</kineticLaw></reaction></listOfReactions>`)
	names, na, err := lowerDAE(t, doc)
	if err != nil {
		t.Fatal(err)
	}
	// S1 (reactions), then S2 (first rule: S1 is taken by the reaction,
	// k1 is constant) and P (second rule: S2 is taken by the first).
	if want := "S1 S2 P"; strings.Join(names, " ") != want || na != 2 {
		t.Errorf("states %v with %d algebraic, want %s with 2", names, na, want)
	}
}

// TestFastPools checks the lowering of A <-> B (fast) with B -> P: one
// conserved pool (A + B) and the fast species as algebraic variables.
func TestFastPools(t *testing.T) {
	doc := l3(comp1 + `
<listOfSpecies>
<species id="A" compartment="C" initialAmount="1" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
<species id="B" compartment="C" initialAmount="2" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
<species id="P" compartment="C" initialAmount="0" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
</listOfSpecies>
` + paramK + `
<listOfReactions>
<reaction id="F" reversible="true" fast="true">
<listOfReactants><speciesReference species="A" stoichiometry="1" constant="true"/></listOfReactants>
<listOfProducts><speciesReference species="B" stoichiometry="1" constant="true"/></listOfProducts>
<kineticLaw>` + ma(`<apply><minus/><ci>A</ci><ci>B</ci></apply>`) + `</kineticLaw></reaction>
<reaction id="S" reversible="false">
<listOfReactants><speciesReference species="B" stoichiometry="1" constant="true"/></listOfReactants>
<listOfProducts><speciesReference species="P" stoichiometry="1" constant="true"/></listOfProducts>
<kineticLaw>` + ma(`<apply><times/><ci>k</ci><ci>B</ci></apply>`) + `</kineticLaw></reaction>
</listOfReactions>`)
	names, na, err := lowerDAE(t, doc)
	if err != nil {
		t.Fatal(err)
	}
	if want := "P fast_pool1 A B"; strings.Join(names, " ") != want || na != 2 {
		t.Errorf("states %v with %d algebraic, want %s with 2", names, na, want)
	}
}

// TestFastEventStoichiometry checks the lowering of a fast reaction
// sA A -> B (A and B concentrations in a compartment of size 2) whose
// stoichiometry sA (2 at first) and species A an event sets (A := 4,
// sA := 3): the conserved amount is y = 2A/sA + 2B, the event assigns
// it (from A's new value and sA's new stoichiometry, B as before) and
// sA but not A, which stays algebraic; and a stoichiometry a rule sets
// is still refused, by name.
func TestFastEventStoichiometry(t *testing.T) {
	model := func(rules string) string {
		return l3(`<listOfCompartments><compartment id="C" size="2" constant="true"/></listOfCompartments>
<listOfSpecies>
<species id="A" compartment="C" initialConcentration="3" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
<species id="B" compartment="C" initialConcentration="1" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
</listOfSpecies>` + rules + `
<listOfReactions>
<reaction id="F" reversible="true" fast="true">
<listOfReactants><speciesReference id="sA" species="A" stoichiometry="2" constant="false"/></listOfReactants>
<listOfProducts><speciesReference species="B" stoichiometry="1" constant="true"/></listOfProducts>
<kineticLaw>` + ma(`<apply><minus/><ci>A</ci><ci>B</ci></apply>`) + `</kineticLaw></reaction>
</listOfReactions>
<listOfEvents><event id="E" useValuesFromTriggerTime="true">
<trigger initialValue="true" persistent="true">` + ma(`<apply><gt/><csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol><cn>1</cn></apply>`) + `</trigger>
<listOfEventAssignments>
<eventAssignment variable="A">` + ma(`<cn>4</cn>`) + `</eventAssignment>
<eventAssignment variable="sA">` + ma(`<cn>3</cn>`) + `</eventAssignment>
</listOfEventAssignments></event></listOfEvents>`)
	}
	m, err := Read(strings.NewReader(model("")), "fast.xml")
	if err != nil {
		t.Fatal(err)
	}
	ode, err := m.ODE(&Options{Events: true})
	if err != nil {
		t.Fatal(err)
	}
	names := ode.StateNames()
	if want := "sA fast_pool1 A B"; strings.Join(names, " ") != want || ode.Algebraic != 2 {
		t.Fatalf("states %v with %d algebraic, want %s with 2", names, ode.Algebraic, want)
	}
	// At the states (sA, y, A, B) = (2, 5, 3, 1), the values before the event.
	x := map[string]float64{"sA": 2, "fast_pool1": 5, "A": 3, "B": 1}
	env := func(s *symbolic.Node) float64 {
		if v, ok := x[s.Name]; ok && s.Kind == symbolic.KindState {
			return v
		}
		t.Fatalf("unexpected symbol %q", s.Name)
		return 0
	}
	if y0 := symbolic.Eval(ode.States[1].Init, env); math.Abs(y0-5) > 1e-15 {
		t.Errorf("y(0) = %v, want 2*3/2 + 2*1 = 5", y0)
	}
	if g := symbolic.Eval(ode.States[2].Rate, env); math.Abs(g) > 1e-15 {
		t.Errorf("conservation residual %v at a consistent state, want 0", g)
	}
	if len(ode.Events) != 1 {
		t.Fatalf("%d events, want 1", len(ode.Events))
	}
	got := map[string]float64{}
	for _, a := range ode.Events[0].Assign {
		got[names[a.State]] = symbolic.Eval(a.Value, env)
	}
	if len(got) != 2 || got["sA"] != 3 || math.Abs(got["fast_pool1"]-(2*4.0/3+2*1)) > 1e-14 {
		t.Errorf("event assigns %v, want sA 3 and fast_pool1 2*4/3 + 2*1 = %v (and not A)", got, 2*4.0/3+2*1)
	}

	// A rule may change the stoichiometry continuously: refused.
	rule := `<listOfRules><assignmentRule variable="sA">` + ma(`<apply><plus/><cn>2</cn><csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol></apply>`) + `</assignmentRule></listOfRules>`
	doc := strings.Replace(model(rule), `<eventAssignment variable="sA">`+ma(`<cn>3</cn>`)+`</eventAssignment>`, "", 1)
	if m, err = Read(strings.NewReader(doc), "fast.xml"); err != nil {
		t.Fatal(err)
	}
	_, err = m.ODE(&Options{Events: true})
	if want := `speciesReference "sA": stoichiometry set by a rule in fast reaction "F" is not supported`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("rule-set stoichiometry: error %v, want one containing %q", err, want)
	}
}

// TestFastHeld checks the lowering of a fast reaction A -> B at rate
// k1 (A - B) whose k1 only events set: a held state fast_held_F after
// the pool, the reaction's residual switching to it where k1 = 0, and
// the events: one that sets k1 sets the held amount (to -A, P = (-1, 0)
// for N_f = (-1, 1)), one that sets another parameter does not, and one
// with a delay that uses its trigger time's values and sets k1 is split
// (lateFast): it saves k1's new value and sets its due flag, and its
// execution sets k1 from the saved value and the held amount from A as
// it is then.
func TestFastHeld(t *testing.T) {
	ev := func(id, target, extra string) string {
		return `<event id="` + id + `" useValuesFromTriggerTime="true"><trigger initialValue="false" persistent="true">` +
			ma(`<apply><gt/><csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol><cn>1</cn></apply>`) + `</trigger>` + extra +
			`<listOfEventAssignments><eventAssignment variable="` + target + `">` + ma(`<cn>1</cn>`) + `</eventAssignment></listOfEventAssignments></event>`
	}
	model := func(events string) string {
		return l3(comp1 + `
<listOfSpecies>
<species id="A" compartment="C" initialAmount="1" hasOnlySubstanceUnits="true" boundaryCondition="false" constant="false"/>
<species id="B" compartment="C" initialAmount="0" hasOnlySubstanceUnits="true" boundaryCondition="false" constant="false"/>
</listOfSpecies>
<listOfParameters><parameter id="k1" value="0" constant="false"/><parameter id="q" value="0" constant="false"/></listOfParameters>
<listOfReactions>
<reaction id="F" reversible="true" fast="true">
<listOfReactants><speciesReference species="A" stoichiometry="1" constant="true"/></listOfReactants>
<listOfProducts><speciesReference species="B" stoichiometry="1" constant="true"/></listOfProducts>
<kineticLaw>` + ma(`<apply><times/><ci>k1</ci><apply><minus/><ci>A</ci><ci>B</ci></apply></apply>`) + `</kineticLaw></reaction>
</listOfReactions>
<listOfEvents>` + events + `</listOfEvents>`)
	}
	m, err := Read(strings.NewReader(model(ev("on", "k1", "")+ev("other", "q", ""))), "held.xml")
	if err != nil {
		t.Fatal(err)
	}
	ode, err := m.ODE(&Options{Events: true})
	if err != nil {
		t.Fatal(err)
	}
	names := ode.StateNames()
	if want := "k1 q fast_pool1 fast_held_F A B"; strings.Join(names, " ") != want || ode.Algebraic != 2 {
		t.Fatalf("states %v with %d algebraic, want %s with 2", names, ode.Algebraic, want)
	}
	x := map[string]float64{"k1": 0, "q": 0, "fast_pool1": 1, "fast_held_F": -0.75, "A": 0.75, "B": 0.25}
	env := func(s *symbolic.Node) float64 { return x[s.Name] }
	// The residual of F: -A - w while k1 = 0 (0 here), k1 (A - B) else.
	res := ode.States[5].Rate
	if g := symbolic.Eval(res, env); g != 0 {
		t.Errorf("held residual at k1 = 0: %v, want -0.75 + 0.75 = 0", g)
	}
	if w0 := symbolic.Eval(ode.States[3].Init, env); w0 != -1 {
		t.Errorf("held amount at t0: %v, want -A(0) = -1", w0)
	}
	x["k1"] = 2
	if g := symbolic.Eval(res, env); g != 1 {
		t.Errorf("residual at k1 = 2: %v, want 2 (0.75 - 0.25) = 1", g)
	}
	for _, e := range ode.Events {
		var set []string
		for _, a := range e.Assign {
			set = append(set, names[a.State])
			if names[a.State] == "fast_held_F" {
				if w := symbolic.Eval(a.Value, env); w != -0.75 {
					t.Errorf("event %s sets the held amount to %v, want -A = -0.75", e.Name, w)
				}
			}
		}
		want := map[string]string{"on": "k1 fast_held_F", "other": "q"}[e.Name]
		if strings.Join(set, " ") != want {
			t.Errorf("event %s sets %v, want %s", e.Name, set, want)
		}
	}

	delayed := ev("late", "k1", `<delay>`+ma(`<cn>1</cn>`)+`</delay>`)
	if m, err = Read(strings.NewReader(model(delayed)), "held.xml"); err != nil {
		t.Fatal(err)
	}
	if ode, err = m.ODE(&Options{Events: true}); err != nil {
		t.Fatal(err)
	}
	names = ode.StateNames()
	if want := "k1 fast_pool1 fast_held_F late_saved_k1 late_due A B"; strings.Join(names, " ") != want || ode.Algebraic != 2 {
		t.Fatalf("split event: states %v with %d algebraic, want %s with 2", names, ode.Algebraic, want)
	}
	x["late_saved_k1"], x["late_due"] = 3, 1
	want := map[string]map[string]float64{
		"late":             {"late_saved_k1": 1, "late_due": 1},
		"late (execution)": {"k1": 3, "fast_held_F": -0.75, "late_due": 0},
	}
	if len(ode.Events) != 2 {
		t.Fatalf("split event: %d events, want 2", len(ode.Events))
	}
	for _, e := range ode.Events {
		got := map[string]float64{}
		for _, a := range e.Assign {
			got[names[a.State]] = symbolic.Eval(a.Value, env)
		}
		if !maps.Equal(got, want[e.Name]) {
			t.Errorf("split event %q assigns %v, want %v", e.Name, got, want[e.Name])
		}
	}
	if e := ode.Events[1]; e.Delay != nil || e.Priority == nil || !math.IsInf(symbolic.Eval(e.Priority, env), 1) || symbolic.Eval(e.Trigger, env) != 1 {
		t.Errorf("execution event: delay %v, priority %v, trigger %v at due = 1; want none, +Inf, true", e.Delay, e.Priority, e.Trigger)
	}
}

// TestAlgebraicInitialValue: an initial value that depends on an
// algebraic variable's (which only runtime/dae solves) is refused by
// name, unless simplification cancels it (a concentration's amount in a
// compartment the rule sizes).
func TestAlgebraicInitialValue(t *testing.T) {
	rule := `<listOfRules><algebraicRule>` + ma(`<apply><minus/><ci>V</ci><cn>2</cn></apply>`) + `</algebraicRule></listOfRules>`
	// S has an initial amount: its amount state does not depend on V.
	cancels := l3(`<listOfCompartments><compartment id="V" size="1" constant="false"/></listOfCompartments>
` + strings.Replace(spS, `compartment="C"`, `compartment="V"`, 1) + "\n" + paramK + "\n" + rule + "\n" + law(`<ci>k</ci>`))
	if _, na, err := lowerDAE(t, cancels); err != nil || na != 1 {
		t.Errorf("amount in an algebraic compartment: %d algebraic, %v", na, err)
	}
	// Q's initial assignment uses V.
	uses := l3(`<listOfCompartments><compartment id="V" size="1" constant="false"/></listOfCompartments>
<listOfParameters><parameter id="Q" constant="false"/></listOfParameters>
<listOfInitialAssignments><initialAssignment symbol="Q">` + ma(`<ci>V</ci>`) + `</initialAssignment></listOfInitialAssignments>
<listOfRules><algebraicRule>` + ma(`<apply><minus/><ci>V</ci><cn>2</cn></apply>`) + `</algebraicRule>
<rateRule variable="Q">` + ma(`<cn>1</cn>`) + `</rateRule></listOfRules>`)
	_, _, err := lowerDAE(t, uses)
	if err == nil || !strings.Contains(err.Error(), `the initial value of "Q" depends on the initial value of "V", which this algebraic rule determines: solving both at t0 is not supported`) {
		t.Errorf("initial value through an algebraic variable: %v", err)
	}
}
