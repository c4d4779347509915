package testsuite

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/pbgen/pbgen/internal/suites"
)

// TestVendoredSubset checks the vendored subset of the SBML Test Suite
// against the full suite, when that is present: every vendored file is
// identical to the suite's, every tag of the core cases occurs in at least
// three vendored core cases, and every refused construct has a vendored
// case (testdata/sbml-test-suite/README.md states this cover).
func TestVendoredSubset(t *testing.T) {
	full := suites.Dir(t, suites.SBMLTestSuite)
	sub := suites.Testdata(t, suites.SBMLSubset)
	subCases, err := Discover(sub)
	if err != nil {
		t.Fatal(err)
	}
	if len(subCases) == 0 {
		t.Fatalf("no cases in %s", sub)
	}
	for _, c := range subCases {
		files, err := os.ReadDir(c.Dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			got, err := os.ReadFile(filepath.Join(c.Dir, f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(full, c.ID, f.Name()))
			if err != nil {
				t.Errorf("vendored %s/%s is not in the full suite: %v", c.ID, f.Name(), err)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("vendored %s/%s differs from the full suite's", c.ID, f.Name())
			}
		}
	}

	fullCases, err := Discover(full)
	if err != nil {
		t.Fatal(err)
	}
	count := func(cases []*Case, core bool) map[string]int {
		n := map[string]int{}
		for _, c := range cases {
			if c.Core() == core && c.TestType == "TimeCourse" {
				for _, tag := range c.Tags {
					n[tag]++
				}
			}
		}
		return n
	}
	fullCore, subCore, subOther := count(fullCases, true), count(subCases, true), count(subCases, false)
	var missing []string
	for tag := range fullCore {
		if subCore[tag] < 3 && subCore[tag] < fullCore[tag] {
			missing = append(missing, tag)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("core tags in fewer than three vendored core cases: %v", missing)
	}
	for _, tag := range excludedTags {
		if subOther[tag] == 0 {
			t.Errorf("no vendored case with the refused tag %s", tag)
		}
	}
	t.Logf("%d vendored cases cover the %d tags of the full suite's core cases", len(subCases), len(fullCore))
}
