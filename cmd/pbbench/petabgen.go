package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"

	"github.com/pbgen/pbgen/petab"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/runtime/objective"
	"github.com/pbgen/pbgen/runtime/sens"
)

// The PEtab section on generated code. Issue #11 times CVODES FS "on the
// same generated model (what AMICI runs)": AMICI compiles each problem, so
// a comparison on interp's model would charge both sides the interpreter's
// cost per right-hand side and Jacobian and shrink the integrators'
// difference. scripts/petabgen.sh (run by `make bench`) compiles the
// collection's problems with pbgen petab -gen and writes a registry built
// with the tag petabgen (petabgen_registry.go); without the tag the
// registry is empty (petabgen_off.go) and everything runs interpreted, so
// the default build and `go test ./...` never need the generated code.
//
// petabSource picks the model of one problem: the generated one when the
// registry has it and it agrees with the interpreted one, the interpreted
// one otherwise, with the reason, in the output and in results.json.

// petabGenProblem is one problem compiled by scripts/petabgen.sh.
type petabGenProblem struct {
	Pkg     string // the generated package's name
	Source  string // the problem's YAML file it was generated from (absolute)
	New     func() model.Model
	Problem func() *objective.Problem
}

// Model kinds of PetabModel.Model.
const (
	modelGenerated   = "generated"
	modelInterpreted = "interpreted"
)

// PetabModel says which model a problem was timed on, every method alike
// (ours and CVODES FS).
type PetabModel struct {
	// Model is "generated" (the package compiled by scripts/petabgen.sh)
	// or "interpreted" (petab.Load's model).
	Model string `json:"model"`
	// Package is the generated package's name.
	Package string `json:"model_package,omitempty"`
	// ModelNote says why a problem runs interpreted.
	ModelNote string `json:"model_note,omitempty"`
	// GenCheck compares the generated model with the interpreted one
	// (nil when there is no generated model).
	GenCheck *PetabGenCheck `json:"generated_check,omitempty"`
}

// PetabGenCheck compares the generated and the interpreted objective at
// the nominal point: llh as |gen - interp| / |interp|, the gradient
// normwise, max_a |gen_a - interp_a| / max_a |interp_a| (an entry that is
// small only by cancellation carries the absolute error of the large
// ones), with FS at the section's tolerances (what is timed) and at rtol
// 1e-10, atol 1e-12. Model is the largest normwise relative difference of
// the model functions themselves (x0, dx0/dp, f, Jx, Jp, Observe) at seeded points
// near the initial state (petabModelDiff): rounding (~1e-15) there and a
// larger difference of the objectives means the integrator took other
// steps (the two evaluate f with different roundings), not that the code
// differs.
type PetabGenCheck struct {
	Model     num    `json:"model_functions"`
	LLH       num    `json:"llh"`
	Grad      num    `json:"grad"`
	Steps     [2]int `json:"steps"` // FS steps at the section's tolerance, generated and interpreted
	LLHTight  num    `json:"llh_tight"`
	GradTight num    `json:"grad_tight"`
	Err       string `json:"error,omitempty"`
}

// The generated model is not used (the problem runs interpreted, with
// the reason) when its model functions differ from interp's by more than
// petabGenModelTol (normwise; measured 9e-14 at most, 2e-16 on most
// problems: the rounding of terms that cancel) or its objective at rtol
// 1e-10 by more than petabGenObjTol: then the generated code would compute
// another problem, and timing it would compare different things. The
// objective's tolerance is loose because the two codes round f
// differently (a*b*c/d multiplied in another order), which moves the
// integrator's steps: on the collection the llh agrees to 1e-9 and the
// gradient normwise to 7e-6 (Bertozzi_PNAS2020, whose nominal point is
// nearly stationary, so that its gradient is a small sum of large data
// terms carrying the integration error of each; next Liu, 5e-7).
const (
	petabGenModelTol = 1e-10
	petabGenObjTol   = 1e-4
)

// petabSource returns the model and problem of the collection's problem
// name (the name of its folder), loaded interpreted from yaml as p: the
// generated package's when the registry has one that agrees with p.
func petabSource(name, yaml string, p *petab.Problem, c *config) (model.Model, *objective.Problem, PetabModel) {
	interp := func(note string) (model.Model, *objective.Problem, PetabModel) {
		return p.Model, p.Objective, PetabModel{Model: modelInterpreted, ModelNote: note}
	}
	g, ok := petabGenerated[name]
	switch {
	case !petabGenBuilt:
		return interp("built without -tags petabgen (make bench generates the models: scripts/petabgen.sh)")
	case petabGenMissing != "":
		return interp("nothing generated: " + petabGenMissing)
	case !ok:
		if why, ok := petabGenLeftOut[name]; ok {
			return interp(why)
		}
		return interp("not in the registry of scripts/petabgen.sh (run it again)")
	}
	if a, err := filepath.Abs(yaml); err == nil && !samePath(a, g.Source) {
		return interp(fmt.Sprintf("generated from %s, not %s (run scripts/petabgen.sh with the same PBGEN_SHARED)", g.Source, a))
	}
	m, prob := g.New(), g.Problem()
	if model.NumStates(m) != model.NumStates(p.Model) || !slices.Equal(m.ParamNames(), p.Model.ParamNames()) {
		return interp("the generated package's states or parameters differ from the problem's (stale: run scripts/petabgen.sh)")
	}
	chk := petabGenCompare(m, prob, p, c)
	src := PetabModel{Model: modelGenerated, Package: g.Pkg, GenCheck: chk}
	switch {
	case chk.Err != "":
		return p.Model, p.Objective, PetabModel{Model: modelInterpreted, Package: g.Pkg, GenCheck: chk,
			ModelNote: "the generated objective failed where the interpreted did not: " + chk.Err}
	case !(float64(chk.Model) <= petabGenModelTol):
		return p.Model, p.Objective, PetabModel{Model: modelInterpreted, Package: g.Pkg, GenCheck: chk,
			ModelNote: fmt.Sprintf("the generated model functions differ from the interpreted by %.1e relative (a code generation bug?)", float64(chk.Model))}
	case !(float64(chk.LLHTight) <= petabGenObjTol) || !(float64(chk.GradTight) <= petabGenObjTol):
		return p.Model, p.Objective, PetabModel{Model: modelInterpreted, Package: g.Pkg, GenCheck: chk,
			ModelNote: fmt.Sprintf("generated and interpreted disagree at rtol 1e-10 (llh %.1e, gradient %.1e relative)", float64(chk.LLHTight), float64(chk.GradTight))}
	}
	return m, prob, src
}

// samePath reports whether a and b name the same file, symbolic links
// resolved.
func samePath(a, b string) bool {
	if a == b {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}

// petabGenCompare fills PetabGenCheck for the generated model m with
// problem prob against p.
func petabGenCompare(m model.Model, prob *objective.Problem, p *petab.Problem, c *config) *PetabGenCheck {
	chk := &PetabGenCheck{Model: num(petabModelDiff(m, p.Model))}
	eval := func(mm model.Model, pr *objective.Problem, opt *objective.Options) (*objective.Result, error) {
		o, err := objective.New(mm, pr, opt)
		if err != nil {
			return nil, err
		}
		defer o.Close()
		var r objective.Result
		return &r, o.Eval(o.Nominal(), &r)
	}
	for _, tight := range []bool{false, true} {
		opt := &objective.Options{Method: sens.FS, Grad: true, RTol: c.petabRTol, OutputsOnGrid: c.petabOnGrid}
		if tight {
			opt.RTol, opt.ATol = 1e-10, 1e-12
		}
		rg, errG := eval(m, prob, opt)
		ri, errI := eval(p.Model, p.Objective, opt)
		switch {
		case errG != nil && errI == nil:
			chk.Err = errG.Error()
			return chk
		case errG != nil || errI != nil:
			// Both fail (the tight reference on a problem whose nominal
			// point the integrator cannot cross) or only the interpreted:
			// nothing to compare at this tolerance.
			continue
		}
		llh := relTo(rg.LLH-ri.LLH, math.Abs(ri.LLH))
		gi := 0.0
		for _, v := range ri.Grad {
			gi = math.Max(gi, math.Abs(v))
		}
		grad := 0.0
		for a := range ri.Grad {
			grad = math.Max(grad, relTo(rg.Grad[a]-ri.Grad[a], gi))
		}
		if tight {
			chk.LLHTight, chk.GradTight = num(llh), num(grad)
		} else {
			chk.LLH, chk.Grad = num(llh), num(grad)
			chk.Steps = [2]int{rg.Stats.Steps, ri.Stats.Steps}
		}
	}
	return chk
}

// relTo is |d| / scale, 0 when d is 0 (also for scale 0), +Inf for NaN.
func relTo(d, scale float64) float64 {
	switch {
	case d == 0:
		return 0
	case math.IsNaN(d):
		return math.Inf(1)
	}
	return math.Abs(d) / math.Max(scale, 1e-300)
}

// petabModelDiff is the largest relative difference between the model
// functions of a and b (x0, dx0/dp, f, Jx, Jp, and the observables'
// values, noise scales and their derivatives; the Jacobians compared
// densely, so that equal values in different patterns agree) at the
// default parameters and initial state and at 49 seeded random points
// around them, or +Inf when the dimensions differ. Normwise per evaluation,
// max_i |a_i - b_i| / max_i max(|a_i|, |b_i|): an entry that is small
// only by cancellation (a net flux of two nearly equal ones) carries the
// rounding of its terms, which the two codes add in different orders.
func petabModelDiff(a, b model.Model) float64 {
	nx, np := model.NumStates(b), model.NumParams(b)
	if model.NumStates(a) != nx || model.NumParams(a) != np {
		return math.Inf(1)
	}
	worst := 0.0
	cmp := func(u, v []float64) {
		scale := 0.0
		for i := range u {
			scale = math.Max(scale, math.Max(math.Abs(u[i]), math.Abs(v[i])))
		}
		for i := range u {
			if !math.IsNaN(u[i]) || !math.IsNaN(v[i]) { // NaN in both agrees
				worst = math.Max(worst, relTo(u[i]-v[i], scale))
			}
		}
	}
	dense := func(pat *model.Pattern, vals []float64, cols int) []float64 {
		out := make([]float64, nx*cols)
		for i := 0; i < nx; i++ {
			for k := pat.RowPtr[i]; k < pat.RowPtr[i+1]; k++ {
				out[i*cols+pat.ColIdx[k]] = vals[k]
			}
		}
		return out
	}
	two := func(f func(m model.Model, dst []float64), n int) {
		u, v := make([]float64, n), make([]float64, n)
		f(a, u)
		f(b, v)
		cmp(u, v)
	}
	p := make([]float64, np)
	b.DefaultParams(p)
	x0 := make([]float64, nx)
	b.InitialState(x0, p)
	two(func(m model.Model, dst []float64) { m.InitialState(dst, p) }, nx)
	two(func(m model.Model, dst []float64) { m.InitialSens(dst, p) }, nx*np)
	pa, pb := a.JxPattern(), b.JxPattern()
	qa, qb := a.JpPattern(), b.JpPattern()
	rng := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, nx)
	p0 := slices.Clone(p)
	for k := range 50 {
		// The default point first, then random ones: at a single point
		// two codes that round differently may still agree bit for bit.
		t := 0.0
		copy(x, x0)
		if k > 0 {
			t = 10 * rng.Float64()
			for i := range x {
				x[i] = x0[i]*(0.5+rng.Float64()) + 0.1*rng.Float64()
			}
			for j := range p {
				p[j] = p0[j] * (0.5 + rng.Float64())
			}
		}
		two(func(m model.Model, dst []float64) { m.F(dst, t, x, p) }, nx)
		ja, jb := make([]float64, len(pa.ColIdx)), make([]float64, len(pb.ColIdx))
		a.Jx(ja, t, x, p)
		b.Jx(jb, t, x, p)
		cmp(dense(pa, ja, nx), dense(pb, jb, nx))
		ka, kb := make([]float64, len(qa.ColIdx)), make([]float64, len(qb.ColIdx))
		a.Jp(ka, t, x, p)
		b.Jp(kb, t, x, p)
		cmp(dense(qa, ka, np), dense(qb, kb, np))
		oa, okA := a.(model.Observables)
		ob, okB := b.(model.Observables)
		if !okA || !okB {
			continue
		}
		for o := range ob.ObservableIDs() {
			n1, n2 := ob.Placeholders(o)
			u := make([]float64, n1+n2)
			for i := range u {
				u[i] = 0.5 + rng.Float64()
			}
			obsD := func(m model.Observables) ([]float64, *model.ObsDeriv) {
				d := &model.ObsDeriv{HX: make([]float64, nx), HP: make([]float64, np), HU: make([]float64, len(u)),
					SX: make([]float64, nx), SP: make([]float64, np), SU: make([]float64, len(u))}
				y, sigma := m.Observe(o, t, x, p, u, d)
				return []float64{y, sigma}, d
			}
			ya, da := obsD(oa)
			yb, db := obsD(ob)
			cmp(ya[:1], yb[:1])
			cmp(ya[1:], yb[1:])
			for _, pr := range [][2][]float64{{da.HX, db.HX}, {da.HP, db.HP}, {da.HU, db.HU}, {da.SX, db.SX}, {da.SP, db.SP}, {da.SU, db.SU}} {
				cmp(pr[0], pr[1])
			}
		}
	}
	return worst
}

// printPetabModel prints which model a problem ran on.
func printPetabModel(r *PetabResult) {
	s := "  model: " + r.Model
	if r.Package != "" && r.Model == modelGenerated {
		s += " (" + r.Package + ")"
	}
	if r.ModelNote != "" {
		s += "; " + r.ModelNote
	}
	if g := r.GenCheck; g != nil && g.Err == "" {
		s += fmt.Sprintf("\n  generated vs interpreted at the nominal point: model functions %.1e; FS llh %.1e, gradient %.1e (steps %d vs %d); at rtol 1e-10 llh %.1e, gradient %.1e",
			float64(g.Model), float64(g.LLH), float64(g.Grad), g.Steps[0], g.Steps[1], float64(g.LLHTight), float64(g.GradTight))
	}
	fmt.Println(s)
}
