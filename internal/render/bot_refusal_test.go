package render

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/inference-sim/accuracy-dashboard/internal/golden"
	"github.com/inference-sim/accuracy-dashboard/internal/textcut"
)

func sampleRefusal(reasons ...string) Refusal {
	return Refusal{What: "Accuracy snapshot", Kind: "report", Artifact: "accuracy`report", RunID: 4242,
		RunURL: "https://github.com/inference-sim/accuracy-dashboard/actions/runs/4242", Workflow: ".github/workflows/publish.yml", Reasons: reasons}
}

func TestRefusalComment(t *testing.T) {
	t.Parallel()
	got := RefusalComment(sampleRefusal(`label is "experimental": model @meta-llama/Llama-3 fixes #12`+"\n<script>", "coverage does not balance"))
	golden.Assert(t, filepath.Join("testdata", "refusal-comment.golden"), []byte(got))
	for _, bad := range []string{"@meta-llama", "#12", "<script>", "accuracy`report"} {
		if strings.Contains(got, bad) {
			t.Errorf("comment quotes %q undefused:\n%s", bad, got)
		}
	}
	if !strings.HasPrefix(got, RefusalMarker(4242)+"\n") || RefusalMarker(4242) == RefusalMarker(4243) || !strings.HasPrefix(RefusalMarker(1), RefusalMarkerPrefix) {
		t.Error("the comment does not start with its run's own marker")
	}
	r := sampleRefusal("x")
	r.RunURL, r.Workflow = "", ""
	if got := RefusalComment(r); !strings.Contains(got, "of run 4242 was refused:\n\n- x\n") {
		t.Errorf("a run without address or workflow:\n%s", got)
	}

	// Too many or too long reasons: the body stays within GitHub's limit
	// and says what it dropped.
	reasons := []string{strings.Repeat("é", 3000)}
	for range 100 {
		reasons = append(reasons, strings.Repeat("x", 1000))
	}
	long := RefusalComment(sampleRefusal(reasons...))
	if len(long) > textcut.MaxGitHubBody || !utf8.ValidString(long) || !strings.Contains(long, "more reasons truncated") ||
		!strings.Contains(long, "é …\n") {
		t.Errorf("long refusal: %d bytes, valid UTF-8 %v, truncated visibly %v", len(long), utf8.ValidString(long), strings.Contains(long, "truncated"))
	}
}
