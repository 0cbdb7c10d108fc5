package harness

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// The warning log reads the simulator's logger lines as BLIS writes them,
// however the writes split them: each warning or error once per cause, with
// its count; fatal lines, a panic's stack and plain output are not
// warnings.
func TestWarningLog(t *testing.T) {
	t.Parallel()
	stderr := `time="2026-08-22T10:00:00Z" level=warning msg="HuggingFace config has quantization_config but weight precision could not be determined"
time="2026-08-22T10:00:00Z" level=info msg="--latency-model: auto-calculated total-kv-blocks=1234"
time="2026-08-22T10:00:01Z" level=warning msg="[tick 0001000] preemption: evicting request_3 to make room"
time="2026-08-22T10:00:01Z" level=warning msg="[tick 0002000] preemption: evicting request_9 to make room"
time="2026-08-22T10:00:01Z" level=error msg="a \"quoted\"   message\twith tabs"
time="2026-08-22T10:00:01Z" level=warning msg=unquoted
WARN[0003] as a terminal shows it
::error::a workflow command in plain output
goroutine 1 [running]:
time="2026-08-22T10:00:02Z" level=fatal msg="--latency-model: KV capacity auto-calculation failed"
time="2026-08-22T10:00:01Z" level=warning msg="[tick 0003000] preemption: evicting request_12 to make room"`
	want := []runresult.Warning{
		{Message: "HuggingFace config has quantization_config but weight precision could not be determined", Count: 1},
		{Message: "[tick 0001000] preemption: evicting request_3 to make room", Count: 3},
		{Message: `a "quoted" message with tabs`, Count: 1},
		{Message: "unquoted", Count: 1},
		{Message: "as a terminal shows it", Count: 1},
	}
	for _, size := range []int{1, 7, 64, len(stderr)} {
		var w warningLog
		for s := stderr; s != ""; s = s[min(size, len(s)):] {
			fmt.Fprint(&w, s[:min(size, len(s))])
		}
		got, omitted := w.Result()
		if diff := cmp.Diff(want, got); diff != "" || omitted != 0 {
			t.Errorf("writes of %d bytes: warnings (-want +got):\n%s\nomitted %d", size, diff, omitted)
		}
	}
}

// A point keeps at most runresult.MaxPointWarnings causes, each one line of at
// most 500 characters; a line longer than the log reads is cut, and the
// lines of further causes are counted.
func TestWarningLogBounds(t *testing.T) {
	t.Parallel()
	var w warningLog
	for k := range runresult.MaxPointWarnings + 3 {
		fmt.Fprintf(&w, "level=warning msg=\"cause %c: %s\"\n", 'a'+k, strings.Repeat("x ", 5000))
	}
	got, omitted := w.Result()
	if len(got) != runresult.MaxPointWarnings || omitted != 3 {
		t.Fatalf("kept %d causes, omitted %d; want %d and 3", len(got), omitted, runresult.MaxPointWarnings)
	}
	for _, g := range got {
		if n := utf8.RuneCountInString(g.Message); n > 501 || strings.Contains(g.Message, "\n") {
			t.Errorf("a kept message is %d characters long", n)
		}
	}
}

// FuzzWarningLog: whatever the simulator writes on stderr, and however the
// pipe cuts it into writes, the warning log keeps at most MaxPointWarnings
// causes, each once, with a count, as one line of valid UTF-8 (points.json
// is JSON: two messages differing in invalid bytes would be one after
// encoding), and the same ones as one write of the whole.
func FuzzWarningLog(f *testing.F) {
	f.Add([]byte("time=\"x\" level=warning msg=\"a \\\"b\\\" 12\"\nWARN[0000] c\nlevel=error msg=d"), uint16(7))
	f.Add([]byte("level=warning msg=\"\\xff\\u00e9\"\n\n\n"), uint16(0))
	f.Add([]byte("level=warning msg=\"\xff a\"\nlevel=warning msg=\"\xfe a\"\n"), uint16(20))
	f.Fuzz(func(t *testing.T, raw []byte, cut uint16) {
		var w warningLog
		w.Write(raw)
		got, omitted := w.Result()
		if len(got) > runresult.MaxPointWarnings || omitted < 0 {
			t.Fatalf("kept %d causes, omitted %d", len(got), omitted)
		}
		seen := map[string]bool{}
		for _, g := range got {
			cause := runresult.WarningCause(g.Message)
			if g.Message == "" || g.Count < 1 || strings.ContainsAny(g.Message, "\r\n") || len(g.Message) > 2048 || seen[cause] || !utf8.ValidString(g.Message) {
				t.Fatalf("warning %+v", g)
			}
			seen[cause] = true
		}
		var parts warningLog
		k := int(cut) % (len(raw) + 1)
		parts.Write(raw[:k])
		parts.Write(raw[k:])
		got2, omitted2 := parts.Result()
		if !cmp.Equal(got, got2) || omitted != omitted2 {
			t.Fatalf("written in two parts at %d: %+v (%d omitted), in one: %+v (%d omitted)", k, got2, omitted2, got, omitted)
		}
	})
}

// The stand-in warns as BLIS does: the weight precision of a
// quantization_config it cannot read on every point, a preemption per
// follow-up request when there are more sessions than running slots.
// points.json keeps each point's warnings, the summary groups them by
// cause.
func TestScoreKeepsWarnings(t *testing.T) {
	o := scoreOpts(t, "warnings", "v0.2.0")
	res, err := Score(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	quant := "HuggingFace config has quantization_config but weight precision could not be determined"
	byID := pointsByID(res.Points)
	if p := byID["warn/quant@c=1"]; !p.Scored || !cmp.Equal(p.Warnings, []runresult.Warning{{Message: quant, Count: 1}}) {
		t.Errorf("c=1: scored %v, warnings %+v; want only the quantization warning", p.Scored, p.Warnings)
	}
	p := byID["warn/quant@c=4"]
	if !p.Scored || len(p.Warnings) != 2 || p.Warnings[0].Message != quant || !strings.Contains(p.Warnings[1].Message, "preemption: evicting session_") {
		t.Fatalf("c=4: scored %v, warnings %+v; want the quantization warning and the preemptions", p.Scored, p.Warnings)
	}
	// 4 sessions of 10 prompts and 2 warm-ups: 48 requests, the 4 first
	// rounds are not preempted.
	if n := p.Warnings[1].Count; n != 44 {
		t.Errorf("c=4: %d preemptions, want 44", n)
	}
	want := &runresult.Warnings{Causes: []runresult.WarningGroup{
		{Cause: quant, Example: quant, Points: []string{"warn/quant@c=1", "warn/quant@c=4"}, Units: []string{"warn/quant"}, Count: 2},
		{Cause: "[tick <n>] preemption: evicting session_s<n>_round_<n>_<n> to make room", Example: p.Warnings[1].Message,
			Points: []string{"warn/quant@c=4"}, Units: []string{"warn/quant"}, Count: 44},
	}}
	if diff := cmp.Diff(want, res.Summary.Warnings); diff != "" {
		t.Errorf("summary warnings (-want +got):\n%s", diff)
	}
}
