package whatif

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestApplyMergePatchRFC7396 runs the examples of RFC 7396, Appendix A.
func TestApplyMergePatchRFC7396(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ doc, patch, want string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`["a","b"]`, `["c","d"]`, `["c","d"]`},
		{`{"a":"b"}`, `["c"]`, `["c"]`},
		{`{"a":"foo"}`, `null`, `null`},
		{`{"a":"foo"}`, `"bar"`, `"bar"`},
		{`{"e":null}`, `{"a":1}`, `{"a":1,"e":null}`},
		{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
	} {
		got, err := ApplyMergePatch([]byte(tc.doc), []byte(tc.patch))
		if err != nil {
			t.Fatalf("%s + %s: %v", tc.doc, tc.patch, err)
		}
		if !jsonEqual(t, got, []byte(tc.want)) {
			t.Errorf("%s + %s = %s, want %s", tc.doc, tc.patch, got, tc.want)
		}
	}
}

func TestApplyMergePatchKeepsNumbersAndRefusesJunk(t *testing.T) {
	t.Parallel()
	got, err := ApplyMergePatch([]byte(`{"x": 1e-05, "q": {"m": "mxfp4"}}`), []byte(`{"q": {"bits": 4}}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"q\": {\n    \"bits\": 4,\n    \"m\": \"mxfp4\"\n  },\n  \"x\": 1e-05\n}\n"; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	for _, tc := range []struct{ doc, patch, want string }{
		{``, `{}`, "document: empty"},
		{`{}`, `{} {}`, "merge patch: trailing data"},
		{`{"a":`, `{}`, "document:"},
	} {
		if _, err := ApplyMergePatch([]byte(tc.doc), []byte(tc.patch)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q + %q: err = %v, want %q", tc.doc, tc.patch, err, tc.want)
		}
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

// FuzzApplyMergePatch checks that a merge patch is idempotent (RFC 7396:
// applying it to its own result changes nothing) and never panics.
func FuzzApplyMergePatch(f *testing.F) {
	f.Add([]byte(`{"a":{"b":1}}`), []byte(`{"a":{"b":null,"c":[1]}}`))
	f.Add([]byte(`[1]`), []byte(`{"x":null}`))
	f.Fuzz(func(t *testing.T, doc, patch []byte) {
		once, err := ApplyMergePatch(doc, patch)
		if err != nil {
			return
		}
		twice, err := ApplyMergePatch(once, patch)
		if err != nil {
			t.Fatalf("the result %s does not take the patch again: %v", once, err)
		}
		if string(once) != string(twice) {
			t.Fatalf("not idempotent: %s then %s", once, twice)
		}
	})
}
