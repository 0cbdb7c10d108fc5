package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/inference-sim/accuracy-dashboard/schemas"
)

// Schema file names inside package schemas.
const (
	SummarySchemaFile = "summary.v1.json"
	PointsSchemaFile  = "points.v1.json"
)

var compiled struct {
	once    sync.Once
	summary *jsonschema.Schema
	points  *jsonschema.Schema
	err     error
}

func loadSchemas() (*jsonschema.Schema, *jsonschema.Schema, error) {
	compiled.once.Do(func() {
		c := jsonschema.NewCompiler()
		ids := map[string]string{}
		for _, name := range []string{SummarySchemaFile, PointsSchemaFile} {
			raw, err := fs.ReadFile(schemas.FS, name)
			if err != nil {
				compiled.err = err
				return
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err != nil {
				compiled.err = fmt.Errorf("schema %s: %w", name, err)
				return
			}
			id := "mem:///" + name
			if err := c.AddResource(id, doc); err != nil {
				compiled.err = fmt.Errorf("schema %s: %w", name, err)
				return
			}
			ids[name] = id
		}
		compiled.summary, compiled.err = c.Compile(ids[SummarySchemaFile])
		if compiled.err == nil {
			compiled.points, compiled.err = c.Compile(ids[PointsSchemaFile])
		}
	})
	return compiled.summary, compiled.points, compiled.err
}

// ParseSummary checks raw summary.json bytes against schemas/summary.v1.json,
// decodes them strictly and checks that the coverage balances: the one way
// to read a summary that came from elsewhere (a file, an artifact).
func ParseSummary(raw []byte) (Summary, error) {
	sum, _, err := loadSchemas()
	if err != nil {
		return Summary{}, err
	}
	if err := validate(sum, raw); err != nil {
		return Summary{}, fmt.Errorf("summary.json: %w", err)
	}
	var s Summary
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Summary{}, fmt.Errorf("summary.json: %w", err)
	}
	if !s.Coverage.Balanced() {
		c := s.Coverage
		return Summary{}, fmt.Errorf("summary.json: coverage does not balance: scored %d + not scored %d != corpus points %d", c.Scored, c.NotScored, c.CorpusPoints)
	}
	return s, nil
}

// ValidateSummary is ParseSummary without the result.
func ValidateSummary(raw []byte) error {
	_, err := ParseSummary(raw)
	return err
}

// ParsePoints checks raw points.json bytes against schemas/points.v1.json and
// decodes them strictly.
func ParsePoints(raw []byte) ([]Point, error) {
	_, pts, err := loadSchemas()
	if err != nil {
		return nil, err
	}
	if err := validate(pts, raw); err != nil {
		return nil, fmt.Errorf("points.json: %w", err)
	}
	var p []Point
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("points.json: %w", err)
	}
	return p, nil
}

// ValidatePoints is ParsePoints without the result.
func ValidatePoints(raw []byte) error {
	_, err := ParsePoints(raw)
	return err
}

func validate(s *jsonschema.Schema, raw []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := s.Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return fmt.Errorf("does not match its schema: %s", ve.Error())
		}
		return err
	}
	return nil
}
