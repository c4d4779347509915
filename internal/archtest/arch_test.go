// Package archtest checks the import rules of DESIGN.md: which of pbgen's
// packages may import which. It has no code of its own.
package archtest

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/pbgen/pbgen"

type pkg struct {
	ImportPath string
	Deps       []string
}

// listDeps returns, for every package of the module, the module's own
// packages it depends on (transitively).
func listDeps(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps=false", "-json", mod+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	deps := make(map[string][]string)
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		for _, d := range p.Deps {
			if strings.HasPrefix(d, mod+"/") {
				deps[p.ImportPath] = append(deps[p.ImportPath], strings.TrimPrefix(d, mod+"/"))
			}
		}
	}
	return deps
}

// allowed lists, per package prefix, the module packages it may depend on
// (transitively). A package not covered here is not restricted.
var allowed = []struct {
	prefix string
	may    []string
}{
	{"symbolic", nil},
	{"parser", []string{"symbolic"}},
	{"codegen", []string{"symbolic", "runtime/model"}},
	{"interp", []string{"symbolic", "runtime/model"}},
	{"runtime/model", nil},
	{"runtime/internal/dense", nil},
	{"runtime/expm", []string{"runtime/internal/dense", "runtime/sparse", "runtime/model"}},
	{"runtime/ode", []string{"runtime/model", "runtime/sparse", "runtime/internal/dense"}},
	{"runtime/sens", []string{"runtime/model", "runtime/sparse", "runtime/ode", "runtime/expm", "runtime/internal/dense"}},
	{"internal/testmodels", []string{"runtime/model"}},
	{"internal/testode", []string{"runtime/model"}},
	{"internal/testnet", []string{"symbolic"}},
	{"runtime/sparse", []string{"runtime/model", "runtime/internal/dense"}},
	// runtime/objective solves a model with events through runtime/events,
	// one with algebraic variables through runtime/dae and one with delays
	// through runtime/dde.
	{"runtime/objective", []string{"runtime/model", "runtime/sparse", "runtime/ode", "runtime/sens", "runtime/events", "runtime/dae", "runtime/dde", "runtime/expm", "runtime/internal/dense"}},
	{"petab", []string{"parser", "symbolic", "interp", "runtime/model", "runtime/sparse", "runtime/ode", "runtime/sens", "runtime/events", "runtime/dae", "runtime/dde", "runtime/expm", "runtime/internal/dense", "runtime/objective"}},
	{"internal/suites", nil},
	{"runtime/dae", []string{"runtime/model", "runtime/internal/dense"}},
	{"runtime/events", []string{"runtime/model", "runtime/ode", "runtime/sens", "runtime/expm", "runtime/sparse", "runtime/internal/dense"}},
	// runtime/dde handles the events of a delay model with events.Instants.
	{"runtime/dde", []string{"runtime/model", "runtime/ode", "runtime/events", "runtime/sens", "runtime/expm", "runtime/sparse", "runtime/internal/dense"}},
	{"mcmc", nil},
	// fit sees its objective only through its own interface, as mcmc
	// its Target.
	{"fit", nil},
	{"generated/", []string{"runtime/model"}},
	// The C ABI (capi, and cmd/libpbgen over it) and the Python package's
	// Go reference (python/tests/goref): the runtime, petab and interp to
	// load files (with parser and symbolic below them), and the shipped
	// generated packages, linked in as compiled models and problems; mcmc
	// for sampling.
	{"capi", pyDeps},
	{"cmd/libpbgen", append([]string{"capi"}, pyDeps...)},
	{"python", pyDeps},
	// A generated PEtab problem (pbgen petab -gen) returns its data as an
	// *objective.Problem, so it imports runtime/objective and, through it,
	// the runtime below; still nothing of the generator.
	{"generated/camkiipetab", []string{"runtime/model", "runtime/objective", "runtime/sens", "runtime/events", "runtime/dae", "runtime/dde", "runtime/ode", "runtime/expm", "runtime/sparse", "runtime/internal/dense"}},
}

// pyDeps are what the C ABI and the Python side may depend on.
var pyDeps = []string{"petab", "interp", "parser", "symbolic", "mcmc",
	"runtime/model", "runtime/sparse", "runtime/ode", "runtime/sens", "runtime/events", "runtime/dae", "runtime/dde",
	"runtime/expm", "runtime/internal/dense", "runtime/objective",
	"generated/camkii", "generated/pka", "generated/chua", "generated/camkiipetab"}

func TestImportRules(t *testing.T) {
	deps := listDeps(t)
	if len(deps) == 0 {
		t.Fatal("go list found no module-internal dependencies at all; the check is not running")
	}
	for path, ds := range deps {
		rel := strings.TrimPrefix(path, mod+"/")
		// The most specific rule (longest prefix) that covers rel applies.
		var rule *struct {
			prefix string
			may    []string
		}
		for i, r := range allowed {
			if rel != r.prefix && !strings.HasPrefix(rel, r.prefix+"/") && !(strings.HasSuffix(r.prefix, "/") && strings.HasPrefix(rel, r.prefix)) {
				continue
			}
			if rule == nil || len(r.prefix) > len(rule.prefix) {
				rule = &allowed[i]
			}
		}
		if rule != nil {
			for _, d := range ds {
				if !contains(rule.may, d) && !strings.HasPrefix(d, rel+"/") {
					t.Errorf("%s imports %s, which DESIGN.md does not allow", rel, d)
				}
			}
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
