package petab

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// files is the problem description (the YAML file) in one shape for both
// format versions, paths relative to the YAML file's folder.
type files struct {
	version      int // 1 or 2
	sbml         string
	parameters   []string
	conditions   []string
	observables  []string
	measurements []string
	experiments  []string // v2
	mappings     []string // v2
}

// yamlV1 is the v1 schema (petab_schema_v1.yaml).
type yamlV1 struct {
	FormatVersion any        `yaml:"format_version"`
	ParameterFile stringList `yaml:"parameter_file"`
	Problems      []struct {
		SBMLFiles          stringList `yaml:"sbml_files"`
		ConditionFiles     stringList `yaml:"condition_files"`
		MeasurementFiles   stringList `yaml:"measurement_files"`
		ObservableFiles    stringList `yaml:"observable_files"`
		VisualizationFiles stringList `yaml:"visualization_files"`
	} `yaml:"problems"`
}

// yamlV2 is the v2 schema (petab_schema_v2.yaml).
type yamlV2 struct {
	FormatVersion  any        `yaml:"format_version"`
	ID             string     `yaml:"id"`
	ParameterFiles stringList `yaml:"parameter_files"`
	ModelFiles     map[string]struct {
		Location string `yaml:"location"`
		Language string `yaml:"language"`
	} `yaml:"model_files"`
	MeasurementFiles stringList `yaml:"measurement_files"`
	ConditionFiles   stringList `yaml:"condition_files"`
	ExperimentFiles  stringList `yaml:"experiment_files"`
	ObservableFiles  stringList `yaml:"observable_files"`
	MappingFiles     stringList `yaml:"mapping_files"`
	Extensions       map[string]struct {
		Version  string `yaml:"version"`
		Required bool   `yaml:"required"`
	} `yaml:"extensions"`
}

// stringList accepts a string or a list of strings (v1's parameter_file is
// either), and an empty value (a key with nothing after it) as no files.
type stringList []string

func (s *stringList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			*s = nil
			return nil
		}
		*s = stringList{n.Value}
		return nil
	case yaml.SequenceNode:
		var l []string
		if err := n.Decode(&l); err != nil {
			return err
		}
		*s = l
		return nil
	}
	return fmt.Errorf("line %d: want a file name or a list of file names", n.Line)
}

// MaxYAMLBytes bounds the problem description.
const MaxYAMLBytes = 1 << 20

// readYAML reads and checks the problem description.
func readYAML(path string, e *errs) *files {
	data, err := readFile(path)
	if err != nil {
		e.add(path, 0, "", "%v", err)
		return nil
	}
	if len(data) > MaxYAMLBytes {
		e.add(path, 0, "", "larger than %d bytes", MaxYAMLBytes)
		return nil
	}
	return parseYAML(path, data, e)
}

// parseYAML is readYAML on bytes (the fuzz target's entry). Unknown keys
// are errors: a misspelt key (condition_file) would otherwise silently drop
// a table.
func parseYAML(path string, data []byte, e *errs) *files {
	var probe struct {
		FormatVersion any `yaml:"format_version"`
	}
	if err := yaml.Unmarshal(data, &probe); err != nil {
		e.add(path, 0, "", "not a PEtab problem description: %v", err)
		return nil
	}
	v := fmt.Sprint(probe.FormatVersion)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	f := &files{}
	dir := filepath.Dir(path)
	rel := func(l []string) []string {
		out := make([]string, len(l))
		for i, p := range l {
			if filepath.IsAbs(p) {
				out[i] = p
			} else {
				out[i] = filepath.Join(dir, p)
			}
		}
		return out
	}
	bad := func(err error) *files {
		e.add(path, 0, "", "not a PEtab v%s problem description: %v", v, err)
		return nil
	}
	switch {
	case v == "1" || v == "1.0.0":
		var y yamlV1
		if err := dec.Decode(&y); err != nil {
			return bad(err)
		}
		f.version = 1
		if len(y.Problems) != 1 {
			e.add(path, 0, "", "problems: want exactly one problem, found %d", len(y.Problems))
			return nil
		}
		p := y.Problems[0]
		if len(p.SBMLFiles) != 1 {
			e.add(path, 0, "", "sbml_files: want exactly one SBML file, found %d", len(p.SBMLFiles))
			return nil
		}
		f.sbml = rel(p.SBMLFiles)[0]
		f.parameters = rel(y.ParameterFile)
		f.conditions = rel(p.ConditionFiles)
		f.observables = rel(p.ObservableFiles)
		f.measurements = rel(p.MeasurementFiles)
	case strings.HasPrefix(v, "2"):
		var y yamlV2
		if err := dec.Decode(&y); err != nil {
			return bad(err)
		}
		f.version = 2
		if len(y.ModelFiles) != 1 {
			e.add(path, 0, "", "model_files: want exactly one model, found %d", len(y.ModelFiles))
			return nil
		}
		for id, m := range y.ModelFiles {
			if !strings.EqualFold(m.Language, "sbml") {
				e.add(path, 0, "", "model_files: model %q: language %q is not supported (only sbml)", id, m.Language)
				return nil
			}
			if m.Location == "" {
				e.add(path, 0, "", "model_files: model %q has no location", id)
				return nil
			}
			f.sbml = rel([]string{m.Location})[0]
		}
		for name, x := range y.Extensions {
			if x.Required {
				e.add(path, 0, "", "extensions: required extension %q is not supported", name)
			}
		}
		f.parameters = rel(y.ParameterFiles)
		f.conditions = rel(y.ConditionFiles)
		f.observables = rel(y.ObservableFiles)
		f.measurements = rel(y.MeasurementFiles)
		f.experiments = rel(y.ExperimentFiles)
		f.mappings = rel(y.MappingFiles)
	case probe.FormatVersion == nil:
		e.add(path, 0, "", "format_version is missing")
		return nil
	default:
		e.add(path, 0, "", "format_version %s is not supported (1 or 2.0.0)", v)
		return nil
	}
	for _, req := range []struct {
		name string
		l    []string
	}{{"parameter file", f.parameters}, {"observable file", f.observables}, {"measurement file", f.measurements}} {
		if len(req.l) == 0 {
			e.add(path, 0, "", "no %s is listed", req.name)
		}
	}
	if f.version == 1 && len(f.conditions) == 0 {
		e.add(path, 0, "", "no condition file is listed")
	}
	return f
}
