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
