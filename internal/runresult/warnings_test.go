package runresult

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWarningCause(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]string{
		"HuggingFace config has quantization_config but weight precision could not be determined":                                                                                                        "HuggingFace config has quantization_config but weight precision could not be determined",
		"--latency-model: KV capacity auto-calculation failed: CalculateKVBlocks: model overhead (226.27 GiB = 217.07 weights) exceeds available GPU memory (144.00 GiB = 80.0 GiB × 90% util × 2 GPUs)": "--latency-model: KV capacity auto-calculation failed: CalculateKVBlocks: model overhead (<n> GiB = <n> weights) exceeds available GPU memory (<n> GiB = <n> GiB × <n>% util × <n> GPUs)",
		"[tick 0001234] preemption: evicting session_s0_round_1_17 to make room":                                                                                                                         "[tick <n>] preemption: evicting session_s<n>_round_<n>_<n> to make room",
		"": "",
	} {
		if got := WarningCause(msg); got != want {
			t.Errorf("WarningCause(%q) = %q, want %q", msg, got, want)
		}
	}
}

// Summarize groups the points' warnings by cause, scored or not, the
// causes of the most points first, and the summary and points round-trip
// through Write and Read with them.
func TestSummarizeWarnings(t *testing.T) {
	t.Parallel()
	quant := "HuggingFace config has quantization_config but weight precision could not be determined"
	a, b, c, d := pt("u", 1, "resolved", 10, 11), pt("u", 2, "resolved", 20, 21), pt("v", 1, "resolved", 10, 0), pt("v", 2, "resolved", 10, 12)
	a.Warnings = []Warning{{quant, 1}, {"[tick 0000012] preemption: evicting request_3 to make room", 4}}
	b.Warnings = []Warning{{"[tick 0000099] preemption: evicting request_7 to make room", 2}, {quant, 1}}
	c.Warnings = []Warning{{quant, 1}}
	d.Warnings, d.WarningsOmitted = []Warning{{"dropping request request_1: input length 5000 >= MaxModelLen 4096 (no room for output)", 1}}, 3
	s, err := Summarize([]Point{d, c, b, a}, testProvenance(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := &Warnings{PointsCut: 1, Causes: []WarningGroup{
		{Cause: quant, Example: quant, Points: []string{"u@c=1", "u@c=2", "v@c=1"}, Units: []string{"u", "v"}, Count: 3},
		{Cause: "[tick <n>] preemption: evicting request_<n> to make room", Example: "[tick 0000012] preemption: evicting request_3 to make room",
			Points: []string{"u@c=1", "u@c=2"}, Units: []string{"u"}, Count: 6},
		{Cause: "dropping request request_<n>: input length <n> >= MaxModelLen <n> (no room for output)",
			Example: "dropping request request_1: input length 5000 >= MaxModelLen 4096 (no room for output)", Points: []string{"v@c=2"}, Units: []string{"v"}, Count: 1},
	}}
	if diff := cmp.Diff(want, s.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}

	dir := t.TempDir()
	pts := []Point{a, b, c, d}
	if err := Write(dir, Output{Result: Result{Summary: s, Points: pts}}); err != nil {
		t.Fatal(err)
	}
	r, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	s2, p2 := r.Summary, r.Points
	if diff := cmp.Diff(s.Warnings, s2.Warnings); diff != "" {
		t.Errorf("summary warnings after a round trip (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(SortPoints(pts), p2); diff != "" {
		t.Errorf("points after a round trip (-want +got):\n%s", diff)
	}

	// No warning at all is recorded as such: an empty list, not an absent one.
	none, err := Summarize([]Point{pt("u", 1, "resolved", 10, 11)}, testProvenance(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if none.Warnings == nil || none.Warnings.Causes == nil || len(none.Warnings.Causes) != 0 {
		t.Errorf("warnings of a run without any = %+v, want recorded and empty", none.Warnings)
	}
}

func TestDiffWarnings(t *testing.T) {
	t.Parallel()
	g := func(cause string) WarningGroup {
		return WarningGroup{Cause: cause, Example: cause, Points: []string{"u@c=1"}, Units: []string{"u"}, Count: 1}
	}
	base := Summary{Warnings: &Warnings{Causes: []WarningGroup{g("a <n>"), g("b")}}}
	head := Summary{Warnings: &Warnings{Causes: []WarningGroup{g("b"), g("c")}}}
	want := WarningsDiff{Known: true, New: []WarningGroup{g("c")}, Gone: []WarningGroup{g("a <n>")}}
	if diff := cmp.Diff(want, DiffWarnings(base, head)); diff != "" {
		t.Errorf("DiffWarnings (-want +got):\n%s", diff)
	}
	// A summary written before warnings were kept says nothing changed.
	if d := DiffWarnings(Summary{}, head); d.Known || d.New != nil || d.Gone != nil {
		t.Errorf("DiffWarnings against an old summary = %+v, want unknown and empty", d)
	}
}
