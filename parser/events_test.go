package parser

import (
	"math"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/symbolic"
)

// evalEvent evaluates n with states and parameters by name.
func evalEvent(n *symbolic.Node, t float64, vals map[string]float64) float64 {
	return symbolic.Eval(n, func(s *symbolic.Node) float64 {
		if s.Kind == symbolic.KindTime {
			return t
		}
		v, ok := vals[s.Name]
		if !ok {
			return math.NaN()
		}
		return v
	})
}

// TestLowerEvents: a boundary species, a non-constant parameter and a
// compartment assigned by events become states with rate 0 (the species
// only where no reaction changes it); the species in the resized
// compartment is an amount, and a concentration assigned to it converts
// with the size before the event.
func TestLowerEvents(t *testing.T) {
	doc := l3(`<listOfCompartments><compartment id="C" size="2" constant="false"/></listOfCompartments>
<listOfSpecies><species id="S" compartment="C" initialConcentration="3" hasOnlySubstanceUnits="false" boundaryCondition="true" constant="false"/></listOfSpecies>
<listOfParameters><parameter id="q" value="1" constant="false"/><parameter id="k" value="0.5" constant="true"/></listOfParameters>
<listOfEvents>
<event id="E1" useValuesFromTriggerTime="false">
<trigger initialValue="false" persistent="false">` + ma(`<apply><gt/><csymbol definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol><ci>k</ci></apply>`) + `</trigger>
<delay>` + ma(`<apply><times/><cn>2</cn><ci>k</ci></apply>`) + `</delay>
<priority>` + ma(`<ci>q</ci>`) + `</priority>
<listOfEventAssignments>
<eventAssignment variable="S">` + ma(`<cn>7</cn>`) + `</eventAssignment>
<eventAssignment variable="C">` + ma(`<apply><times/><cn>2</cn><ci>C</ci></apply>`) + `</eventAssignment>
</listOfEventAssignments></event>
<event><trigger initialValue="true" persistent="true">` + ma(`<apply><lt/><ci>S</ci><ci>q</ci></apply>`) + `</trigger>
<listOfEventAssignments><eventAssignment variable="q">` + ma(`<apply><plus/><ci>q</ci><cn>1</cn></apply>`) + `</eventAssignment></listOfEventAssignments></event>
</listOfEvents>`)
	m, err := Read(strings.NewReader(doc), "ev.xml")
	if err != nil {
		t.Fatal(err)
	}
	if s := m.Summary(); s.Events != 2 {
		t.Errorf("Summary: %d events, want 2", s.Events)
	}
	// Without Options.Events the events are refused by name.
	if _, err := m.ODE(nil); err == nil || !strings.Contains(err.Error(), `ev.xml:8: event "E1": event is not supported`) {
		t.Errorf("ODE(nil): got %v, want the first event refused", err)
	}
	ode, err := m.ODE(&Options{Events: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := symbolic.Build(ode); err != nil {
		t.Fatal(err)
	}
	if got := stateNames(ode); got != "S,C,q" {
		t.Fatalf("states %q, want S,C,q", got)
	}
	if ode.States[0].Meta["units"] != "amount" {
		t.Errorf("S is a %s state, want amount (its compartment is resized)", ode.States[0].Meta["units"])
	}
	for _, s := range ode.States {
		if !s.Rate.IsConst(0) {
			t.Errorf("rate of %s is %v, want 0", s.Name, s.Rate)
		}
	}
	if len(ode.Events) != 2 {
		t.Fatalf("%d events", len(ode.Events))
	}
	e1, e2 := ode.Events[0], ode.Events[1]
	if e1.Name != "E1" || e2.Name != "event#2" {
		t.Errorf("names %q %q", e1.Name, e2.Name)
	}
	if e1.InitialValue || e1.Persistent || e1.UseValuesFromTriggerTime || !e2.InitialValue || !e2.Persistent {
		t.Errorf("flags %+v %+v", e1, e2)
	}
	// At t = 1 with amount S = 6 (concentration 3), C = 2, q = 1.
	vals := map[string]float64{"S": 6, "C": 2, "q": 1, "k": 0.5}
	for _, c := range []struct {
		what string
		n    *symbolic.Node
		want float64
	}{
		{"trigger E1", e1.Trigger, 1},
		{"delay E1", e1.Delay, 1},
		{"priority E1", e1.Priority, 1},
		{"trigger 2 (S < q, S a concentration)", e2.Trigger, 0},
	} {
		if got := evalEvent(c.n, 1, vals); got != c.want {
			t.Errorf("%s: %g, want %g", c.what, got, c.want)
		}
	}
	want := map[string]float64{
		"S": 7 * 2, // the concentration 7 at the old size 2
		"C": 4,
	}
	for _, a := range e1.Assign {
		name := ode.States[a.State].Name
		if got := evalEvent(a.Value, 1, vals); got != want[name] {
			t.Errorf("E1 assigns %s = %g, want %g", name, got, want[name])
		}
	}
	if len(e1.Assign) != 2 || len(e2.Assign) != 1 || ode.States[e2.Assign[0].State].Name != "q" {
		t.Errorf("assignments %+v %+v", e1.Assign, e2.Assign)
	}
}
