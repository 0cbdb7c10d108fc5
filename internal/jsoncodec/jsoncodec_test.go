package jsoncodec

import (
	"strings"
	"testing"
)

func TestEncodeIsCanonical(t *testing.T) {
	t.Parallel()
	got, err := Encode(map[string]any{"b": "<x>", "a": []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": [\n    1\n  ],\n  \"b\": \"<x>\"\n}\n"
	if string(got) != want {
		t.Errorf("Encode = %q, want %q", got, want)
	}
}

func TestDecode(t *testing.T) {
	t.Parallel()
	type doc struct {
		A int `json:"a"`
	}
	for _, tt := range []struct {
		name, in, want string
	}{
		{"valid", `{"a": 1}`, ""},
		{"valid with spaces after", "{\"a\": 1}\n\n", ""},
		{"empty", ``, "empty file"},
		{"truncated", `{"a": `, "truncated JSON"},
		{"invalid", `{"a": x}`, "invalid JSON at byte"},
		{"unknown field", `{"a": 1, "b": 2}`, `unknown field "b"`},
		{"trailing value", `{"a": 1} {"a": 2}`, "trailing data"},
		{"trailing garbage", `{"a": 1} ]`, "trailing data"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var d doc
			err := Decode([]byte(tt.in), &d)
			if tt.want == "" {
				if err != nil || d.A != 1 {
					t.Fatalf("Decode(%q) = %v, %+v", tt.in, err, d)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Decode(%q) = %v, want an error containing %q", tt.in, err, tt.want)
			}
		})
	}
}

// TestDecodeUnique: a key given twice, at the top, nested or in an array,
// or twice but for case, is refused naming it; distinct keys, and the
// same key in two objects, are not.
func TestDecodeUnique(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"a":1,"a":2}`:                       `a: the key is given twice`,
		`{"a":1,"b":{"c":1,"c":2}}`:           `b.c: the key is given twice`,
		`{"a":1,"b":[{"c":1},{"c":1,"C":2}]}`: `b[1].C: the key is given twice`,
		`{"group":"x","Group":"y"}`:           `Group: the key is given twice`,
		`{"a":1,"b":[{"c":1},{"c":2}]}`:       ``,
		`{"a":1,"b":{"a":1}}`:                 ``,
		`{"a":1,"a":`:                         `truncated JSON`,
	} {
		var v map[string]any
		err := DecodeUnique([]byte(in), &v)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("DecodeUnique(%s) = %v, want %q", in, err, want)
		}
	}
}

// FuzzDecodeUnique: no input makes DecodeUnique panic, and what it
// accepts is what Decode accepts.
func FuzzDecodeUnique(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":[{"b":{"c":1,"C":2}}]}`, `[1,2,{}]`, `"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var u, d any
		if DecodeUnique(raw, &u) == nil && Decode(raw, &d) != nil {
			t.Errorf("DecodeUnique accepted what Decode refuses: %q", raw)
		}
	})
}
