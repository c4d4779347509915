package codegen_test

import (
	"bytes"
	"fmt"
	"go/format"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/codegen"
	"github.com/pbgen/pbgen/internal/testnet"
	"github.com/pbgen/pbgen/symbolic"
)

// evDef is an event as formulas over the Toy network's states and
// parameters and time ("" for no delay or priority). The same table
// builds the events here and inside the temporary module of
// TestEventsEndToEnd.
type evDef struct {
	Name                                               string
	Trigger, Delay, Priority                           string
	InitialValue, Persistent, UseValuesFromTriggerTime bool
	States, Values                                     []string
}

// toyEv exercises targets out of state order, a delay and a priority in
// x and p, a trigger in time and logical operators, a piecewise value,
// an event without assignments, and a root function shared by two
// triggers (numbered once, as interp numbers it).
var toyEv = []evDef{
	{Name: "E0", Trigger: "A > Km && time >= 2", Delay: "k2*A", Priority: "Vmax - C", InitialValue: true, Persistent: true,
		States: []string{"C", "A"}, Values: []string{"C/2 + k1*time", "A - 1"}},
	{Name: "E1", Trigger: "!(C < len) || type > 3*k1", UseValuesFromTriggerTime: true,
		States: []string{"type"}, Values: []string{"piecewise(A*Vmax, time > 5, type + len)"}},
	{Name: "E2", Trigger: "time > 7"},
	{Name: "E3", Trigger: "A > Km", Priority: "2", States: []string{"A"}, Values: []string{"3"}},
}

// buildEvents parses the table with sys's Builder into sys.ODE.Events;
// this function is repeated in the temporary module's test.
func buildEvents(t *testing.T, sys *symbolic.System, defs []evDef) {
	t.Helper()
	states := sys.ODE.StateNames()
	kind := func(name string) symbolic.SymKind {
		if slices.Contains(states, name) {
			return symbolic.KindState
		}
		return symbolic.KindParam
	}
	parse := func(s string) *symbolic.Node {
		if s == "" {
			return nil
		}
		n, err := sys.B.ParsePEtab(s, kind)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	sys.ODE.Events = nil
	for _, d := range defs {
		e := symbolic.Event{Name: d.Name, Trigger: parse(d.Trigger), Delay: parse(d.Delay), Priority: parse(d.Priority),
			InitialValue: d.InitialValue, Persistent: d.Persistent, UseValuesFromTriggerTime: d.UseValuesFromTriggerTime}
		for i, s := range d.States {
			e.Assign = append(e.Assign, symbolic.EventAssign{State: slices.Index(states, s), Value: parse(d.Values[i])})
		}
		sys.ODE.Events = append(sys.ODE.Events, e)
	}
}

// TestEventsOutput checks the generated source of a package with events:
// deterministic (two fresh systems, and the same system twice, since
// Generate adds derivative nodes to its Builder), gofmt-clean, asserting
// model.EventDerivs, the shared root function emitted once, and the
// event functions in events.go when split. Without events nothing of
// model.Events is emitted.
func TestEventsOutput(t *testing.T) {
	gen := func(sys *symbolic.System, opt *codegen.Options) map[string][]byte {
		t.Helper()
		files, err := codegen.Generate(sys, opt)
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	s1, s2 := testnet.Toy(), testnet.Toy()
	buildEvents(t, s1, toyEv)
	buildEvents(t, s2, toyEv)
	a, b, c := gen(s1, nil), gen(s2, nil), gen(s1, nil)
	for name, src := range a {
		if !bytes.Equal(src, b[name]) || !bytes.Equal(src, c[name]) {
			t.Errorf("%s differs between runs", name)
		}
		if f, err := format.Source(src); err != nil || !bytes.Equal(f, src) {
			t.Errorf("%s is not gofmt-clean (%v)", name, err)
		}
	}
	m := string(a["model.go"])
	for _, want := range []string{
		"var _ model.EventDerivs = Model{}",
		"const NumEvents int = 4",
		// A - Km, C - len, type - 3*k1, time - 2, time - 7: A > Km shared by E0 and E3;
		// then the toy's two switches (t > 5, A < 2 in a rate).
		"const NumRoots int = 7",
		"const NumSwitches int = 2",
		"var _ model.Switches = Model{}",
		"func rootGrad6(",
		"func eventDeriv3(",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("model.go lacks %q", want)
		}
	}
	// Only true flags are written: one delay (E0), two priorities (E0, E3).
	for flag, n := range map[string]int{"HasDelay:": 1, "HasPriority:": 2, "InitialValue:": 1, "UseValuesFromTriggerTime:": 1} {
		if got := strings.Count(m, flag); got != n {
			t.Errorf("model.go has %q %d times, want %d", flag, got, n)
		}
	}
	if strings.Contains(m, "func rootGrad7(") {
		t.Error("a shared root function is emitted twice")
	}
	split := gen(s1, &codegen.Options{ChunkSize: 3, SplitFiles: 10})
	if ev := string(split["events.go"]); !strings.Contains(ev, "func event0(") || !strings.Contains(ev, "func (Model) RootsTo(") {
		t.Errorf("split output has no events.go with the event functions: files %v", slices.Sorted(func(yield func(string) bool) {
			for k := range split {
				if !yield(k) {
					return
				}
			}
		}))
	}
	// The toy without events still switches: model.Events with no events.
	toy := string(gen(testnet.Toy(), nil)["model.go"])
	for _, want := range []string{"const NumEvents int = 0", "const NumRoots int = 2", "const NumSwitches int = 2"} {
		if !strings.Contains(toy, want) {
			t.Errorf("toy without events: model.go lacks %q", want)
		}
	}
	// Without events or switches nothing of model.Events is emitted.
	plain := gen(testnet.Random(rand.New(rand.NewPCG(1, 1)), 4, 3), nil)
	if m := string(plain["model.go"]); strings.Contains(m, "NumEvents") || strings.Contains(m, "NumSwitches") {
		t.Error("a model without events or switches has model.Events code")
	}
}

// TestEventsErrors: events that would compile into wrong code are refused.
func TestEventsErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(sys *symbolic.System)
		want string
	}{
		{"foreign builder", func(sys *symbolic.System) {
			sys.ODE.Events[0].Trigger = symbolic.NewBuilder().Time()
		}, "from another Builder"},
		{"twice", func(sys *symbolic.System) {
			e := &sys.ODE.Events[0]
			e.Assign = append(e.Assign, e.Assign[0])
		}, "repeated target"},
		{"unknown symbol", func(sys *symbolic.System) {
			sys.ODE.Events[1].Delay = sys.B.Sym("nope", symbolic.KindParam)
		}, `"nope"`},
	} {
		sys := testnet.Toy()
		buildEvents(t, sys, toyEv)
		c.edit(sys)
		if _, err := codegen.Generate(sys, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestEventsEndToEnd generates the Toy network with toyEv, whole and in
// chunks of three statements split over files, in a temporary module,
// and there compares every method of model.EventDerivs with
// interp.NewWithEvents at seeded random points (derivative slices
// NaN-filled before the call), checks that no method allocates, that
// misuse panics with the package's message, and that runtime/events.SolveSens
// gives both models the same executions, states and sensitivities.
func TestEventsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a temporary module")
	}
	tmp, write := testnetModule(t, "eve2e")
	for _, c := range []struct {
		pkg string
		opt codegen.Options
	}{{"toyev", codegen.Options{}}, {"toyevchunked", codegen.Options{ChunkSize: 3, SplitFiles: 10}}} {
		sys := testnet.Toy()
		buildEvents(t, sys, toyEv)
		c.opt.Package = c.pkg
		files, err := codegen.Generate(sys, &c.opt)
		if err != nil {
			t.Fatal(err)
		}
		for name, src := range files {
			write(filepath.Join(c.pkg, name), src)
		}
	}
	src := strings.Replace(evCompareTest, "{{TABLE}}", fmt.Sprintf("%#v", toyEv), 1)
	write("compare_test.go", []byte(strings.ReplaceAll(src, "codegen_test.evDef", "evDef")))
	cmd := exec.Command("go", "test", "-count=1", "-v", ".")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test: %v\n%s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "MAXREL") || strings.Contains(l, "executions") {
			t.Log(strings.TrimSpace(l))
		}
	}
}

const evCompareTest = `package eve2e

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/events"
	"github.com/pbgen/pbgen/runtime/model"
	"github.com/pbgen/pbgen/symbolic"

	"eve2e/testnet"
	"eve2e/toyev"
	"eve2e/toyevchunked"
)

type evDef struct {
	Name                                               string
	Trigger, Delay, Priority                           string
	InitialValue, Persistent, UseValuesFromTriggerTime bool
	States, Values                                     []string
}

var table = {{TABLE}}

// buildEvents is that of the generator's test, for interp.
func buildEvents(t *testing.T, sys *symbolic.System) {
	states := sys.ODE.StateNames()
	kind := func(name string) symbolic.SymKind {
		if slices.Contains(states, name) {
			return symbolic.KindState
		}
		return symbolic.KindParam
	}
	parse := func(s string) *symbolic.Node {
		if s == "" {
			return nil
		}
		n, err := sys.B.ParsePEtab(s, kind)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, d := range table {
		e := symbolic.Event{Name: d.Name, Trigger: parse(d.Trigger), Delay: parse(d.Delay), Priority: parse(d.Priority),
			InitialValue: d.InitialValue, Persistent: d.Persistent, UseValuesFromTriggerTime: d.UseValuesFromTriggerTime}
		for i, s := range d.States {
			e.Assign = append(e.Assign, symbolic.EventAssign{State: slices.Index(states, s), Value: parse(d.Values[i])})
		}
		sys.ODE.Events = append(sys.ODE.Events, e)
	}
}

type evModel interface {
	model.Model
	model.EventDerivs
}

func panics(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

func nan(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}

// near compares got with interp's want normwise over the part.
func near(t *testing.T, what string, got, want []float64, worst *float64) {
	t.Helper()
	scale := 0.0
	for _, w := range want {
		scale = math.Max(scale, math.Abs(w))
	}
	for i := range want {
		v, w := got[i], want[i]
		if math.IsNaN(v) != math.IsNaN(w) {
			t.Fatalf("%s entry %d: %g, interp %g", what, i, v, w)
		}
		if v == w || math.IsNaN(v) {
			continue
		}
		d := math.Abs(v-w) / math.Max(scale, math.Max(math.Abs(v), math.Abs(w)))
		*worst = math.Max(*worst, d)
		if d > 1e-13 {
			t.Errorf("%s entry %d: %.17g, interp %.17g", what, i, v, w)
		}
	}
}

func TestEvents(t *testing.T) {
	sys := testnet.Toy()
	buildEvents(t, sys)
	im, err := interp.NewWithEvents(sys)
	if err != nil {
		t.Fatal(err)
	}
	nx, np := model.NumStates(im), model.NumParams(im)
	for _, g := range []evModel{toyev.New(), toyevchunked.New()} {
		if g.NumEvents() != im.NumEvents() || g.NumRoots() != im.NumRoots() {
			t.Fatalf("%T: %d events, %d roots; interp %d, %d", g, g.NumEvents(), g.NumRoots(), im.NumEvents(), im.NumRoots())
		}
		for k := range im.NumEvents() {
			if g.EventInfo(k) != im.EventInfo(k) {
				t.Errorf("%T event %d: info %+v, interp %+v", g, k, g.EventInfo(k), im.EventInfo(k))
			}
			if !slices.Equal(g.EventTargets(k), im.EventTargets(k)) {
				t.Errorf("%T event %d: targets %v, interp %v", g, k, g.EventTargets(k), im.EventTargets(k))
			}
		}
		// The toy's rates switch: the same switches, last of the roots.
		if sw, ok := g.(model.Switches); !ok || sw.NumSwitches() != im.NumSwitches() || im.NumSwitches() == 0 {
			t.Errorf("%T: switches %v, interp %d", g, ok, im.NumSwitches())
		}
		rng := rand.New(rand.NewPCG(1, 1))
		worst := 0.0
		nev, nr := im.NumEvents(), im.NumRoots()
		seen := [2]int{}
		for range 300 {
			tt := 10 * rng.Float64()
			x, p := make([]float64, nx), make([]float64, np)
			for i := range x {
				x[i] = 0.05 + 3*rng.Float64()
			}
			for j := range p {
				p[j] = 0.1 + 2*rng.Float64()
			}
			x0, p0 := slices.Clone(x), slices.Clone(p)
			tg, ti := make([]bool, nev), make([]bool, nev)
			g.TriggersTo(tg, tt, x, p)
			im.TriggersTo(ti, tt, x, p)
			if !slices.Equal(tg, ti) {
				t.Errorf("%T at t=%g x=%v p=%v: triggers %v, interp %v", g, tt, x, p, tg, ti)
			}
			for _, b := range tg {
				seen[map[bool]int{false: 0, true: 1}[b]]++
			}
			rg, ri := nan(nr), nan(nr)
			g.RootsTo(rg, tt, x, p)
			im.RootsTo(ri, tt, x, p)
			near(t, fmt.Sprintf("%T roots", g), rg, ri, &worst)
			for j := range nr {
				dxg, dpg, dxi, dpi := nan(nx), nan(np), nan(nx), nan(np)
				dtg := g.RootGrad(j, tt, x, p, dxg, dpg)
				dti := im.RootGrad(j, tt, x, p, dxi, dpi)
				near(t, fmt.Sprintf("%T root %d grad", g, j), append(append([]float64{dtg}, dxg...), dpg...), append(append([]float64{dti}, dxi...), dpi...), &worst)
			}
			for k := range nev {
				n := len(im.EventTargets(k))
				near(t, fmt.Sprintf("%T event %d delay, priority", g, k),
					[]float64{g.Delay(k, tt, x, p), g.Priority(k, tt, x, p)}, []float64{im.Delay(k, tt, x, p), im.Priority(k, tt, x, p)}, &worst)
				vg, vi := nan(n), nan(n)
				g.EventAssign(k, tt, x, p, vg)
				im.EventAssign(k, tt, x, p, vi)
				near(t, fmt.Sprintf("%T event %d values", g, k), vg, vi, &worst)
				dg := &model.EventDeriv{X: nan((n + 1) * nx), P: nan((n + 1) * np), T: nan(n + 1)}
				di := &model.EventDeriv{X: nan((n + 1) * nx), P: nan((n + 1) * np), T: nan(n + 1)}
				g.EventDeriv(k, tt, x, p, dg)
				im.EventDeriv(k, tt, x, p, di)
				near(t, fmt.Sprintf("%T event %d d/dx", g, k), dg.X, di.X, &worst)
				near(t, fmt.Sprintf("%T event %d d/dp", g, k), dg.P, di.P, &worst)
				near(t, fmt.Sprintf("%T event %d d/dt", g, k), dg.T, di.T, &worst)
			}
			if !slices.Equal(x, x0) || !slices.Equal(p, p0) {
				t.Fatalf("%T: an event method modified x or p", g)
			}
		}
		if seen[0] == 0 || seen[1] == 0 {
			t.Errorf("%T: triggers false %d and true %d times: the points do not exercise both", g, seen[0], seen[1])
		}
		x, p := make([]float64, nx), make([]float64, np)
		for i := range x {
			x[i] = 1
		}
		trig, roots, dx, dp := make([]bool, nev), make([]float64, nr), make([]float64, nx), make([]float64, np)
		if a := testing.AllocsPerRun(100, func() {
			g.TriggersTo(trig, 1, x, p)
			g.RootsTo(roots, 1, x, p)
			for j := range nr {
				g.RootGrad(j, 1, x, p, dx, dp)
			}
			for k := range nev {
				n := len(g.EventTargets(k))
				dst := roots[:n]
				g.Delay(k, 1, x, p)
				g.Priority(k, 1, x, p)
				g.EventAssign(k, 1, x, p, dst)
				_ = g.EventInfo(k)
			}
		}); a != 0 {
			t.Errorf("%T: event methods allocate %v times", g, a)
		}
		d := &model.EventDeriv{X: make([]float64, 2*nx), P: make([]float64, 2*np), T: make([]float64, 2)}
		if a := testing.AllocsPerRun(100, func() { g.EventDeriv(3, 1, x, p, d) }); a != 0 {
			t.Errorf("%T: EventDeriv allocates %v times", g, a)
		}
		pkg, _, _ := strings.Cut(fmt.Sprintf("%T", g), ".")
		for _, c := range []struct {
			f    func()
			want string
		}{
			{func() { g.TriggersTo(trig[1:], 1, x, p) }, ": TriggersTo: argument length mismatch"},
			{func() { g.RootsTo(roots[1:], 1, x, p) }, ": RootsTo: argument length mismatch"},
			{func() { g.EventAssign(3, 1, x, p, make([]float64, 2)) }, ": EventAssign: argument length mismatch"},
			{func() { g.EventDeriv(3, 1, x, p, &model.EventDeriv{X: d.X, P: d.P, T: d.T[1:]}) }, ": EventDeriv: argument length mismatch"},
			{func() { g.Delay(nev, 1, x, p) }, ": Delay: event index out of range"},
			{func() { g.EventTargets(-1) }, ": EventTargets: event index out of range"},
			{func() { g.RootGrad(nr, 1, x, p, dx, dp) }, ": RootGrad: root index out of range"},
		} {
			if v := panics(c.f); v != pkg+c.want {
				t.Errorf("%T: panic %v, want %q", g, v, pkg+c.want)
			}
		}
		t.Logf("MAXREL %T %.2e", g, worst)
	}
}

// TestSolveSens integrates the generated and interpreted models through
// runtime/events.SolveSens from their defaults: the same events fire at
// the same times, and x and S agree to integration accuracy (the two
// round differently, so event times differ in the last bits).
func TestSolveSens(t *testing.T) {
	sys := testnet.Toy()
	buildEvents(t, sys)
	im, err := interp.NewWithEvents(sys)
	if err != nil {
		t.Fatal(err)
	}
	np := model.NumParams(im)
	p := make([]float64, np)
	im.DefaultParams(p)
	ts := []float64{0, 1, 2, 3, 5, 8, 10}
	want, err := events.SolveSens(im, p, nil, nil, ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Fired) == 0 {
		t.Fatal("no event fired: the test exercises nothing")
	}
	for _, g := range []evModel{toyev.New(), toyevchunked.New()} {
		got, err := events.SolveSens(g, p, nil, nil, ts, nil)
		if err != nil {
			t.Fatalf("%T: %v", g, err)
		}
		if len(got.Fired) != len(want.Fired) {
			t.Fatalf("%T: fired %v, interp %v", g, got.Fired, want.Fired)
		}
		for i, f := range got.Fired {
			w := want.Fired[i]
			if f.Event != w.Event || math.Abs(f.T-w.T) > 1e-9*math.Max(1, math.Abs(w.T)) {
				t.Errorf("%T: execution %d: event %d at %.15g, interp event %d at %.15g", g, i, f.Event, f.T, w.Event, w.T)
			}
		}
		for _, pr := range [][2][]float64{{got.X, want.X}, {got.S, want.S}} {
			scale := 0.0
			for _, w := range pr[1] {
				scale = math.Max(scale, math.Abs(w))
			}
			for i, w := range pr[1] {
				if d := math.Abs(pr[0][i] - w); !(d <= 1e-7*scale) {
					t.Errorf("%T: entry %d: %.15g, interp %.15g", g, i, pr[0][i], w)
				}
			}
		}
		t.Logf("%T: %d executions", g, len(got.Fired))
	}
}
`
