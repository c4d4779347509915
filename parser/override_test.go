package parser

import (
	"strings"
	"testing"
)

// overrideDoc has a symbol of every kind an override applies to, beside a
// state: M only modifies R1, B is a boundary species (an amount) that R2
// consumes, K and K2 are constant species in compartment W, whose size an
// initial assignment gives (K declared by concentration, K2 by amount),
// I is a species and q a parameter with initial assignments, N a
// boundary species in compartment V, which a rate rule grows, and y an
// assignment rule reading I and M.
const overrideDoc = `<listOfCompartments>
<compartment id="C" size="2" constant="true"/>
<compartment id="W" constant="true"/>
<compartment id="V" size="2" constant="false"/>
</listOfCompartments>
<listOfSpecies>
<species id="A" compartment="C" initialConcentration="1" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
<species id="M" compartment="C" initialConcentration="3" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
<species id="B" compartment="C" initialAmount="4" hasOnlySubstanceUnits="true" boundaryCondition="true" constant="false"/>
<species id="K" compartment="W" initialConcentration="5" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="true"/>
<species id="K2" compartment="W" initialAmount="6" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="true"/>
<species id="I" compartment="C" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
<species id="N" compartment="V" initialConcentration="7" hasOnlySubstanceUnits="false" boundaryCondition="true" constant="false"/>
</listOfSpecies>
<listOfParameters>
<parameter id="k" value="0.5" constant="true"/>
<parameter id="k2" value="0.25" constant="true"/>
<parameter id="q" constant="true"/>
<parameter id="y" constant="false"/>
</listOfParameters>
<listOfInitialAssignments>
<initialAssignment symbol="W">` + mathOpen + `<apply><times/><cn>4</cn><ci>k</ci></apply></math></initialAssignment>
<initialAssignment symbol="I">` + mathOpen + `<apply><times/><cn>2</cn><ci>k</ci></apply></math></initialAssignment>
<initialAssignment symbol="q">` + mathOpen + `<apply><times/><cn>3</cn><ci>k</ci></apply></math></initialAssignment>
</listOfInitialAssignments>
<listOfRules>
<assignmentRule variable="y">` + mathOpen + `<apply><plus/><ci>I</ci><ci>M</ci></apply></math></assignmentRule>
<rateRule variable="V">` + mathOpen + `<cn>0.1</cn></math></rateRule>
</listOfRules>
<listOfReactions>
<reaction id="R1" reversible="false">
<listOfReactants><speciesReference species="A" stoichiometry="1" constant="true"/></listOfReactants>
<listOfModifiers><modifierSpeciesReference species="M"/></listOfModifiers>
<kineticLaw>` + mathOpen + `<apply><times/><ci>k</ci><ci>M</ci><ci>A</ci><ci>C</ci><ci>q</ci></apply></math></kineticLaw>
</reaction>
<reaction id="R2" reversible="false">
<listOfReactants><speciesReference species="B" stoichiometry="1" constant="true"/></listOfReactants>
<listOfProducts><speciesReference species="A" stoichiometry="1" constant="true"/></listOfProducts>
<kineticLaw>` + mathOpen + `<apply><times/><ci>k2</ci><ci>B</ci><ci>K</ci><ci>N</ci></apply></math></kineticLaw>
</reaction>
</listOfReactions>`

// TestOverrides: every folded symbol an override names reads its Value
// parameter everywhere (rates, assignment rules, outputs), in its units in
// math; a Switch of 0 gives back the model's own value whatever Value is,
// and a state is left alone.
func TestOverrides(t *testing.T) {
	doc := l3(overrideDoc)
	plain := lowerDoc(t, doc, nil)
	ov := []Override{
		{ID: "M", Value: "vM"},
		{ID: "B", Value: "vB", Switch: "sB"},
		{ID: "K", Value: "vK"},
		{ID: "K2", Value: "vK2", Switch: "sK2"},
		{ID: "W", Value: "vW", Switch: "sW"},
		{ID: "I", Value: "vI", Switch: "sI"},
		{ID: "q", Value: "vq", Switch: "sq"},
		{ID: "N", Value: "vN"},
		{ID: "A", Value: "vA", Switch: "sA"}, // a state: no parameters
	}
	ode := lowerDoc(t, doc, &Options{Overrides: ov})
	if got, want := paramNames(ode), "k,k2,vM,vB,sB,vK,vK2,sK2,vW,sW,vI,sI,vq,sq,vN"; got != want {
		t.Fatalf("params %s, want %s", got, want)
	}
	if got, want := stateNames(ode), stateNames(plain); got != want {
		t.Fatalf("states %s, want %s", got, want)
	}
	// Defaults: the model's own values (k = 0.5: W = 2, I = 1, q = 1.5);
	// with the switches at 0 the system is the plain one.
	def := map[string]float64{"vM": 3, "vB": 4, "vK": 5, "vK2": 3, "vW": 2, "vI": 1, "vq": 1.5, "vN": 7}
	for _, p := range ode.Params {
		if w, ok := def[p.Name]; ok && !near(p.Value, w) {
			t.Errorf("default of %s = %v, want %v", p.Name, p.Value, w)
		}
		if strings.HasPrefix(p.Name, "s") && p.Value != 0 {
			t.Errorf("default of %s = %v, want 0", p.Name, p.Value)
		}
	}
	x := []float64{0.7, 3} // [A], size V
	p0, q0 := evalAt(plain, 1, x), evalAt(ode, 1, x)
	for i := range x {
		if !near(p0.f[i], q0.f[i]) || !near(p0.x0[i], q0.x0[i]) {
			t.Errorf("defaults: state %d: f %v x0 %v, plain %v %v", i, q0.f[i], q0.x0[i], p0.f[i], p0.x0[i])
		}
	}
	for name, v := range p0.out {
		if !near(v, q0.out[name]) {
			t.Errorf("defaults: output %s = %v, plain %v", name, q0.out[name], v)
		}
	}

	// Other values, switches on: the closed forms.
	set := map[string]float64{"vM": 1.3, "vB": 2.1, "vK": 0.9, "vK2": 1.7, "vW": 0.4, "vI": 2.5, "vq": 0.6, "vN": 1.1,
		"sB": 1, "sK2": 1, "sW": 1, "sI": 1, "sq": 1}
	for i, p := range ode.Params {
		if v, ok := set[p.Name]; ok {
			ode.Params[i].Value = v
		}
	}
	q := evalAt(ode, 1, x)
	const k, k2, c = 0.5, 0.25, 2.0
	nConc := 1.1 * 2 / 3 // N keeps its amount while V grows from 2 to 3
	r1 := k * 1.3 * 0.7 * c * 0.6
	r2 := k2 * 2.1 * 0.9 * nConc
	if want := (-r1 + r2) / c; !near(q.f[0], want) {
		t.Errorf("d[A]/dt = %v, want %v", q.f[0], want)
	}
	for name, want := range map[string]float64{
		"M": 1.3, "B": 2.1, "K": 0.9, "amount:K": 0.9 * 0.4, "K2": 1.7, "amount:K2": 1.7 * 0.4,
		"W": 0.4, "I": 2.5, "q": 0.6, "y": 2.5 + 1.3, "N": nConc, "amount:N": 1.1 * 2, "R1": r1, "R2": r2,
	} {
		if !near(q.out[name], want) {
			t.Errorf("output %s = %v, want %v", name, q.out[name], want)
		}
	}
	// Switches off: the model's own values, whatever the Values say; K2
	// (declared by amount) now follows W's own size 2 and K (no switch)
	// keeps its Value.
	for i, p := range ode.Params {
		if strings.HasPrefix(p.Name, "s") {
			ode.Params[i].Value = 0
		}
	}
	q = evalAt(ode, 1, x)
	for name, want := range map[string]float64{"M": 1.3, "B": 4, "K": 0.9, "K2": 3, "W": 2, "I": 1, "q": 1.5, "y": 1 + 1.3} {
		if !near(q.out[name], want) {
			t.Errorf("switches off: output %s = %v, want %v", name, q.out[name], want)
		}
	}
}

// TestOverridesRefused: what no override can set, and bad names.
func TestOverridesRefused(t *testing.T) {
	m, err := Read(strings.NewReader(l3(overrideDoc)), "o.xml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ov   []Override
		want string
	}{
		{[]Override{{ID: "y", Value: "vy"}}, `parameter "y": an assignment rule sets it at every time`},
		{[]Override{{ID: "R1", Value: "v"}}, `option Overrides "R1": a reaction`},
		{[]Override{{ID: "zz", Value: "v"}}, `option Overrides "zz": not an SBML id`},
		{[]Override{{ID: "M", Value: "k"}}, `parameter name "k" is an SBML id`},
		{[]Override{{ID: "M", Value: "v"}, {ID: "B", Value: "v"}}, `option Overrides "B": parameter name "v" is taken`},
		{[]Override{{ID: "M", Value: "v"}, {ID: "M", Value: "w"}}, `option Overrides "M": listed twice`},
		{[]Override{{ID: "M"}}, `option Overrides "M": no parameter name given`},
	} {
		_, err := m.ODE(&Options{Overrides: c.ov})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.ov, err, c.want)
		}
	}
	// I has no value of its own: overriding it without a switch is
	// enough; with one, the model's initial assignment is the fallback.
	if _, err := m.ODE(&Options{Overrides: []Override{{ID: "I", Value: "vI"}}}); err != nil {
		t.Error(err)
	}
}
