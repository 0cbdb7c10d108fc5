package render

import (
	"fmt"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
)

// NightlyPlan is the nightly plan's job summary: what the plan names, and
// either that nothing changed since the snapshot lastSnapshot (changes
// empty) or what did, one line per change (nightly.Changes). The data
// versions, the snapshot id and the changes come from files and are
// escaped.
func NightlyPlan(p nightly.Plan, changes []string, lastSnapshot string) string {
	var data []string
	for _, d := range p.Data {
		data = append(data, d.Name+" "+d.Version)
	}
	what := fmt.Sprintf("simulator %s (`%s`), harness %s (`%s`), data %s", Cell(p.Simulator.Release), ident.Short(p.Simulator.Commit),
		Cell(p.Harness.Release), ident.Short(p.Harness.Commit), Cell(strings.Join(data, ", ")))
	if len(changes) == 0 {
		return fmt.Sprintf("**Accuracy nightly: nothing changed** since snapshot %s (%s). Nothing to evaluate.\n", Cell(lastSnapshot), what)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**Accuracy nightly: evaluating** %s. What changed:\n\n", what)
	for _, c := range changes {
		fmt.Fprintf(&b, "- %s\n", Cell(c))
	}
	return b.String()
}
