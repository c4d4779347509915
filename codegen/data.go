package codegen

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/dave/jennifer/jen"
)

// The estimation problem (Options.Problem) is emitted by reflection, as a
// Go composite literal of the value's own type, rather than from a
// codegen-side copy of runtime/objective's types: codegen then depends
// only on symbolic and runtime/model, and the output follows the problem
// type's fields as they change, without an edit here. Only what a literal
// can rebuild exactly is accepted: exported fields, numbers, strings,
// booleans, arrays, slices and structs. Zero fields are left out (a
// literal's omitted field is the zero value, so nothing is lost), and
// struct fields come in declaration order, so the output is deterministic.

// checkProblem checks that the problem can be written as a literal, so
// that a bad value is an error of Generate and not a panic.
func (g *generator) checkProblem() error {
	if g.problem == nil {
		return nil
	}
	v := reflect.ValueOf(g.problem)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct || v.Elem().Type().Name() == "" {
		return fmt.Errorf("codegen: Problem is a %T, not a non-nil pointer to a named struct", g.problem)
	}
	return checkLiteral(v.Elem(), v.Elem().Type().Name())
}

// checkLiteral reports the first part of v that a literal cannot express.
func checkLiteral(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Bool, reflect.String, reflect.Float64, reflect.Float32,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return nil
	case reflect.Slice, reflect.Array:
		if err := checkType(v.Type().Elem(), path+"[]"); err != nil {
			return err
		}
		for i := range v.Len() {
			if err := checkLiteral(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				return fmt.Errorf("codegen: Problem: %s.%s is not exported", path, f.Name)
			}
			if err := checkLiteral(v.Field(i), path+"."+f.Name); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("codegen: Problem: %s is a %s, which the problem literal does not support", path, v.Kind())
}

// checkType checks that the type t can be named in the output (a slice's
// element type is needed even when the slice is empty).
func checkType(t reflect.Type, path string) error {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return checkType(t.Elem(), path+"[]")
	case reflect.Struct:
		if t.Name() == "" {
			return fmt.Errorf("codegen: Problem: %s is an unnamed struct type", path)
		}
		return nil
	case reflect.Bool, reflect.String, reflect.Float64, reflect.Float32,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return nil
	}
	return fmt.Errorf("codegen: Problem: %s is a %s, which the problem literal does not support", path, t.Kind())
}

// problemDecls emits
//
//	// Problem returns ...
//	func Problem() *objective.Problem {
//		return &objective.Problem{
//			Params: []objective.Param{
//				{ID: "k1", Scale: 2, Lower: 0.001, ...},
//			},
//			...
//		}
//	}
func (g *generator) problemDecls() []jen.Code {
	v := reflect.ValueOf(g.problem).Elem()
	t := v.Type()
	return []jen.Code{
		doc(fmt.Sprintf("Problem returns the estimation problem, a new %s.%s on each call (the caller may change it), whose parameter vectors, observable indices and placeholders refer to Model's parameters and observables.", t.PkgPath(), t.Name())).
			Func().Id("Problem").Params().Op("*").Add(typeCode(t)).Block(
			jen.Return(jen.Op("&").Add(typeCode(t)).Add(literal(v, true)))),
	}
}

// isZero reports whether v is its type's zero value bit for bit, so that
// leaving it out of a literal changes nothing: unlike reflect's IsZero
// (which follows ==), a negative zero is not zero here.
func isZero(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Float64, reflect.Float32:
		return math.Float64bits(v.Float()) == 0
	case reflect.Struct:
		for i := range v.NumField() {
			if !isZero(v.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Array:
		for i := range v.Len() {
			if !isZero(v.Index(i)) {
				return false
			}
		}
		return true
	}
	return v.IsZero()
}

// maxFlat is the longest slice of composites that a literal writes on one
// line: a datum's placeholder values fit, a condition's parameter vector
// does not.
const maxFlat = 4

// flat reports whether v is written on one line: a number, or a struct,
// array or slice of flat parts whose composite slices are at most maxFlat
// long. A measurement (objective.Datum with its placeholders) is then one
// line, and a problem of thousands of measurements is thousands of lines.
func flat(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if !flat(v.Field(i)) {
				return false
			}
		}
	case reflect.Slice, reflect.Array:
		k := v.Type().Elem().Kind()
		if k != reflect.Struct && k != reflect.Slice && k != reflect.Array {
			return true
		}
		if v.Len() > maxFlat {
			return false
		}
		for i := range v.Len() {
			if !flat(v.Index(i)) {
				return false
			}
		}
	}
	return true
}

// typeCode is the Go type expression of t, qualified by its package.
func typeCode(t reflect.Type) *jen.Statement {
	if t.Name() != "" {
		if t.PkgPath() == "" {
			return jen.Id(t.Name()) // a predeclared type: float64, int, ...
		}
		return jen.Qual(t.PkgPath(), t.Name())
	}
	switch t.Kind() {
	case reflect.Slice:
		return jen.Index().Add(typeCode(t.Elem()))
	case reflect.Array:
		return jen.Index(jen.Lit(t.Len())).Add(typeCode(t.Elem()))
	}
	panic("codegen: typeCode: unchecked type " + t.String()) // checkType rules this out
}

// literal is the value of v without its type, as it appears in a
// composite literal whose type is known: a basic value as a constant
// (untyped, so that it converts to a named type such as objective.Scale),
// a struct or array as {...}, elided. top writes the struct one field a
// line (the outermost literal).
func literal(v reflect.Value, top bool) jen.Code {
	switch v.Kind() {
	case reflect.Bool:
		return jen.Lit(v.Bool())
	case reflect.String:
		return jen.Lit(v.String())
	case reflect.Float64, reflect.Float32:
		return lit(v.Float()).c
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		// An enumeration with a String method (objective.Scale) gets its
		// name beside the number: Scale: 2 /* log10 */.
		c := jen.Lit(int(v.Int()))
		if s, ok := v.Interface().(fmt.Stringer); ok && v.Type().PkgPath() != "" {
			if name := s.String(); name != "" && !strings.Contains(name, "*/") && !strings.Contains(name, "\n") {
				c.Comment("/* " + name + " */")
			}
		}
		return c
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return jen.Lit(v.Uint())
	case reflect.Slice, reflect.Array:
		var elems []jen.Code
		for i := range v.Len() {
			elems = append(elems, literal(v.Index(i), false))
		}
		multi := !flat(v)
		// Numbers and a few flat composites on one line, else one
		// element a line.
		return jen.Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: multi}, elems...)
	case reflect.Struct:
		var fields []jen.Code
		multi := top || !flat(v)
		t := v.Type()
		for i := range t.NumField() {
			f := v.Field(i)
			if isZero(f) {
				continue
			}
			var val jen.Code
			switch f.Kind() {
			case reflect.Slice, reflect.Array:
				val = typeCode(f.Type()).Add(literal(f, false))
			case reflect.Struct:
				val = typeCode(f.Type()).Add(literal(f, false))
			default:
				val = literal(f, false)
			}
			fields = append(fields, jen.Id(t.Field(i).Name).Op(":").Add(val))
		}
		return jen.Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: multi}, fields...)
	}
	panic("codegen: literal: unchecked kind " + v.Kind().String()) // checkLiteral rules this out
}
