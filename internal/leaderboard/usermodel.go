package leaderboard

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
)

// A model the build and its catalog lack may be added to a server's
// user-model store (`leaderboard serve --user-models`): its HuggingFace
// config.json, checked by CheckModelConfig, kept as
// <store>/<short name>/config.json. A run of such a model hands the
// simulator that config through its run directory (UserModelConfigFile,
// `--model-config-folder {run}`), so the result records the config's
// bytes among its input files and verify runs it again from them.
const (
	// UserModelConfigFile is the config's name in the store and in a
	// run's directory.
	UserModelConfigFile = "config.json"
	// MaxModelConfigBytes caps a user model's config.json (real ones are
	// a few KiB; BLIS caps a downloaded one at 10 MiB).
	MaxModelConfigBytes = 1 << 20
)

// ModelDTypes are the torch_dtype (or dtype) values BLIS prices a
// parameter for (sim/latency GetModelConfigFromHF); another leaves it at 0
// bytes, which its roofline model refuses.
var ModelDTypes = []string{"bfloat16", "float16", "float32", "fp8", "int4", "int8", "nf4", "uint8"}

// modelRequired are the fields a config must give as positive integers:
// those BLIS's roofline model refuses at 0 (ValidateRooflineConfig).
var modelRequired = []string{"num_hidden_layers", "hidden_size", "num_attention_heads"}

// modelCounts are the fields BLIS reads as integers when present (shape,
// heads, experts); each must be a non-negative integer.
var modelCounts = []string{"num_key_value_heads", "num_kv_heads", "multi_query_group_num", "intermediate_size",
	"ffn_hidden_size", "vocab_size", "num_experts", "moe_num_experts", "n_routed_experts", "num_local_experts",
	"num_routed_experts", "num_experts_per_tok", "moe_intermediate_size", "shared_expert_intermediate_size",
	"n_shared_experts", "interleave_moe_layer_step", "intermediate_size_mlp", "head_dim", "kv_lora_rank",
	"qk_rope_head_dim", "first_k_dense_replace"}

// CheckModelConfig checks a HuggingFace config.json as the simulator reads
// it: one JSON object of at most MaxModelConfigBytes, no key given twice,
// the text model's fields (a multimodal config's text_config over its
// top level, as BLIS pivots it) with num_hidden_layers, hidden_size and
// num_attention_heads positive integers, torch_dtype (or dtype) one of
// ModelDTypes, every other shape or expert count BLIS reads a
// non-negative integer, and a mixture of experts naming how many experts
// each token takes (at least 1, at most the experts). Every problem is
// named by its field.
func CheckModelConfig(raw []byte) error {
	if len(raw) > MaxModelConfigBytes {
		return fmt.Errorf("config.json is %d bytes, over the cap of %d", len(raw), MaxModelConfigBytes)
	}
	var top map[string]any
	if err := jsoncodec.DecodeUnique(raw, &top); err != nil {
		return fmt.Errorf("config.json: %w", err)
	}
	if top == nil {
		return errors.New("config.json: not a JSON object")
	}
	m := top
	if text, ok := top["text_config"].(map[string]any); ok {
		m = map[string]any{}
		for k, v := range top {
			m[k] = v
		}
		for k, v := range text {
			m[k] = v
		}
	}
	var probs []string
	count := func(key string, min float64) (int, bool) {
		v, ok := m[key]
		if !ok {
			return 0, false
		}
		f, isNum := v.(float64)
		if !isNum || f != math.Trunc(f) || f < min || f > math.MaxInt32 {
			probs = append(probs, fmt.Sprintf("%s: %s is not an integer of at least %g", key, shown(v), min))
			return 0, false
		}
		return int(f), true
	}
	for _, k := range modelRequired {
		if _, ok := m[k]; !ok {
			probs = append(probs, k+": missing (the simulator needs it)")
			continue
		}
		count(k, 1)
	}
	for _, k := range modelCounts {
		count(k, 0)
	}
	dtype, key := m["torch_dtype"], "torch_dtype"
	if _, has := m["torch_dtype"]; !has && m["dtype"] != nil {
		dtype, key = m["dtype"], "dtype"
	}
	if s, ok := dtype.(string); !ok || !slices.Contains(ModelDTypes, s) {
		probs = append(probs, fmt.Sprintf("%s: %s is not a precision the simulator prices (one of %s)", key, shown(dtype), strings.Join(ModelDTypes, ", ")))
	}
	experts := 0
	for _, k := range []string{"num_experts", "moe_num_experts", "n_routed_experts", "num_local_experts", "num_routed_experts"} {
		if f, ok := m[k].(float64); ok && f >= 2 && experts == 0 {
			experts = int(f)
		}
	}
	if experts >= 2 {
		perTok, _ := m["num_experts_per_tok"].(float64)
		if perTok < 1 || int(perTok) > experts {
			probs = append(probs, fmt.Sprintf("num_experts_per_tok: %s: a mixture of %d experts needs from 1 to %d experts per token", shown(m["num_experts_per_tok"]), experts, experts))
		}
	}
	if len(probs) > 0 {
		slices.Sort(probs)
		return errors.New("config.json: " + strings.Join(slices.Compact(probs), "; "))
	}
	return nil
}

// shown is v as a problem quotes it: JSON, cut to 40 bytes; "missing" for nil.
func shown(v any) string {
	if v == nil {
		return "missing"
	}
	raw, err := jsoncodec.Encode(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if r := []rune(strings.TrimSpace(string(raw))); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return strings.TrimSpace(string(raw))
}
