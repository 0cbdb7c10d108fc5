package harness

import (
	"os"
	"slices"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/simcli"
)

// The real simulator's `convert --help` at f90a1e3a lists its converters
// under "Available Commands:" (no otel or weka yet).
func TestParseSubcommandsOfRealConvertHelp(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/help/f90a1e3a-convert.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ParseSubcommands(string(raw)), []string{"inference-perf", "preset", "servegen"}; !slices.Equal(got, want) {
		t.Fatalf("subcommands %q, want %q", got, want)
	}
	// Its flags are convert's own: a format is never read from flags.
	if f := simcli.ParseFlags(string(raw)); len(f) != 1 || !f.Has("help") {
		t.Fatalf("flags %v", f)
	}
}
