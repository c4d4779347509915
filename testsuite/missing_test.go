package testsuite

import (
	"testing"

	"github.com/pbgen/pbgen/parser"
)

// A comp case whose external model file is absent from the suite's copy is
// skipped (it cannot run), but any other error still fails the case.
func TestMissingExternalIsSkipped(t *testing.T) {
	missing := &parser.Error{Element: "comp:externalModelDefinition", ID: "Ext", Msg: "open x.xml: no such file or directory"}
	other := &parser.Error{Element: "comp:externalModelDefinition", ID: "Ext", Msg: "x.xml has no <model>"}
	refused := &parser.Error{Element: "delay", Msg: "csymbol delay is not supported"}
	for _, c := range []struct {
		l    parser.ErrorList
		want bool
	}{
		{parser.ErrorList{missing}, true},
		{parser.ErrorList{missing, refused}, true},
		{parser.ErrorList{other}, false},
		{parser.ErrorList{missing, other}, false},
	} {
		if got := unsupported(c.l); got != c.want {
			t.Errorf("%v: skipped %v, want %v", c.l, got, c.want)
		}
	}
}
