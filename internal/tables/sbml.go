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
	id, err := n.modelID(opt)
	if err != nil {
		return err
	}
	if err := n.checkIDs(opt); err != nil {
		return err
	}
	x := &xmlWriter{}
	x.line(`<?xml version="1.0" encoding="UTF-8"?>`)
	x.linef(`<!-- Written by tab2sbml from the tables of %s; see networks/README.md. -->`, id)
	x.startf(`<sbml xmlns="%s" level="3" version="2">`, SBMLNamespace)
	x.startf(`<model id="%s">`, id)
	if !opt.RateRules && len(n.States) > 0 {
		n.writeCompartments(x)
		n.writeSpecies(x)
	}
	n.writeParameters(x, opt.RateRules)
	if len(n.Constants)+len(n.Expressions) > 0 || opt.RateRules {
		n.writeRules(x, opt.RateRules)
	}
	if !opt.RateRules && len(n.Reactions) > 0 {
		n.writeReactions(x)
	}
	x.end(`</model>`)
	x.end(`</sbml>`)
	_, err = w.Write(x.buf.Bytes())
	return err
}

// modelID is opt.ID or the default model id (see SBMLOptions.ID), checked
// to be an SId used by no element of the network.
func (n *Network) modelID(opt *SBMLOptions) (string, error) {
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
		return "", fmt.Errorf("tables: model id %q is not a valid SBML SId", id)
	}
	if n.usesID(id) {
		return "", fmt.Errorf("tables: model id %q is also the id of a network element", id)
	}
	return id, nil
}

// checkIDs checks that the ids the document adds, the compartment's and
// the reactions', clash with no other id: Load has checked the others.
func (n *Network) checkIDs(opt *SBMLOptions) error {
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
	return nil
}

// writeCompartments writes the one compartment, of size 1.
func (n *Network) writeCompartments(x *xmlWriter) {
	x.start(`<listOfCompartments>`)
	x.linef(`<compartment id="%s" spatialDimensions="3" size="1" constant="true"/>`, CompartmentID)
	x.end(`</listOfCompartments>`)
}

// writeSpecies writes the states, then the eliminated species as boundary
// species (their values come from assignment rules).
func (n *Network) writeSpecies(x *xmlWriter) {
	x.start(`<listOfSpecies>`)
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
	x.end(`</listOfSpecies>`)
}

// writeParameters writes the sensitivity parameters (constant), then the
// states if rateRules, the constants and the expressions that are not
// species (non-constant, set by rules).
func (n *Network) writeParameters(x *xmlWriter, rateRules bool) {
	x.start(`<listOfParameters>`)
	for _, p := range n.Params {
		x.linef(`<parameter id="%s" value="%s" constant="true"/>`, p.ID, fmtAttr(p.Default))
	}
	if rateRules {
		for _, s := range n.States {
			x.linef(`<parameter id="%s" value="%s" constant="false"/>`, s.ID, fmtAttr(s.Init))
		}
	}
	for _, c := range n.Constants {
		x.linef(`<parameter id="%s" constant="false"/>`, c.ID)
	}
	for _, e := range n.Expressions {
		if !e.Species || rateRules {
			x.linef(`<parameter id="%s" constant="false"/>`, e.ID)
		}
	}
	x.end(`</listOfParameters>`)
}

// writeRules writes an assignment rule for each constant and expression,
// in that order, and with rateRules a rate rule for each state.
func (n *Network) writeRules(x *xmlWriter, rateRules bool) {
	x.start(`<listOfRules>`)
	for _, c := range n.Constants {
		x.rule("assignmentRule", c.ID, &Expr{Op: OpNum, Num: c.Value})
	}
	for _, e := range n.Expressions {
		x.rule("assignmentRule", e.ID, e.Expr)
	}
	if rateRules {
		for i, s := range n.States {
			x.rule("rateRule", s.ID, n.rateOf(i))
		}
	}
	x.end(`</listOfRules>`)
}

// writeReactions writes every reaction, in table order.
func (n *Network) writeReactions(x *xmlWriter) {
	x.start(`<listOfReactions>`)
	for _, r := range n.Reactions {
		n.writeReaction(x, r)
	}
	x.end(`</listOfReactions>`)
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

// writeReaction writes r: its reactants and products, its modifiers, and
// its kinetic law.
func (n *Network) writeReaction(x *xmlWriter, r Reaction) {
	x.startf(`<reaction id="%s" reversible="false">`, r.ID)
	n.writeSide(x, r, "listOfReactants", -1)
	n.writeSide(x, r, "listOfProducts", 1)
	if mods := n.modifiers(r); len(mods) > 0 {
		x.start(`<listOfModifiers>`)
		for _, m := range mods {
			x.linef(`<modifierSpeciesReference species="%s"/>`, m)
		}
		x.end(`</listOfModifiers>`)
	}
	x.start(`<kineticLaw>`)
	// cell * flux: the reaction rate is in substance per time, and SBML
	// divides by the compartment size to get d[S]/dt = N * flux.
	x.math(&Expr{Op: OpMul, Args: []*Expr{{Op: OpName, Name: CompartmentID}, r.Expr}})
	x.end(`</kineticLaw>`)
	x.end(`</reaction>`)
}

// writeSide writes the list of the states whose coefficient in r has the
// sign of sign, with its absolute value as stoichiometry; nothing if there
// are none.
func (n *Network) writeSide(x *xmlWriter, r Reaction, list string, sign float64) {
	open := false
	for _, t := range r.Stoch {
		if t.Coef*sign <= 0 {
			continue
		}
		if !open {
			x.startf(`<%s>`, list)
			open = true
		}
		x.linef(`<speciesReference species="%s" stoichiometry="%s" constant="true"/>`,
			n.States[t.State].ID, fmtAttr(math.Abs(t.Coef)))
	}
	if open {
		x.endf(`</%s>`, list)
	}
}

// modifiers lists the species named in the flux of r that are neither
// reactants nor products: states first, then eliminated species, each in
// table order.
func (n *Network) modifiers(r Reaction) []string {
	inStoch := make(map[int]bool)
	for _, t := range r.Stoch {
		inStoch[t.State] = true
	}
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
	return mods
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

func (x *xmlWriter) line(s string) {
	x.buf.WriteString(strings.Repeat("  ", x.indent))
	x.buf.WriteString(s)
	x.buf.WriteByte('\n')
}

func (x *xmlWriter) linef(format string, args ...any) { x.line(fmt.Sprintf(format, args...)) }

// start writes an opening tag and indents what follows; end writes the
// closing tag at the indentation of the opening one.
func (x *xmlWriter) start(s string) {
	x.line(s)
	x.indent++
}

func (x *xmlWriter) end(s string) {
	x.indent--
	x.line(s)
}

func (x *xmlWriter) startf(format string, args ...any) { x.start(fmt.Sprintf(format, args...)) }
func (x *xmlWriter) endf(format string, args ...any)   { x.end(fmt.Sprintf(format, args...)) }

// rule writes a rule element (assignmentRule, rateRule) for variable.
func (x *xmlWriter) rule(elem, variable string, e *Expr) {
	x.startf(`<%s variable="%s">`, elem, variable)
	x.math(e)
	x.endf(`</%s>`, elem)
}

// math writes a <math> element holding e.
func (x *xmlWriter) math(e *Expr) {
	x.startf(`<math xmlns="%s">`, MathMLNamespace)
	x.mathml(e)
	x.end(`</math>`)
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
	x.start(`<apply>`)
	x.linef(`<%s/>`, mathmlOp[e.Op])
	for _, a := range args {
		x.mathml(a)
	}
	x.end(`</apply>`)
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
