// Package suites finds the data that tests read from disk: the large
// external suites, which live outside the repository, and the small
// fixtures vendored in the repository's testdata folder.
//
// # External suites
//
// The SBML Test Suite, the PEtab test suite and the PEtab benchmark
// collection are too large to vendor. A test asks for one by its path
// relative to a shared folder (SBMLTestSuite, PEtabTestSuite,
// PEtabBenchmark, or any other relative path) and gets the first of
//
//	$PBGEN_SHARED/<rel>
//	<module root>/../shared/<rel>
//
// that exists. Dir skips the test when neither does, with a message that
// names the missing folder and says how to get it; Find is the same lookup
// for tools without a testing.TB. The shared folder mirrors the upstream
// layouts: sbml-test-suite/cases is the suite's cases/semantic folder,
// petab-test-suite holds the PEtab test suite's version folders (v1.0.0,
// v2.0.0), and petab-benchmark holds one folder per benchmark problem.
//
// # Vendored fixtures
//
// Testdata returns a path under <module root>/testdata, where the small
// fixtures live with their licences: AKAP79.xml and a representative
// subset of the SBML Test Suite's semantic cases (see testdata/README.md).
// SBMLCases returns the full SBML Test Suite when it is present and the
// vendored subset otherwise, so that a clone without the shared folder
// still runs the conformance tests.
package suites

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Env is the environment variable naming the folder that holds the
// external suites. When it is unset, the folder is ../shared beside the
// module root.
const Env = "PBGEN_SHARED"

// Paths of the external suites, relative to the shared folder.
const (
	SBMLTestSuite  = "sbml-test-suite/cases" // the SBML Test Suite's cases/semantic
	PEtabTestSuite = "petab-test-suite"      // the PEtab test suite (v1.0.0, v2.0.0)
	PEtabBenchmark = "petab-benchmark"       // the PEtab benchmark problems
)

// SBMLSubset is the vendored subset of the SBML Test Suite's semantic
// cases, relative to the repository's testdata folder.
const SBMLSubset = "sbml-test-suite/cases"

// origins says where each external suite comes from, by the first element
// of its relative path.
var origins = map[string]string{
	"sbml-test-suite":  "the SBML Test Suite's cases/semantic folder from https://github.com/sbmlteam/sbml-test-suite, as sbml-test-suite/cases",
	"petab-test-suite": "the version folders (v1.0.0, v2.0.0) of https://github.com/PEtab-dev/petab_test_suite, as petab-test-suite",
	"models":           "the paper's reaction-network tables (PKA/, CaMKII/) with AKAP79.xml; the repository already vendors them in internal/tables/testdata and testdata/models, so only the checks that compare the copies skip",
	"petab-benchmark":  "the problem folders of Benchmark-Models in https://github.com/Benchmarking-Initiative/Benchmark-Models-PEtab, as petab-benchmark",
}

var (
	rootOnce sync.Once
	root     string
	rootErr  error
)

// Root is the module root: the nearest folder at or above the working
// directory that holds go.mod. Tests run in their package's folder, so
// this is the repository root for every test in the module.
func Root() (string, error) {
	rootOnce.Do(func() {
		dir, err := os.Getwd()
		if err != nil {
			rootErr = fmt.Errorf("suites: %v", err)
			return
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				root = dir
				return
			}
			up := filepath.Dir(dir)
			if up == dir {
				rootErr = errors.New("suites: no go.mod at or above the working directory")
				return
			}
			dir = up
		}
	})
	return root, rootErr
}

// candidates lists where rel is looked for, in order.
func candidates(rel string) []string {
	var out []string
	if env := os.Getenv(Env); env != "" {
		out = append(out, filepath.Join(env, filepath.FromSlash(rel)))
	}
	if r, err := Root(); err == nil {
		out = append(out, filepath.Join(filepath.Dir(r), "shared", filepath.FromSlash(rel)))
	}
	return out
}

// Find returns the path of the external folder or file rel (relative to
// the shared folder), or an error naming where it was looked for and how
// to get it.
func Find(rel string) (string, error) {
	cands := candidates(rel)
	for _, p := range cands {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", &NotFoundError{Rel: rel, Tried: cands}
}

// NotFoundError reports an external folder that is in none of the places
// Find looks.
type NotFoundError struct {
	Rel   string   // the path asked for, relative to the shared folder
	Tried []string // the places looked at, in order
}

func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("%s not found (looked in %s); set %s to a folder holding it", e.Rel, strings.Join(e.Tried, ", "), Env)
	first, _, _ := strings.Cut(e.Rel, "/")
	if o, ok := origins[first]; ok {
		msg += ": " + o
	}
	return msg
}

// Dir returns the path of the external folder or file rel, or skips the
// test with a message naming what is missing and how to get it.
func Dir(t testing.TB, rel string) string {
	t.Helper()
	p, err := Find(rel)
	if err != nil {
		t.Skip(err.Error())
	}
	return p
}

// Testdata returns the path of rel under the repository's testdata
// folder, failing the test when it is absent: vendored fixtures are part
// of every checkout.
func Testdata(t testing.TB, rel string) string {
	t.Helper()
	r, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(r, "testdata", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("suites: vendored fixture missing: %v", err)
	}
	return p
}

// SBMLCases returns the folder of SBML Test Suite semantic cases to run:
// the full suite when Find locates it (full is true), otherwise the
// vendored subset, logging which one and how to get the full suite.
func SBMLCases(t testing.TB) (dir string, full bool) {
	t.Helper()
	p, err := Find(SBMLTestSuite)
	if err == nil {
		return p, true
	}
	t.Logf("running the vendored subset of the SBML Test Suite: %v", err)
	return Testdata(t, SBMLSubset), false
}
