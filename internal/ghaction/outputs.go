package ghaction

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/prcheck"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// outputsOf lists the step outputs of an outcome: "<metric>-mape" for each
// headline metric (metric.Headline) is the head's figure in the headline
// tier, as the summary table shows it. A shard run outputs its label but no
// figures: they cover only its slice, and the merge job reports the whole.
func outputsOf(o prcheck.Outcome) [][2]string {
	var summaryPath string
	if o.HeadDir != "" {
		summaryPath = filepath.Join(o.HeadDir, runresult.SummaryFile)
	}
	_, tier, _ := runresult.Headline(o.Head.Tiers)
	out := [][2]string{
		{"summary-path", summaryPath},
		{"markdown-path", o.MarkdownPath},
		{"label", o.Head.Label},
	}
	for _, d := range metric.Headline() {
		var figure string
		if m, _ := tier.Of(d); o.Head.Shard == nil && m.MAPE != nil {
			figure = strconv.FormatFloat(*m.MAPE, 'f', 2, 64)
		}
		out = append(out, [2]string{mapeOutput(d), figure})
	}
	return append(out, [2]string{"comment-url", o.CommentURL})
}

// mapeOutput is the name of the step output of metric d's MAPE.
func mapeOutput(d metric.Def) string { return strings.ReplaceAll(d.Key, "_", "-") + "-mape" }

// outputDelimiter is the fixed heredoc delimiter go-githubactions writes
// around every value in $GITHUB_OUTPUT (name<<DELIM, value, DELIM).
const outputDelimiter = "_GitHubActionsFileCommandDelimeter_"

// setOutputs appends the step outputs to $GITHUB_OUTPUT (nothing when it is
// not set). The library's delimiter is fixed, so a value holding it could
// end its value early and inject another output: such a value is refused,
// and every value is checked before any is written.
func (r runner) setOutputs(outputs [][2]string) error {
	if r.a.Getenv("GITHUB_OUTPUT") == "" {
		return nil
	}
	for _, kv := range outputs {
		name, value := kv[0], kv[1]
		if name == "" || strings.ContainsAny(name, "<\r\n=") {
			return fmt.Errorf("output name %q", name)
		}
		if strings.Contains(value, outputDelimiter) {
			return fmt.Errorf("output %s: the value holds the output delimiter %s", name, outputDelimiter)
		}
	}
	return fileCommand(func() {
		for _, kv := range outputs {
			r.a.SetOutput(kv[0], kv[1])
		}
	})
}

// addStepSummary appends markdown and a line break to $GITHUB_STEP_SUMMARY.
func (r runner) addStepSummary(markdown string) error {
	return fileCommand(func() { r.a.AddStepSummary(markdown) })
}

// fileCommand runs go-githubactions file commands, which panic when the
// file cannot be written, and returns that failure as an error.
func fileCommand(f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	f()
	return nil
}
