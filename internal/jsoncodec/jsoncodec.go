// Package jsoncodec is the project's one JSON codec. Encode writes the one
// canonical layout (two-space indent, no HTML escaping, a trailing newline;
// the same value always gives the same bytes) of every JSON file the project
// writes. Decode is the one strict decoding: exactly one JSON value, no
// unknown fields, no trailing data, and errors that say what is wrong
// (empty, truncated, invalid at which byte). Every reader of a file or
// artifact this project defines (ledger, summary and points, pr.json, the
// bot's dashboard files) decodes through it.
package jsoncodec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Encode renders v in the canonical layout.
func Encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Decode decodes raw, which must hold exactly one JSON value, into v,
// refusing fields v does not have.
func Decode(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, err)
		case errors.Is(err, io.EOF):
			return errors.New("empty file")
		case errors.Is(err, io.ErrUnexpectedEOF):
			return errors.New("truncated JSON")
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}
