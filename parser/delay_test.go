package parser

import (
	"math"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/symbolic"
)

const delaySym = `<csymbol definitionURL="http://www.sbml.org/sbml/symbols/delay">delay</csymbol>`

// S decays at rate k * delay(S, 2); y = delay(x, 1) where x = sin(t) is
// given by an assignment rule, so before the start x has been sin(t).
func TestDelayLowering(t *testing.T) {
	doc := l3(basics + `<listOfParameters><parameter id="x" constant="false"/><parameter id="y" constant="false"/></listOfParameters>
<listOfRules><assignmentRule variable="x">` + ma(`<apply><sin/><csymbol definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol></apply>`) + `</assignmentRule>
<assignmentRule variable="y">` + ma(`<apply>`+delaySym+`<ci>x</ci><cn>1</cn></apply>`) + `</assignmentRule></listOfRules>
` + law(`<apply><times/><ci>k</ci><apply>`+delaySym+`<ci>S</ci><cn>2</cn></apply></apply>`))
	// The document declares k twice (basics and the rules' list): use
	// only the second list's parameters plus k.
	doc = strings.Replace(doc, paramK+"\n", "", 1)
	doc = strings.Replace(doc, `<parameter id="x" constant="false"/>`, `<parameter id="k" value="1" constant="true"/><parameter id="x" constant="false"/>`, 1)
	m, err := Read(strings.NewReader(doc), "d.xml")
	if err != nil {
		t.Fatal(err)
	}
	o, err := m.ODE(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Delays) != 2 {
		t.Fatalf("%d delays, want 2", len(o.Delays))
	}
	at := func(n *symbolic.Node, tv float64) float64 {
		return symbolic.Eval(n, func(s *symbolic.Node) float64 {
			switch s.Kind {
			case symbolic.KindTime:
				return tv
			case symbolic.KindParam:
				return 1
			}
			return math.NaN()
		})
	}
	var sawS, sawX bool
	for _, d := range o.Delays {
		switch d.Label {
		case "delay(x, 1)":
			sawX = true
			if got := at(d.History, -0.5); math.Abs(got-math.Sin(-0.5)) > 1e-15 {
				t.Errorf("history of x at -0.5 = %g, want sin(-0.5)", got)
			}
		case "delay(S, 2)":
			sawS = true
			if got := at(d.History, -1); got != 1 {
				t.Errorf("history of S = %g, want its initial concentration 1", got)
			}
			if !d.Tau.IsConst(2) {
				t.Errorf("tau = %v, want 2", d.Tau)
			}
		default:
			t.Errorf("unexpected delay %q", d.Label)
		}
	}
	if !sawS || !sawX {
		t.Errorf("delays %v", o.Delays)
	}
	sys, err := symbolic.Build(o)
	if err != nil {
		t.Fatal(err)
	}
	// The rate reads the delayed value; Jx holds it fixed (no entry: the
	// rate does not depend on S(t)).
	if len(sys.Jx) != 0 {
		t.Errorf("Jx has %d entries, want 0", len(sys.Jx))
	}
}

// Events in a model with delays are lowered with the delayed values in
// their math (runtime/dde solves them: model.DelayEvents).
func TestDelayWithEvents(t *testing.T) {
	doc := l3(basics + law(`<apply>`+delaySym+`<ci>S</ci><cn>1</cn></apply>`) + `<listOfEvents><event id="E1" useValuesFromTriggerTime="true">
<trigger initialValue="true" persistent="true">` + ma(`<apply><gt/><apply>`+delaySym+`<ci>S</ci><cn>1</cn></apply><cn>0.5</cn></apply>`) + `</trigger></event></listOfEvents>`)
	m, err := Read(strings.NewReader(doc), "d.xml")
	if err != nil {
		t.Fatal(err)
	}
	o, err := m.ODE(&Options{Events: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Events) != 1 || len(o.Delays) != 1 {
		t.Fatalf("%d events and %d delays, want 1 and 1", len(o.Events), len(o.Delays))
	}
	reads := false
	for _, s := range symbolic.FreeSymbols(o.Events[0].Trigger) {
		reads = reads || s.Kind == symbolic.KindDelay && s.Name == o.Delays[0].Name
	}
	if !reads {
		t.Errorf("trigger %v does not read the delayed value %s", o.Events[0].Trigger, o.Delays[0].Name)
	}
}

// A delayed value that depends on itself is an error (its value at the
// start is its own history).
func TestDelayCycle(t *testing.T) {
	doc := l3(basics + `<listOfParameters><parameter id="y" value="1" constant="false"/></listOfParameters>
<listOfRules><assignmentRule variable="y">` + ma(`<apply>`+delaySym+`<ci>y</ci><cn>1</cn></apply>`) + `</assignmentRule></listOfRules>`)
	doc = strings.Replace(doc, paramK+"\n", "", 1)
	m, err := Read(strings.NewReader(doc), "d.xml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.ODE(nil)
	if err == nil || !strings.Contains(err.Error(), "cyclic dependency") {
		t.Fatalf("err = %v, want a cycle", err)
	}
}
