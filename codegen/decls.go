package codegen

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/symbolic"
)

// modelDecls emits everything in model.go except the sections: the
// version gate, constants, name tables, default parameters, the CSR
// patterns, and type Model with the methods that return them.
func (g *generator) modelDecls() []jen.Code {
	var ds []jen.Code
	ds = append(ds, versionGate()...)
	ds = append(ds, g.sizeConsts()...)
	ds = append(ds, g.indexConsts()...)
	ds = append(ds, g.tables()...)
	ds = append(ds, g.patternTables("jx", g.sys.Jx)...)
	ds = append(ds, g.patternTables("jp", g.sys.Jp)...)
	return append(ds, g.modelType()...)
}

// versionGate makes the generated package fail to compile against a
// runtime outside [MinVersion, MaxVersion], as protobuf's generated code
// does: a negative constant does not convert to EnforceVersion (a uint).
//
//	const genVersion = <model.GenVersion at generation>
//	const _ = model.EnforceVersion(genVersion - model.MinVersion)
//	const _ = model.EnforceVersion(model.MaxVersion - genVersion)
func versionGate() []jen.Code {
	return []jen.Code{
		jen.Comment("genVersion is the model.GenVersion this package was generated for.").Line().
			Const().Id("genVersion").Op("=").Lit(model.GenVersion),
		jen.Comment("The build fails here if the runtime no longer supports this generated code.").Line().
			Const().Id("_").Op("=").Qual(modelPkg, "EnforceVersion").Call(jen.Id("genVersion").Op("-").Qual(modelPkg, "MinVersion")),
		jen.Const().Id("_").Op("=").Qual(modelPkg, "EnforceVersion").Call(jen.Qual(modelPkg, "MaxVersion").Op("-").Id("genVersion")),
	}
}

// sizeConsts emits the typed sizes NumStates, ..., NNZJp.
func (g *generator) sizeConsts() []jen.Code {
	intc := func(name string, v int, doc string) jen.Code {
		return jen.Comment(doc).Line().Const().Id(name).Int().Op("=").Lit(v)
	}
	return []jen.Code{
		intc("NumStates", g.nx, "NumStates is the number of states."),
		intc("NumParams", g.np, "NumParams is the number of parameters."),
		intc("NumOutputs", g.nout, "NumOutputs is the number of outputs."),
		intc("NNZJx", len(g.sys.Jx), "NNZJx is the number of structural non-zeros of Jx = df/dx."),
		intc("NNZJp", len(g.sys.Jp), "NNZJp is the number of structural non-zeros of Jp = df/dp."),
	}
}

// indexConsts emits the blocks of State* and Param* index constants (none
// for an empty block).
func (g *generator) indexConsts() []jen.Code {
	var ds []jen.Code
	if g.nx > 0 {
		ds = append(ds, indexBlock("State indices: x[StateA] is the state with id \"A\" (the original id is noted where the name differs).",
			g.stateConst, g.sys.ODE.StateNames()))
	}
	if g.np > 0 {
		ds = append(ds, indexBlock("Parameter indices: p[ParamK] is the parameter with id \"K\" (or \"k\").",
			g.paramConst, g.sys.ODE.ParamNames()))
	}
	return ds
}

// indexBlock emits const ( StateA int = 0; ... ), noting the original id
// after a constant whose name (after its 5-letter prefix) differs from it.
func indexBlock(d string, names, ids []string) jen.Code {
	return jen.Add(doc(d)).Const().DefsFunc(func(grp *jen.Group) {
		for i, c := range names {
			d := jen.Id(c).Int().Op("=").Lit(i)
			if exported := c[5:]; exported != ids[i] {
				d.Comment(fmt.Sprintf("%q", ids[i]))
			}
			grp.Add(d)
		}
	})
}

// tables emits the arrays of names and default parameter values.
func (g *generator) tables() []jen.Code {
	var outNames []string
	for _, o := range g.sys.ODE.Outputs {
		outNames = append(outNames, o.Name)
	}
	return []jen.Code{
		stringTable("stateNames", "stateNames are the original state ids, in state order.", "NumStates", g.sys.ODE.StateNames()),
		stringTable("paramNames", "paramNames are the original parameter ids, in parameter order.", "NumParams", g.sys.ODE.ParamNames()),
		stringTable("outputNames", "outputNames are the output names, in output order.", "NumOutputs", outNames),
		jen.Comment("defaultParams are the default parameter values.").Line().
			Var().Id("defaultParams").Op("=").Index(jen.Id("NumParams")).Float64().ValuesFunc(func(grp *jen.Group) {
			for _, p := range g.sys.ODE.Params {
				grp.Add(lit(p.Value).c)
			}
		}),
	}
}

// stringTable emits var name = [size]string{"a", "b"}.
func stringTable(name, d, size string, vals []string) jen.Code {
	return jen.Add(doc(d)).Var().Id(name).Op("=").Index(jen.Id(size)).String().ValuesFunc(func(grp *jen.Group) {
		for _, v := range vals {
			grp.Lit(v)
		}
	})
}

// patternTables emits the CSR pattern of the entries es of a matrix with
// NumStates rows as the arrays <name>RowPtr and <name>ColIdx.
func (g *generator) patternTables(name string, es []symbolic.Entry) []jen.Code {
	rowPtr := make([]int, g.nx+1)
	rows := make([][]int, g.nx)
	for _, e := range es {
		rowPtr[e.Row+1]++
		rows[e.Row] = append(rows[e.Row], e.Col)
	}
	for i := 0; i < g.nx; i++ {
		rowPtr[i+1] += rowPtr[i]
	}
	up := strings.ToUpper(name[:1]) + name[1:]
	return []jen.Code{
		doc(fmt.Sprintf("%sRowPtr and %sColIdx are the CSR pattern of %s; the columns of row i are %sColIdx[%sRowPtr[i]:%sRowPtr[i+1]].",
			name, name, up, name, name, name)).
			Var().Id(name + "RowPtr").Op("=").Index(jen.Id("NumStates").Op("+").Lit(1)).Int().Add(intTable([][]int{rowPtr})),
		jen.Var().Id(name + "ColIdx").Op("=").Index(jen.Id("NNZ" + up)).Int().Add(intTable(rows)),
	}
}

// modelType emits type Model and its methods other than the sections.
func (g *generator) modelType() []jen.Code {
	return []jen.Code{
		doc(fmt.Sprintf("Model is the generated %s model. It has no state: a Model value is safe for concurrent use, and no method allocates except those returning slices or patterns, which return fresh copies.", g.sys.ODE.Name)).
			Type().Id("Model").Struct(),
		jen.Var().Id("_").Qual(modelPkg, "Model").Op("=").Id("Model").Values(),
		jen.Comment("New returns the model.").Line().Func().Id("New").Params().Id("Model").Block(jen.Return(jen.Id("Model").Values())),
		jen.Comment("Name returns the model id.").Line().Func().Params(jen.Id("Model")).Id("Name").Params().String().
			Block(jen.Return(jen.Lit(g.sys.ODE.Name))),
		copier("StateNames", "StateNames returns a copy of the state ids, in state order.", "stateNames", jen.String()),
		copier("ParamNames", "ParamNames returns a copy of the parameter ids, in parameter order.", "paramNames", jen.String()),
		copier("Outputs", "Outputs returns a copy of the output names, in the order of OutputsTo.", "outputNames", jen.String()),
		g.defaultParams(),
		g.patternFunc("JxPattern", "jx", "NumStates", "Jx = df/dx (NumStates x NumStates)"),
		g.patternFunc("JpPattern", "jp", "NumParams", "Jp = df/dp (NumStates x NumParams)"),
	}
}

// defaultParams emits the DefaultParams method.
func (g *generator) defaultParams() jen.Code {
	return jen.Comment("DefaultParams writes the default parameter values into dst.").Line().
		Func().Params(jen.Id("Model")).Id("DefaultParams").Params(jen.Id("dst").Index().Float64()).Block(
		jen.If(jen.Len(jen.Id("dst")).Op("!=").Id("NumParams")).Block(jen.Panic(jen.Lit(g.pkg+": DefaultParams: argument length mismatch"))),
		jen.Copy(jen.Id("dst"), jen.Id("defaultParams").Index(jen.Op(":"))),
	)
}

// copier emits a method returning a fresh copy of the array arr.
func copier(method, doc, arr string, elem jen.Code) jen.Code {
	return jen.Comment(doc).Line().Func().Params(jen.Id("Model")).Id(method).Params().Index().Add(elem).Block(
		jen.Return(jen.Append(jen.Index().Add(elem).Parens(jen.Nil()), jen.Id(arr).Index(jen.Op(":")).Op("..."))))
}

// patternFunc emits a method returning a fresh copy of a CSR pattern.
func (g *generator) patternFunc(method, name, cols, what string) jen.Code {
	cp := func(arr string) jen.Code {
		return jen.Append(jen.Index().Int().Parens(jen.Nil()), jen.Id(arr).Index(jen.Op(":")).Op("..."))
	}
	return doc(fmt.Sprintf("%s returns a copy of the sparsity pattern of %s.", method, what)).
		Func().Params(jen.Id("Model")).Id(method).Params().Op("*").Qual(modelPkg, "Pattern").Block(
		jen.Return(jen.Op("&").Qual(modelPkg, "Pattern").Values(jen.Dict{
			jen.Id("Rows"):   jen.Id("NumStates"),
			jen.Id("Cols"):   jen.Id(cols),
			jen.Id("RowPtr"): cp(name + "RowPtr"),
			jen.Id("ColIdx"): cp(name + "ColIdx"),
		})))
}

// intTable emits {a, b, c,\n d, e,\n} with one line per non-empty row,
// wrapped at 16 values.
func intTable(rows [][]int) jen.Code {
	var lines []jen.Code
	for _, r := range rows {
		for len(r) > 0 {
			n := min(len(r), 16)
			vals := make([]jen.Code, n)
			for i, v := range r[:n] {
				vals[i] = jen.Lit(v)
			}
			lines = append(lines, jen.List(vals...))
			r = r[n:]
		}
	}
	if len(lines) == 0 {
		return jen.Values()
	}
	return jen.Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, lines...)
}

// b2f is the helper converting a condition to 1 or 0.
func (g *generator) b2f() jen.Code {
	return doc("b2f converts a truth value to 1 or 0, as relational and logical operators evaluate in numeric context.").
		Func().Id("b2f").Params(jen.Id("b").Bool()).Float64().Block(
		jen.If(jen.Id("b")).Block(jen.Return(jen.Lit(1))),
		jen.Return(jen.Lit(0)),
	)
}
