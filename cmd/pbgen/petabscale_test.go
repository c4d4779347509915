package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pbgen/pbgen/internal/scalepetab"
)

// pbgen petab and petab -grad run end to end on a synthetic scalenet
// problem (internal/scalepetab, the stand-in for the large published
// problems of issue #24), -cpuprofile writes a profile, and the llh of
// both runs agree.
func TestPEtabScalenet(t *testing.T) {
	dir := t.TempDir()
	path, err := scalepetab.Write(dir, &scalepetab.Options{N: 48, Preeq: true, Times: []float64{1, 10}})
	if err != nil {
		t.Fatal(err)
	}
	llh := func(out string) float64 {
		for _, l := range strings.Split(out, "\n") {
			if v, ok := strings.CutPrefix(l, "llh: "); ok {
				x, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatal(err)
				}
				return x
			}
		}
		t.Fatalf("no llh in %q", out)
		return 0
	}
	var out, errb bytes.Buffer
	if code := run([]string{"petab", path}, &out, &errb); code != 0 {
		t.Fatalf("pbgen petab: exit %d: %s", code, errb.String())
	}
	l0 := llh(out.String())
	prof := filepath.Join(dir, "cpu.prof")
	out.Reset()
	if code := run([]string{"petab", "-grad", "-cpuprofile", prof, path}, &out, &errb); code != 0 {
		t.Fatalf("pbgen petab -grad: exit %d: %s", code, errb.String())
	}
	// The state alone and with FS take different steps: the same llh to
	// the tolerances (1e-6 relative on the states).
	if l1 := llh(out.String()); math.Abs(l1-l0) > 1e-4*math.Abs(l0) {
		t.Errorf("llh %v with -grad, %v without", l1, l0)
	}
	// 8 kon, 8 even kcat, koff, krev, 8 scales and 8 sigmas.
	if n := strings.Count(out.String(), "\n  "); n != 34 {
		t.Errorf("%d gradient lines, want 34:\n%s", n, out.String())
	}
	if st, err := os.Stat(prof); err != nil || st.Size() == 0 {
		t.Errorf("-cpuprofile: %v (size %v)", err, st)
	}
}
