// Package whatif is the what-if experiments of the accuracy harness: a
// what-if is a named, versioned change to one input of the simulation (a
// JSON merge patch on one catalog model's config.json, a field of one GPU's
// hardware configuration, or a simulator flag with its value), declared in
// a file of the repository (corpus/whatif/<name>.yaml) with the units it
// applies to and the simulator limitation it stands in for. It parses and
// checks the declarations strictly (Parse, Load), applies a merge patch
// (ApplyMergePatch) and digests a declaration; scoring a what-if is the
// harness's. Pure: no simulator, no rendering.
package whatif

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/inference-sim/accuracy-dashboard/corpus"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
)

// SchemaVersion is the version of the declaration format this package reads.
const SchemaVersion = 1

// MaxFileBytes caps one declaration file.
const MaxFileBytes = 64 << 10

// All is the --what-if argument that selects every declared what-if.
const All = "all"

// The kinds of change (Change.Kind).
const (
	KindModelConfig   = "model_config"
	KindHardware      = "hardware"
	KindSimulatorFlag = "simulator_flag"
)

// Spec is one what-if, as declared.
type Spec struct {
	SchemaVersion int `yaml:"schema_version" json:"schema_version"`
	// Name is the what-if's name, also its file's (<name>.yaml): lowercase
	// letters, digits, '.', '-'.
	Name string `yaml:"name" json:"name"`
	// Version counts the declaration's changes (from 1): a new patch is a
	// new version.
	Version int `yaml:"version" json:"version"`
	// Title says in a few words what the change is ("gpt-oss-120b at
	// 4-bit weights"): the Why section's row.
	Title string `yaml:"title" json:"title"`
	// Limitation is one line saying which simulator limitation the change
	// stands in for.
	Limitation string `yaml:"limitation" json:"limitation"`
	// Units are the unit selectors (ids, globs or id prefixes, as
	// --units takes them) of the points the change applies to.
	Units []string `yaml:"units" json:"units"`
	// Change is the one input changed.
	Change Change `yaml:"change" json:"change"`
}

// Change is exactly one change to one input of the simulation.
type Change struct {
	// ModelConfig merges a patch into one catalog model's config.json.
	ModelConfig *ModelConfig `yaml:"model_config,omitempty" json:"model_config,omitempty"`
	// Hardware sets one field of one GPU's entry in the hardware
	// configuration handed to the simulator (--hardware-config).
	Hardware *Hardware `yaml:"hardware,omitempty" json:"hardware,omitempty"`
	// SimulatorFlag adds a flag and its value to every simulator command.
	SimulatorFlag *SimulatorFlag `yaml:"simulator_flag,omitempty" json:"simulator_flag,omitempty"`
}

// ModelConfig is a JSON merge patch (RFC 7396) on the config.json of one
// model of the catalog (models/<model>/config.json).
type ModelConfig struct {
	// Model is the catalog's folder name (e.g. gpt-oss-120b).
	Model string `yaml:"model" json:"model"`
	// MergePatch is the patch, a JSON object, as written.
	MergePatch string `yaml:"merge_patch" json:"merge_patch"`
}

// Hardware is one field of one GPU's hardware configuration entry.
type Hardware struct {
	GPU   string  `yaml:"gpu" json:"gpu"`
	Field string  `yaml:"field" json:"field"`
	Value float64 `yaml:"value" json:"value"`
}

// SimulatorFlag is a long flag of the simulator's replay and run commands
// and the value it is given.
type SimulatorFlag struct {
	Flag  string `yaml:"flag" json:"flag"`
	Value string `yaml:"value" json:"value"`
}

var (
	nameRe  = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{0,99}$`)
	fieldRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)
	flagRe  = regexp.MustCompile(`^--[a-z0-9][a-z0-9-]{0,63}$`)
)

// Parse decodes one declaration strictly (one YAML document, no unknown
// field, no anchors) and checks it: the schema version, a name, a version
// from 1, a title, a limitation of one line, at least one unit selector and
// exactly one change, itself complete (a merge patch that is a JSON object;
// a GPU, a field name and a positive value; a long flag). Errors name the
// file (name) and what is wrong.
func Parse(raw []byte, name string) (Spec, error) {
	var s Spec
	if len(raw) > MaxFileBytes {
		return s, fmt.Errorf("what-if %s: %d bytes, over the %d-byte cap", name, len(raw), MaxFileBytes)
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("what-if %s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return s, fmt.Errorf("what-if %s: more than one YAML document", name)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err == nil && hasAlias(&doc) {
		return s, fmt.Errorf("what-if %s: anchors and aliases are not allowed: write each value out", name)
	}
	if err := s.check(); err != nil {
		return s, fmt.Errorf("what-if %s: %w", name, err)
	}
	return s, nil
}

func hasAlias(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return true
	}
	return slices.ContainsFunc(n.Content, hasAlias)
}

func (s *Spec) check() error {
	var errs []error
	if s.SchemaVersion != SchemaVersion {
		errs = append(errs, fmt.Errorf("schema_version %d: want %d", s.SchemaVersion, SchemaVersion))
	}
	if !nameRe.MatchString(s.Name) {
		errs = append(errs, fmt.Errorf("name %q: want lowercase letters, digits, '.' and '-' (at most 100, starting with a letter or digit)", s.Name))
	}
	if s.Version < 1 {
		errs = append(errs, fmt.Errorf("version %d: want 1 or more", s.Version))
	}
	if strings.TrimSpace(s.Title) == "" || strings.ContainsAny(s.Title, "\n\r") {
		errs = append(errs, errors.New("title: want a few words on one line"))
	}
	if strings.TrimSpace(s.Limitation) == "" || strings.ContainsAny(s.Limitation, "\n\r") {
		errs = append(errs, errors.New("limitation: want one line saying which simulator limitation the change stands in for"))
	}
	if len(s.Units) == 0 {
		errs = append(errs, errors.New("units: want at least one unit selector"))
	}
	for _, u := range s.Units {
		if strings.TrimSpace(u) == "" || strings.Contains(u, ",") {
			errs = append(errs, fmt.Errorf("units: %q is not a unit selector", u))
		} else if _, err := path.Match(u, ""); err != nil {
			errs = append(errs, fmt.Errorf("units: %q: %w", u, err))
		}
	}
	errs = append(errs, s.Change.check())
	return errors.Join(errs...)
}

func (c Change) check() error {
	n := 0
	var err error
	if m := c.ModelConfig; m != nil {
		n++
		switch {
		case !nameRe.MatchString(m.Model):
			err = fmt.Errorf("change.model_config.model %q: want a catalog model's folder name", m.Model)
		default:
			p, derr := decodeOne([]byte(m.MergePatch))
			if derr != nil {
				err = fmt.Errorf("change.model_config.merge_patch: not one JSON value: %w", derr)
			} else if _, ok := p.(map[string]any); !ok {
				err = errors.New("change.model_config.merge_patch: want a JSON object (any other patch replaces the whole config)")
			}
		}
	}
	if h := c.Hardware; h != nil {
		n++
		switch {
		case strings.TrimSpace(h.GPU) == "":
			err = errors.New("change.hardware.gpu: want the GPU's name as --hardware takes it")
		case !fieldRe.MatchString(h.Field):
			err = fmt.Errorf("change.hardware.field %q: want a field name of the GPU's entry (e.g. BwPeakTBs)", h.Field)
		case !(h.Value > 0):
			err = fmt.Errorf("change.hardware.value %v: want a positive number", h.Value)
		}
	}
	if f := c.SimulatorFlag; f != nil {
		n++
		switch {
		case !flagRe.MatchString(f.Flag):
			err = fmt.Errorf("change.simulator_flag.flag %q: want a long flag (e.g. --long-prefill-token-threshold)", f.Flag)
		case strings.ContainsAny(f.Value, "\x00\n\r"):
			err = errors.New("change.simulator_flag.value: want one line")
		}
	}
	if n != 1 {
		return fmt.Errorf("change: want exactly one of model_config, hardware, simulator_flag (got %d)", n)
	}
	return err
}

// Kind is which input the change touches (KindModelConfig, KindHardware,
// KindSimulatorFlag).
func (c Change) Kind() string {
	switch {
	case c.ModelConfig != nil:
		return KindModelConfig
	case c.Hardware != nil:
		return KindHardware
	case c.SimulatorFlag != nil:
		return KindSimulatorFlag
	}
	return ""
}

// String says the change in one line: "gpt-oss-120b config.json merge
// patch {...}", "H100 BwPeakTBs = 3", "--flag value".
func (c Change) String() string {
	switch {
	case c.ModelConfig != nil:
		return fmt.Sprintf("models/%s/config.json merge patch %s", c.ModelConfig.Model, compactJSON(c.ModelConfig.MergePatch))
	case c.Hardware != nil:
		return fmt.Sprintf("hardware %s %s = %v", c.Hardware.GPU, c.Hardware.Field, c.Hardware.Value)
	case c.SimulatorFlag != nil:
		return fmt.Sprintf("simulator flag %s %s", c.SimulatorFlag.Flag, c.SimulatorFlag.Value)
	}
	return ""
}

func compactJSON(s string) string {
	v, err := decodeOne([]byte(s))
	if err != nil {
		return s
	}
	b, err := jsoncodec.Encode(v)
	if err != nil {
		return s
	}
	var out bytes.Buffer
	if err := compact(&out, b); err != nil {
		return s
	}
	return out.String()
}

// Digest is the content digest of the declaration (sha256 over its
// canonical JSON encoding): it changes with the patch, the units, the
// version or any other field.
func (s Spec) Digest() string {
	b, err := jsoncodec.Encode(s)
	if err != nil {
		panic("whatif: encode a spec: " + err.Error()) // plain strings and numbers always encode
	}
	sum := sha256.Sum256(b)
	return ident.Digest(sum[:])
}

// Load reads every declaration of fsys (the files <name>.yaml at its root;
// anything else there is an error) and returns them sorted by name. A file
// whose name is not its what-if's is an error naming it.
func Load(fsys fs.FS) ([]Spec, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("what-ifs: %w", err)
	}
	var out []Spec
	for _, e := range entries {
		name := e.Name()
		if name == "README.md" {
			continue
		}
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".yaml") {
			return nil, fmt.Errorf("what-ifs: %s: want only <name>.yaml files", name)
		}
		raw, err := readCapped(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("what-ifs: %w", err)
		}
		s, err := Parse(raw, name)
		if err != nil {
			return nil, err
		}
		if s.Name+".yaml" != name {
			return nil, fmt.Errorf("what-if %s: name %q: the file must be named %s.yaml", name, s.Name, s.Name)
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Spec) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func readCapped(fsys fs.FS, name string) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if st.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%s: %d bytes, over the %d-byte cap", name, st.Size(), MaxFileBytes)
	}
	return fs.ReadFile(fsys, name)
}

// Select returns the declared what-ifs an argument names: All for every
// one, else names separated by commas, each declared. An unknown name is
// an error listing the declared ones.
func Select(specs []Spec, arg string) ([]Spec, error) {
	if arg == All {
		if len(specs) == 0 {
			return nil, errors.New("--what-if all: no what-if is declared")
		}
		return specs, nil
	}
	var out []Spec
	for _, n := range strings.Split(arg, ",") {
		n = strings.TrimSpace(n)
		k := slices.IndexFunc(specs, func(s Spec) bool { return s.Name == n })
		if k < 0 {
			var names []string
			for _, s := range specs {
				names = append(names, s.Name)
			}
			return nil, fmt.Errorf("--what-if %q: no such what-if (declared: %s)", n, strings.Join(names, ", "))
		}
		if !slices.ContainsFunc(out, func(s Spec) bool { return s.Name == n }) {
			out = append(out, specs[k])
		}
	}
	return out, nil
}

// Declared returns the what-ifs arg names (Select) among those declared in
// corpus/whatif/, embedded in the binary (corpus.WhatIf).
func Declared(arg string) ([]Spec, error) {
	specs, err := Load(corpus.WhatIf())
	if err != nil {
		return nil, err
	}
	return Select(specs, arg)
}
