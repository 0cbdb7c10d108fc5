package githubfake

import (
	"github.com/getkin/kin-openapi/openapi3"
)

// complete returns v with every property that the schema requires and v
// lacks filled with a placeholder of the right type, recursing into the
// objects and arrays v holds. The fake's handlers set the fields that carry
// meaning (ids, shas, logins, states); complete supplies the dozens of
// required fields GitHub's schemas list that no client here reads (avatar
// URLs, node ids, counters), so that every response validates. Placeholders
// are null where the schema allows null, else an empty string, zero, false,
// an empty array, the first enum value, or a fixed date or URL for those
// formats. For oneOf/anyOf, the alternative that names most of v's keys is
// the one completed.
func complete(ref *openapi3.SchemaRef, v any) any {
	if ref == nil || ref.Value == nil {
		return v
	}
	s := ref.Value
	if alts := append(append(openapi3.SchemaRefs{}, s.OneOf...), s.AnyOf...); len(alts) > 0 {
		return complete(bestAlternative(alts, v), v)
	}
	switch val := v.(type) {
	case map[string]any:
		for _, sub := range s.AllOf {
			val = complete(sub, val).(map[string]any)
		}
		for name, prop := range s.Properties {
			if pv, ok := val[name]; ok && pv != nil {
				val[name] = complete(prop, pv)
			}
		}
		for _, name := range s.Required {
			if _, ok := val[name]; !ok {
				val[name] = placeholder(s.Properties[name], 0)
			}
		}
		return val
	case []any:
		if s.Items != nil {
			for i := range val {
				val[i] = complete(s.Items, val[i])
			}
		}
		return val
	}
	return v
}

// bestAlternative picks the oneOf/anyOf alternative v was built for: for an
// object, the object schema naming most of v's keys; for an array, the first
// array schema.
func bestAlternative(alts openapi3.SchemaRefs, v any) *openapi3.SchemaRef {
	var best *openapi3.SchemaRef
	bestScore := -1
	for _, alt := range alts {
		if alt.Value == nil {
			continue
		}
		score := -1
		switch val := v.(type) {
		case map[string]any:
			if alt.Value.Type.Is("object") || len(alt.Value.Properties) > 0 {
				score = 0
				for k := range val {
					if _, ok := alt.Value.Properties[k]; ok {
						score++
					}
				}
			}
		case []any:
			if alt.Value.Type.Is("array") {
				score = 1
			}
		}
		if score > bestScore {
			best, bestScore = alt, score
		}
	}
	return best
}

const (
	placeholderDate = "2024-01-01T00:00:00Z"
	placeholderURL  = "https://github.invalid/placeholder"
)

// placeholder builds the smallest value valid against ref (see complete).
func placeholder(ref *openapi3.SchemaRef, depth int) any {
	if ref == nil || ref.Value == nil || depth > 12 {
		return nil
	}
	s := ref.Value
	if s.Nullable {
		return nil
	}
	if len(s.AllOf) > 0 {
		out := map[string]any{}
		for _, sub := range s.AllOf {
			if m, ok := placeholder(sub, depth+1).(map[string]any); ok {
				for k, v := range m {
					out[k] = v
				}
			}
		}
		return complete(ref, out)
	}
	if len(s.OneOf) > 0 {
		return placeholder(s.OneOf[0], depth+1)
	}
	if len(s.AnyOf) > 0 {
		return placeholder(s.AnyOf[0], depth+1)
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	switch {
	case s.Type.Is("string"):
		switch s.Format {
		case "date-time":
			return placeholderDate
		case "uri", "url":
			return placeholderURL
		case "email":
			return "placeholder@github.invalid"
		}
		return ""
	case s.Type.Is("integer"), s.Type.Is("number"):
		if s.Min != nil {
			return *s.Min
		}
		return 0
	case s.Type.Is("boolean"):
		return false
	case s.Type.Is("array"):
		return []any{}
	}
	out := map[string]any{}
	for _, name := range s.Required {
		out[name] = placeholder(s.Properties[name], depth+1)
	}
	return out
}
