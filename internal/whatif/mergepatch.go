package whatif

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
)

// ApplyMergePatch applies patch, a JSON merge patch (RFC 7396), to doc, a
// JSON document, and returns the result in the canonical layout
// (jsoncodec.Encode: keys sorted, numbers as written). A member of the patch
// whose value is null removes that member; an object merges into the
// object it names, recursively; any other value replaces it. Either input
// that is not exactly one JSON value is an error naming it.
func ApplyMergePatch(doc, patch []byte) ([]byte, error) {
	d, err := decodeOne(doc)
	if err != nil {
		return nil, fmt.Errorf("document: %w", err)
	}
	p, err := decodeOne(patch)
	if err != nil {
		return nil, fmt.Errorf("merge patch: %w", err)
	}
	return jsoncodec.Encode(mergePatch(d, p))
}

// mergePatch is RFC 7396's MergePatch(Target, Patch). It does not modify
// target: an object is copied before members are set or removed.
func mergePatch(target, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	tm, ok := target.(map[string]any)
	out := make(map[string]any, len(tm)+len(pm))
	if ok {
		for k, v := range tm {
			out[k] = v
		}
	}
	for k, v := range pm {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = mergePatch(out[k], v)
	}
	return out
}

// decodeOne decodes exactly one JSON value, keeping numbers as written.
func decodeOne(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty")
		}
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

func compact(dst *bytes.Buffer, src []byte) error { return json.Compact(dst, src) }
