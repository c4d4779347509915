package tables

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// SBML namespaces written by WriteSBML.
const (
	SBMLNamespace     = "http://www.sbml.org/sbml/level3/version2/core"
	MathMLNamespace   = "http://www.w3.org/1998/Math/MathML"
	timeDefinitionURL = "http://www.sbml.org/sbml/symbols/time"
)

// CompartmentID is the id of the single compartment of a converted network.
const CompartmentID = "cell"

// SBMLOptions control WriteSBML. A nil *SBMLOptions means the zero value.
type SBMLOptions struct {
	// ID is the model id; empty means Network.Name, or Network.Name
	// followed by "_model" when an element of the network already has that
	// id. It must be an SId.
	ID string
	// RateRules writes the states as non-constant global parameters with
	// rate rules dx_i/dt = sum_r N[i][r] * flux_r, and no species,
	// compartment or reactions. It is meant for systems that are not
	// reaction networks (Chua's circuit).
	RateRules bool
}

// WriteSBML writes n as an SBML Level 3 Version 2 core document. The output
// is a deterministic function of n and opt (no timestamps or paths), so
// committed files can be checked for freshness byte by byte. The mapping is
// described in the package documentation.
func WriteSBML(w io.Writer, n *Network, opt *SBMLOptions) error {
	if opt == nil {
		opt = &SBMLOptions{}
	}
	id := opt.ID
	if id == "" {
		// SBML ids share one namespace with the model's own id, and a
		// network may well contain an element named like itself (CaMKII).
		id = n.Name
		if n.usesID(id) {
			id += "_model"
		}
	}
	if !validID(id) {
		return fmt.Errorf("tables: model id %q is not a valid SBML SId", id)
	}
	if n.usesID(id) {
		return fmt.Errorf("tables: model id %q is also the id of a network element", id)
	}
	if !opt.RateRules {
		if _, clash := n.byName[CompartmentID]; clash {
			return fmt.Errorf("tables: the network uses the compartment id %q for one of its own elements", CompartmentID)
		}
		for _, r := range n.Reactions {
			if r.ID == CompartmentID {
				return fmt.Errorf("tables: reaction id %q clashes with the compartment id", r.ID)
			}
		}
	}
	for _, r := range n.Reactions {
		if _, clash := n.byName[r.ID]; clash {
			return fmt.Errorf("tables: reaction id %q is also a state, parameter, constant or expression", r.ID)
		}
	}

	x := &xmlWriter{}
	x.line(`<?xml version="1.0" encoding="UTF-8"?>`)
	x.linef(`<!-- Written by tab2sbml from the tables of %s; see networks/README.md. -->`, id)
	x.linef(`<sbml xmlns="%s" level="3" version="2">`, SBMLNamespace)
	x.in()
	x.linef(`<model id="%s">`, id)
	x.in()

	if !opt.RateRules && len(n.States) > 0 {
		x.line(`<listOfCompartments>`)
		x.in()
		x.linef(`<compartment id="%s" spatialDimensions="3" size="1" constant="true"/>`, CompartmentID)
		x.out()
		x.line(`</listOfCompartments>`)
		x.line(`<listOfSpecies>`)
		x.in()
		for _, s := range n.States {
			x.linef(`<species id="%s" compartment="%s" initialConcentration="%s" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>`,
				s.ID, CompartmentID, fmtAttr(s.Init))
		}
		for _, e := range n.Expressions {
			if e.Species {
				x.linef(`<species id="%s" compartment="%s" hasOnlySubstanceUnits="false" boundaryCondition="true" constant="false"/>`,
					e.ID, CompartmentID)
			}
		}
		x.out()
		x.line(`</listOfSpecies>`)
	}

	x.line(`<listOfParameters>`)
	x.in()
	for _, p := range n.Params {
		x.linef(`<parameter id="%s" value="%s" constant="true"/>`, p.ID, fmtAttr(p.Default))
	}
	if opt.RateRules {
		for _, s := range n.States {
			x.linef(`<parameter id="%s" value="%s" constant="false"/>`, s.ID, fmtAttr(s.Init))
		}
	}
	for _, c := range n.Constants {
		x.linef(`<parameter id="%s" constant="false"/>`, c.ID)
	}
	for _, e := range n.Expressions {
		if !e.Species || opt.RateRules {
			x.linef(`<parameter id="%s" constant="false"/>`, e.ID)
		}
	}
	x.out()
	x.line(`</listOfParameters>`)

	if len(n.Constants)+len(n.Expressions) > 0 || opt.RateRules {
		x.line(`<listOfRules>`)
		x.in()
		for _, c := range n.Constants {
			x.linef(`<assignmentRule variable="%s">`, c.ID)
			x.in()
			x.math(&Expr{Op: OpNum, Num: c.Value})
			x.out()
			x.line(`</assignmentRule>`)
		}
		for _, e := range n.Expressions {
			x.linef(`<assignmentRule variable="%s">`, e.ID)
			x.in()
			x.math(e.Expr)
			x.out()
			x.line(`</assignmentRule>`)
		}
		if opt.RateRules {
			for i, s := range n.States {
				x.linef(`<rateRule variable="%s">`, s.ID)
				x.in()
				x.math(n.rateOf(i))
				x.out()
				x.line(`</rateRule>`)
			}
		}
		x.out()
		x.line(`</listOfRules>`)
	}

	if !opt.RateRules && len(n.Reactions) > 0 {
		x.line(`<listOfReactions>`)
		x.in()
		for _, r := range n.Reactions {
			n.writeReaction(x, r)
		}
		x.out()
		x.line(`</listOfReactions>`)
	}

	x.out()
	x.line(`</model>`)
	x.out()
	x.line(`</sbml>`)
	_, err := w.Write(x.buf.Bytes())
	return err
}

// usesID reports whether id names a state, parameter, constant,
// expression, reaction or the compartment.
func (n *Network) usesID(id string) bool {
	if _, ok := n.byName[id]; ok || id == CompartmentID {
		return true
	}
	for _, r := range n.Reactions {
		if r.ID == id {
			return true
		}
	}
	return false
}

func (n *Network) writeReaction(x *xmlWriter, r Reaction) {
	x.linef(`<reaction id="%s" reversible="false">`, r.ID)
	x.in()
	inStoch := make(map[int]bool)
	for _, side := range []struct {
		list string
		sign float64
	}{{"listOfReactants", -1}, {"listOfProducts", 1}} {
		open := false
		for _, t := range r.Stoch {
			if t.Coef*side.sign <= 0 {
				continue
			}
			if !open {
				x.linef(`<%s>`, side.list)
				x.in()
				open = true
			}
			inStoch[t.State] = true
			x.linef(`<speciesReference species="%s" stoichiometry="%s" constant="true"/>`,
				n.States[t.State].ID, fmtAttr(math.Abs(t.Coef)))
		}
		if open {
			x.out()
			x.linef(`</%s>`, side.list)
		}
	}
	// Modifiers: species named in the flux that are neither reactants nor
	// products, states first, then eliminated species, each in table order.
	named := make(map[string]bool)
	r.Expr.names(func(e *Expr) { named[e.Name] = true })
	var mods []string
	for i, s := range n.States {
		if named[s.ID] && !inStoch[i] {
			mods = append(mods, s.ID)
		}
	}
	for _, e := range n.Expressions {
		if e.Species && named[e.ID] {
			mods = append(mods, e.ID)
		}
	}
	if len(mods) > 0 {
		x.line(`<listOfModifiers>`)
		x.in()
		for _, m := range mods {
			x.linef(`<modifierSpeciesReference species="%s"/>`, m)
		}
		x.out()
		x.line(`</listOfModifiers>`)
	}
	x.line(`<kineticLaw>`)
	x.in()
	// cell * flux: the reaction rate is in substance per time, and SBML
	// divides by the compartment size to get d[S]/dt = N * flux.
	x.math(&Expr{Op: OpMul, Args: []*Expr{{Op: OpName, Name: CompartmentID}, r.Expr}})
	x.out()
	x.line(`</kineticLaw>`)
	x.out()
	x.line(`</reaction>`)
}

// rateOf builds sum_r N[i][r] * flux_r as a tree (for rate rules).
func (n *Network) rateOf(i int) *Expr {
	var sum *Expr
	for _, r := range n.Reactions {
		for _, t := range r.Stoch {
			if t.State != i {
				continue
			}
			term := r.Expr
			switch {
			case t.Coef == -1:
				term = &Expr{Op: OpNeg, Args: []*Expr{term}}
			case t.Coef != 1:
				term = &Expr{Op: OpMul, Args: []*Expr{{Op: OpNum, Num: t.Coef}, term}}
			}
			if sum == nil {
				sum = term
			} else {
				sum = &Expr{Op: OpAdd, Args: []*Expr{sum, term}}
			}
		}
	}
	if sum == nil {
		sum = &Expr{Op: OpNum, Num: 0}
	}
	return sum
}

// fmtAttr formats a number for an XML attribute of type double: the
// shortest representation that reads back to the same float64.
func fmtAttr(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// fmtCN formats a number for a MathML <cn> element in plain decimal
// notation (MathML's default type="real" has no exponent), exactly.
func fmtCN(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

type xmlWriter struct {
	buf    bytes.Buffer
	indent int
}

func (x *xmlWriter) in()  { x.indent++ }
func (x *xmlWriter) out() { x.indent-- }

func (x *xmlWriter) line(s string) {
	x.buf.WriteString(strings.Repeat("  ", x.indent))
	x.buf.WriteString(s)
	x.buf.WriteByte('\n')
}

func (x *xmlWriter) linef(format string, args ...any) { x.line(fmt.Sprintf(format, args...)) }

// math writes a <math> element holding e.
func (x *xmlWriter) math(e *Expr) {
	x.linef(`<math xmlns="%s">`, MathMLNamespace)
	x.in()
	x.mathml(e)
	x.out()
	x.line(`</math>`)
}

var mathmlOp = map[Op]string{
	OpNeg: "minus", OpAdd: "plus", OpSub: "minus", OpMul: "times",
	OpDiv: "divide", OpPow: "power", OpExp: "exp",
}

// mathml writes e as content MathML. Chains of + and of * become one n-ary
// apply; everything else keeps the parsed tree.
func (x *xmlWriter) mathml(e *Expr) {
	switch e.Op {
	case OpNum:
		x.linef(`<cn>%s</cn>`, fmtCN(e.Num))
		return
	case OpName:
		x.linef(`<ci>%s</ci>`, e.Name)
		return
	case OpTime:
		x.linef(`<csymbol encoding="text" definitionURL="%s">t</csymbol>`, timeDefinitionURL)
		return
	}
	args := e.Args
	if e.Op == OpAdd || e.Op == OpMul {
		args = flatten(e, e.Op, nil)
	}
	x.line(`<apply>`)
	x.in()
	x.linef(`<%s/>`, mathmlOp[e.Op])
	for _, a := range args {
		x.mathml(a)
	}
	x.out()
	x.line(`</apply>`)
}

// flatten collects the operands of a chain of op.
func flatten(e *Expr, op Op, dst []*Expr) []*Expr {
	if e.Op != op {
		return append(dst, e)
	}
	for _, a := range e.Args {
		dst = flatten(a, op, dst)
	}
	return dst
}
