package harness

import (
	"context"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// A binary states its identity from its link-time values, else from the
// Go toolchain's VCS stamp of a clean checkout; a modified checkout, a
// commit that is not 40 hex and no stamp state none.
func TestStamped(t *testing.T) {
	t.Parallel()
	commit := strings.Repeat("ab", 20)
	vcs := func(modified string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: ModulePath, Version: "v1.2.3"},
			Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: commit}, {Key: "vcs.modified", Value: modified}}}
	}
	for _, tt := range []struct {
		name          string
		link, version string
		info          *debug.BuildInfo
		want          runresult.Harness
		ok            bool
	}{
		{"release build", strings.Repeat("c", 40), "v2.0.0", vcs("true"), runresult.Harness{Commit: strings.Repeat("c", 40), Source: runresult.HarnessAssertion, Version: "v2.0.0"}, true},
		{"linked commit, no release", strings.Repeat("c", 40), "devel", nil, runresult.Harness{Commit: strings.Repeat("c", 40), Source: runresult.HarnessAssertion}, true},
		{"linked commit not 40 hex", "abc", "v2.0.0", vcs("false"), runresult.Harness{}, false},
		{"go build, clean checkout", "", "", vcs("false"), runresult.Harness{Commit: commit, Source: runresult.HarnessAssertion, Version: "v1.2.3"}, true},
		{"go build, modified checkout", "", "", vcs("true"), runresult.Harness{}, false},
		{"pseudo-version", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261203000000-abababababab+dirty"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: commit}, {Key: "vcs.modified", Value: "false"}}}, runresult.Harness{Commit: commit, Source: runresult.HarnessAssertion}, true},
		{"go install @version, no stamp", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, runresult.Harness{}, false},
		{"no build info", "", "", nil, runresult.Harness{}, false},
	} {
		got, ok := Stamped(tt.link, tt.version, tt.info)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: %+v %v; want %+v %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// IdentifyTool takes the binary's own identity unless a harness directory
// is named, whose checkout then says it.
func TestIdentifyTool(t *testing.T) {
	t.Parallel()
	self := &runresult.Harness{Commit: strings.Repeat("d", 40), Source: runresult.HarnessAssertion}
	if h, err := IdentifyTool(context.Background(), "", self); err != nil || h != *self {
		t.Errorf("with a stated identity: %+v %v", h, err)
	}
	if _, err := IdentifyTool(context.Background(), t.TempDir(), self); err == nil || !strings.Contains(err.Error(), "cannot tell the harness commit") {
		t.Errorf("a named directory that is no checkout: %v", err)
	}
}
