package sens

import (
	"errors"
	"flag"
	"math"
	"testing"

	"github.com/pbgen/pbgen/generated/camkii"
	"github.com/pbgen/pbgen/generated/chua"
	"github.com/pbgen/pbgen/generated/pka"
	"github.com/pbgen/pbgen/internal/testmodels"
	"github.com/pbgen/pbgen/runtime/model"
)

// trueErr is the error of got against the reference ref in the units of
// Check (S: per output Frobenius, relative to ||R_k||; x: per state).
func trueErr(got, ref *Result, rtol, atol float64) (es, ex float64) {
	for k := range got.T {
		e, _ := relDiff(got.SAt(k), ref.SAt(k), rtol, atol)
		es = math.Max(es, e)
		e, _ = relDiff(got.XAt(k), ref.XAt(k), rtol, atol)
		ex = math.Max(ex, e)
	}
	if math.IsNaN(es) {
		es = math.Inf(1)
	}
	return es, ex
}

var checkPaper = flag.Bool("checkpaper", false, "TestCheckEstimate at the paper's settings")

type checkNet struct {
	name string
	m    model.Model
	p    []float64
	ts   []float64
	ref  func() *Result // the truth at ts
}

func defaultParams(m model.Model) []float64 {
	p := make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	return p
}

// checkNets are the problems of the check's validation, at pbgen sim's
// default outputs (every 0.1 on [0, 10]); the truth is FS at rtol 1e-10
// with ErrCon, or the closed form.
func checkNets(t *testing.T) []checkNet {
	var nets []checkNet
	fsRef := func(m model.Model, p, ts []float64) func() *Result {
		return func() *Result {
			return mustSolve(t, m, p, ts, &Options{Method: FS, RTol: 1e-10, ATol: 1e-12, ErrCon: true})
		}
	}
	ts := uniform(0, 10, 100)
	if *checkPaper {
		ts = uniform(0, 600, 600)
	}
	for _, c := range []struct {
		name string
		m    model.Model
	}{{"PKA", pka.New()}, {"CaMKII", camkii.New()}, {"Chua", chua.New()}} {
		p := defaultParams(c.m)
		nets = append(nets, checkNet{c.name, c.m, p, ts, fsRef(c.m, p, ts)})
	}
	sm, sp := stiffCaMKII()
	nets = append(nets, checkNet{"stiffCaMKII", sm, sp, ts, fsRef(sm, sp, ts)})
	iso := testmodels.NewIsomerization()
	ip := []float64{3, 0.5}
	nets = append(nets, checkNet{"isomerization", iso, ip, ts, func() *Result {
		r := &Result{T: ts, NX: 2, NS: 2, X: make([]float64, 2*len(ts)), S: make([]float64, 4*len(ts))}
		for k, tt := range ts {
			iso.Exact(r.XAt(k), r.SAt(k), tt, ip)
		}
		return r
	}})
	return nets
}

func label(o *Options) string {
	s := describe(o)
	if o.Method == FS && o.ErrCon {
		s += " ErrCon"
	}
	return s
}

// TestCheckEstimate validates the estimate against the truth: for every
// method on every problem of checkNets at rtol 1e-6, atol 1e-8, the
// estimate of the first solve (Check.Err with the bound out of the way) and
// the true error of the same numbers, both in tolerance units.
func TestCheckEstimate(t *testing.T) {
	if testing.Short() {
		t.Skip("many solves")
	}
	rtol, atol := 1e-6, 1e-8
	if *checkPaper {
		rtol, atol = 1e-5, 1e-6
	}
	for _, n := range checkNets(t) {
		ref := n.ref()
		for _, o := range []Options{
			{Method: FS, ErrCon: true}, {Method: FS}, {Method: PBS}, {Method: PBSR}, {Method: Exp},
			{Method: PBSR, Paper: true}, {Method: Exp, Paper: true},
		} {
			o.RTol, o.ATol, o.Check, o.CheckBound = rtol, atol, true, math.MaxFloat64
			r, err := Solve(n.m, n.p, n.ts, &o)
			var me *MethodError
			if errors.As(err, &me) {
				t.Logf("%-13s %-10s gave up: %v", n.name, label(&o), err)
				continue
			}
			if err != nil {
				t.Fatalf("%s %s: %v", n.name, label(&o), err)
			}
			es, ex := trueErr(r, ref, rtol, atol)
			ck := r.Stats.Check
			// With the default bound.
			o.CheckBound = 0
			r2, err2 := Solve(n.m, n.p, n.ts, &o)
			verdict := "ok"
			var e2 float64
			switch {
			case err2 != nil:
				verdict = "FAIL"
			default:
				e2, _ = trueErr(r2, ref, rtol, atol)
				if r2.Stats.Check.Tightened > 0 {
					verdict = "tightened"
				}
			}
			t.Logf("%-13s %-10s S: est %9.3g true %9.3g ratio %6.2f | x: est %9.3g true %9.3g | default bound: %-9s true %9.3g",
				n.name, label(&o), ck.Err, es, ck.Err/es, ck.XErr, ex, verdict, e2)
		}
	}
}
