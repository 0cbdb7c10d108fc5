// Package jsoncodec is the project's one JSON codec. Encode writes the one
// canonical layout (two-space indent, no HTML escaping, a trailing newline;
// the same value always gives the same bytes) of every JSON file the project
// writes. Decode is the one strict decoding: exactly one JSON value, no
// unknown fields, no trailing data, and errors that say what is wrong
// (empty, truncated, invalid at which byte). Every reader of a file or
// artifact this project defines (ledger, summary and points, pr.json, the
// bot's dashboard files) decodes through it; a request body through
// DecodeUnique, which also refuses a key given twice.
package jsoncodec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
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

// DecodeUnique is Decode that also refuses an object holding a key twice,
// at any depth, naming the key and where it is ("candidate.tp"): a request
// body whose meaning would depend on which of the two wins (encoding/json
// keeps the last, and matches a struct's field names without regard to
// case, so keys equal but for case count as the same).
func DecodeUnique(raw []byte, v any) error {
	if err := Decode(raw, v); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return uniqueKeys(dec, "")
}

// uniqueKeys reads the next value of dec, refusing an object that holds a
// key twice; path is where the value is ("" for the top).
func uniqueKeys(dec *json.Decoder, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k, _ := kt.(string)
			at := k
			if path != "" {
				at = path + "." + k
			}
			if fold := strings.ToLower(k); seen[fold] {
				return fmt.Errorf("%s: the key is given twice (keys equal but for case count as one)", at)
			} else {
				seen[fold] = true
			}
			if err := uniqueKeys(dec, at); err != nil {
				return err
			}
		}
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := uniqueKeys(dec, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	default:
		return nil
	}
	_, err = dec.Token() // the closing delimiter
	return err
}
