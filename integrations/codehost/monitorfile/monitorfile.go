package monitorfile

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Path is where a repository keeps its configuration file.
const Path = ".monitor.yml"

// Version is the one schema version of Path.
const Version = "1.0"

// maxSize bounds the configuration file read.
const maxSize = 256 << 10

// Frameworks a model of the configuration file may name.
var Frameworks = []string{"sklearn", "pytorch", "tensorflow", "huggingface"}

// File is a repository's .monitor.yml.
type File struct {
	Version  string `yaml:"version"`
	Codehost struct {
		AutoRegister  *bool    `yaml:"auto_register"`
		TrackBranches []string `yaml:"track_branches"`
		TrackTags     *bool    `yaml:"track_tags"`
		TrackReleases *bool    `yaml:"track_releases"`
	} `yaml:"github"`
	Models     []Model        `yaml:"models"`
	Monitoring map[string]any `yaml:"monitoring"`
	Alerts     map[string]any `yaml:"alerts"`
}

// Model is one model of File.
type Model struct {
	// Path is a glob of the model's files.
	Path string `yaml:"path"`
	// Name is the registered model's name; the file's base name without
	// its extension when empty.
	Name             string   `yaml:"name"`
	Framework        string   `yaml:"framework"`
	ModelType        string   `yaml:"model_type"`
	Features         []string `yaml:"features"`
	TargetVariable   string   `yaml:"target_variable"`
	AutoBaseline     bool     `yaml:"auto_baseline"`
	BaselineDataPath string   `yaml:"baseline_data_path"`
	Tags             []string `yaml:"tags"`
}

// Parse reads and validates a configuration file: version 1.0
// and models whose items carry path and framework at least. It never
// panics; every problem found is returned, none means valid.
func Parse(b []byte) (File, []string) {
	var f File
	if len(b) > maxSize {
		return f, []string{fmt.Sprintf("the file is larger than %d bytes", maxSize)}
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&f); err != nil {
		return File{}, []string{"not valid YAML of the expected shape: " + err.Error()}
	}
	var problems []string
	if f.Version != Version {
		problems = append(problems, fmt.Sprintf("version must be %q, got %q", Version, f.Version))
	}
	if len(f.Models) == 0 {
		problems = append(problems, "models must list at least one model")
	}
	for i, m := range f.Models {
		at := fmt.Sprintf("models[%d]", i)
		if m.Path == "" {
			problems = append(problems, at+".path is required")
		} else if !validGlob(m.Path) {
			problems = append(problems, at+".path is not a valid glob")
		}
		if m.Framework == "" {
			problems = append(problems, at+".framework is required")
		} else if !slices.Contains(Frameworks, m.Framework) {
			problems = append(problems, at+".framework must be one of "+strings.Join(Frameworks, ", "))
		}
	}
	return f, problems
}

// validGlob reports whether p is a glob Match accepts.
func validGlob(p string) bool {
	_, err := path.Match(strings.ReplaceAll(p, "**/", ""), "")
	return err == nil
}

// Match reports whether the slash-separated file name matches the glob
// pattern: * and ? within one folder, [..] classes, and **/ standing for
// any number of folders, none included. A leading / is ignored.
func Match(pattern, name string) bool {
	pattern, name = strings.TrimPrefix(pattern, "/"), strings.TrimPrefix(name, "/")
	return matchParts(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchParts(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if matchParts(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}
