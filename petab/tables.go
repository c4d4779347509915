package petab

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pbgen/pbgen/runtime/objective"
)

// Pos is where a row came from, for messages.
type Pos struct {
	File string
	Line int
}

// Parameter is a row of the parameter table.
type Parameter struct {
	Pos
	ID           string
	Scale        objective.Scale
	Lower, Upper float64 // linear scale; NaN when absent
	Nominal      float64 // linear scale; NaN when absent
	Estimate     bool
	Prior        objective.Prior
	InitPrior    objective.Prior
}

// Condition is a row of the v1 condition table, or the rows of one
// condition of the v2 long table: target id -> value.
type Condition struct {
	Pos
	ID      string
	Targets []string          // in column (v1) or row (v2) order
	Values  map[string]string // cell text: a number, a parameter id, NaN, or (v2) an expression
	Lines   map[string]int    // v2: line of each target's row
}

// Observable is a row of the observable table.
type Observable struct {
	Pos
	ID                string
	Formula, Noise    string
	Transform         objective.Transform
	Distribution      objective.Noise
	ObsPlaceholders   []string // in order of observableParameters
	NoisePlaceholders []string // in order of noiseParameters
}

// Measurement is a row of the measurement table.
type Measurement struct {
	Pos
	ObservableID string
	Preeq, Sim   string // condition ids (v1); Preeq "" for none
	Experiment   string // v2 experiment id ("" = the model as is)
	Time         float64
	Value        float64
	ObsParams    []string // cells split at ';'
	NoiseParams  []string
	DatasetID    string
	ReplicateID  string
}

// Period is one row of the v2 experiment table.
type Period struct {
	Pos
	Experiment string
	Time       float64
	Condition  string
}

var idRE = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// parseNum reads a number cell; PEtab writes inf and nan in several
// spellings, which strconv accepts.
func parseNum(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return v, true
		}
		return 0, false
	}
	return v, true
}

func splitList(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	parts := strings.Split(s, ";")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

var scales = map[string]objective.Scale{"lin": objective.Lin, "log": objective.Log, "log10": objective.Log10}

var priorsV1 = map[string]objective.PriorKind{
	"uniform": objective.Uniform, "normal": objective.NormalPrior, "laplace": objective.LaplacePrior,
	"logNormal": objective.LogNormal, "logLaplace": objective.LogLaplace,
	"parameterScaleUniform": objective.ParameterScaleUniform, "parameterScaleNormal": objective.ParameterScaleNormal,
	"parameterScaleLaplace": objective.ParameterScaleLaplace,
}

var priorsV2 = map[string]objective.PriorKind{
	"uniform": objective.Uniform, "normal": objective.NormalPrior, "laplace": objective.LaplacePrior,
	"log-normal": objective.LogNormal, "log-laplace": objective.LogLaplace,
	"cauchy": objective.Cauchy, "chisquare": objective.ChiSquare, "exponential": objective.Exponential,
	"gamma": objective.Gamma, "log-uniform": objective.LogUniform, "rayleigh": objective.Rayleigh,
}

// priorArity is how many parameters each prior takes.
func priorArity(k objective.PriorKind) int {
	switch k {
	case objective.ChiSquare, objective.Exponential, objective.Rayleigh:
		return 1
	}
	return 2
}

func readParameters(tabs []*table, version int, e *errs) []Parameter {
	var out []Parameter
	seen := make(map[string]Pos)
	for _, t := range tabs {
		req := []string{"parameterId", "nominalValue", "estimate"}
		if version == 1 {
			req = append(req, "parameterScale")
		}
		if !t.require(e, req...) {
			continue
		}
		t.checkPadding(e, "parameterId", "parameterScale", "lowerBound", "upperBound", "nominalValue", "estimate",
			"objectivePriorType", "objectivePriorParameters", "initializationPriorType", "initializationPriorParameters",
			"priorDistribution", "priorParameters")
		for r := range t.rows {
			pos := Pos{t.file, t.lines[r]}
			bad := func(col, format string, args ...any) { e.add(t.file, pos.Line, col, format, args...) }
			p := Parameter{Pos: pos, ID: t.get(r, "parameterId"), Lower: math.NaN(), Upper: math.NaN(), Nominal: math.NaN()}
			if !idRE.MatchString(p.ID) {
				bad("parameterId", "%q is not a valid id", p.ID)
				continue
			}
			if prev, dup := seen[p.ID]; dup {
				bad("parameterId", "parameter %q is defined twice (first at %s:%d)", p.ID, prev.File, prev.Line)
				continue
			}
			seen[p.ID] = pos
			if version == 1 {
				s, ok := scales[t.get(r, "parameterScale")]
				if !ok {
					bad("parameterScale", "unknown scale %q (lin, log or log10)", t.get(r, "parameterScale"))
				}
				p.Scale = s
				switch t.get(r, "estimate") {
				case "1":
					p.Estimate = true
				case "0":
				default:
					bad("estimate", "want 0 or 1, found %q", t.get(r, "estimate"))
				}
			} else {
				switch t.get(r, "estimate") {
				case "true":
					p.Estimate = true
				case "false":
				default:
					bad("estimate", "want true or false, found %q", t.get(r, "estimate"))
				}
			}
			num := func(col string, dst *float64, required bool) {
				c := t.get(r, col)
				if c == "" {
					if required {
						bad(col, "a value is required")
					}
					return
				}
				v, ok := parseNum(c)
				if !ok || math.IsNaN(v) {
					bad(col, "%q is not a number", c)
					return
				}
				*dst = v
			}
			num("nominalValue", &p.Nominal, !p.Estimate)
			num("lowerBound", &p.Lower, p.Estimate)
			num("upperBound", &p.Upper, p.Estimate)
			if p.Lower > p.Upper {
				bad("lowerBound", "lower bound %g is above the upper bound %g", p.Lower, p.Upper)
			} else if p.Estimate && (p.Nominal < p.Lower || p.Nominal > p.Upper) {
				// A warning, not an error: published problems have it
				// (Lang_PLOSComputBiol2024) and the v2 test suite
				// evaluates at such a nominal value (case 0026).
				e.warnf(t.file, pos.Line, "nominalValue", "nominal value %g is outside the bounds [%g, %g]", p.Nominal, p.Lower, p.Upper)
			}
			if p.Estimate && p.Scale != objective.Lin && p.Lower < 0 {
				bad("lowerBound", "a %s-scale parameter needs a lower bound >= 0, found %g", t.get(r, "parameterScale"), p.Lower)
			}
			prior := func(typeCol, parCol string, dst *objective.Prior, defaultUniform bool) {
				typ, pars := t.get(r, typeCol), t.get(r, parCol)
				if typ == "" {
					if pars != "" {
						bad(parCol, "prior parameters without a prior type in %s", typeCol)
					}
					return
				}
				table := priorsV1
				if version == 2 {
					table = priorsV2
				}
				k, ok := table[typ]
				if !ok {
					bad(typeCol, "unknown prior %q", typ)
					return
				}
				dst.Kind = k
				l := splitList(pars)
				if len(l) == 0 && (k == objective.Uniform || k == objective.ParameterScaleUniform) && defaultUniform {
					dst.Par = [2]float64{p.Lower, p.Upper}
					if k == objective.ParameterScaleUniform {
						dst.Par = [2]float64{toScale(p.Scale, p.Lower), toScale(p.Scale, p.Upper)}
					}
					return
				}
				if len(l) != priorArity(k) {
					bad(parCol, "prior %s takes %d parameter(s), found %d", typ, priorArity(k), len(l))
					return
				}
				for i, s := range l {
					v, ok := parseNum(s)
					if !ok || math.IsNaN(v) {
						bad(parCol, "%q is not a number", s)
						return
					}
					dst.Par[i] = v
				}
			}
			if version == 1 {
				prior("objectivePriorType", "objectivePriorParameters", &p.Prior, true)
				prior("initializationPriorType", "initializationPriorParameters", &p.InitPrior, true)
			} else {
				prior("priorDistribution", "priorParameters", &p.Prior, true)
				// v2 priors are truncated to the bounds.
				p.Prior.Truncate = p.Prior.Kind != objective.NoPrior
			}
			out = append(out, p)
		}
	}
	return out
}

// defaultPriorsV2 gives the estimated parameters without a prior the
// uniform prior on their bounds when some parameter has one: PEtab v2
// says so, so that the log posterior of a partly specified problem is
// defined.
func defaultPriorsV2(ps []Parameter) {
	any := false
	for _, p := range ps {
		any = any || p.Prior.Kind != objective.NoPrior
	}
	if !any {
		return
	}
	for i := range ps {
		p := &ps[i]
		if p.Estimate && p.Prior.Kind == objective.NoPrior {
			p.Prior = objective.Prior{Kind: objective.Uniform, Par: [2]float64{p.Lower, p.Upper}, Truncate: true}
		}
	}
}

// toScale maps a linear value to the parameter's scale.
func toScale(s objective.Scale, v float64) float64 {
	switch s {
	case objective.Log:
		return math.Log(v)
	case objective.Log10:
		return math.Log10(v)
	}
	return v
}

// readConditionsV1 reads wide condition tables: one row per condition,
// one column per target.
func readConditionsV1(tabs []*table, e *errs) []Condition {
	var out []Condition
	seen := make(map[string]Pos)
	for _, t := range tabs {
		if !t.require(e, "conditionId") {
			continue
		}
		t.checkPadding(e, slices.DeleteFunc(slices.Clone(t.header), func(h string) bool { return h == "conditionName" })...)
		for r := range t.rows {
			pos := Pos{t.file, t.lines[r]}
			c := Condition{Pos: pos, ID: t.get(r, "conditionId"), Values: make(map[string]string)}
			if !idRE.MatchString(c.ID) {
				e.add(t.file, pos.Line, "conditionId", "%q is not a valid id", c.ID)
				continue
			}
			if prev, dup := seen[c.ID]; dup {
				e.add(t.file, pos.Line, "conditionId", "condition %q is defined twice (first at %s:%d)", c.ID, prev.File, prev.Line)
				continue
			}
			seen[c.ID] = pos
			for j, h := range t.header {
				if h == "conditionId" || h == "conditionName" {
					continue
				}
				if !idRE.MatchString(h) {
					if r == 0 {
						e.add(t.file, t.headerLine, h, "column name is not a valid id")
					}
					continue
				}
				v := t.cell(r, j)
				if v == "" {
					v = "NaN" // an empty cell keeps the model's (or pre-equilibrated) value
				}
				c.Targets = append(c.Targets, h)
				c.Values[h] = v
			}
			out = append(out, c)
		}
	}
	return out
}

// readConditionsV2 reads long condition tables: one row per (condition,
// target), grouped into conditions in order of first appearance.
func readConditionsV2(tabs []*table, e *errs) []Condition {
	var out []Condition
	idx := make(map[string]int)
	for _, t := range tabs {
		if !t.require(e, "conditionId", "targetId", "targetValue") {
			continue
		}
		t.checkPadding(e, "conditionId", "targetId", "targetValue")
		for r := range t.rows {
			line := t.lines[r]
			id, target, val := t.get(r, "conditionId"), t.get(r, "targetId"), t.get(r, "targetValue")
			if !idRE.MatchString(id) {
				e.add(t.file, line, "conditionId", "%q is not a valid id", id)
				continue
			}
			if !idRE.MatchString(target) {
				e.add(t.file, line, "targetId", "%q is not a valid id", target)
				continue
			}
			if val == "" {
				e.add(t.file, line, "targetValue", "a value is required")
				continue
			}
			k, ok := idx[id]
			if !ok {
				k = len(out)
				idx[id] = k
				out = append(out, Condition{Pos: Pos{t.file, line}, ID: id, Values: make(map[string]string), Lines: make(map[string]int)})
			}
			c := &out[k]
			if _, dup := c.Values[target]; dup {
				e.add(t.file, line, "targetId", "condition %q sets %q twice", id, target)
				continue
			}
			c.Targets = append(c.Targets, target)
			c.Values[target] = val
			c.Lines[target] = line
		}
	}
	return out
}

var (
	transformsV1 = map[string]objective.Transform{"": objective.TransformLin, "lin": objective.TransformLin, "log": objective.TransformLog, "log10": objective.TransformLog10}
	noisesV1     = map[string]objective.Noise{"": objective.Normal, "normal": objective.Normal, "laplace": objective.Laplace}
	placeholder  = regexp.MustCompile(`\b(observable|noise)Parameter([0-9]+)_([a-zA-Z_][a-zA-Z0-9_]*)\b`)
)

func readObservables(tabs []*table, version int, e *errs) []Observable {
	var out []Observable
	seen := make(map[string]Pos)
	for _, t := range tabs {
		if !t.require(e, "observableId", "observableFormula", "noiseFormula") {
			continue
		}
		t.checkPadding(e, "observableId", "observableFormula", "noiseFormula", "observableTransformation",
			"noiseDistribution", "observablePlaceholders", "noisePlaceholders")
		for r := range t.rows {
			pos := Pos{t.file, t.lines[r]}
			bad := func(col, format string, args ...any) { e.add(t.file, pos.Line, col, format, args...) }
			o := Observable{Pos: pos, ID: t.get(r, "observableId"), Formula: t.get(r, "observableFormula"), Noise: t.get(r, "noiseFormula")}
			if !idRE.MatchString(o.ID) {
				bad("observableId", "%q is not a valid id", o.ID)
				continue
			}
			if prev, dup := seen[o.ID]; dup {
				bad("observableId", "observable %q is defined twice (first at %s:%d)", o.ID, prev.File, prev.Line)
				continue
			}
			seen[o.ID] = pos
			if o.Formula == "" {
				bad("observableFormula", "a formula is required")
			}
			if o.Noise == "" {
				bad("noiseFormula", "a formula is required")
			} else if v, ok := parseNum(o.Noise); ok && !(v > 0) {
				bad("noiseFormula", "noise must be positive, found %s", o.Noise)
			}
			if version == 1 {
				tr, ok := transformsV1[t.get(r, "observableTransformation")]
				if !ok {
					bad("observableTransformation", "unknown transformation %q (lin, log or log10)", t.get(r, "observableTransformation"))
				}
				nd, ok := noisesV1[t.get(r, "noiseDistribution")]
				if !ok {
					bad("noiseDistribution", "unknown distribution %q (normal or laplace)", t.get(r, "noiseDistribution"))
				}
				o.Transform, o.Distribution = tr, nd
				o.ObsPlaceholders = placeholdersV1(o, "observable", o.Formula, bad, "observableFormula")
				// Noise formulas may also use the observable's own
				// observableParameters; only noiseParameters count there.
				o.NoisePlaceholders = placeholdersV1(o, "noise", o.Noise, bad, "noiseFormula")
				if n := placeholdersV1(o, "noise", o.Formula, func(string, string, ...any) {}, ""); len(n) > 0 {
					bad("observableFormula", "noise placeholder %s in the observable formula", n[0])
				}
			} else {
				switch d := t.get(r, "noiseDistribution"); d {
				case "", "normal":
				case "laplace":
					o.Distribution = objective.Laplace
				case "log-normal":
					o.Transform = objective.TransformLog
				case "log-laplace":
					o.Transform, o.Distribution = objective.TransformLog, objective.Laplace
				default:
					bad("noiseDistribution", "unknown distribution %q (normal, laplace, log-normal or log-laplace)", d)
				}
				o.ObsPlaceholders = splitList(t.get(r, "observablePlaceholders"))
				o.NoisePlaceholders = splitList(t.get(r, "noisePlaceholders"))
				for _, l := range [][]string{o.ObsPlaceholders, o.NoisePlaceholders} {
					for _, id := range l {
						if !idRE.MatchString(id) {
							bad("observablePlaceholders", "placeholder %q is not a valid id", id)
						}
					}
				}
			}
			out = append(out, o)
		}
	}
	return out
}

// placeholdersV1 finds the kind ("observable" or "noise") placeholders of
// observable o in formula f and returns them in index order; the indices
// must run from 1 without gaps, and the suffix must be o's id.
func placeholdersV1(o Observable, kind, f string, bad func(col, format string, args ...any), col string) []string {
	maxN := 0
	have := make(map[int]bool)
	for _, m := range placeholder.FindAllStringSubmatch(f, -1) {
		if m[1] != kind {
			continue
		}
		if m[3] != o.ID {
			// Not a placeholder of this observable: an ordinary id (the
			// benchmark collection has such parameters in its tables).
			continue
		}
		n, err := strconv.Atoi(m[2])
		if err != nil || n < 1 || n > 1000 {
			bad(col, "placeholder %s: the index must be 1 to 1000", m[0])
			continue
		}
		have[n] = true
		maxN = max(maxN, n)
	}
	var l []string
	for n := 1; n <= maxN; n++ {
		if !have[n] {
			bad(col, "placeholders of %s skip %sParameter%d_%s", o.ID, kind, n, o.ID)
			return nil
		}
		l = append(l, kind+"Parameter"+strconv.Itoa(n)+"_"+o.ID)
	}
	return l
}

func readMeasurements(tabs []*table, version int, e *errs) []Measurement {
	var out []Measurement
	for _, t := range tabs {
		req := []string{"observableId", "measurement", "time"}
		if version == 1 {
			req = append(req, "simulationConditionId")
		}
		if !t.require(e, req...) {
			continue
		}
		t.checkPadding(e, "observableId", "preequilibrationConditionId", "simulationConditionId", "experimentId",
			"measurement", "time", "observableParameters", "noiseParameters", "datasetId", "replicateId")
		for r := range t.rows {
			pos := Pos{t.file, t.lines[r]}
			bad := func(col, format string, args ...any) { e.add(t.file, pos.Line, col, format, args...) }
			m := Measurement{
				Pos: pos, ObservableID: t.get(r, "observableId"),
				Preeq: t.get(r, "preequilibrationConditionId"), Sim: t.get(r, "simulationConditionId"),
				Experiment: t.get(r, "experimentId"),
				ObsParams:  splitList(t.get(r, "observableParameters")), NoiseParams: splitList(t.get(r, "noiseParameters")),
				DatasetID: t.get(r, "datasetId"), ReplicateID: t.get(r, "replicateId"),
			}
			if version == 1 && m.Sim == "" {
				bad("simulationConditionId", "a condition id is required")
			}
			v, ok := parseNum(t.get(r, "measurement"))
			if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
				bad("measurement", "%q is not a finite number", t.get(r, "measurement"))
			}
			m.Value = v
			tm, ok := parseNum(t.get(r, "time"))
			if !ok || math.IsNaN(tm) || math.IsInf(tm, -1) {
				bad("time", "%q is not a time (a number or inf)", t.get(r, "time"))
			}
			m.Time = tm
			out = append(out, m)
		}
	}
	return out
}

func readExperiments(tabs []*table, e *errs) []Period {
	var out []Period
	for _, t := range tabs {
		if !t.require(e, "experimentId", "time", "conditionId") {
			continue
		}
		t.checkPadding(e, "experimentId", "time", "conditionId")
		for r := range t.rows {
			line := t.lines[r]
			p := Period{Pos: Pos{t.file, line}, Experiment: t.get(r, "experimentId"), Condition: t.get(r, "conditionId")}
			if !idRE.MatchString(p.Experiment) {
				e.add(t.file, line, "experimentId", "%q is not a valid id", p.Experiment)
				continue
			}
			tm, ok := parseNum(t.get(r, "time"))
			if !ok || math.IsNaN(tm) || math.IsInf(tm, 1) {
				e.add(t.file, line, "time", "%q is not a start time (a number or -inf)", t.get(r, "time"))
				continue
			}
			p.Time = tm
			out = append(out, p)
		}
	}
	return out
}

// readMappings reads v2 mapping tables: PEtab id -> model id.
func readMappings(tabs []*table, e *errs) map[string]string {
	out := make(map[string]string)
	for _, t := range tabs {
		if !t.require(e, "petabEntityId", "modelEntityId") {
			continue
		}
		t.checkPadding(e, "petabEntityId", "modelEntityId")
		for r := range t.rows {
			pid, mid := t.get(r, "petabEntityId"), t.get(r, "modelEntityId")
			if !idRE.MatchString(pid) {
				e.add(t.file, t.lines[r], "petabEntityId", "%q is not a valid id", pid)
				continue
			}
			if mid != "" {
				out[pid] = mid
			}
		}
	}
	return out
}
