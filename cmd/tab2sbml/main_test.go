package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pbgen/pbgen/internal/tables"
)

const chua = "../../internal/tables/testdata/Chua"

func TestRunMatchesCommittedChua(t *testing.T) {
	var stdout bytes.Buffer
	if err := run(&stdout, "", chua, &tables.SBMLOptions{RateRules: true}); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../networks/Chua.xml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stdout.Bytes(), want) {
		t.Error("tab2sbml -raterules output differs from networks/Chua.xml")
	}
}

func TestRunWritesOnlyOnChange(t *testing.T) {
	out := filepath.Join(t.TempDir(), "Chua.xml")
	opt := &tables.SBMLOptions{RateRules: true}
	if err := run(nil, out, chua, opt); err != nil {
		t.Fatal(err)
	}
	old := time.Unix(1, 0)
	if err := os.Chtimes(out, old, old); err != nil {
		t.Fatal(err)
	}
	if err := run(nil, out, chua, opt); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if !st.ModTime().Equal(old) {
		t.Error("an unchanged conversion rewrote the file")
	}
	if err := run(nil, out, chua, &tables.SBMLOptions{}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(out)
	if !bytes.Contains(data, []byte("<listOfReactions>")) {
		t.Error("a changed conversion did not rewrite the file")
	}
}

func TestRunErrors(t *testing.T) {
	err := run(nil, "", "no/such/folder", nil)
	if err == nil || !strings.Contains(err.Error(), "State.tsv") {
		t.Errorf("missing folder: %v", err)
	}
	err = run(nil, "", chua, &tables.SBMLOptions{ID: "x1"})
	if err == nil || !strings.Contains(err.Error(), "x1") {
		t.Errorf("clashing id: %v", err)
	}
}
