package suites

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRoot(t *testing.T) {
	r, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r, "go.mod")); err != nil {
		t.Fatalf("Root() = %s has no go.mod", r)
	}
	// Tests run in their package folder, two levels below the root.
	wd, _ := os.Getwd()
	if want := filepath.Dir(filepath.Dir(wd)); r != want {
		t.Errorf("Root() = %s, want %s", r, want)
	}
}

// TestFindEnv: the folder named by PBGEN_SHARED comes first.
func TestFindEnv(t *testing.T) {
	shared := t.TempDir()
	dir := filepath.Join(shared, "sbml-test-suite", "cases")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(Env, shared)
	got, err := Find(SBMLTestSuite)
	if err != nil {
		t.Fatal(err)
	}
	if got != dir {
		t.Errorf("Find = %s, want %s", got, dir)
	}
	if got := Dir(t, SBMLTestSuite); got != dir {
		t.Errorf("Dir = %s, want %s", got, dir)
	}
}

// skipRecorder records Skip instead of ending the test.
type skipRecorder struct {
	testing.TB
	skipped string
}

func (s *skipRecorder) Skip(args ...any) { s.skipped = fmt.Sprint(args...) }
func (s *skipRecorder) Helper()          {}

// TestMissing: a folder that is nowhere is an error naming it, the
// places looked at, the variable to set and where to get it; Dir skips
// with that message.
func TestMissing(t *testing.T) {
	shared := t.TempDir()
	t.Setenv(Env, shared)
	rel := "petab-benchmark/NoSuchProblem_2099"
	_, err := Find(rel)
	if err == nil {
		t.Fatalf("Find(%q) found something", rel)
	}
	msg := err.Error()
	for _, want := range []string{rel, filepath.Join(shared, "petab-benchmark", "NoSuchProblem_2099"), Env, "Benchmark-Models-PEtab"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	rec := &skipRecorder{TB: t}
	if got := Dir(rec, rel); got != "" || rec.skipped != msg {
		t.Errorf("Dir = %q, skipped with %q; want a skip with %q", got, rec.skipped, msg)
	}
}

func TestTestdata(t *testing.T) {
	p := Testdata(t, SBMLSubset)
	ents, err := os.ReadDir(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) == 0 {
		t.Errorf("%s is empty", p)
	}
	for _, name := range []string{"sbml-test-suite/LICENSE.txt", "models/AKAP79.xml"} {
		Testdata(t, name)
	}
}

// TestVendoredAKAP79 checks the vendored AKAP79.xml against the shared
// copy, when that is present.
func TestVendoredAKAP79(t *testing.T) {
	shared := Dir(t, "models/AKAP79.xml")
	want, err := os.ReadFile(shared)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(Testdata(t, "models/AKAP79.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("testdata/models/AKAP79.xml differs from %s", shared)
	}
}
