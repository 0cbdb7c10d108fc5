package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// maxErrorsPerFile caps how many row errors one file contributes, so a file
// of a wrong format does not bury the message under thousands of lines.
const maxErrorsPerFile = 10

// decodeArray splits a JSON array into its raw elements. Anything else (an
// empty file, another JSON value, truncated or invalid JSON, trailing data)
// is an error saying what is wrong; the caller adds the file name.
func decodeArray(data []byte) ([]json.RawMessage, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("empty file (want a JSON array of rows)")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonError(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("not a JSON array of rows (starts with %s)", tokenKind(tok))
	}
	var rows []json.RawMessage
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("row %d: %w", len(rows), jsonError(err))
		}
		rows = append(rows, raw)
	}
	if _, err := dec.Token(); err != nil { // the closing ']'
		return nil, jsonError(err)
	}
	if err := expectEOF(dec); err != nil {
		return nil, err
	}
	return rows, nil
}

// expectEOF fails when the decoder has anything but white space left.
func expectEOF(dec *json.Decoder) error {
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// jsonError rewrites encoding/json's errors into short, plain messages
// that name the field and say what was wanted, without Go's type names.
func jsonError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("invalid JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("truncated JSON")
	case errors.As(err, &te):
		field := strings.TrimPrefix(te.Field, ".")
		if field == "" {
			return fmt.Errorf("a JSON %s where %s belongs", te.Value, kindName(te.Type))
		}
		return fmt.Errorf("field %s: a JSON %s where %s belongs", field, te.Value, kindName(te.Type))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	return err
}

// kindName says what a Go type holds in JSON terms ("an integer").
func kindName(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	default:
		return "an object"
	}
}

func tokenKind(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return "an object"
		}
		return string(t)
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", tok)
}

// object is one decoded JSON object whose fields are read one at a time with
// their types checked. Errors name the field; the caller names file and row.
type object struct {
	fields map[string]json.RawMessage
	errs   []error
	bad    map[string]bool // fields with a reported problem
}

// decodeObject reads raw as a JSON object, refusing duplicated keys.
func decodeObject(raw json.RawMessage) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonError(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object (got %s)", tokenKind(tok))
	}
	o := &object{fields: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonError(err)
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("field %q: %w", key, jsonError(err))
		}
		if _, dup := o.fields[key]; dup {
			return nil, fmt.Errorf("field %q appears twice", key)
		}
		o.fields[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, jsonError(err)
	}
	if err := expectEOF(dec); err != nil {
		return nil, err
	}
	return o, nil
}

func (o *object) failf(key, format string, args ...any) {
	o.errs = append(o.errs, fmt.Errorf("field %q: %s", key, fmt.Sprintf(format, args...)))
	if o.bad == nil {
		o.bad = map[string]bool{}
	}
	o.bad[key] = true
}

// ok reports whether key is present, not null, and had no problem.
func (o *object) ok(key string) bool { return o.raw(key) != nil && !o.bad[key] }

// err returns every problem met so far.
func (o *object) err() error { return errors.Join(o.errs...) }

// unknownFields returns the fields not in known, in name order, each with
// prefix: the caller counts and ignores them (a newer producer's additions).
func (o *object) unknownFields(known map[string]bool, prefix string) []string {
	var unknown []string
	for k := range o.fields {
		if !known[k] {
			unknown = append(unknown, prefix+k)
		}
	}
	sort.Strings(unknown)
	return unknown
}

// raw returns the field's bytes, or nil when it is absent or null.
func (o *object) raw(key string) json.RawMessage {
	v, ok := o.fields[key]
	if !ok || string(v) == "null" {
		return nil
	}
	return v
}

func kindOf(v json.RawMessage) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func (o *object) missing(key string, want string) {
	if _, ok := o.fields[key]; ok {
		o.failf(key, "null where %s belongs", want)
		return
	}
	o.failf(key, "missing (want %s)", want)
}

// str reads an optional string; absent or null gives ("", false).
func (o *object) str(key string) (string, bool) {
	v := o.raw(key)
	if v == nil {
		return "", false
	}
	var s string
	if v[0] != '"' || json.Unmarshal(v, &s) != nil {
		o.failf(key, "%s where a string belongs", kindOf(v))
		return "", false
	}
	return s, true
}

// reqStr reads a required, non-empty string.
func (o *object) reqStr(key string) string {
	if o.raw(key) == nil {
		o.missing(key, "a string")
		return ""
	}
	s, ok := o.str(key)
	if ok && strings.TrimSpace(s) == "" {
		o.failf(key, "empty string")
	}
	return s
}

// integer reads an optional integer written without fraction or exponent.
func (o *object) integer(key string) (int, bool) {
	v := o.raw(key)
	if v == nil {
		return 0, false
	}
	if kindOf(v) != "a number" {
		o.failf(key, "%s where an integer belongs", kindOf(v))
		return 0, false
	}
	n, err := strconv.ParseInt(string(v), 10, 32)
	if err != nil {
		o.failf(key, "%s is not an integer", v)
		return 0, false
	}
	return int(n), true
}

// reqInt reads a required integer.
func (o *object) reqInt(key string) int {
	if o.raw(key) == nil {
		o.missing(key, "an integer")
		return 0
	}
	n, _ := o.integer(key)
	return n
}

// number reads an optional finite number; absent or null gives nil.
func (o *object) number(key string) *float64 {
	v := o.raw(key)
	if v == nil {
		return nil
	}
	if kindOf(v) != "a number" {
		o.failf(key, "%s where a number belongs", kindOf(v))
		return nil
	}
	x, err := strconv.ParseFloat(string(v), 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		o.failf(key, "%s is not a finite number", v)
		return nil
	}
	return &x
}

// boolean reads a required boolean. When allowString is set, the strings
// "true" and "false" are accepted too (agg_bmk writes dp_attention so).
func (o *object) boolean(key string, allowString bool) bool {
	v := o.raw(key)
	if v == nil {
		o.missing(key, "a boolean")
		return false
	}
	switch string(v) {
	case "true":
		return true
	case "false":
		return false
	}
	if allowString {
		switch string(v) {
		case `"true"`:
			return true
		case `"false"`:
			return false
		}
	}
	o.failf(key, "%s where a boolean belongs", v)
	return false
}

// child reads an optional nested object; absent or null gives nil.
func (o *object) child(key string) *object {
	v := o.raw(key)
	if v == nil {
		return nil
	}
	c, err := decodeObject(v)
	if err != nil {
		o.failf(key, "%v", err)
		return nil
	}
	return c
}

// rowErrors gathers the errors of one file's rows, keeping at most
// maxErrorsPerFile of them and counting the rest.
type rowErrors struct {
	name string
	errs []error
	more int
}

func (r *rowErrors) add(row int, err error) {
	if err == nil {
		return
	}
	if len(r.errs) >= maxErrorsPerFile {
		r.more++
		return
	}
	// One line per problem, each naming file and row.
	for _, e := range splitJoined(err) {
		if len(r.errs) >= maxErrorsPerFile {
			r.more++
			continue
		}
		r.errs = append(r.errs, fmt.Errorf("%s row %d: %w", r.name, row, e))
	}
}

func (r *rowErrors) err() error {
	if r.more > 0 {
		r.errs = append(r.errs, fmt.Errorf("%s: %d more problems not shown", r.name, r.more))
	}
	return errors.Join(r.errs...)
}

// splitJoined undoes errors.Join so each problem gets its own prefix.
func splitJoined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, splitJoined(e)...)
		}
		return out
	}
	return []error{err}
}
