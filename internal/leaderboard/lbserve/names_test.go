package lbserve

import (
	"slices"
	"testing"
)

// The nearest names of the typos among the names BLIS v0.7.15 and
// f90a1e3a run (their model_configs/ and hardware_config.json).
func TestNearest(t *testing.T) {
	t.Parallel()
	models := []string{"codellama-34b-instruct-hf", "deepseek-v2-lite", "llama-2-7b-hf", "llama-3.1-70b-instruct", "llama-3.1-8b-instruct",
		"mistral-nemo-instruct-2407", "mixtral-8x7b-v0.1", "qwen2.5-7b-instruct", "qwen3-14b", "qwen3-30b-a3b", "yi-34b"}
	gpus := []string{"A100-80", "A100-SXM", "H100", "L40S"}
	for _, tt := range []struct {
		name  string
		valid []string
		want  []string
	}{
		{"qwen3-15b", models, []string{"qwen3-14b", "qwen3-30b-a3b"}},
		{"H300", gpus, []string{"H100"}},
		{"h100", gpus, []string{"H100"}},
		{"a100", gpus, []string{"A100-80", "A100-SXM", "H100"}},
		{"TPUv5", gpus, nil},
		{"x", nil, nil},
	} {
		if got := nearest(tt.name, tt.valid); !slices.Equal(got, tt.want) {
			t.Errorf("nearest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	if d := distance("kitten", "sitting"); d != 3 {
		t.Errorf("distance(kitten, sitting) = %d, want 3", d)
	}
}
