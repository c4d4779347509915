package tables

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pbgen/pbgen/internal/suites"
)

// TestVendoredTables checks that the vendored PKA and CaMKII tables are
// identical to the reference copy in the shared folder, when it is present.
func TestVendoredTables(t *testing.T) {
	shared := suites.Dir(t, "models")
	for _, name := range []string{"PKA", "CaMKII"} {
		files, err := os.ReadDir(filepath.Join(shared, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			want, err := os.ReadFile(filepath.Join(shared, name, f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join("testdata", name, f.Name()))
			if err != nil {
				t.Errorf("%s/%s not vendored: %v", name, f.Name(), err)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("testdata/%s/%s differs from %s", name, f.Name(), filepath.Join(shared, name, f.Name()))
			}
		}
	}
}
