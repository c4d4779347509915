package testsuite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/runtime/sens"
)

// petabSuite finds the PEtab test suite in ../shared or $PBGEN_SHARED.
func petabSuite(t *testing.T, version string) string {
	t.Helper()
	root := os.Getenv("PBGEN_SHARED")
	if root == "" {
		root = filepath.Join("..", "..", "shared")
	}
	d := filepath.Join(root, "petab-test-suite", version, "sbml")
	if _, err := os.Stat(d); err != nil {
		t.Skipf("no PEtab test suite at %s (set PBGEN_SHARED)", d)
	}
	return d
}

// TestPEtabSuite runs the PEtab test suite: every case passes, v2's SBML
// event cases (0016, 0023, 0030) included, with FS, and v2 with PBSR and
// Exp too (the event cases run through runtime/events for every method).
// A case pbgen refused would be skipped with "not supported", never
// failed. The prior cases (v2 0024, 0025) also check the log posterior.
func TestPEtabSuite(t *testing.T) {
	for _, c := range []struct {
		version         string
		method          sens.Method
		passed, skipped int
	}{{"v1.0.0", sens.FS, 20, 0}, {"v2.0.0", sens.FS, 31, 0}, {"v2.0.0", sens.PBSR, 31, 0}, {"v2.0.0", sens.Exp, 31, 0}} {
		outs, err := RunPEtabDir(petabSuite(t, c.version), &PEtabOptions{Method: c.method})
		if err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		passed, failed, skipped := PEtabReport(&sb, outs)
		t.Logf("PEtab %s %v: %s", c.version, c.method, lastLine(sb.String()))
		if failed > 0 || passed < c.passed || skipped > c.skipped {
			t.Errorf("PEtab %s %v: %d passed, %d failed, %d skipped; want >= %d passed, 0 failed\n%s", c.version, c.method, passed, failed, skipped, c.passed, sb.String())
		}
		for _, o := range outs {
			if o.Status == Skipped && !strings.Contains(o.Reason, "not supported") {
				t.Errorf("case %s skipped for another reason: %s", o.ID, o.Reason)
			}
		}
	}
}

// TestPEtabCaseFailure checks that a case whose solution disagrees fails
// with the quantity named.
func TestPEtabCaseFailure(t *testing.T) {
	src := filepath.Join(petabSuite(t, "v1.0.0"), "0001")
	dir := filepath.Join(t.TempDir(), "0001")
	os.Mkdir(dir, 0o755)
	ents, _ := os.ReadDir(src)
	for _, e := range ents {
		data, _ := os.ReadFile(filepath.Join(src, e.Name()))
		os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644)
	}
	sol := filepath.Join(dir, "_0001_solution.yaml")
	data, _ := os.ReadFile(sol)
	os.WriteFile(sol, []byte(strings.Replace(string(data), "llh: -", "llh: -1", 1)), 0o644)
	o := RunPEtabCase(dir, "0001", &PEtabOptions{Method: sens.FS})
	if o.Status != Failed || !strings.Contains(o.Reason, "llh") {
		t.Errorf("got %v: %s, want a failure naming llh", o.Status, o.Reason)
	}
}
