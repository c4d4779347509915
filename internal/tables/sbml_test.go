package tables

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

var update = flag.Bool("update", false, "rewrite the committed networks/*.xml from the tables")

// networksDir is the repository's networks/ folder, relative to this package.
const networksDir = "../../networks"

func convert(t *testing.T, nw network) []byte {
	t.Helper()
	n := load(t, nw)
	var buf bytes.Buffer
	if err := WriteSBML(&buf, n, &SBMLOptions{RateRules: nw.rateRules}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSBMLFresh regenerates each shipped network from its tables and
// requires the committed file to be byte-identical. Run with -update to
// rewrite them (the same as the tab2sbml commands in networks/README.md).
func TestSBMLFresh(t *testing.T) {
	for _, nw := range networks {
		t.Run(nw.name, func(t *testing.T) {
			got := convert(t, nw)
			path := filepath.Join(networksDir, nw.name+".xml")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is stale: regenerate it with go test ./internal/tables -run TestSBMLFresh -update (or the tab2sbml command in networks/README.md)", path)
			}
		})
	}
}

func TestSBMLDeterministic(t *testing.T) {
	for _, nw := range networks {
		a := convert(t, nw)
		b := convert(t, nw)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two conversions differ", nw.name)
		}
	}
}

// A small DOM for reading the SBML back with encoding/xml.
type node struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Children []*node    `xml:",any"`
	Text     string     `xml:",chardata"`
}

func (n *node) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n *node) child(name string) *node {
	for _, c := range n.Children {
		if c.XMLName.Local == name {
			return c
		}
	}
	return nil
}

// all returns the children named name of the child list named list.
func (n *node) all(list, name string) []*node {
	l := n.child(list)
	if l == nil {
		return nil
	}
	var out []*node
	for _, c := range l.Children {
		if c.XMLName.Local == name {
			out = append(out, c)
		}
	}
	return out
}

func parseSBML(t *testing.T, data []byte) *node {
	t.Helper()
	var root node
	if err := xml.Unmarshal(data, &root); err != nil {
		t.Fatalf("not well-formed XML: %v", err)
	}
	if root.XMLName.Local != "sbml" || root.XMLName.Space != SBMLNamespace ||
		root.attr("level") != "3" || root.attr("version") != "2" {
		t.Fatalf("root is %v level %s version %s", root.XMLName, root.attr("level"), root.attr("version"))
	}
	m := root.child("model")
	if m == nil {
		t.Fatal("no model element")
	}
	return m
}

// evalMathML evaluates the content MathML the writer emits, independently
// of the Expr trees it was written from.
func evalMathML(t *testing.T, n *node, tm float64, env map[string]float64) float64 {
	t.Helper()
	switch n.XMLName.Local {
	case "math":
		if len(n.Children) != 1 || n.XMLName.Space != MathMLNamespace {
			t.Fatalf("math element %v has %d children", n.XMLName, len(n.Children))
		}
		return evalMathML(t, n.Children[0], tm, env)
	case "cn":
		v, err := strconv.ParseFloat(strings.TrimSpace(n.Text), 64)
		if err != nil || n.attr("type") != "" {
			t.Fatalf("bad cn %q (type %q)", n.Text, n.attr("type"))
		}
		return v
	case "ci":
		v, ok := env[strings.TrimSpace(n.Text)]
		if !ok {
			t.Fatalf("ci %q is not defined", n.Text)
		}
		return v
	case "csymbol":
		if n.attr("definitionURL") != "http://www.sbml.org/sbml/symbols/time" {
			t.Fatalf("csymbol %q", n.attr("definitionURL"))
		}
		return tm
	case "apply":
	default:
		t.Fatalf("unexpected MathML element %s", n.XMLName.Local)
	}
	op := n.Children[0].XMLName.Local
	var args []float64
	for _, c := range n.Children[1:] {
		args = append(args, evalMathML(t, c, tm, env))
	}
	switch {
	case op == "plus" && len(args) >= 2:
		s := 0.0
		for _, a := range args {
			s += a
		}
		return s
	case op == "times" && len(args) >= 2:
		s := 1.0
		for _, a := range args {
			s *= a
		}
		return s
	case op == "minus" && len(args) == 1:
		return -args[0]
	case op == "minus" && len(args) == 2:
		return args[0] - args[1]
	case op == "divide" && len(args) == 2:
		return args[0] / args[1]
	case op == "power" && len(args) == 2:
		return math.Pow(args[0], args[1])
	case op == "exp" && len(args) == 1:
		return math.Exp(args[0])
	}
	t.Fatalf("bad apply of %s to %d arguments", op, len(args))
	return 0
}

// sbmlF computes dx/dt of the states from the SBML document alone: it
// evaluates the assignment rules in document order, then either the rate
// rules or sum over reactions of (products - reactants) * kineticLaw / size.
func sbmlF(t *testing.T, m *node, stateIDs []string, tm float64, x []float64, paramIDs []string, p []float64) []float64 {
	t.Helper()
	env := make(map[string]float64)
	for _, c := range m.all("listOfCompartments", "compartment") {
		env[c.attr("id")], _ = strconv.ParseFloat(c.attr("size"), 64)
	}
	for i, id := range stateIDs {
		env[id] = x[i]
	}
	for i, id := range paramIDs {
		env[id] = p[i]
	}
	rates := make(map[string]float64)
	for _, r := range m.child("listOfRules").Children {
		switch r.XMLName.Local {
		case "assignmentRule":
			env[r.attr("variable")] = evalMathML(t, r.child("math"), tm, env)
		case "rateRule":
			rates[r.attr("variable")] = evalMathML(t, r.child("math"), tm, env)
		}
	}
	for _, r := range m.all("listOfReactions", "reaction") {
		v := evalMathML(t, r.child("kineticLaw").child("math"), tm, env)
		for _, side := range []struct {
			list string
			sign float64
		}{{"listOfReactants", -1}, {"listOfProducts", 1}} {
			for _, sr := range r.all(side.list, "speciesReference") {
				st, _ := strconv.ParseFloat(sr.attr("stoichiometry"), 64)
				rates[sr.attr("species")] += side.sign * st * v
			}
		}
	}
	f := make([]float64, len(stateIDs))
	for i, id := range stateIDs {
		f[i] = rates[id]
	}
	return f
}

// TestSBMLStructure reads each document back and checks its shape against
// the tables: counts, attributes, stoichiometry, modifiers.
func TestSBMLStructure(t *testing.T) {
	for _, nw := range networks {
		t.Run(nw.name, func(t *testing.T) {
			n := load(t, nw)
			m := parseSBML(t, convert(t, nw))
			species := m.all("listOfSpecies", "species")
			params := m.all("listOfParameters", "parameter")
			rules := m.child("listOfRules").Children
			reactions := m.all("listOfReactions", "reaction")
			var nConstParams, nAssign, nRate, nBoundary int
			for _, p := range params {
				if p.attr("constant") == "true" {
					nConstParams++
				}
			}
			for _, r := range rules {
				switch r.XMLName.Local {
				case "assignmentRule":
					nAssign++
				case "rateRule":
					nRate++
				}
			}
			for _, s := range species {
				if s.attr("boundaryCondition") == "true" {
					nBoundary++
				}
			}
			t.Logf("%s: model %q species=%d (boundary %d) parameters=%d (constant %d) assignment rules=%d rate rules=%d reactions=%d",
				nw.name, m.attr("id"), len(species), nBoundary, len(params), nConstParams, nAssign, nRate, len(reactions))

			nElim := 0
			for _, e := range n.Expressions {
				if e.Species {
					nElim++
				}
			}
			if nConstParams != nw.np {
				t.Errorf("%d constant parameters, want np = %d", nConstParams, nw.np)
			}
			for i, p := range params[:nw.np] {
				if p.attr("id") != n.Params[i].ID || p.attr("constant") != "true" {
					t.Errorf("parameter %d is %s, want %s", i, p.attr("id"), n.Params[i].ID)
				}
				if v, _ := strconv.ParseFloat(p.attr("value"), 64); v != n.Params[i].Default {
					t.Errorf("parameter %s value %s, want %v", p.attr("id"), p.attr("value"), n.Params[i].Default)
				}
			}
			if nAssign != len(n.Constants)+len(n.Expressions) {
				t.Errorf("%d assignment rules, want %d", nAssign, len(n.Constants)+len(n.Expressions))
			}
			if nw.rateRules {
				if len(species) != 0 || len(reactions) != 0 || nRate != nw.nx || len(params) != nw.np+nw.nx+len(n.Constants)+len(n.Expressions) {
					t.Errorf("rate-rule form: %d species, %d reactions, %d rate rules, %d parameters", len(species), len(reactions), nRate, len(params))
				}
				for i, s := range n.States {
					p := params[nw.np+i]
					if p.attr("id") != s.ID || p.attr("constant") != "false" || p.attr("value") != strconv.FormatFloat(s.Init, 'g', -1, 64) {
						t.Errorf("state parameter %d = %v", i, p.Attrs)
					}
				}
				return
			}
			if len(species) != nw.nx+nElim || nBoundary != nElim || nRate != 0 || len(reactions) != nw.nr ||
				len(params) != nw.np+len(n.Constants)+len(n.Expressions)-nElim {
				t.Errorf("species %d (boundary %d), rate rules %d, reactions %d, parameters %d", len(species), nBoundary, nRate, len(reactions), len(params))
			}
			for i, s := range species[:nw.nx] {
				if s.attr("id") != n.States[i].ID || s.attr("boundaryCondition") != "false" || s.attr("constant") != "false" ||
					s.attr("hasOnlySubstanceUnits") != "false" || s.attr("compartment") != CompartmentID {
					t.Errorf("species %d: %v", i, s.Attrs)
				}
			}
			for i, r := range reactions {
				want := n.Reactions[i]
				if r.attr("id") != want.ID || r.attr("reversible") != "false" || r.attr("fast") != "" {
					t.Errorf("reaction %d: %v", i, r.Attrs)
				}
				got := make(map[string]float64)
				for _, side := range []struct {
					list string
					sign float64
				}{{"listOfReactants", -1}, {"listOfProducts", 1}} {
					for _, sr := range r.all(side.list, "speciesReference") {
						st, _ := strconv.ParseFloat(sr.attr("stoichiometry"), 64)
						if st <= 0 || sr.attr("constant") != "true" {
							t.Errorf("reaction %s: bad species reference %v", want.ID, sr.Attrs)
						}
						got[sr.attr("species")] += side.sign * st
					}
				}
				if len(got) != len(want.Stoch) {
					t.Errorf("reaction %s: %d species references, want %d", want.ID, len(got), len(want.Stoch))
				}
				for _, term := range want.Stoch {
					if got[n.States[term.State].ID] != term.Coef {
						t.Errorf("reaction %s: %s coefficient %v, want %v", want.ID, n.States[term.State].ID, got[n.States[term.State].ID], term.Coef)
					}
				}
				mods := make(map[string]bool)
				for _, mr := range r.all("listOfModifiers", "modifierSpeciesReference") {
					mods[mr.attr("species")] = true
				}
				want.Expr.names(func(e *Expr) {
					s := n.byName[e.Name]
					if s >= n.exprBase() && n.Expressions[s-n.exprBase()].Species && !mods[e.Name] {
						t.Errorf("reaction %s: eliminated species %s is not a modifier", want.ID, e.Name)
					}
				})
			}
		})
	}
}

// TestSBMLMathAgrees evaluates the written MathML (rules, kinetic laws,
// stoichiometry) with a separate MathML evaluator and compares dx/dt with
// Network.F at seeded random states, parameters and times.
func TestSBMLMathAgrees(t *testing.T) {
	for _, nw := range networks {
		t.Run(nw.name, func(t *testing.T) {
			n := load(t, nw)
			m := parseSBML(t, convert(t, nw))
			var stateIDs, paramIDs []string
			for _, s := range n.States {
				stateIDs = append(stateIDs, s.ID)
			}
			for _, p := range n.Params {
				paramIDs = append(paramIDs, p.ID)
			}
			rng := rand.New(rand.NewPCG(1, 1))
			p0 := make([]float64, n.NumParams())
			n.DefaultParams(p0)
			f := make([]float64, n.NumStates())
			for k := 0; k < 20; k++ {
				x := make([]float64, n.NumStates())
				for i := range x {
					x[i] = rng.Float64()
				}
				p := make([]float64, len(p0))
				for i := range p {
					p[i] = p0[i] * (0.5 + rng.Float64())
				}
				tm := 10 * rng.Float64()
				n.F(f, tm, x, p)
				want := sbmlF(t, m, stateIDs, tm, x, paramIDs, p)
				for i := range f {
					if !scalar.EqualWithinAbsOrRel(f[i], want[i], 1e-12, 1e-12) {
						t.Fatalf("sample %d: f[%s] = %v from the tables, %v from the SBML", k, stateIDs[i], f[i], want[i])
					}
				}
			}
		})
	}
}

func TestWriteSBMLErrors(t *testing.T) {
	n := load(t, byName(t, "Chua"))
	for _, c := range []struct {
		opt  SBMLOptions
		want string
	}{
		{SBMLOptions{ID: "1bad"}, "not a valid SBML SId"},
		{SBMLOptions{ID: "x1"}, "also the id of a network element"},
		{SBMLOptions{ID: "cell"}, "also the id of a network element"},
	} {
		err := WriteSBML(&bytes.Buffer{}, n, &c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("WriteSBML(%+v) = %v, want %q", c.opt, err, c.want)
		}
	}
	var buf bytes.Buffer
	if err := WriteSBML(&buf, n, nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte(`<model id="Chua">`)) {
		t.Errorf("default model id: %s", buf.Bytes()[:200])
	}
	// A name collision appends _model.
	c := load(t, byName(t, "CaMKII"))
	buf.Reset()
	if err := WriteSBML(&buf, c, nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte(`<model id="CaMKII_model">`)) {
		t.Errorf("CaMKII model id not renamed")
	}
}

func ExampleWriteSBML() {
	n, err := Load("testdata/Chua")
	if err != nil {
		fmt.Println(err)
		return
	}
	var buf bytes.Buffer
	if err := WriteSBML(&buf, n, &SBMLOptions{RateRules: true}); err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range strings.Split(buf.String(), "\n") {
		if strings.Contains(line, "<parameter ") || strings.Contains(line, "Rule ") {
			fmt.Println(strings.TrimSpace(line))
		}
	}
	// Output:
	// <parameter id="p1" value="7" constant="true"/>
	// <parameter id="p2" value="15" constant="true"/>
	// <parameter id="x1" value="0" constant="false"/>
	// <parameter id="x2" value="0" constant="false"/>
	// <parameter id="x3" value="-0.1" constant="false"/>
	// <parameter id="g" constant="false"/>
	// <assignmentRule variable="g">
	// <rateRule variable="x1">
	// <rateRule variable="x2">
	// <rateRule variable="x3">
}
