package leaderboard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every model config the real simulator ships and the bundled catalog
// holds passes the check: it asks for no more than BLIS reads.
func TestCheckModelConfigTakesRealConfigs(t *testing.T) {
	t.Parallel()
	var files []string
	for _, glob := range []string{"../../corpus/catalog/models/*/config.json"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if src := os.Getenv("BLIS_SOURCE"); src != "" {
		m, _ := filepath.Glob(filepath.Join(src, "model_configs", "*", "config.json"))
		files = append(files, m...)
	}
	if len(files) < 2 {
		t.Fatalf("found %d configs", len(files))
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckModelConfig(raw); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestCheckModelConfigRefusals(t *testing.T) {
	t.Parallel()
	const ok = `"num_hidden_layers": 4, "hidden_size": 512, "num_attention_heads": 8, "torch_dtype": "bfloat16"`
	for _, c := range []struct{ name, raw, want string }{
		{"not JSON", `{`, "config.json: truncated JSON"},
		{"an array", `[1]`, "config.json: json: cannot unmarshal array"},
		{"null", `null`, "config.json: not a JSON object"},
		{"trailing data", `{` + ok + `} {}`, "config.json: "},
		{"a key twice", `{` + ok + `, "hidden_size": 1024}`, "hidden_size: the key is given twice"},
		{"no layers", `{"hidden_size": 512, "num_attention_heads": 8, "torch_dtype": "bfloat16"}`, "num_hidden_layers: missing (the simulator needs it)"},
		{"zero heads", `{"num_hidden_layers": 4, "hidden_size": 512, "num_attention_heads": 0, "torch_dtype": "bfloat16"}`, "num_attention_heads: 0 is not an integer of at least 1"},
		{"a string count", `{` + ok + `, "num_key_value_heads": "8"}`, `num_key_value_heads: "8" is not an integer of at least 0`},
		{"a fraction", `{` + ok + `, "head_dim": 64.5}`, "head_dim: 64.5 is not an integer of at least 0"},
		{"negative", `{` + ok + `, "kv_lora_rank": -1}`, "kv_lora_rank: -1 is not an integer of at least 0"},
		{"no dtype", `{"num_hidden_layers": 4, "hidden_size": 512, "num_attention_heads": 8}`, "torch_dtype: missing is not a precision the simulator prices"},
		{"unknown dtype", `{"num_hidden_layers": 4, "hidden_size": 512, "num_attention_heads": 8, "dtype": "float8_e4m3"}`, `dtype: "float8_e4m3" is not a precision`},
		{"experts without per token", `{` + ok + `, "num_local_experts": 8}`, "num_experts_per_tok: missing: a mixture of 8 experts needs from 1 to 8 experts per token"},
		{"more per token than experts", `{` + ok + `, "n_routed_experts": 8, "num_experts_per_tok": 9}`, "num_experts_per_tok: 9: a mixture of 8 experts"},
		{"text_config pivoted", `{"torch_dtype": "bfloat16", "text_config": {"num_hidden_layers": 0, "hidden_size": 512, "num_attention_heads": 8}}`, "num_hidden_layers: 0 is not an integer"},
		{"too big", `{` + ok + `, "pad": "` + strings.Repeat("x", MaxModelConfigBytes) + `"}`, "over the cap of 1048576"},
	} {
		err := CheckModelConfig([]byte(c.raw))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
	if err := CheckModelConfig([]byte(`{` + ok + `, "num_experts": 8, "num_experts_per_tok": 2, "text_config": {"hidden_size": 1024}}`)); err != nil {
		t.Errorf("a good mixture of experts: %v", err)
	}
}

// FuzzCheckModelConfig: any bytes are refused with a message naming
// config.json, or accepted as an object with the required fields.
func FuzzCheckModelConfig(f *testing.F) {
	f.Add([]byte(`{"num_hidden_layers": 4, "hidden_size": 512, "num_attention_heads": 8, "torch_dtype": "bfloat16"}`))
	f.Add([]byte(`{"text_config": {"num_hidden_layers": 4}, "num_local_experts": 8}`))
	f.Add([]byte(`{"a": 1, "A": 2}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		err := CheckModelConfig(raw)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "config.json") {
				t.Fatalf("refusal does not name config.json: %v", err)
			}
			return
		}
		for _, k := range []string{"num_hidden_layers", "hidden_size", "num_attention_heads"} {
			if !strings.Contains(string(raw), k) {
				t.Fatalf("accepted without %s: %q", k, raw)
			}
		}
	})
}
