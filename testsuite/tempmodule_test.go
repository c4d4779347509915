package testsuite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pbgen/pbgen/interp"
	"github.com/pbgen/pbgen/runtime/model"
)

// interpModel lowers the SBML file at path with its events into an
// interpreted model and returns it with its default parameters and
// initial state.
func interpModel(t *testing.T, path string) (m *interp.Model, p, x0 []float64) {
	t.Helper()
	sys, err := Lower(path)
	if err != nil {
		t.Fatal(err)
	}
	if m, err = interp.NewWithEvents(sys); err != nil {
		t.Fatal(err)
	}
	p = make([]float64, model.NumParams(m))
	m.DefaultParams(p)
	x0 = make([]float64, model.NumStates(m))
	m.InitialState(x0, p)
	return m, p, x0
}

// tempModule makes a temporary Go module called name that requires this
// repository through a replace directive (with its go.sum), for the
// tests that build generated packages and run a driver there; write adds
// a file to it (path relative to the module, folders made as needed).
func tempModule(t *testing.T, name string) (dir string, write func(path string, data []byte)) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	write = func(path string, data []byte) {
		t.Helper()
		p := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", []byte("module "+name+"\n\ngo 1.24\n\nrequire github.com/pbgen/pbgen v0.0.0\n\nreplace github.com/pbgen/pbgen => "+root+"\n"))
	if sum, err := os.ReadFile(filepath.Join(root, "go.sum")); err == nil {
		write("go.sum", sum)
	}
	return dir, write
}
